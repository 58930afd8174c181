/* Tests for src/util: errors, allocator hook, buffers, varints, hashing (Paimon bucket
 * vectors), compression codecs (round trips, independent encoders, corruption), options. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "util/compress.h"
#include "util/util.h"

/* ---- errors / strings ------------------------------------------------------------ */

static void test_errors(void **state) {
  (void)state;
  paimon_error err = {0};
  assert_int_equal(pm_fail(&err, PAIMON_ECORRUPT, "bad %d", 7), PAIMON_ECORRUPT);
  assert_int_equal(err.code, PAIMON_ECORRUPT);
  assert_string_equal(err.message, "bad 7");
  assert_int_equal(pm_fail_ctx(&err, PAIMON_EIO, "%s", "/t/f.parquet"), PAIMON_ECORRUPT);
  assert_string_equal(err.message, "/t/f.parquet: bad 7");
  assert_int_equal(pm_fail(NULL, PAIMON_EIO, "x"), PAIMON_EIO);
  assert_int_equal(pm_fail_ctx(NULL, PAIMON_EIO, "x"), PAIMON_EIO);
  /* Long context is truncated, never overflows. */
  char big[2000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = 0;
  pm_fail_ctx(&err, PAIMON_EIO, "%s", big);
  assert_int_equal(strlen(err.message), sizeof err.message - 1);

  assert_string_equal(paimon_strerror(PAIMON_ENOTFOUND), "not found");
  assert_non_null(paimon_strerror(12345));
  assert_true(paimon_error_is_retryable(PAIMON_EIO));
  assert_true(paimon_error_is_retryable(PAIMON_ECONFLICT));
  assert_true(paimon_error_is_retryable(PAIMON_EFULL));
  assert_false(paimon_error_is_retryable(PAIMON_ECORRUPT));
  assert_string_equal(paimon_version(), PAIMON_VERSION_STRING);
  // the number agrees with the header's and with the string's three parts
  assert_int_equal(paimon_version_number(), PAIMON_VERSION_NUMBER);
  char vs[32];
  snprintf(vs, sizeof vs, "%d.%d.%d", paimon_version_number() / 10000,
           paimon_version_number() / 100 % 100, paimon_version_number() % 100);
  assert_string_equal(vs, PAIMON_VERSION_STRING);

  char *s = pm_asprintf("%s-%05d", "x", 42);
  assert_string_equal(s, "x-00042");
  paimon_free(s);
  s = pm_strndup("abcdef", 3);
  assert_string_equal(s, "abc");
  pm_free(s);
  s = pm_strndup("ab", 10);
  assert_string_equal(s, "ab");
  pm_free(s);
}

static size_t g_allocs;
static void *count_malloc(size_t n) {
  g_allocs++;
  return malloc(n);
}
static void *count_realloc(void *p, size_t n) {
  g_allocs++;
  return realloc(p, n);
}

/* Counting allocator whose counters live behind the context pointer, so two contexts
 * tell apart which one the library called. */
typedef struct {
  size_t mallocs, reallocs, frees;
} alloc_counts;
static void *ctx_malloc(void *ctx, size_t n) {
  if (ctx) ((alloc_counts *)ctx)->mallocs++;
  return malloc(n);
}
static void *ctx_realloc(void *ctx, void *p, size_t n) {
  if (ctx) ((alloc_counts *)ctx)->reallocs++;
  return realloc(p, n);
}
static void ctx_free(void *ctx, void *p) {
  if (ctx) ((alloc_counts *)ctx)->frees++;
  free(p);
}

static void test_allocator_ctx(void **state) {
  (void)state;
  alloc_counts c1 = {0}, c2 = {0};
  paimon_allocator a = PAIMON_ALLOCATOR_INIT;
  assert_int_equal(a.struct_size, sizeof(paimon_allocator));
  a.malloc_fn = ctx_malloc;
  a.realloc_fn = ctx_realloc;
  assert_int_equal(paimon_allocator_set(&a), PAIMON_EINVAL); /* free_fn missing */
  a.free_fn = ctx_free;
  a.ctx = &c1;
  assert_int_equal(paimon_allocator_set(&a), PAIMON_OK);
  a.ctx = &c2; /* the struct was copied: this does not change the installed hooks */
  void *p = pm_malloc(10);
  p = pm_realloc(p, 100);
  pm_free(p);
  pm_free(pm_calloc(3, 4));
  pm_free(pm_strdup("hi"));
  assert_int_equal(c1.mallocs, 3);
  assert_int_equal(c1.reallocs, 1);
  assert_int_equal(c1.frees, 3);
  assert_int_equal(c2.mallocs + c2.reallocs + c2.frees, 0);
  /* library code reaches the hooks too (a public call that allocates and frees) */
  size_t before = c1.mallocs, frees_before = c1.frees;
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), PAIMON_OK);
  assert_int_equal(paimon_options_set(o, "bucket", "4", NULL), PAIMON_OK);
  paimon_options_free(o);
  assert_true(c1.mallocs > before);
  assert_true(c1.frees > frees_before);

  /* struct_size: 0 (not initialized) and a future, larger size are refused and leave the
   * installed hooks alone; an older, smaller one is read up to its size (no ctx: NULL) */
  paimon_allocator bad = a;
  bad.struct_size = 0;
  assert_int_equal(paimon_allocator_set(&bad), PAIMON_EINVAL);
  bad.struct_size = sizeof(paimon_allocator) + 8;
  assert_int_equal(paimon_allocator_set(&bad), PAIMON_EINVAL);
  before = c1.mallocs;
  pm_free(pm_malloc(1));
  assert_int_equal(c1.mallocs, before + 1);
  assert_int_equal(c2.mallocs, 0);
  paimon_allocator old = a; /* ctx = &c2, but outside the older struct's size */
  old.struct_size = offsetof(paimon_allocator, ctx);
  assert_int_equal(paimon_allocator_set(&old), PAIMON_OK);
  pm_free(pm_malloc(1));
  assert_int_equal(c2.mallocs, 0);
  assert_int_equal(c1.mallocs, before + 1);
  old.struct_size = offsetof(paimon_allocator, free_fn); /* too old to hold free_fn */
  assert_int_equal(paimon_allocator_set(&old), PAIMON_EINVAL);
  assert_int_equal(paimon_allocator_set(NULL), PAIMON_OK);
  pm_free(pm_malloc(1));
  assert_int_equal(c1.mallocs, before + 1);
}

/* The deprecated context-free alias, implemented on paimon_allocator_set(). */
static void test_allocator_hook(void **state) {
  (void)state;
  assert_int_equal(paimon_set_allocator(count_malloc, NULL, free), PAIMON_EINVAL);
  assert_int_equal(paimon_set_allocator(count_malloc, count_realloc, free), 0);
  g_allocs = 0;
  void *p = pm_malloc(10);
  p = pm_realloc(p, 100);
  pm_free(p);
  char *s = pm_strdup("hi");
  pm_free(s);
  assert_int_equal(g_allocs, 3);
  assert_int_equal(paimon_set_allocator(NULL, NULL, NULL), 0);
  g_allocs = 0;
  pm_free(pm_malloc(1));
  assert_int_equal(g_allocs, 0);
}

/* ---- buffers / varints ----------------------------------------------------------- */

static void test_buf(void **state) {
  (void)state;
  pm_buf b = PM_BUF_INIT;
  for (int i = 0; i < 1000; i++) assert_int_equal(pm_buf_append(&b, "ab", 2), 0);
  assert_int_equal(b.len, 2000);
  assert_true(b.cap >= 2000);
  assert_int_equal(memcmp(b.data + 1998, "ab", 2), 0);
  pm_buf_clear(&b);
  assert_int_equal(pm_buf_printf(&b, "%d-%s", 12, "x"), 0);
  assert_int_equal(pm_buf_append_str(&b, "!"), 0);
  assert_int_equal(b.len, 5);
  assert_int_equal(memcmp(b.data, "12-x!", 5), 0);
  assert_int_equal(pm_buf_resize(&b, 10), 0);
  for (int i = 5; i < 10; i++) assert_int_equal(b.data[i], 0);
  assert_int_equal(pm_buf_resize(&b, 2), 0);
  char *s = pm_buf_detach(&b);
  assert_string_equal(s, "12");
  assert_null(b.data);
  assert_int_equal(b.len, 0);
  pm_free(s);
  pm_buf_free(&b);

  uint8_t x[8];
  pm_store_be32(x, 0x01020304u);
  assert_int_equal(x[0], 1);
  assert_int_equal(pm_load_be32(x), 0x01020304u);
  pm_store_be64(x, 0x0102030405060708ull);
  assert_true(pm_load_be64(x) == 0x0102030405060708ull);
  pm_store_le32(x, 0xdeadbeefu);
  assert_int_equal(x[0], 0xef);
  assert_int_equal(pm_load_le16(x), 0xbeef);
}

static void test_varint(void **state) {
  (void)state;
  /* Encodings from the protobuf spec: 1 -> 01, 150 -> 96 01, 300 -> ac 02. */
  uint8_t out[10];
  assert_int_equal(pm_varint_enc(out, 150), 2);
  assert_int_equal(out[0], 0x96);
  assert_int_equal(out[1], 0x01);
  assert_int_equal(pm_varint_enc(out, 300), 2);
  assert_int_equal(out[0], 0xac);
  assert_int_equal(out[1], 0x02);
  assert_int_equal(pm_varint_enc(out, UINT64_MAX), 10);
  const uint64_t vals[] = {0, 1, 127, 128, 16383, 16384, 1ull << 35, UINT64_MAX};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    size_t n = pm_varint_enc(out, vals[i]);
    const uint8_t *p = out;
    uint64_t v = 0;
    assert_int_equal(pm_varint_dec(&p, out + n, &v), 0);
    assert_true(v == vals[i]);
    assert_ptr_equal(p, out + n);
    p = out;
    if (n > 1) assert_int_equal(pm_varint_dec(&p, out + n - 1, &v), -1); /* truncated */
  }
  uint8_t overlong[11];
  memset(overlong, 0x80, sizeof overlong);
  const uint8_t *p = overlong;
  uint64_t v;
  assert_int_equal(pm_varint_dec(&p, overlong + sizeof overlong, &v), -1);
  /* zigzag per protobuf: 0->0, -1->1, 1->2, -2->3 */
  assert_true(pm_zigzag_enc(0) == 0);
  assert_true(pm_zigzag_enc(-1) == 1);
  assert_true(pm_zigzag_enc(1) == 2);
  assert_true(pm_zigzag_enc(-2) == 3);
  assert_true(pm_zigzag_dec(pm_zigzag_enc(INT64_MIN)) == INT64_MIN);
  assert_true(pm_zigzag_dec(pm_zigzag_enc(INT64_MAX)) == INT64_MAX);
}

/* ---- hashing --------------------------------------------------------------------- */

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }
static size_t unhex(const char *h, uint8_t *out) {
  size_t n = 0;
  for (; *h; h++) {
    if (*h == ' ') continue;
    out[n++] = (uint8_t)(hexval(h[0]) * 16 + hexval(h[1]));
    h++;
  }
  return n;
}

static void test_murmur_vectors(void **state) {
  (void)state;
  /* Bucket-key BinaryRows and Java-confirmed hashes, docs/ref/format-metadata.md §6. */
  struct {
    const char *row;
    int32_t h;
  } v[] = {
      {"0000000000000000 0000000000000000", -300363099},
      {"0000000000000000 0100000000000000", 1465514398},
      {"0000000000000000 416c696365000085", 1285337400},
      {"0000000000000000 0c00000010000000 68656c6c6f20776f726c642100000000", 609810467},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    uint8_t row[64];
    size_t n = unhex(v[i].row, row);
    assert_int_equal(pm_murmur3_32(row, n, 42), v[i].h);
  }
  /* bucket = abs(h % N): INT 0 -> bucket 1 of 2, "hello world!" -> bucket 3 of 4. */
  assert_int_equal(abs(-300363099 % 2), 1);
  assert_int_equal(abs(609810467 % 4), 3);
  /* Reference MurmurHash3_x86_32 vectors (SMHasher): "" seed 0 -> 0, "" seed 1 ->
   * 0x514E28B7, "abcd" seed 0x9747b28c -> 0xF0478627. */
  assert_int_equal((uint32_t)pm_murmur3_32("", 0, 0), 0u);
  assert_int_equal((uint32_t)pm_murmur3_32("", 0, 1), 0x514E28B7u);
  assert_int_equal((uint32_t)pm_murmur3_32("abcd", 4, 0x9747b28c), 0xF0478627u);
}

static void test_crc_uuid_time(void **state) {
  (void)state;
  assert_int_equal(pm_crc32(0, "123456789", 9), 0xCBF43926u); /* standard check value */
  assert_int_equal(pm_crc32(pm_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
  char a[37], b[37];
  pm_uuid(a);
  pm_uuid(b);
  assert_int_equal(strlen(a), 36);
  assert_string_not_equal(a, b);
  assert_int_equal(a[8], '-');
  assert_int_equal(a[14], '4');
  assert_true(strchr("89ab", a[19]) != NULL);
  int64_t now = pm_now_millis();
  assert_true(now > 1600000000000LL && now < 4100000000000LL);
}

/* ---- compression ----------------------------------------------------------------- */

static void fill_sample(uint8_t *d, size_t n) {
  uint32_t x = 12345;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    d[i] = (i % 100 < 60) ? (uint8_t) "paimon columnar "[i % 16] : (uint8_t)(x >> 24);
  }
}

static const pm_codec all_codecs[] = {PM_CODEC_NONE,    PM_CODEC_SNAPPY,      PM_CODEC_GZIP,
                                      PM_CODEC_ZLIB,    PM_CODEC_DEFLATE_RAW, PM_CODEC_ZSTD,
                                      PM_CODEC_LZ4_RAW, PM_CODEC_LZ4_HADOOP,  PM_CODEC_LZ4_FRAME};

static void test_compress_round_trip(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 100, 70000, 1 << 20};
  uint8_t *src = malloc(1 << 20);
  fill_sample(src, 1 << 20);
  pm_buf c = PM_BUF_INIT, d = PM_BUF_INIT;
  paimon_error err = {0};
  for (size_t k = 0; k < sizeof all_codecs / sizeof all_codecs[0]; k++) {
    pm_codec codec = all_codecs[k];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      pm_buf_clear(&c);
      PM_ASSERT_OK(pm_compress(codec, 0, src, n, &c, &err), &err);
      if (codec != PM_CODEC_NONE && n == (1u << 20)) assert_true(c.len < n);
      /* Known size and unknown size both decode. */
      PM_ASSERT_OK(pm_decompress(codec, c.data, c.len, (int64_t)n, &d, &err), &err);
      assert_int_equal(d.len, n);
      if (n) assert_memory_equal(d.data, src, n);
      PM_ASSERT_OK(pm_decompress(codec, c.data, c.len, -1, &d, &err), &err);
      assert_int_equal(d.len, n);
      if (n) assert_memory_equal(d.data, src, n);
      /* A wrong expected size is an error naming the codec. */
      if (n > 0) {
        int rc = pm_decompress(codec, c.data, c.len, (int64_t)n - 1, &d, &err);
        assert_int_equal(rc, PAIMON_ECORRUPT);
        rc = pm_decompress(codec, c.data, c.len, (int64_t)n + 1, &d, &err);
        assert_int_equal(rc, PAIMON_ECORRUPT);
        assert_non_null(strstr(err.message, pm_codec_name(codec)));
      }
    }
  }
  pm_buf_free(&c);
  pm_buf_free(&d);
  free(src);
}

/* Streams produced directly by the reference libraries decode. */
static void test_decompress_reference_encoders(void **state) {
  (void)state;
  size_t n = 200000;
  uint8_t *src = malloc(n);
  fill_sample(src, n);
  pm_buf d = PM_BUF_INIT;
  paimon_error err = {0};
  uint8_t *tmp = malloc(n * 2 + 1024);

  /* zlib compress2 (zlib framing) */
  uLongf zl = (uLongf)(n * 2 + 1024);
  assert_int_equal(compress2(tmp, &zl, src, n, 6), Z_OK);
  PM_ASSERT_OK(pm_decompress(PM_CODEC_ZLIB, tmp, zl, -1, &d, &err), &err);
  assert_int_equal(d.len, n);
  assert_memory_equal(d.data, src, n);

  /* gzip: two concatenated members (allowed by RFC 1952) */
  size_t half = n / 2, gz_len = 0;
  for (size_t part = 0; part < 2; part++) {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = src + part * half;
    zs.avail_in = (uInt)(part ? n - half : half);
    zs.next_out = tmp + gz_len;
    zs.avail_out = (uInt)(n * 2 + 1024 - gz_len);
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    gz_len += zs.total_out;
    deflateEnd(&zs);
  }
  PM_ASSERT_OK(pm_decompress(PM_CODEC_GZIP, tmp, gz_len, (int64_t)n, &d, &err), &err);
  assert_memory_equal(d.data, src, n);

  /* snappy */
  size_t sl = snappy_max_compressed_length(n);
  assert_int_equal(snappy_compress((const char *)src, n, (char *)tmp, &sl), SNAPPY_OK);
  PM_ASSERT_OK(pm_decompress(PM_CODEC_SNAPPY, tmp, sl, -1, &d, &err), &err);
  assert_memory_equal(d.data, src, n);

  /* zstd: two frames back to back, no content size known to us */
  size_t z1 = ZSTD_compress(tmp, n * 2, src, half, 1);
  assert_false(ZSTD_isError(z1));
  size_t z2 = ZSTD_compress(tmp + z1, n * 2 - z1, src + half, n - half, 1);
  assert_false(ZSTD_isError(z2));
  PM_ASSERT_OK(pm_decompress(PM_CODEC_ZSTD, tmp, z1 + z2, -1, &d, &err), &err);
  assert_int_equal(d.len, n);
  assert_memory_equal(d.data, src, n);

  /* Hadoop LZ4: one block split into two chunks, built by hand with liblz4. */
  size_t o = 0;
  pm_store_be32(tmp, (uint32_t)n);
  o = 4;
  for (size_t part = 0; part < 2; part++) {
    const uint8_t *p = src + part * half;
    int len = (int)(part ? n - half : half);
    int cl = LZ4_compress_default((const char *)p, (char *)tmp + o + 4, len, (int)(n * 2 - o));
    assert_true(cl > 0);
    pm_store_be32(tmp + o, (uint32_t)cl);
    o += 4 + (size_t)cl;
  }
  PM_ASSERT_OK(pm_decompress(PM_CODEC_LZ4_HADOOP, tmp, o, (int64_t)n, &d, &err), &err);
  assert_int_equal(d.len, n);
  assert_memory_equal(d.data, src, n);
  /* ... and a raw LZ4 block given as "Hadoop" falls back to raw decoding. */
  int rl = LZ4_compress_default((const char *)src, (char *)tmp, (int)n, (int)(n * 2));
  PM_ASSERT_OK(pm_decompress(PM_CODEC_LZ4_HADOOP, tmp, (size_t)rl, (int64_t)n, &d, &err), &err);
  assert_memory_equal(d.data, src, n);

  pm_buf_free(&d);
  free(tmp);
  free(src);
}

static void test_decompress_corrupt(void **state) {
  (void)state;
  size_t n = 50000;
  uint8_t *src = malloc(n);
  fill_sample(src, n);
  pm_buf c = PM_BUF_INIT, d = PM_BUF_INIT;
  paimon_error err = {0};
  for (size_t k = 1; k < sizeof all_codecs / sizeof all_codecs[0]; k++) {
    pm_codec codec = all_codecs[k];
    pm_buf_clear(&c);
    PM_ASSERT_OK(pm_compress(codec, 0, src, n, &c, &err), &err);
    /* Truncations must fail cleanly (or at worst produce fewer bytes than expected). */
    size_t cuts[] = {1, 3, c.len / 2, c.len - 1};
    for (size_t j = 0; j < 4; j++) {
      int rc = pm_decompress(codec, c.data, cuts[j], (int64_t)n, &d, &err);
      assert_int_equal(rc, PAIMON_ECORRUPT);
      rc = pm_decompress(codec, c.data, cuts[j], -1, &d, &err);
      if (rc == 0) assert_true(d.len < n);
      else assert_int_equal(rc, PAIMON_ECORRUPT);
    }
    /* Byte flips anywhere: never crash; with a known size never return other lengths. */
    for (size_t pos = 0; pos < c.len; pos += 1 + c.len / 97) {
      uint8_t saved = c.data[pos];
      c.data[pos] ^= 0x5a;
      int rc = pm_decompress(codec, c.data, c.len, (int64_t)n, &d, &err);
      if (rc == 0) assert_int_equal(d.len, n);
      else assert_true(rc == PAIMON_ECORRUPT);
      (void)pm_decompress(codec, c.data, c.len, -1, &d, &err);
      c.data[pos] = saved;
    }
  }
  /* Garbage */
  uint8_t junk[64];
  memset(junk, 0xff, sizeof junk);
  for (size_t k = 1; k < sizeof all_codecs / sizeof all_codecs[0]; k++)
    assert_int_equal(pm_decompress(all_codecs[k], junk, sizeof junk, 1000, &d, &err),
                     PAIMON_ECORRUPT);
  /* A declared size over the allocation limit is refused before allocating. */
  assert_int_equal(pm_decompress(PM_CODEC_ZSTD, junk, 4, (int64_t)PM_MAX_ALLOC + 1, &d, &err),
                   PAIMON_ECORRUPT);
  /* Snappy header claiming 4 GiB. */
  uint8_t bomb[] = {0x80, 0x80, 0x80, 0x80, 0x10, 0x00};
  assert_int_equal(pm_decompress(PM_CODEC_SNAPPY, bomb, sizeof bomb, -1, &d, &err),
                   PAIMON_ECORRUPT);
  pm_buf_free(&c);
  pm_buf_free(&d);
  free(src);
}

static void test_decompress_bounded(void **state) {
  (void)state;
  /* 8 MiB of zeros compresses tiny; an expected size below it is enforced without
   * decoding the whole stream into memory. */
  size_t n = 8u << 20;
  uint8_t *z = calloc(1, n);
  pm_buf c = PM_BUF_INIT, d = PM_BUF_INIT;
  paimon_error err = {0};
  pm_codec codecs[] = {PM_CODEC_GZIP, PM_CODEC_ZSTD, PM_CODEC_LZ4_FRAME, PM_CODEC_DEFLATE_RAW};
  for (size_t k = 0; k < 4; k++) {
    pm_buf_clear(&c);
    PM_ASSERT_OK(pm_compress(codecs[k], 0, z, n, &c, &err), &err);
    assert_true(c.len < n / 100);
    pm_buf_free(&d);
    assert_int_equal(pm_decompress(codecs[k], c.data, c.len, 4096, &d, &err), PAIMON_ECORRUPT);
    assert_true(d.cap <= 1 << 20);
    PM_ASSERT_OK(pm_decompress(codecs[k], c.data, c.len, -1, &d, &err), &err);
    assert_int_equal(d.len, n);
  }
  pm_buf_free(&c);
  pm_buf_free(&d);
  free(z);
}

/* ---- options --------------------------------------------------------------------- */

static void test_options(void **state) {
  (void)state;
  paimon_options *o = NULL;
  assert_int_equal(paimon_options_new(&o, NULL), 0);
  assert_null(paimon_options_get(o, "bucket"));
  assert_int_equal(paimon_options_set(o, "bucket", "2", NULL), 0);
  assert_int_equal(paimon_options_set(o, "file.format", "orc", NULL), 0);
  assert_int_equal(paimon_options_set(o, "bucket", "4", NULL), 0);
  assert_string_equal(paimon_options_get(o, "bucket"), "4");
  assert_int_equal(paimon_options_count(o), 2);
  const char *k, *v;
  assert_int_equal(paimon_options_entry(&k, &v, o, 1), 0);
  assert_string_equal(k, "file.format");
  assert_string_equal(v, "orc");
  assert_int_equal(paimon_options_entry(&k, &v, o, 2), PAIMON_EINVAL);
  for (int i = 0; i < 100; i++) {
    char key[16];
    snprintf(key, sizeof key, "k%d", i);
    assert_int_equal(paimon_options_set(o, key, key, NULL), 0);
  }
  assert_string_equal(paimon_options_get(o, "k77"), "k77");
  paimon_options_free(o);
  paimon_options_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_allocator_hook),
      cmocka_unit_test(test_allocator_ctx),
      cmocka_unit_test(test_buf),
      cmocka_unit_test(test_varint),
      cmocka_unit_test(test_murmur_vectors),
      cmocka_unit_test(test_crc_uuid_time),
      cmocka_unit_test(test_compress_round_trip),
      cmocka_unit_test(test_decompress_reference_encoders),
      cmocka_unit_test(test_decompress_corrupt),
      cmocka_unit_test(test_decompress_bounded),
      cmocka_unit_test(test_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
