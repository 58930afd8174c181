/* format/parquet/parquet_write_chunk.c: where a column chunk's compressed pages wait for
 * their row group to be flushed (heap buffers, or huge-page mappings from a process-wide
 * pool), and page compression plus page headers. */
#define _GNU_SOURCE /* mremap, MADV_HUGEPAGE */
#include "format/parquet/parquet_write.h"
#include "util/caches.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* ---- chunk storage ---------------------------------------------------------------------
 * A row group's compressed pages stay in memory until it is flushed, ~rg_bytes in all, and
 * faulting that in 4 KiB pages (then unmapping it when the file is done) costs more than
 * a good part of the compression on many systems. A chunk that outgrows PW_HUGE_MIN moves
 * to its own 2 MiB-aligned anonymous mapping, advised for transparent huge pages and big
 * enough for a whole row group (untouched address space costs nothing). It is kept across
 * the row groups of the file; when the file is done it goes to a small process-wide pool
 * (marked MADV_FREE, so the kernel may still take its pages back under memory pressure)
 * from which the next file's chunks are served without touching fresh memory. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE) && \
    UINTPTR_MAX > 0xffffffffu
#define PW_HUGE 1
#define PW_HUGE_PAGE ((size_t)2 << 20)
#define PW_HUGE_MIN ((size_t)4 << 20)
#define PW_POOL_MAX 8
#define PW_POOL_BYTES ((size_t)256 << 20) /* bound on the bytes ever used of pooled mappings */

typedef struct pw_map {
  uint8_t *p;
  size_t n, used; /* mapping size; high-water mark of the bytes written into it */
} pw_map;

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pw_map g_pool[PW_POOL_MAX];
static int g_npool;
static size_t g_pool_used;

static size_t huge_round(size_t n) { return (n + PW_HUGE_PAGE - 1) & ~(PW_HUGE_PAGE - 1); }

/* A fresh mapping of `n` bytes (a multiple of PW_HUGE_PAGE) at a PW_HUGE_PAGE boundary. */
static uint8_t *huge_map(size_t n) {
  uint8_t *r = mmap(NULL, n + PW_HUGE_PAGE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) return NULL;
  uint8_t *a = (uint8_t *)(((uintptr_t)r + PW_HUGE_PAGE - 1) & ~(uintptr_t)(PW_HUGE_PAGE - 1));
  if (a > r) munmap(r, (size_t)(a - r));
  if (a < r + PW_HUGE_PAGE) munmap(a + n, (size_t)(r + PW_HUGE_PAGE - a));
  (void)madvise(a, n, MADV_HUGEPAGE);
  return a;
}

/* A mapping of at least `n` bytes: the most recently pooled one that fits, else fresh. */
static bool map_get(size_t n, pw_map *out) {
  pthread_mutex_lock(&g_pool_mu);
  for (int i = g_npool - 1; i >= 0; i--) {
    if (g_pool[i].n < n) continue;
    *out = g_pool[i];
    g_pool_used -= out->used;
    memmove(&g_pool[i], &g_pool[i + 1], (size_t)(g_npool - 1 - i) * sizeof *g_pool);
    g_npool--;
    pthread_mutex_unlock(&g_pool_mu);
    return true;
  }
  pthread_mutex_unlock(&g_pool_mu);
  out->n = huge_round(n);
  out->used = 0;
  out->p = huge_map(out->n);
  return out->p != NULL;
}

/* paimon_release_caches(): unmaps every pooled mapping (mappings of live writers are
 * not in the pool). */
static void pool_release(void) {
  pw_map out[PW_POOL_MAX];
  pthread_mutex_lock(&g_pool_mu);
  int n = g_npool;
  memcpy(out, g_pool, (size_t)n * sizeof *out);
  g_npool = 0;
  g_pool_used = 0;
  pthread_mutex_unlock(&g_pool_mu);
  for (int i = 0; i < n; i++) munmap(out[i].p, out[i].n);
}

static pthread_once_t g_pool_once = PTHREAD_ONCE_INIT;
static void pool_register(void) { pm_caches_register(pool_release); }

static void map_put(pw_map m) {
  if (!m.p) return;
  pthread_once(&g_pool_once, pool_register);
#ifdef MADV_FREE
  if (m.used) (void)madvise(m.p, huge_round(m.used), MADV_FREE);
#endif
  pthread_mutex_lock(&g_pool_mu);
  if (g_npool == PW_POOL_MAX || g_pool_used + m.used > PW_POOL_BYTES) {
    pthread_mutex_unlock(&g_pool_mu);
    munmap(m.p, m.n);
    return;
  }
  g_pool[g_npool++] = m;
  g_pool_used += m.used;
  pthread_mutex_unlock(&g_pool_mu);
}
#endif

/* Room for `extra` more bytes in the leaf's chunk. */
static int chunk_reserve(pw_writer *w, pw_leaf *L, size_t extra) {
  pm_buf *b = &L->chunk;
  if (extra > SIZE_MAX / 4 - b->len) return PAIMON_ENOMEM;
  size_t need = b->len + extra;
  if (need <= b->cap) return 0;
#ifdef PW_HUGE
  /* installed allocation hooks must see every large buffer (paimon/alloc.h) */
  if (need > PW_HUGE_MIN && (L->chunk_mapped || pm_alloc_is_default())) {
    size_t want = need * 2;
    size_t rg = (size_t)w->rg_bytes + (size_t)w->page_bytes * 2;
    if (rg <= SIZE_MAX / 4 && want < rg) want = rg;
    if (L->chunk_mapped) {
      /* beyond a row group (huge values): grow in place or move the pages, no copy */
      size_t n = huge_round(want);
      void *m = mremap(b->data, b->cap, n, MREMAP_MAYMOVE);
      if (m != MAP_FAILED) {
        b->data = m;
        b->cap = n;
        return 0;
      }
    } else {
      pw_map m;
      if (map_get(want, &m)) {
        if (b->len) memcpy(m.p, b->data, b->len);
        pm_free(b->data);
        b->data = m.p;
        b->cap = m.n;
        L->chunk_used = m.used;
        L->chunk_mapped = true;
        return 0;
      }
    }
  }
  if (L->chunk_mapped) { /* no mapping to be had: back to the heap */
    uint8_t *d = pm_malloc(need * 2);
    if (!d) return PAIMON_ENOMEM;
    memcpy(d, b->data, b->len);
    munmap(b->data, b->cap);
    b->data = d;
    b->cap = need * 2;
    L->chunk_mapped = false;
    return 0;
  }
#else
  (void)w;
#endif
  return pm_buf_reserve(b, extra);
}

/* Forgets the chunk's bytes (keeping its storage) after it was written to the file. */
void pw_chunk_clear(pw_leaf *L) {
  if (L->chunk.len > L->chunk_used) L->chunk_used = L->chunk.len;
  L->chunk.len = 0;
}

void pw_chunk_free(pw_leaf *L) {
#ifdef PW_HUGE
  if (L->chunk_mapped) {
    pw_chunk_clear(L);
    map_put((pw_map){L->chunk.data, L->chunk.cap, L->chunk_used});
    L->chunk = (pm_buf)PM_BUF_INIT;
    L->chunk_mapped = false;
    return;
  }
#endif
  pm_buf_free(&L->chunk);
}

/* Compresses the page body [raw, raw + rlen) into `out` with context *zctx (created on
 * first use); *body / *blen receive the bytes to store (raw itself when uncompressed).
 * Runs on helper threads: touches only its arguments and the writer's settings. */
int pw_page_compress(const pw_writer *w, ZSTD_CCtx **zctx, const uint8_t *raw, size_t rlen,
                     pm_buf *out, const uint8_t **body, size_t *blen, paimon_error *err) {
  *body = raw;
  *blen = rlen;
  if (w->codec == PM_CODEC_ZSTD) {
    size_t bound = ZSTD_compressBound(rlen);
    out->len = 0;
    if (pm_buf_reserve(out, bound) || (!*zctx && !(*zctx = ZSTD_createCCtx())))
      return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory writing parquet", w->path);
    size_t r = ZSTD_compressCCtx(*zctx, out->data, bound, raw, rlen, w->level);
    if (ZSTD_isError(r))
      return pm_fail(err, PAIMON_EIO, "%s: zstd compression failed: %s", w->path,
                     ZSTD_getErrorName(r));
    out->len = r;
    *body = out->data;
    *blen = r;
  } else if (w->codec != PM_CODEC_NONE) {
    out->len = 0;
    PM_TRY(pm_compress(w->codec, w->level, raw, rlen, out, err));
    *body = out->data;
    *blen = out->len;
  }
  if (rlen > INT32_MAX || *blen > INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "%s: parquet page of %zu bytes is too large", w->path, rlen);
  return 0;
}

/* Appends page header + compressed body to `dst` (L's chunk when L is set); *total /
 * *uncomp_total receive the bytes written and their uncompressed equivalent. */
int pw_page_append(pw_writer *w, pw_leaf *L, const uint8_t *body, size_t blen, size_t rlen,
                   uint32_t crc, int type, int32_t num_values, int enc, int def_enc, int rep_enc,
                   pm_buf *dst, size_t *total, size_t *uncomp_total, paimon_error *err) {
  w->hdr.len = 0;
  pq_tw t;
  pq_tw_init(&t, &w->hdr);
  pq_tw_i32(&t, 1, type);
  pq_tw_i32(&t, 2, (int32_t)rlen);
  pq_tw_i32(&t, 3, (int32_t)blen);
  pq_tw_i32(&t, 4, (int32_t)crc);
  if (type == PG_DATA) {
    pq_tw_struct(&t, 5);
    pq_tw_i32(&t, 1, num_values);
    pq_tw_i32(&t, 2, enc);
    pq_tw_i32(&t, 3, def_enc);
    pq_tw_i32(&t, 4, rep_enc);
    pq_tw_end(&t);
  } else {
    pq_tw_struct(&t, 7);
    pq_tw_i32(&t, 1, num_values);
    pq_tw_i32(&t, 2, enc);
    pq_tw_end(&t);
  }
  pq_tw_end(&t);
  if (t.oom ||
      (L ? chunk_reserve(w, L, w->hdr.len + blen) : pm_buf_reserve(dst, w->hdr.len + blen)))
    return pw_oom(w, err);
  memcpy(dst->data + dst->len, w->hdr.data, w->hdr.len);
  memcpy(dst->data + dst->len + w->hdr.len, body, blen);
  dst->len += w->hdr.len + blen;
  *total = w->hdr.len + blen;
  *uncomp_total = w->hdr.len + rlen;
  return 0;
}

/* Compresses a page on the writing thread and appends it (dictionary pages). */
int pw_emit_page(pw_writer *w, const uint8_t *raw, size_t rlen, int type, int32_t num_values,
                 int enc, pm_buf *dst, size_t *total, size_t *uncomp_total, paimon_error *err) {
  const uint8_t *body;
  size_t blen;
  PM_TRY(pw_page_compress(w, &w->zctx, raw, rlen, &w->cbuf, &body, &blen, err));
  return pw_page_append(w, NULL, body, blen, rlen, pm_crc32(0, body, blen), type, num_values, enc,
                        0, 0, dst, total, uncomp_total, err);
}
