/* util/util.c: errors, allocator hooks, growable buffers, hashing, uuid, clock. */
#include "util/util.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <paimon/alloc.h>

/* ---- errors ---------------------------------------------------------------------- */

int pm_fail(paimon_error *err, int code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

int pm_fail_ctx(paimon_error *err, int code, const char *fmt, ...) {
  if (!err) return code;
  if (err->code == 0) err->code = code;
  char ctx[sizeof err->message];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(ctx, sizeof ctx, fmt, ap);
  va_end(ap);
  if (n < 0) return err->code;
  char old[sizeof err->message];
  memcpy(old, err->message, sizeof old);
  old[sizeof old - 1] = '\0';
  /* Concatenate by hand: truncation is intended when the message is long. */
  size_t cap = sizeof err->message - 1, o = 0;
  size_t cl = strlen(ctx), ol = strlen(old);
  size_t m = cl < cap ? cl : cap;
  memcpy(err->message, ctx, m);
  o = m;
  for (const char *sep = ": "; *sep && o < cap; sep++) err->message[o++] = *sep;
  m = ol < cap - o ? ol : cap - o;
  memcpy(err->message + o, old, m);
  err->message[o + m] = '\0';
  return err->code;
}

/* ---- allocation ------------------------------------------------------------------ */

/* Hooks are written once before use (documented in paimon/alloc.h), so a plain copy. */
static void *std_malloc(void *ctx, size_t n) {
  (void)ctx;
  return malloc(n);
}
static void *std_realloc(void *ctx, void *p, size_t n) {
  (void)ctx;
  return realloc(p, n);
}
static void std_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}
static paimon_allocator g_alloc = {sizeof(paimon_allocator), std_malloc, std_realloc, std_free,
                                   NULL};

PAIMON_API int paimon_allocator_set(const paimon_allocator *a) {
  if (!a) {
    g_alloc = (paimon_allocator){sizeof(paimon_allocator), std_malloc, std_realloc, std_free, NULL};
    return PAIMON_OK;
  }
  paimon_allocator n = PAIMON_ALLOCATOR_INIT;
  PM_TRY(pm_struct_in(&n, sizeof n, a, "paimon_allocator", "PAIMON_ALLOCATOR_INIT", NULL));
  if (!n.malloc_fn || !n.realloc_fn || !n.free_fn) return PAIMON_EINVAL;
  g_alloc = n;
  return PAIMON_OK;
}

/* The deprecated context-free hooks, called through trampolines. */
static struct {
  void *(*malloc_fn)(size_t);
  void *(*realloc_fn)(void *, size_t);
  void (*free_fn)(void *);
} g_legacy;
static void *legacy_malloc(void *ctx, size_t n) {
  (void)ctx;
  return g_legacy.malloc_fn(n);
}
static void *legacy_realloc(void *ctx, void *p, size_t n) {
  (void)ctx;
  return g_legacy.realloc_fn(p, n);
}
static void legacy_free(void *ctx, void *p) {
  (void)ctx;
  g_legacy.free_fn(p);
}

PAIMON_API int paimon_set_allocator(void *(*malloc_fn)(size_t), void *(*realloc_fn)(void *, size_t),
                                    void (*free_fn)(void *)) {
  if (!malloc_fn && !realloc_fn && !free_fn) return paimon_allocator_set(NULL);
  if (!malloc_fn || !realloc_fn || !free_fn) return PAIMON_EINVAL;
  g_legacy.malloc_fn = malloc_fn;
  g_legacy.realloc_fn = realloc_fn;
  g_legacy.free_fn = free_fn;
  paimon_allocator a = {sizeof a, legacy_malloc, legacy_realloc, legacy_free, NULL};
  return paimon_allocator_set(&a);
}

bool pm_alloc_is_default(void) { return g_alloc.malloc_fn == std_malloc; }

void *pm_malloc(size_t n) { return g_alloc.malloc_fn(g_alloc.ctx, n ? n : 1); }

void *pm_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  size_t total = n * size;
  void *p = g_alloc.malloc_fn(g_alloc.ctx, total ? total : 1);
  if (p) memset(p, 0, total);
  return p;
}

void *pm_realloc(void *p, size_t n) { return g_alloc.realloc_fn(g_alloc.ctx, p, n ? n : 1); }

void pm_free(void *p) {
  if (p) g_alloc.free_fn(g_alloc.ctx, p);
}

/* ---- versioned public structs (docs/conventions.md "Versioned structs") ------------ */

int pm_struct_size_check(size_t got, size_t ours, const char *name, const char *init,
                         paimon_error *err) {
  if (got < sizeof(size_t))
    return pm_fail(err, PAIMON_EINVAL, "%s.struct_size is %zu: initialize the struct with %s", name,
                   got, init);
  if (got > ours)
    return pm_fail(
        err, PAIMON_EINVAL,
        "%s.struct_size is %zu, larger than this library's %zu: the caller was built against a "
        "newer libpaimon",
        name, got, ours);
  return PAIMON_OK;
}

int pm_struct_in(void *dst, size_t dst_size, const void *src, const char *name, const char *init,
                 paimon_error *err) {
  size_t got;
  memcpy(&got, src, sizeof got);
  PM_TRY(pm_struct_size_check(got, dst_size, name, init, err));
  memcpy((char *)dst + sizeof got, (const char *)src + sizeof got, got - sizeof got);
  memcpy(dst, &dst_size, sizeof dst_size);
  return PAIMON_OK;
}

int pm_struct_out(void *dst, const void *src, size_t src_size, const char *name, const char *init,
                  paimon_error *err) {
  size_t got;
  memcpy(&got, dst, sizeof got);
  PM_TRY(pm_struct_size_check(got, src_size, name, init, err));
  memcpy((char *)dst + sizeof got, (const char *)src + sizeof got, got - sizeof got);
  return PAIMON_OK;
}

char *pm_strdup(const char *s) {
  if (!s) return NULL;
  return pm_strndup(s, strlen(s));
}

char *pm_strndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = 0;
  while (len < n && s[len]) len++;
  char *r = pm_malloc(len + 1);
  if (!r) return NULL;
  memcpy(r, s, len);
  r[len] = '\0';
  return r;
}

PM_PRINTF(1, 0) static char *vasprintf_pm(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return NULL;
  char *r = pm_malloc((size_t)n + 1);
  if (!r) return NULL;
  vsnprintf(r, (size_t)n + 1, fmt, ap);
  return r;
}

char *pm_asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *r = vasprintf_pm(fmt, ap);
  va_end(ap);
  return r;
}

/* ---- growable arrays (vec.h) ------------------------------------------------------ */

int pm_grow_(void **pp, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return PAIMON_OK;
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
  if (elem && ncap > SIZE_MAX / elem) return PAIMON_ENOMEM;
  void *p = pm_realloc(*pp, ncap * elem);
  if (!p) return PAIMON_ENOMEM;
  *pp = p;
  *cap = ncap;
  return PAIMON_OK;
}

/* ---- pm_buf ---------------------------------------------------------------------- */

int pm_buf_reserve(pm_buf *b, size_t extra) {
  if (extra > SIZE_MAX - b->len) return PAIMON_ENOMEM;
  size_t need = b->len + extra;
  if (need <= b->cap) return PAIMON_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  uint8_t *d = pm_realloc(b->data, cap);
  if (!d) return PAIMON_ENOMEM;
  b->data = d;
  b->cap = cap;
  return PAIMON_OK;
}

int pm_buf_append(pm_buf *b, const void *p, size_t n) {
  if (n == 0) return PAIMON_OK;
  PM_TRY(pm_buf_reserve(b, n));
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return PAIMON_OK;
}

int pm_buf_append_str(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

int pm_buf_printf(pm_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    va_end(ap);
    return PAIMON_EINVAL;
  }
  int rc = pm_buf_reserve(b, (size_t)n + 1);
  if (rc == 0) {
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
  }
  va_end(ap);
  return rc;
}

int pm_buf_resize(pm_buf *b, size_t len) {
  if (len > b->len) {
    PM_TRY(pm_buf_reserve(b, len - b->len));
    memset(b->data + b->len, 0, len - b->len);
  }
  b->len = len;
  return PAIMON_OK;
}

void pm_buf_free(pm_buf *b) {
  pm_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

char *pm_buf_detach(pm_buf *b) {
  if (pm_buf_reserve(b, 1) != 0) return NULL;
  b->data[b->len] = '\0';
  char *r = (char *)b->data;
  b->data = NULL;
  b->len = b->cap = 0;
  return r;
}

/* ---- UTF-8 ----------------------------------------------------------------------- */

size_t pm_utf8_seq_len(const uint8_t *p, size_t n) {
  uint8_t c = p[0];
  size_t len;
  uint32_t min;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
  else return 0;
  if (n < len) return 0;
  uint32_t cp = c & (0x3fu >> (len - 1));
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

/* ---- hashing --------------------------------------------------------------------- */

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t mm_k(uint32_t k) { return rotl32(k * 0xcc9e2d51u, 15) * 0x1b873593u; }
static inline uint32_t mm_round(uint32_t h, uint32_t k) {
  return rotl32(h ^ mm_k(k), 13) * 5 + 0xe6546b64u;
}

static int32_t mm_final(uint32_t h, size_t len) {
  h ^= (uint32_t)len;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return (int32_t)h;
}

int32_t pm_murmur3_32(const void *data, size_t len, uint32_t seed) {
  const uint8_t *p = data;
  uint32_t h = seed;
  size_t nblocks = len / 4;
  for (size_t i = 0; i < nblocks; i++) h = mm_round(h, pm_load_le32(p + 4 * i));
  /* Paimon only hashes whole words; a tail (not used by Paimon) follows the reference
   * MurmurHash3 so the function stays total. */
  const uint8_t *tail = p + nblocks * 4;
  uint32_t k1 = 0;
  switch (len & 3) {
    case 3: k1 ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k1 ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
      k1 ^= tail[0];
      h ^= mm_k(k1);
      break;
    default: break;
  }
  return mm_final(h, len);
}

int32_t pm_paimon_hash_bytes(const void *data, size_t len) {
  const uint8_t *p = data;
  uint32_t h = 42;
  size_t i = 0;
  for (; i + 4 <= len; i += 4) h = mm_round(h, pm_load_le32(p + i));
  for (; i < len; i++) h = mm_round(h, (uint32_t)(int32_t)(int8_t)p[i]); /* sign-extended */
  return mm_final(h, len);
}

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

void pm_murmur3_128_u64(uint64_t key, uint64_t seed, uint64_t out[2]) {
  const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
  uint64_t h1 = seed, h2 = seed;
  uint64_t k1 = rotl64(key * c1, 31) * c2; /* no full blocks: the key is the tail */
  h1 ^= k1;
  h1 ^= 8; /* length in bytes */
  h2 ^= 8;
  h1 += h2;
  h2 += h1;
  h1 = pm_mix64(h1);
  h2 = pm_mix64(h2);
  h1 += h2;
  h2 += h1;
  out[0] = h1;
  out[1] = h2;
}

uint32_t pm_crc32(uint32_t crc, const void *data, size_t len) {
  const uint8_t *p = data;
  uLong c = crc;
  while (len > 0) {
    uInt chunk = len > (size_t)0x40000000 ? 0x40000000u : (uInt)len;
    c = crc32(c, p, chunk);
    p += chunk;
    len -= chunk;
  }
  return (uint32_t)c;
}

/* ---- misc ------------------------------------------------------------------------ */

static pthread_mutex_t g_rng_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_rng_state;

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void fallback_random(uint8_t *out, size_t n) {
  pthread_mutex_lock(&g_rng_mu);
  if (g_rng_state == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g_rng_state = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
                  ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&ts;
  }
  for (size_t i = 0; i < n; i += 8) {
    uint64_t r = splitmix64(&g_rng_state);
    size_t m = n - i < 8 ? n - i : 8;
    memcpy(out + i, &r, m);
  }
  pthread_mutex_unlock(&g_rng_mu);
}

void pm_uuid(char out[37]) {
  uint8_t r[16];
  size_t got = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    while (got < sizeof r) {
      ssize_t k = read(fd, r + got, sizeof r - got);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      got += (size_t)k;
    }
    close(fd);
  }
  if (got < sizeof r) fallback_random(r, sizeof r);
  r[6] = (uint8_t)((r[6] & 0x0f) | 0x40); /* version 4 */
  r[8] = (uint8_t)((r[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
    out[o++] = hex[r[i] >> 4];
    out[o++] = hex[r[i] & 15];
  }
  out[o] = '\0';
}

int64_t pm_now_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- proleptic Gregorian calendar ------------------------------------------------- */

/* The year is shifted to start in March so that the leap day ends it; eras are 400-year
 * cycles of 146097 days; 719468 is the day number of 1970-01-01 from 0000-03-01. */
int64_t pm_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;                                  /* [0, 399] */
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1; /* [0, 365] */
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;          /* [0, 146096] */
  return era * 146097 + doe - 719468;
}

void pm_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;                                      /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
  int64_t mp = (5 * doy + 2) / 153;                                    /* March = 0 */
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}
