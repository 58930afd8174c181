/* tests/unit/mergetree/test_agg_rbm64.c: the rbm64 aggregate's value codec
 * (mergetree/agg_rbm64.c) against golden bytes.
 *
 * Every golden value below was produced by RoaringBitmap 1.2.1 (the version Java Paimon
 * pins), Roaring64Bitmap.serialize(DataOutput) after runOptimize(), exactly as Paimon's
 * RoaringBitmap64.serialize() calls them: bitmapOf = add each value in the order given;
 * union = deserialize both, acc.or(in), runOptimize, serialize (FieldRoaringBitmap64Agg).
 * Values over 200 bytes are pinned by length and zlib CRC-32 of Java's output. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"

/* ---- golden bytes (RoaringBitmap 1.2.1) -------------------------------------------- */

/* Paimon's FieldAggregatorTest.testFieldRoaringBitmap64Agg values */
#define G_OF1                                                                              \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001020100000001" \
  "0001000000000000000000000000000000"
#define G_OF23                                                                             \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001020200000002" \
  "00030001000000000000000000000000000000"
#define G_OF123                                                                            \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001020300000001" \
  "000200030001000000000000000000000000000000"
/* bitmapOf(2^32, 2^32+5, -1, -2, Long.MIN_VALUE, 7): four high keys under a Node4 */
#define G_OF_BIG                                                                           \
  "0104000000000000000003000000ff80000002000200000000010004000000000000000000030000000000" \
  "000004000000000000010000000000000000000004000000800000000000020000000000000004000000ff" \
  "ffffffffff010000000000000001000000fe0400000001020200000000000500010202000000feffffff01" \
  "02010000000000010201000000070004000000000000000000000003000000"
/* bitmapOf(5, -1) and bitmapOf(-1, 5): same ART order (-1 is unsigned-largest), container
 * slots in insertion order */
#define G_OF_5_M1                                                                           \
  "010200000000000000000200000000ff000400000000000000000000000000000000000400000"           \
  "0ffffffffffff010000000000000001000000fe020000000102010000000500010201000000ffff02000000" \
  "000000000000000001000000"
#define G_OF_M1_5                                                                           \
  "010200000000000000000200000000ff000400000000000000000001000000000000000400000"           \
  "0ffffffffffff000000000000000001000000fe02000000010201000000ffff010201000000050002000000" \
  "000000000000000001000000"
#define G_OF_0123                                                                          \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001000400000001" \
  "000000030001000000000000000000000000000000"
#define G_OF_10_20                                                                         \
  "01010000000000000004000000000000000000000000000000000001000000fe010000000102020000000a" \
  "00140001000000000000000000000000000000"
/* or(bitmapOf(0,1,2,3), bitmapOf(10,20)): RunContainer.ior(ArrayContainer) keeps a run
 * when run size <= array size (14 == 14) ... */
#define G_U_RUN_TIE                                                                        \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001000600000003" \
  "00000003000a0000001400000001000000000000000000000000000000"
/* ... while bitmapOf(0,1,2,3,10,20) stays an array (runOptimize wants strictly smaller) */
#define G_OF_TIE                                                                           \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001020600000000" \
  "000100020003000a00140001000000000000000000000000000000"
/* bitmapOf(100..299, 1000..1099): a two-run container */
#define G_OF_RUNS                                                                          \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001002c01000002" \
  "006400c700e803630001000000000000000000000000000000"
/* bitmapOf(0..65535) */
#define G_OF_FULL                                                                          \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001000000010001" \
  "000000ffff01000000000000000000000000000000"
/* 0..9 added and serialized WITHOUT runOptimize (an array of 10), then its union with
 * an empty bitmap, which run-optimizes it */
#define G_RAW10                                                                            \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001020a00000000" \
  "0001000200030004000500060007000800090001000000000000000000000000000000"
#define G_U_RAW10_EMPTY                                                                    \
  "01010000000000000004000000000000000000000000000000000001000000fe0100000001000a00000001" \
  "000000090001000000000000000000000000000000"
/* add 65536, 131072, 2^33, remove 131072: a leaf carrying a prefix after its Node4
 * shrank, and a null container slot */
#define G_REMOVED                                                                            \
  "0102000000000000000002000300000000000200040000020001000000000001000000000000000004000000" \
  "000000020000020000000000000001000000fe0300000001020100000000000001020100000000000200000"  \
  "0000000000000000002000000"
/* or(G_REMOVED, bitmapOf(131072)): the prefixed leaf is split, the slot array grows */
#define G_U_REMOVED_2                                                                        \
  "0103000000000000000002000300000000000200000200010000000201040000000000000000010000000000" \
  "00000004000000000000000002030000000000000004000000000000020000020000000000000001000000fe" \
  "040000000102010000000000000102010000000000010201000000000003000000000000000000000003000"  \
  "000"

/* ---- helpers ----------------------------------------------------------------------- */

typedef pm_test_bytes bytes;

static bytes unhex(const char *h) { return pm_test_unhex(h); }

static bytes copy_buf(const pm_buf *b) { return pm_test_copy(b->data, b->len); }

static void assert_bytes(const pm_buf *got, const char *hex) {
  bytes want = unhex(hex);
  if (got->len != want.n || memcmp(got->data, want.p, want.n) != 0) {
    char h[1024] = {0};
    for (size_t i = 0; i < got->len && 2 * i + 2 < sizeof h; i++)
      snprintf(h + 2 * i, 3, "%02x", got->data[i]);
    fail_msg("bytes differ (got %zu, want %zu): %s", got->len, want.n, h);
  }
  free(want.p);
}

static void assert_crc(const pm_buf *got, size_t len, uint32_t crc) {
  assert_int_equal(got->len, len);
  assert_int_equal(pm_crc32(0, got->data, got->len), crc);
}

static bytes of(const int64_t *v, size_t n) {
  pm_buf out = PM_BUF_INIT;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_agg_rbm64_of(v, n, &out, &err), &err);
  bytes r = copy_buf(&out);
  pm_buf_free(&out);
  return r;
}

static bytes of_range(int64_t from, int64_t to, int64_t step) {
  size_t n = (size_t)((to - from + step - 1) / step);
  int64_t *v = malloc(n * sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < n; i++) v[i] = from + (int64_t)i * step;
  bytes r = of(v, n);
  free(v);
  return r;
}

static void unite(bytes a, bytes b, pm_buf *out) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_agg_rbm64_union(a.p, a.n, b.p, b.n, out, &err), &err);
}

static void unite_hex(const char *a, const char *b, pm_buf *out) {
  bytes x = unhex(a), y = unhex(b);
  unite(x, y, out);
  free(x.p);
  free(y.p);
}

/* The value must fail cleanly (PAIMON_ECORRUPT with a message) on either side. */
static void assert_corrupt(const uint8_t *p, size_t n) {
  static const uint8_t one[] = {0x00}; /* a valid empty bitmap for the other side */
  pm_buf out = PM_BUF_INIT;
  for (int side = 0; side < 2; side++) {
    paimon_error err = {0};
    int rc = side ? pm_agg_rbm64_union(one, 1, p, n, &out, &err)
                  : pm_agg_rbm64_union(p, n, one, 1, &out, &err);
    if (rc != PAIMON_ECORRUPT) fail_msg("length %zu side %d: rc %d (%s)", n, side, rc, err.message);
    assert_non_null(strstr(err.message, "rbm64"));
  }
  pm_buf_free(&out);
}

static void assert_corrupt_hex_mut(const char *hex, size_t off, uint8_t val) {
  bytes b = unhex(hex);
  assert_true(off < b.n);
  b.p[off] = val;
  assert_corrupt(b.p, b.n);
  free(b.p);
}

/* Every proper prefix of a valid value is corrupt; the value itself is not. */
static void assert_truncations_fail(bytes b) {
  for (size_t len = 0; len < b.n; len++) {
    uint8_t *c = malloc(len ? len : 1); /* exact size so ASan sees any overread */
    memcpy(c, b.p, len);
    assert_corrupt(c, len);
    free(c);
  }
  pm_buf out = PM_BUF_INIT;
  static const uint8_t empty[] = {0x00};
  unite(b, (bytes){(uint8_t *)empty, 1}, &out);
  pm_buf_free(&out);
}

/* ---- tests ------------------------------------------------------------------------- */

/* FieldAggregatorTest.testFieldRoaringBitmap64Agg */
static void test_paimon_agg_golden(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  bytes v;
  v = of((int64_t[]){1}, 1);
  unite(v, v, &out);
  assert_bytes(&out, G_OF1);
  free(v.p);
  v = of((int64_t[]){2, 3}, 2);
  unite(v, v, &out);
  assert_bytes(&out, G_OF23);
  free(v.p);
  v = of((int64_t[]){1, 2, 3}, 3);
  unite(v, v, &out);
  assert_bytes(&out, G_OF123);
  free(v.p);

  unite_hex(G_OF23, G_OF1, &out); /* agg(acc1, inputVal) == acc2 */
  assert_bytes(&out, G_OF123);
  unite_hex(G_OF123, G_OF1, &out); /* agg(acc2, inputVal) == acc2 */
  assert_bytes(&out, G_OF123);
  pm_buf_free(&out);
}

static void test_of_golden(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  paimon_error err = {0};
#define OF(hex, ...)                                                               \
  do {                                                                             \
    int64_t v_[] = {__VA_ARGS__};                                                  \
    PM_ASSERT_OK(pm_agg_rbm64_of(v_, sizeof v_ / sizeof v_[0], &out, &err), &err); \
    assert_bytes(&out, hex);                                                       \
  } while (0)
  OF(G_OF1, 1);
  OF(G_OF123, 1, 2, 3);
  OF(G_OF123, 3, 1, 2, 2, 1); /* order within a container and duplicates don't matter */
  OF(G_OF_BIG, INT64_C(1) << 32, (INT64_C(1) << 32) + 5, -1, -2, INT64_MIN, 7);
  OF(G_OF_5_M1, 5, -1);
  OF(G_OF_M1_5, -1, 5);
  OF(G_OF_TIE, 0, 1, 2, 3, 10, 20);
  OF(G_OF_0123, 0, 1, 2, 3);
#undef OF
  PM_ASSERT_OK(pm_agg_rbm64_of(NULL, 0, &out, &err), &err);
  assert_bytes(&out, "00");

  bytes r = of_range(0, 65536, 1), full = unhex(G_OF_FULL);
  assert_int_equal(r.n, full.n);
  assert_memory_equal(r.p, full.p, r.n);
  free(r.p);
  free(full.p);
  int64_t runs[300];
  for (int i = 0; i < 200; i++) runs[i] = 100 + i;
  for (int i = 0; i < 100; i++) runs[200 + i] = 1000 + i;
  PM_ASSERT_OK(pm_agg_rbm64_of(runs, 300, &out, &err), &err);
  assert_bytes(&out, G_OF_RUNS);
  pm_buf_free(&out);
}

static void test_union_golden(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  unite_hex(G_OF_0123, G_OF_10_20, &out);
  assert_bytes(&out, G_U_RUN_TIE);
  /* a new high key is appended as the next container slot */
  bytes five = of((int64_t[]){5}, 1), m1 = of((int64_t[]){-1}, 1);
  unite(five, m1, &out);
  assert_bytes(&out, G_OF_5_M1);
  unite(m1, five, &out);
  assert_bytes(&out, G_OF_M1_5);
  free(five.p);
  free(m1.p);
  /* an input Java wrote without runOptimize */
  unite_hex(G_RAW10, "00", &out);
  assert_bytes(&out, G_U_RAW10_EMPTY);
  /* empty sides */
  unite_hex("00", "00", &out);
  assert_bytes(&out, "00");
  unite_hex("00", G_OF1, &out);
  assert_bytes(&out, G_OF1);
  unite_hex(G_OF1, "00", &out);
  assert_bytes(&out, G_OF1);
  /* history Java leaves in the bytes: a prefixed leaf, a null slot */
  unite_hex(G_REMOVED, "00", &out);
  assert_bytes(&out, G_REMOVED);
  bytes k2 = of((int64_t[]){131072}, 1), rem = unhex(G_REMOVED);
  unite(rem, k2, &out);
  assert_bytes(&out, G_U_REMOVED_2);
  free(k2.p);
  free(rem.p);
  pm_buf_free(&out);
}

/* Node4 -> Node16 -> Node48 -> Node256 growth while inserting the input's keys */
static void test_node_growth(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  bytes a = of_range(0, 16 << 16, 1 << 16), b = of_range(16 << 16, 21 << 16, 1 << 16);
  unite(a, b, &out);
  assert_crc(&out, 852, 0x4212420fu);
  free(a.p);
  free(b.p);
  a = of_range(0, 48 << 16, 1 << 16);
  b = of_range((40 << 16) + 1, (60 << 16) + 1, 1 << 16);
  unite(a, b, &out);
  assert_crc(&out, 1654, 0x1795b2b9u);
  free(a.p);
  free(b.p);
  pm_buf_free(&out);
}

/* array <-> bitmap at 4096 values, and the container-type rules of Container.ior */
static void test_container_types(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  bytes ev4096 = of_range(0, 8192, 2), ev4097 = of_range(0, 8194, 2);
  assert_int_equal(ev4096.n, 8250);
  assert_int_equal(pm_crc32(0, ev4096.p, ev4096.n), 0xd22ba9bfu); /* array of 4096 */
  assert_int_equal(pm_crc32(0, ev4097.p, ev4097.n), 0x5ff4f509u); /* bitmap */
  /* array|array whose sizes sum past 4096 but whose union fits: back to an array */
  bytes ev101 = of_range(0, 202, 2);
  unite(ev4096, ev101, &out);
  assert_crc(&out, 8250, 0xd22ba9bfu);
  /* bitmap|array stays a bitmap */
  bytes one = of((int64_t[]){1}, 1);
  unite(ev4097, one, &out);
  assert_crc(&out, 8250, 0x62292889u);
  /* bitmap|bitmap */
  bytes odds = of_range(1, 65536, 2), evens = of_range(0, 65536, 2);
  assert_int_equal(pm_crc32(0, odds.p, odds.n), 0x6b33f3e1u);
  assert_int_equal(pm_crc32(0, evens.p, evens.n), 0x331e7f51u);
  unite(ev4097, odds, &out);
  assert_crc(&out, 8250, 0x1c527d17u);
  /* bitmap|bitmap filling all 65536: the full run */
  unite(evens, odds, &out);
  assert_bytes(&out, G_OF_FULL);
  free(ev4096.p);
  free(ev4097.p);
  free(ev101.p);
  free(one.p);
  free(odds.p);
  free(evens.p);
  pm_buf_free(&out);
}

static void test_truncations(void **state) {
  (void)state;
  static const char *const golden[] = {
      G_OF1,     G_OF23,          G_OF123,     G_OF_BIG,      G_OF_5_M1, G_OF_M1_5,
      G_OF_0123, G_OF_10_20,      G_U_RUN_TIE, G_OF_TIE,      G_OF_RUNS, G_OF_FULL,
      G_RAW10,   G_U_RAW10_EMPTY, G_REMOVED,   G_U_REMOVED_2, "00"};
  for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
    bytes b = unhex(golden[i]);
    assert_truncations_fail(b);
    free(b.p);
  }
  /* larger values: Node48/Node256 and bitmap containers */
  bytes big[] = {of_range(0, 21 << 16, 1 << 16), of_range(0, 60 << 16, 1 << 16),
                 of_range(0, 8194, 2)};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
    assert_truncations_fail(big[i]);
    free(big[i].p);
  }
}

static void test_corrupt(void **state) {
  (void)state;
  /* offsets in G_OF123: 0 tag, 1 keySize, 9 leaf type, 10 count, 12 prefix length,
   * 13 key, 19 container index, 27 array count, 31 mark, 32 slots, 36 slot mark,
   * 37 type, 38 cardinality, 42 values, 48 live count, 56 firstLevelIdx,
   * 60 secondLevelIdx */
  assert_corrupt_hex_mut(G_OF123, 0, 2);     /* bad tag */
  assert_corrupt_hex_mut(G_OF123, 1, 2);     /* keySize != leaves */
  assert_corrupt_hex_mut(G_OF123, 9, 5);     /* DUMMY_ROOT node type */
  assert_corrupt_hex_mut(G_OF123, 9, 0);     /* leaf bytes read as a Node4 */
  assert_corrupt_hex_mut(G_OF123, 10, 1);    /* leaf with children */
  assert_corrupt_hex_mut(G_OF123, 12, 1);    /* prefix that is not the key */
  assert_corrupt_hex_mut(G_OF123, 12, 0x80); /* negative prefix length */
  assert_corrupt_hex_mut(G_OF123, 19, 1);    /* leaf -> missing slot */
  assert_corrupt_hex_mut(G_OF123, 23, 1);    /* leaf -> second first-level array */
  assert_corrupt_hex_mut(G_OF123, 27, 2);    /* two first-level arrays */
  assert_corrupt_hex_mut(G_OF123, 27, 0);    /* none */
  assert_corrupt_hex_mut(G_OF123, 31, 0xFF); /* bad trim mark */
  assert_corrupt_hex_mut(G_OF123, 32, 0);    /* zero slots */
  assert_corrupt_hex_mut(G_OF123, 35, 0x7F); /* slot count beyond the input */
  assert_corrupt_hex_mut(G_OF123, 36, 2);    /* bad null mark */
  assert_corrupt_hex_mut(G_OF123, 36, 0);    /* leaf -> null slot */
  assert_corrupt_hex_mut(G_OF123, 37, 3);    /* bad container type */
  assert_corrupt_hex_mut(G_OF123, 37, 0);    /* array read as runs */
  assert_corrupt_hex_mut(G_OF123, 38, 2);    /* cardinality shifts the rest */
  assert_corrupt_hex_mut(G_OF123, 41, 0x80); /* negative cardinality */
  assert_corrupt_hex_mut(G_OF123, 44, 1);    /* values 1,1,3: not ascending */
  assert_corrupt_hex_mut(G_OF123, 48, 2);    /* live count */
  assert_corrupt_hex_mut(G_OF123, 56, 1);    /* firstLevelIdx */
  assert_corrupt_hex_mut(G_OF123, 60, 1);    /* secondLevelIdx past the slots */
  assert_corrupt_hex_mut(G_OF123, 63, 0x80); /* negative secondLevelIdx */
  /* G_OF_RUNS: run (100, +199), (1000, +99) at offset 44 */
  assert_corrupt_hex_mut(G_OF_RUNS, 38, 0x2d); /* cardinality 301 != 300 */
  assert_corrupt_hex_mut(G_OF_RUNS, 49, 0x00); /* second run starts at 232: overlaps */
  assert_corrupt_hex_mut(G_OF_RUNS, 51, 0xff); /* second run ends past 65535 */
  /* G_OF_BIG: root Node4 header at 9, key bytes at 13 (position 3 first) */
  assert_corrupt_hex_mut(G_OF_BIG, 10, 1);    /* Node4 with one child */
  assert_corrupt_hex_mut(G_OF_BIG, 10, 5);    /* Node4 with five */
  assert_corrupt_hex_mut(G_OF_BIG, 15, 0xff); /* keys 00 ff ff: not ascending */
  assert_corrupt_hex_mut(G_OF_BIG, 14, 0xfe); /* the ff.. leaf under key byte fe */
  /* trailing bytes after a value */
  bytes b = unhex(G_OF1 "00");
  assert_corrupt(b.p, b.n);
  free(b.p);
  b = unhex("0000");
  assert_corrupt(b.p, b.n);
  free(b.p);
  /* a bitmap whose cardinality field disagrees with its bits */
  b = of_range(0, 8194, 2);
  assert_int_equal(b.p[37], 1); /* bitmap type */
  b.p[38] ^= 1;
  assert_corrupt(b.p, b.n);
  b.p[38] ^= 1;
  b.p[40] = 0xFF; /* beyond 65536 */
  assert_corrupt(b.p, b.n);
  free(b.p);
}

/* `out` is cleared and reused, also when it holds the previous result. */
static void test_out_reuse(void **state) {
  (void)state;
  pm_buf out = PM_BUF_INIT;
  bytes big = of_range(0, 8194, 2);
  unite(big, big, &out);
  assert_int_equal(out.len, 8250);
  unite_hex(G_OF23, G_OF1, &out);
  assert_bytes(&out, G_OF123);
  /* the accumulator may live in the buffer that receives the result */
  pm_buf acc = PM_BUF_INIT;
  paimon_error err = {0};
  assert_int_equal(pm_buf_append(&acc, out.data, out.len), 0);
  bytes k = unhex(G_OF_5_M1);
  PM_ASSERT_OK(pm_agg_rbm64_union(acc.data, acc.len, k.p, k.n, &acc, &err), &err);
  bytes again = copy_buf(&acc);
  PM_ASSERT_OK(pm_agg_rbm64_union(out.data, out.len, k.p, k.n, &out, &err), &err);
  assert_int_equal(out.len, again.n);
  assert_memory_equal(out.data, again.p, again.n);
  free(k.p);
  free(again.p);
  free(big.p);
  pm_buf_free(&acc);
  pm_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_paimon_agg_golden), cmocka_unit_test(test_of_golden),
      cmocka_unit_test(test_union_golden),      cmocka_unit_test(test_node_growth),
      cmocka_unit_test(test_container_types),   cmocka_unit_test(test_truncations),
      cmocka_unit_test(test_corrupt),           cmocka_unit_test(test_out_reuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
