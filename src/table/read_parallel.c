/* table/read_parallel.c: reading splits on a pool of worker threads (option
 * read.threads, issue 23).
 *
 * The splits are cut into tasks: an append split (and a primary-key split that needs no
 * merge) gives one task per data file, since its files are read one after another
 * anyway; a primary-key split that merges gives one task (each split is one bucket, so
 * buckets merge in parallel); data-evolution splits stay whole (their files are stitched
 * by row id). Each task is read by the serial reader (read.c) on a worker, which queues
 * the task's batches. Workers take tasks in order, so the tasks being read are always a
 * window starting at the oldest unfinished one.
 *
 * Ordered (read.ordered=true): the consumer drains task 0, then task 1, ...: the batches
 * are exactly the serial stream's, in its order. Each task queues at most
 * PAR_TASK_BATCHES batches; a worker whose task is full waits. Unordered: one shared
 * queue of PAR_TASK_BATCHES per worker, batches in completion order (the same multiset
 * of rows). Either way at most threads x PAR_TASK_BATCHES batches wait, plus one being
 * built per worker: memory is bounded by the batch size, not by the table.
 *
 * Cancellation: releasing the stream (a consumer that stops early, e.g. --limit) sets
 * the flag that workers test between batches and while they wait for room, then joins
 * them; they stop after the batch they are decoding and free everything they hold.
 *
 * Errors: a task's failure is the stream's failure once the consumer reaches it
 * (ordered: after every earlier batch, as the serial stream would fail; unordered: at
 * once). The stream then stays failed, with the status and message of the task. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <paimon/read.h>

#include "expr/expr.h"
#include "table/read_internal.h"
#include "util/pool.h"
#include "util/vec.h"

#define PAR_TASK_BATCHES 4

typedef struct bnode {
  struct ArrowArray a;
  struct bnode *next;
} bnode;

typedef struct bqueue {
  bnode *head, *tail;
  size_t n;
} bqueue;

typedef struct ptask {
  paimon_split *split; /* owned: the split, or one file of it */
  bqueue q;            /* ordered mode: this task's batches */
  bool done;
  int status; /* PAIMON_* of its failure; 0 when none */
  char *msg;  /* its message (owned) */
} ptask;

typedef struct par_state {
  paimon_table *t;
  struct ArrowArrayStream serial; /* over every split: the schema; never read */
  char **columns;                 /* NULL-terminated copy, or NULL */
  paimon_predicate *filter;
  bool ordered;
  int nthreads;
  ptask *tasks;
  size_t ntasks;

  pthread_mutex_t mu;
  pthread_cond_t room; /* a queue shrank, or cancellation */
  pthread_cond_t data; /* a batch arrived, or a task ended */
  size_t next_task;    /* the next task a worker takes */
  size_t cur;          /* ordered: the task the consumer drains */
  size_t ndone;
  bqueue shared; /* unordered: every task's batches */
  atomic_bool cancel;
  pm_pool *pool; /* started by the first get_next */

  char last_error[600];
  int status;
  bool failed, finished;
} par_state;

static void bq_free(bqueue *q) {
  for (bnode *n = q->head, *nx; n; n = nx) {
    nx = n->next;
    if (n->a.release) n->a.release(&n->a);
    pm_free(n);
  }
  memset(q, 0, sizeof *q);
}

static void bq_push(bqueue *q, bnode *n) {
  n->next = NULL;
  if (q->tail) q->tail->next = n;
  else q->head = n;
  q->tail = n;
  q->n++;
}

static bnode *bq_pop(bqueue *q) {
  bnode *n = q->head;
  if (!n) return NULL;
  q->head = n->next;
  if (!q->head) q->tail = NULL;
  q->n--;
  return n;
}

/* ---- workers --------------------------------------------------------------------------- */

/* Marks task `tk` finished (status rc, message msg) and wakes the consumer. */
static void task_end(par_state *ps, ptask *tk, int rc, const char *msg) {
  char *m = rc && msg ? pm_strdup(msg) : NULL;
  pthread_mutex_lock(&ps->mu);
  tk->done = true;
  tk->status = rc;
  tk->msg = m;
  ps->ndone++;
  pthread_cond_broadcast(&ps->data);
  pthread_mutex_unlock(&ps->mu);
}

/* Queues batch `a` of task `tk` (moved), waiting for room; false when cancelled (the
 * batch is released). */
static bool task_push(par_state *ps, ptask *tk, struct ArrowArray *a) {
  bnode *n = pm_malloc(sizeof *n);
  if (!n) {
    a->release(a);
    return false;
  }
  n->a = *a;
  a->release = NULL;
  bqueue *q = ps->ordered ? &tk->q : &ps->shared;
  size_t cap = ps->ordered ? PAR_TASK_BATCHES : (size_t)PAR_TASK_BATCHES * (size_t)ps->nthreads;
  pthread_mutex_lock(&ps->mu);
  while (q->n >= cap && !atomic_load(&ps->cancel)) pthread_cond_wait(&ps->room, &ps->mu);
  bool ok = !atomic_load(&ps->cancel);
  if (ok) {
    bq_push(q, n);
    pthread_cond_broadcast(&ps->data);
  }
  pthread_mutex_unlock(&ps->mu);
  if (!ok) {
    n->a.release(&n->a);
    pm_free(n);
  }
  return ok;
}

/* Reads task `tk` with the serial reader, queueing its batches. */
static void run_task(par_state *ps, ptask *tk) {
  paimon_error err = {0, ""};
  struct ArrowArrayStream s;
  const paimon_split *one[1] = {tk->split};
  int rc =
      pm_read_splits_serial(&s, ps->t, one, 1, (const char *const *)ps->columns, ps->filter, &err);
  if (rc) {
    task_end(ps, tk, rc, err.message[0] ? err.message : paimon_strerror(rc));
    return;
  }
  char msg[600] = "";
  while (!atomic_load(&ps->cancel)) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int e = s.get_next(&s, &a);
    if (e) {
      rc = paimon_stream_status(&s);
      if (rc == PAIMON_OK || rc == PAIMON_EINVAL) rc = e == ENOMEM ? PAIMON_ENOMEM : PAIMON_EIO;
      const char *m = s.get_last_error(&s);
      snprintf(msg, sizeof msg, "%s", m ? m : paimon_strerror(rc));
      break;
    }
    if (!a.release) break; /* end of the task */
    if (a.length == 0) {
      a.release(&a);
      continue;
    }
    if (!task_push(ps, tk, &a)) {
      if (!atomic_load(&ps->cancel)) {
        rc = PAIMON_ENOMEM;
        snprintf(msg, sizeof msg, "out of memory");
      }
      break;
    }
  }
  s.release(&s);
  task_end(ps, tk, rc, msg);
}

/* One worker's job: take the next task until none is left or the stream is released. */
static void worker_job(void *arg) {
  par_state *ps = arg;
  for (;;) {
    pthread_mutex_lock(&ps->mu);
    size_t i = ps->next_task;
    bool stop = atomic_load(&ps->cancel) || i >= ps->ntasks;
    if (!stop) ps->next_task++;
    pthread_mutex_unlock(&ps->mu);
    if (stop) return;
    run_task(ps, &ps->tasks[i]);
  }
}

/* ---- the stream ------------------------------------------------------------------------ */

static void par_free(par_state *ps) {
  if (!ps) return;
  if (ps->pool) {
    pthread_mutex_lock(&ps->mu);
    atomic_store(&ps->cancel, true);
    pthread_cond_broadcast(&ps->room);
    pthread_mutex_unlock(&ps->mu);
    pm_pool_free(ps->pool); /* joins: no worker touches ps after this */
  }
  for (size_t i = 0; i < ps->ntasks; i++) {
    bq_free(&ps->tasks[i].q);
    pm_split_free(ps->tasks[i].split);
    pm_free(ps->tasks[i].msg);
  }
  pm_free(ps->tasks);
  bq_free(&ps->shared);
  if (ps->serial.release) ps->serial.release(&ps->serial);
  if (ps->columns) {
    for (char **c = ps->columns; *c; c++) pm_free(*c);
    pm_free(ps->columns);
  }
  paimon_predicate_free(ps->filter);
  pthread_mutex_destroy(&ps->mu);
  pthread_cond_destroy(&ps->room);
  pthread_cond_destroy(&ps->data);
  paimon_table_close(ps->t);
  pm_free(ps);
}

static int par_fail(par_state *ps, int rc, const char *msg) {
  snprintf(ps->last_error, sizeof ps->last_error, "%s", msg && *msg ? msg : paimon_strerror(rc));
  ps->status = rc;
  ps->failed = true;
  return pm_status_errno(rc);
}

static int par_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  par_state *ps = s->private_data;
  int e = ps->serial.get_schema(&ps->serial, out);
  if (e) {
    int st = paimon_stream_status(&ps->serial);
    snprintf(ps->last_error, sizeof ps->last_error, "%s",
             ps->serial.get_last_error(&ps->serial) ? ps->serial.get_last_error(&ps->serial)
                                                    : paimon_strerror(st));
    ps->status = st;
  }
  return e;
}

static int par_start(par_state *ps) {
  paimon_error err = {0, ""};
  int n = ps->nthreads;
  if ((size_t)n > ps->ntasks) n = (int)ps->ntasks;
  if (n < 1) n = 1;
  int rc = pm_pool_new(&ps->pool, n, (size_t)n, &err);
  for (int i = 0; rc == 0 && i < n; i++) rc = pm_pool_submit(ps->pool, worker_job, NULL, ps);
  if (rc) return par_fail(ps, rc, err.message);
  return 0;
}

static int par_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  par_state *ps = s->private_data;
  memset(out, 0, sizeof *out);
  if (ps->failed) return pm_status_errno(ps->status);
  if (ps->finished) return 0;
  if (!ps->pool) {
    int e = par_start(ps);
    if (e) return e;
  }
  pthread_mutex_lock(&ps->mu);
  for (;;) {
    bnode *n = NULL;
    const ptask *failed = NULL;
    bool end = false;
    if (ps->ordered) {
      if (ps->cur >= ps->ntasks) {
        end = true;
      } else {
        ptask *tk = &ps->tasks[ps->cur];
        n = bq_pop(&tk->q);
        if (!n && tk->done) {
          if (tk->status) failed = tk;
          else {
            ps->cur++;
            continue;
          }
        }
      }
    } else {
      n = bq_pop(&ps->shared);
      for (size_t i = 0; !n && i < ps->ntasks && !failed; i++)
        if (ps->tasks[i].done && ps->tasks[i].status) failed = &ps->tasks[i];
      if (!n && !failed && ps->ndone == ps->ntasks) end = true;
    }
    if (n) {
      pthread_cond_broadcast(&ps->room);
      pthread_mutex_unlock(&ps->mu);
      *out = n->a;
      pm_free(n);
      return 0;
    }
    if (failed) {
      int rc = failed->status;
      char msg[600];
      snprintf(msg, sizeof msg, "%s", failed->msg ? failed->msg : "");
      pthread_mutex_unlock(&ps->mu);
      return par_fail(ps, rc, msg);
    }
    if (end) {
      pthread_mutex_unlock(&ps->mu);
      ps->finished = true;
      return 0; /* release NULL: end of stream */
    }
    pthread_cond_wait(&ps->data, &ps->mu);
  }
}

static const char *par_last_error(struct ArrowArrayStream *s) {
  par_state *ps = s->private_data;
  return ps->last_error[0] ? ps->last_error : NULL;
}

static void par_release(struct ArrowArrayStream *s) {
  par_free(s->private_data);
  s->release = NULL;
}

bool pm_read_parallel_status(const struct ArrowArrayStream *s, int *status) {
  if (!s || !s->release || s->get_next != par_get_next || s->release != par_release) return false;
  *status = ((const par_state *)s->private_data)->status;
  return true;
}

/* ---- tasks ----------------------------------------------------------------------------- */

/* A copy of split `sp` holding only its file `f`. */
static int split_one_file(paimon_split **out, const paimon_split *sp, size_t f, paimon_error *err) {
  PM_TRY(pm_split_clone(out, sp, err));
  paimon_split *c = *out;
  for (size_t k = 0; k < c->nfiles; k++) {
    if (k == f) continue;
    pm_data_file_clear(&c->files[k]);
    if (c->paths) pm_free(c->paths[k]);
    if (c->dvs) pm_free(c->dvs[k].index_path);
  }
  if (f != 0) {
    c->files[0] = c->files[f];
    if (c->paths) c->paths[0] = c->paths[f];
    if (c->dvs) c->dvs[0] = c->dvs[f];
  }
  c->nfiles = 1;
  return 0;
}

/* Whether the serial reader reads split `sp` file after file (no merge, no stitching,
 * no memory rows): then each file may be its own task. */
static bool split_by_file(const paimon_table *t, const paimon_split *sp) {
  if (sp->mem || sp->nfiles < 2) return false;
  if (sp->primary_key && !sp->raw_convertible) return false;
  return !pm_table_opt_bool(t, "data-evolution.enabled", false);
}

static int add_task(par_state *ps, size_t *cap, paimon_split *sp, paimon_error *err) {
  if (pm_grow(&ps->tasks, cap, ps->ntasks + 1)) {
    pm_split_free(sp);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  memset(&ps->tasks[ps->ntasks], 0, sizeof ps->tasks[0]);
  ps->tasks[ps->ntasks++].split = sp;
  return 0;
}

static int plan_tasks(par_state *ps, const paimon_split *const *splits, size_t n,
                      paimon_error *err) {
  size_t cap = 0;
  for (size_t i = 0; i < n; i++) {
    const paimon_split *sp = splits[i];
    paimon_split *c = NULL;
    if (split_by_file(ps->t, sp)) {
      for (size_t f = 0; f < sp->nfiles; f++) {
        PM_TRY(split_one_file(&c, sp, f, err));
        PM_TRY(add_task(ps, &cap, c, err));
      }
    } else {
      PM_TRY(pm_split_clone(&c, sp, err));
      PM_TRY(add_task(ps, &cap, c, err));
    }
  }
  return 0;
}

bool pm_read_parallel_wanted(const paimon_table *t, const paimon_split *const *splits, size_t n) {
  if (t->read_threads <= 1) return false;
  size_t tasks = 0;
  for (size_t i = 0; i < n; i++) {
    /* Union reads (memory rows) stay on the calling thread: a real-time store's streams
     * are not promised to be safe to read from several threads at once. */
    if (splits[i]->mem) return false;
    tasks += split_by_file(t, splits[i]) ? splits[i]->nfiles : 1;
  }
  return tasks > 1;
}

int pm_read_parallel_open(struct ArrowArrayStream *out, paimon_table *t,
                          struct ArrowArrayStream *serial, const paimon_split *const *splits,
                          size_t n, const char *const *columns, const paimon_predicate *filter,
                          paimon_error *err) {
  memset(out, 0, sizeof *out);
  par_state *ps = pm_calloc(1, sizeof *ps);
  if (!ps) {
    serial->release(serial);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pthread_mutex_init(&ps->mu, NULL);
  pthread_cond_init(&ps->room, NULL);
  pthread_cond_init(&ps->data, NULL);
  atomic_init(&ps->cancel, false);
  ps->t = t;
  pm_table_ref(t);
  ps->serial = *serial;
  serial->release = NULL;
  ps->ordered = t->read_ordered;
  ps->nthreads = t->read_threads;
  int rc = 0;
  if (columns) {
    size_t nc = 0;
    while (columns[nc]) nc++;
    ps->columns = pm_calloc(nc + 1, sizeof(char *));
    if (!ps->columns) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      goto fail;
    }
    for (size_t i = 0; i < nc; i++)
      if (!(ps->columns[i] = pm_strdup(columns[i]))) {
        rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
        goto fail;
      }
  }
  if (filter && !(ps->filter = pm_pred_clone(filter))) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  PM_CHECK(plan_tasks(ps, splits, n, err), fail);
  out->get_schema = par_get_schema;
  out->get_next = par_get_next;
  out->get_last_error = par_last_error;
  out->release = par_release;
  out->private_data = ps;
  return 0;
fail:
  par_free(ps);
  return rc;
}
