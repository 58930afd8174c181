/* util/util.h: internal error helpers, allocator, growable buffers, varints.
 * Internal names use the `pm_` prefix; nothing here is exported from libpaimon. */
#ifndef PM_UTIL_H
#define PM_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <paimon/error.h>

#if defined(__GNUC__)
#define PM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PM_LIKELY(x) __builtin_expect(!!(x), 1)
#define PM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PM_PRINTF(a, b)
#define PM_LIKELY(x) (x)
#define PM_UNLIKELY(x) (x)
#endif

/* ---- errors ---------------------------------------------------------------------- */

/* Fills `err` (nullable) with `code` and a formatted message; returns `code`. */
int pm_fail(paimon_error *err, int code, const char *fmt, ...) PM_PRINTF(3, 4);
/* Prepends "context: " to an existing message (e.g. the file name); returns err->code
 * or `code` when err is NULL. */
int pm_fail_ctx(paimon_error *err, int code, const char *fmt, ...) PM_PRINTF(3, 4);
/* Drops a status on purpose (best-effort cleanup after an earlier failure). The `!` keeps
 * GCC's warn_unused_result (PAIMON_NODISCARD) quiet, which a cast to void does not. */
#define PM_IGNORE(expr) ((void)!(expr))
/* 0 when `id` is a snapshot id a caller may pass (positive, or PAIMON_SNAPSHOT_LATEST);
 * else PAIMON_EINVAL naming the function `fn` and the value. */
int pm_check_snapshot_arg(const char *fn, int64_t id, paimon_error *err);

#define PM_TRY(expr)                             \
  do {                                           \
    int pm_rc_ = (expr);                         \
    if (PM_UNLIKELY(pm_rc_ != 0)) return pm_rc_; \
  } while (0)

/* Jump to `label` with rc set; the function must declare `int rc`. */
#define PM_CHECK(expr, label)             \
  do {                                    \
    rc = (expr);                          \
    if (PM_UNLIKELY(rc != 0)) goto label; \
  } while (0)

/* ---- allocation (all library memory goes through these) -------------------------- */

void *pm_malloc(size_t n);
/* No allocation hooks installed: code may keep large buffers in its own page mappings. */
bool pm_alloc_is_default(void);
void *pm_calloc(size_t n, size_t size);
void *pm_realloc(void *p, size_t n);
void pm_free(void *p);
char *pm_strdup(const char *s);
char *pm_strndup(const char *s, size_t n);
/* printf into a fresh string (pm_free it); NULL on allocation failure. */
char *pm_asprintf(const char *fmt, ...) PM_PRINTF(1, 2);

/* Versioned public structs (docs/conventions.md "Versioned structs"): their first member
 * is `size_t struct_size`. pm_struct_size_check fails with PAIMON_EINVAL naming `name`
 * and the `init` macro unless sizeof(size_t) <= got <= ours. pm_struct_in copies the
 * caller's `src` over `dst` (pre-set to defaults, `dst_size` bytes) up to src's
 * struct_size and sets dst's struct_size to dst_size; pm_struct_out writes the library's
 * full `src` into the caller's `dst` only up to dst's struct_size (never its struct_size). */
int pm_struct_size_check(size_t got, size_t ours, const char *name, const char *init,
                         paimon_error *err);
int pm_struct_in(void *dst, size_t dst_size, const void *src, const char *name, const char *init,
                 paimon_error *err);
int pm_struct_out(void *dst, const void *src, size_t src_size, const char *name, const char *init,
                  paimon_error *err);

/* Allocation limit for any single size read from a file before allocating (1 GiB). */
#define PM_MAX_ALLOC ((size_t)1 << 30)

/* ---- growable byte buffer, reused across batches --------------------------------- */

typedef struct pm_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
} pm_buf;

#define PM_BUF_INIT \
  { NULL, 0, 0 }

/* Ensures cap >= len + extra; returns PAIMON_ENOMEM on failure. */
int pm_buf_reserve(pm_buf *b, size_t extra);
int pm_buf_append(pm_buf *b, const void *p, size_t n);
int pm_buf_append_str(pm_buf *b, const char *s);
int pm_buf_printf(pm_buf *b, const char *fmt, ...) PM_PRINTF(2, 3);
/* Sets len (growing and zero-filling when larger). */
int pm_buf_resize(pm_buf *b, size_t len);
static inline void pm_buf_clear(pm_buf *b) { b->len = 0; }
void pm_buf_free(pm_buf *b);
/* Hands the bytes to the caller (NUL-terminated for convenience) and resets b. */
char *pm_buf_detach(pm_buf *b);

/* ---- little-endian / big-endian loads and stores --------------------------------- */

static inline uint16_t pm_load_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t pm_load_le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v; /* all supported targets are little-endian (checked in CMake) */
}
static inline uint64_t pm_load_le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static inline uint32_t pm_load_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t pm_load_be64(const uint8_t *p) {
  return ((uint64_t)pm_load_be32(p) << 32) | pm_load_be32(p + 4);
}
static inline void pm_store_le32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void pm_store_le64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void pm_store_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline void pm_store_be64(uint8_t *p, uint64_t v) {
  pm_store_be32(p, (uint32_t)(v >> 32));
  pm_store_be32(p + 4, (uint32_t)v);
}

/* ---- varints (unsigned LEB128) and zigzag ---------------------------------------- */

static inline uint64_t pm_zigzag_enc(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t pm_zigzag_dec(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Decodes a varint from [*p, end); advances *p. Returns 0, or -1 when truncated or
 * longer than 10 bytes. */
static inline int pm_varint_dec(const uint8_t **p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  unsigned shift = 0;
  const uint8_t *q = *p;
  while (q < end && shift < 70) {
    uint8_t b = *q++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *p = q;
      *out = v;
      return 0;
    }
    shift += 7;
  }
  return -1;
}
/* Encodes into out (at least 10 bytes); returns bytes written. */
static inline size_t pm_varint_enc(uint8_t *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

/* ---- UTF-8 ----------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (n >= 1 bytes available), 0 when invalid
 * (overlong forms, surrogates and code points past U+10FFFF are invalid). */
size_t pm_utf8_seq_len(const uint8_t *p, size_t n);

/* ---- hashing ------------------------------------------------------------------- */

/* MurmurHash3 x86_32 over `len` bytes (len a multiple of 4, as Paimon's rows are). */
int32_t pm_murmur3_32(const void *data, size_t len, uint32_t seed);
/* Paimon's MurmurHashUtils.hashBytes (seed 42): BinaryString.hashCode. Unlike
 * pm_murmur3_32 each tail byte is a round of its own, sign-extended. */
int32_t pm_paimon_hash_bytes(const void *data, size_t len);
/* MurmurHash3 x64_128 of one 8-byte little-endian key (how DataSketches hashes a Java
 * long): out[0] = h1, out[1] = h2. */
void pm_murmur3_128_u64(uint64_t key, uint64_t seed, uint64_t out[2]);
/* CRC-32 (zlib polynomial). */
uint32_t pm_crc32(uint32_t crc, const void *data, size_t len);

/* MurmurHash3's 64-bit finalizer: every input bit affects every output bit. */
static inline uint64_t pm_mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/* A fast hash of `n` bytes for in-memory tables (dictionaries, indexes); nothing
 * persisted depends on its values. */
static inline uint64_t pm_hash_bytes64(const uint8_t *p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    h = (h ^ v) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  uint64_t v = 0;
  if (n) memcpy(&v, p, n);
  return pm_mix64(h ^ v);
}

/* ---- proleptic Gregorian calendar (Howard Hinnant's civil algorithms) ------------- */

/* Days since 1970-01-01 of year `y`, month `m` (1..12), day `d` (1..31, unchecked). */
int64_t pm_days_from_civil(int64_t y, int m, int d);
/* The date of day `z` since 1970-01-01 (any sign). */
void pm_civil_from_days(int64_t z, int64_t *y, int *m, int *d);

/* ---- misc ---------------------------------------------------------------------- */

/* Random UUID v4 string (36 chars + NUL) into out. */
void pm_uuid(char out[37]);
int64_t pm_now_millis(void);

#endif
