/* mergetree/interval.c: IntervalPartition, as Java's mergetree.compact.IntervalPartition:
 * stable sort by (minKey, maxKey), sweep into sections of overlapping key ranges, then
 * greedy assignment of each section's files to sorted runs via a min-heap keyed by the
 * max key of each run's last file. The heap is a replica of java.util.PriorityQueue so the
 * run order (its array order) is the same as Java's. */
#include "mergetree/mt_internal.h"
#include "util/sort.h"

typedef struct ip_ctx {
  const pm_mt_keycmp *kc;
  const pm_data_file *const *f;
} ip_ctx;

static int cmp_min(const ip_ctx *c, int32_t a, int32_t b) {
  return pm_mt_binkey_cmp(c->kc, c->f[a]->min_key, c->f[a]->min_key_len, c->f[b]->min_key,
                          c->f[b]->min_key_len);
}

static int cmp_minmax(const ip_ctx *c, int32_t a, int32_t b) {
  int r = cmp_min(c, a, b);
  if (r) return r;
  return pm_mt_binkey_cmp(c->kc, c->f[a]->max_key, c->f[a]->max_key_len, c->f[b]->max_key,
                          c->f[b]->max_key_len);
}

/* Files by (minKey, maxKey); stable, as Java's List.sort, so files with equal ranges keep
 * their input order. */
#define MINMAX_LESS(c, a, b) (cmp_minmax((c), (a), (b)) < 0)
PM_STABLE_SORT_DEFINE(sort_files, int32_t, const ip_ctx, MINMAX_LESS)

/* Runs under construction: files of run r are a linked list in insertion order. */
typedef struct ip_runs {
  int32_t *head, *tail, *next; /* next: per file */
  int32_t n;
} ip_runs;

static int cmp_run(const ip_ctx *c, const ip_runs *r, int32_t x, int32_t y) {
  const pm_data_file *a = c->f[r->tail[x]], *b = c->f[r->tail[y]];
  return pm_mt_binkey_cmp(c->kc, a->max_key, a->max_key_len, b->max_key, b->max_key_len);
}

static void pq_offer(const ip_ctx *c, const ip_runs *r, int32_t *q, int32_t *size, int32_t x) {
  int32_t k = (*size)++;
  while (k > 0) {
    int32_t parent = (k - 1) >> 1;
    int32_t e = q[parent];
    if (cmp_run(c, r, x, e) >= 0) break;
    q[k] = e;
    k = parent;
  }
  q[k] = x;
}

static int32_t pq_poll(const ip_ctx *c, const ip_runs *r, int32_t *q, int32_t *size) {
  int32_t result = q[0];
  int32_t n = --(*size);
  if (n > 0) {
    int32_t x = q[n], k = 0, half = n >> 1;
    while (k < half) {
      int32_t child = 2 * k + 1, right = child + 1;
      int32_t cc = q[child];
      if (right < n && cmp_run(c, r, cc, q[right]) > 0) cc = q[child = right];
      if (cmp_run(c, r, x, cc) <= 0) break;
      q[k] = cc;
      k = child;
    }
    q[k] = x;
  }
  return result;
}

void pm_mt_partition_free(pm_mt_partition *p) {
  if (!p) return;
  pm_free(p->section_start);
  pm_free(p->run_start);
  pm_free(p->files);
  pm_free(p);
}

/* Sweeps the sorted files into sections of overlapping key ranges and assigns each
 * section's files to runs (Java's partition() and its per-section run builder). */
static void sweep(const ip_ctx *c, const int32_t *order, int32_t nf, ip_runs *r, int32_t *heap,
                  pm_mt_partition *p) {
  const pm_mt_keycmp *kc = c->kc;
  const pm_data_file *const *files = c->f;
  int32_t nfiles_out = 0;
  p->section_start[0] = 0;
  p->run_start[0] = 0;
  int32_t i = 0;
  while (i < nf) {
    /* The section is [i, j): extend while the next minKey <= bound (largest maxKey). */
    int32_t j = i + 1, bound = order[i];
    while (j < nf) {
      const pm_data_file *f = files[order[j]], *b = files[bound];
      if (pm_mt_binkey_cmp(kc, f->min_key, f->min_key_len, b->max_key, b->max_key_len) > 0) break;
      if (pm_mt_binkey_cmp(kc, f->max_key, f->max_key_len, b->max_key, b->max_key_len) > 0)
        bound = order[j];
      j++;
    }
    /* Greedy run assignment with a Java-identical priority queue. */
    int32_t qsize = 0;
    r->head[0] = r->tail[0] = order[i];
    r->next[order[i]] = -1;
    r->n = 1;
    pq_offer(c, r, heap, &qsize, 0);
    for (int32_t x = i + 1; x < j; x++) {
      int32_t fi = order[x];
      int32_t top = pq_poll(c, r, heap, &qsize);
      const pm_data_file *last = files[r->tail[top]];
      r->next[fi] = -1;
      if (pm_mt_binkey_cmp(kc, files[fi]->min_key, files[fi]->min_key_len, last->max_key,
                           last->max_key_len) > 0) {
        r->next[r->tail[top]] = fi;
        r->tail[top] = fi;
      } else {
        int32_t nr = r->n++;
        r->head[nr] = r->tail[nr] = fi;
        pq_offer(c, r, heap, &qsize, nr);
      }
      pq_offer(c, r, heap, &qsize, top);
    }
    for (int32_t q = 0; q < qsize; q++) {
      for (int32_t fi = r->head[heap[q]]; fi >= 0; fi = r->next[fi])
        p->files[nfiles_out++] = files[fi];
      p->run_start[++p->nruns] = nfiles_out;
    }
    p->section_start[++p->nsections] = p->nruns;
    i = j;
  }
  p->nfiles = nfiles_out;
}

int pm_mt_interval_partition(const pm_mt_keycmp *kc, const pm_data_file *const *files, size_t n,
                             pm_mt_partition **out, paimon_error *err) {
  *out = NULL;
  if (n > (size_t)INT32_MAX / 4) return pm_fail(err, PAIMON_ENOMEM, "too many data files: %zu", n);
  for (size_t i = 0; i < n; i++) {
    PM_TRY(
        pm_mt_binkey_check(kc, files[i]->min_key, files[i]->min_key_len, files[i]->file_name, err));
    PM_TRY(
        pm_mt_binkey_check(kc, files[i]->max_key, files[i]->max_key_len, files[i]->file_name, err));
  }
  size_t cnt = n ? n : 1;
  pm_mt_partition *p = pm_calloc(1, sizeof *p);
  int32_t *order = pm_malloc(sizeof(int32_t) * cnt), *tmp = pm_malloc(sizeof(int32_t) * cnt);
  int32_t *heap = pm_malloc(sizeof(int32_t) * cnt);
  ip_runs r = {pm_malloc(sizeof(int32_t) * cnt), pm_malloc(sizeof(int32_t) * cnt),
               pm_malloc(sizeof(int32_t) * cnt), 0};
  if (p) {
    p->section_start = pm_malloc(sizeof(int32_t) * (cnt + 1));
    p->run_start = pm_malloc(sizeof(int32_t) * (cnt + 1));
    p->files = pm_malloc(sizeof(*p->files) * cnt);
  }
  if (p && order && tmp && heap && r.head && r.tail && r.next && p->section_start && p->run_start &&
      p->files) {
    ip_ctx c = {kc, files};
    for (size_t i = 0; i < n; i++) order[i] = (int32_t)i;
    sort_files(&c, order, tmp, n);
    sweep(&c, order, (int32_t)n, &r, heap, p);
    *out = p;
  } else {
    pm_mt_partition_free(p);
  }
  pm_free(order);
  pm_free(tmp);
  pm_free(heap);
  pm_free(r.head);
  pm_free(r.tail);
  pm_free(r.next);
  return *out ? 0 : pm_fail(err, PAIMON_ENOMEM, "interval partition: out of memory");
}
