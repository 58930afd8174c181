/* util/pool.c: worker threads over a bounded ring of pending jobs (see pool.h).
 *
 * One mutex guards the ring and the counters; `not_empty` wakes workers, `not_full`
 * wakes blocked submitters, `idle` wakes pm_pool_wait(). The cancellation flag is also
 * an atomic so running jobs can poll it without the lock. */
#include "util/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct pool_job {
  pm_pool_fn fn, drop;
  void *arg;
} pool_job;

struct pm_pool {
  pthread_mutex_t mu;
  pthread_cond_t not_empty, not_full, idle;
  pool_job *ring;
  size_t cap, head, count; /* pending jobs: ring[head .. head+count) mod cap */
  int running;             /* jobs started and not yet finished */
  bool stopping;           /* pm_pool_free: workers exit once the ring is empty */
  atomic_bool cancelled;
  int nthreads;
  pthread_t *threads;
};

int pm_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > 256 ? 256 : (int)n;
}

static void *worker_main(void *arg) {
  pm_pool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->count == 0 && !p->stopping) pthread_cond_wait(&p->not_empty, &p->mu);
    if (p->count == 0) break; /* stopping and nothing left */
    pool_job j = p->ring[p->head];
    p->head = (p->head + 1) % p->cap;
    p->count--;
    p->running++;
    pthread_cond_signal(&p->not_full);
    pthread_mutex_unlock(&p->mu);
    j.fn(j.arg);
    pthread_mutex_lock(&p->mu);
    p->running--;
    if (p->running == 0 && p->count == 0) pthread_cond_broadcast(&p->idle);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static void pool_destroy(pm_pool *p) {
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->not_empty);
  pthread_cond_destroy(&p->not_full);
  pthread_cond_destroy(&p->idle);
  pm_free(p->ring);
  pm_free(p->threads);
  pm_free(p);
}

static void pool_join(pm_pool *p) {
  pthread_mutex_lock(&p->mu);
  p->stopping = true;
  pthread_cond_broadcast(&p->not_empty);
  pthread_cond_broadcast(&p->not_full);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
}

int pm_pool_new(pm_pool **out, int nthreads, size_t queue_cap, paimon_error *err) {
  *out = NULL;
  if (nthreads < 1 || nthreads > 256 || queue_cap < 1 || queue_cap > (1u << 20))
    return pm_fail(err, PAIMON_EINVAL,
                   "worker pool: %d threads, queue of %zu jobs (want 1..256, "
                   "1..1048576)",
                   nthreads, queue_cap);
  pm_pool *p = pm_calloc(1, sizeof *p);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->not_empty, NULL);
  pthread_cond_init(&p->not_full, NULL);
  pthread_cond_init(&p->idle, NULL);
  atomic_init(&p->cancelled, false);
  p->cap = queue_cap;
  p->ring = pm_calloc(queue_cap, sizeof *p->ring);
  p->threads = pm_calloc((size_t)nthreads, sizeof *p->threads);
  if (!p->ring || !p->threads) {
    pool_destroy(p);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  for (int i = 0; i < nthreads; i++) {
    int e = pthread_create(&p->threads[i], NULL, worker_main, p);
    if (e) {
      pool_join(p); /* the nthreads started so far */
      pool_destroy(p);
      return pm_fail(err, e == EAGAIN ? PAIMON_ENOMEM : PAIMON_EIO,
                     "worker pool: cannot start thread %d of %d: %s", i + 1, nthreads, strerror(e));
    }
    p->nthreads = i + 1;
  }
  *out = p;
  return 0;
}

int pm_pool_submit(pm_pool *p, pm_pool_fn fn, pm_pool_fn drop, void *arg) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->cancelled, false);
  while (p->count == p->cap && !p->stopping) pthread_cond_wait(&p->not_full, &p->mu);
  if (p->stopping) {
    pthread_mutex_unlock(&p->mu);
    if (drop) drop(arg);
    return PAIMON_ESTATE;
  }
  p->ring[(p->head + p->count) % p->cap] = (pool_job){fn, drop, arg};
  p->count++;
  pthread_cond_signal(&p->not_empty);
  pthread_mutex_unlock(&p->mu);
  return 0;
}

void pm_pool_cancel(pm_pool *p) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->cancelled, true);
  size_t n = p->count;
  pool_job *dropped = n ? pm_calloc(n, sizeof *dropped) : NULL;
  for (size_t i = 0; i < n; i++) {
    pool_job j = p->ring[(p->head + i) % p->cap];
    if (dropped) dropped[i] = j;
    else if (j.drop) j.drop(j.arg); /* no room to defer: drop under the lock */
  }
  p->head = 0;
  p->count = 0;
  pthread_cond_broadcast(&p->not_full);
  if (p->running == 0) pthread_cond_broadcast(&p->idle);
  pthread_mutex_unlock(&p->mu);
  for (size_t i = 0; dropped && i < n; i++)
    if (dropped[i].drop) dropped[i].drop(dropped[i].arg);
  pm_free(dropped);
}

bool pm_pool_cancelled(const pm_pool *p) { return atomic_load(&p->cancelled); }

void pm_pool_wait(pm_pool *p) {
  pthread_mutex_lock(&p->mu);
  while (p->count > 0 || p->running > 0) pthread_cond_wait(&p->idle, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

int pm_pool_threads(const pm_pool *p) { return p->nthreads; }

void pm_pool_free(pm_pool *p) {
  if (!p) return;
  pm_pool_cancel(p);
  pm_pool_wait(p);
  pool_join(p);
  pool_destroy(p);
}
