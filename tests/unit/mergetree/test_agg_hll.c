/* tests/unit/mergetree/test_agg_hll.c: the hll_sketch aggregate (mergetree/agg_hll.c).
 * Golden bytes come from an independent oracle: Apache DataSketches Java 4.2.0 (the
 * version Java Paimon depends on) with datasketches-memory 2.2.0, compiled from their
 * release tags and driven by a small program doing exactly what Paimon's HllSketchUtil
 * does (sketchOf: new HllSketch() + update(long) per value, toCompactByteArray; union:
 * HllSketch.heapify(acc), Union.heapify(in), update, getResult(HLL_4), compact bytes).
 * Small results are embedded whole; 2 KB HLL images as length, the 40-byte preamble and
 * an FNV-1a 64 checksum of all bytes. Cases: Java Paimon's
 * FieldAggregatorTest.testFieldHllSketchAgg, every LIST/SET/HLL combination, promotions,
 * exception (aux) tables, lgK and HLL_4/6/8 mixes, out-of-order inputs, empty sketches,
 * and corrupt input (every truncation, bad fields) failing cleanly. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"

typedef struct golden_sum {
  size_t len;
  const char *head; /* hex of the first 40 bytes (the whole HLL preamble) */
  uint64_t fnv;     /* FNV-1a 64 of all bytes */
} golden_sum;

/* ---- golden data (DataSketches Java 4.2.0) ------------------------------------------- */

static const char G_OF_1_2_3[] = /* 20 bytes */
    "0201070c030803002bf2fb06862ff90d75816607";
static const char G_OF_2_3[] = /* 16 bytes */
    "0201070c03080200862ff90d75816607";
static const char G_OF_1[] = /* 12 bytes */
    "0201070c030801002bf2fb06";
static const char G_U_23_1[] = /* 20 bytes */
    "0201070c030803002bf2fb06862ff90d75816607";
static const char G_U_123_1[] = /* 20 bytes */
    "0201070c030803002bf2fb06862ff90d75816607";
static const char G_U_LIST_SET[] = /* 52 bytes */
    "0301070c050800010a000000c1e91705862ff90dcbd7c2042bf2fb0681bc5d06d216730734a2610e7581"
    "66077b65e608fc2d420a";
static const char G_U_SET_SET[] = /* 812 bytes */
    "0301070c09080001c80000000222b4040588530f06424a080b144e041544b607172e200619b2a4091abc"
    "d0051b22a9081fba22082066e312255ea6092bf2fb062c4605062ee40b0e2f1a130734a2610e362ab204"
    "37ace707e9a48e133f904804fc90b605464ab70447d6b30d4a2cf3044ef8e205a91a250797bb601a5362"
    "ba04b83ff907d21673075e7abb0c63e21208d78c9d0fd5221713f671f2066a403b0d6bccfe043b69ae04"
    "745e690a7702fe077b8aa9097c74b90781bc5d06de532d04858aab0b87b6aa048a6268168dc4890993ec"
    "a209947ea1149407c2049a8837079d0a6c0f9ee49b18a17ae409d48b8c04a478b307a84eed04a9583309"
    "aa3e6307ae3c8811b012db06b2a8b806b54cad0fb8ec6f09bd20520ebef4f806bfce3614c39c9a1f067d"
    "ef11c6623407cef05b1fc87a2404ca8c5e05cd5ad90ccea0ef0530435f0ed27c8c11d5529509e0ed4907"
    "da5c1207db522d04dc5a0106ddf6db06df5678117bcbf607e9d228056413b706f2b6a70bf9f8f104f9ae"
    "9e0ffc9a3111067365040c5f05050d5f7a0911cbae0614c7880f17057b04c3b0380420a9190e223beb05"
    "24cfce0d2a39f106ef9df3102f5376133045590bf27c1c063225620535a9310436470907e0aeac08398b"
    "28073bbdbd0c3ed95e0640fb0d0e41d7d70849ed6a06b03e9d07819e8507d77834065383da07547b470f"
    "597fd40d1f788207f4d3f20b6199a707b856a90c643d160565df8a10f2785c0c6de51d076ec534066fcb"
    "4a0770c976077143c8097581660779df65047b65e6087d233c0a80c1f30981af32048469cc05862ff90d"
    "8827a004895db20c8d49ac058fc3b00694c3210497bf280c994942049abb63049e2d6a079faba00ca3f3"
    "9c0aa46fab06a6115104a93bb507aa738716adb7cc08b05b4612e7cf9517b62f0906b719cf07b801fc12"
    "b97f3e05bbc90105be198105c1e91705c271cf05c3dd5104c4b59f07c5b1a611c6196a04cbd7c204cb03"
    "ec06ce497305cfe14804d14f7b05d3136705d43b0a07d5971407d6cff106d91b4a08db179a0add9f7a0b"
    "dedb190be0315910e1a57406ede83d05e60ba30be751ee0493543105ef2df707f3a1fa09f43ddf0ff5e9"
    "660d93c47605fb69c306fc2d420a";
static const golden_sum S_OF_0_100 = {
    412, "0301070c08080001640000000222b40406736504b05b46120d5f7a09b856a90ce03159101544b607",
    0xecf3cfb24313c6bfULL};
static const golden_sum S_U_SET_HLL = {
    2088, "0a01070c00080002293ec897684c7f40000000002696ad400000000000000000310e000000000000",
    0xe796bff7e4e06e54ULL};
static const golden_sum S_OF_0_1000 = {
    2088, "0a01070c000800026104164e73218f4000000080965eab400000000000000000920c000000000000",
    0x43f2ce44ab378204ULL};
static const golden_sum S_U_HLL_1000 = {
    2088, "0a01070c001800020000000000000000000000208177a7400000000000000000d709000000000000",
    0xc38d24944ee9d039ULL};
static const golden_sum S_OF_0_100000 = {
    2092, "0a01070c05080202c45f46bbc7b1f84000000050a6665d4000000000000000000a00000001000000",
    0x640f2ca50698b49bULL};
static const golden_sum S_OF_50000_150000 = {
    2088, "0a01070c00080202f933e6cf8f11f840000000401b765e4000000000000000000e00000000000000",
    0xcf72546895768e4bULL};
static const golden_sum S_U_HLL_100000 = {
    2092, "0a01070c051802020000000000000000000000d0a8c3534000000000000000000200000001000000",
    0x261f0c13f14df457ULL};
static const golden_sum S_U_HLL_LIST = {
    2092, "0a01070c05080202c45f46bbc7b1f84000000050a6665d4000000000000000000a00000001000000",
    0x640f2ca50698b49bULL};
static const golden_sum S_U_LIST_HLL = {
    2092, "0a01070c05080202c45f46bbc7b1f84000000050a6665d4000000000000000000a00000001000000",
    0x640f2ca50698b49bULL};
static const char G_K5H8[] = /* 72 bytes */
    "0a0107050000000a09a829b0941b90400000000000e8e53f000000000000000000000000000000000605"
    "060808070505050705060a04070708050508080506070406060405050606";
static const char G_K7H6[] = /* 137 bytes */
    "0a01070700000006f73f26c5a0b87f400000000000833840000000000000000002000000000000008510"
    "0482410842510403311cc21008482018811010c5600c06210c88501001510c0451104450104311084420"
    "0cc4301483201c02110c421008c3700cc3402003111cc2200c8130100401080231140231104020100131"
    "18c31014c3601084100400";
static const char G_K6H4U[] = /* 88 bytes */
    "0a010706000005020acb6e5a7d1bb540000000000085df3f000000000000000003000000000000007532"
    "933155301536143543243223231321441424323111104312102463221223000000000000000000000000"
    "00000000";
static const char G_K4LIST[] = /* 28 bytes */
    "0201070403080500cbd7c2042bf2fb06862ff90d7581660781bc5d06";
static const char G_K8SET[] = /* 140 bytes */
    "0301070805000009140000000000000081bc5d0600000000cef05b1f6ec5340600000000862ff90d0000"
    "000000000000db522d0400000000cbd7c20400000000b05b4612ae3c881100000000c1e9170500000000"
    "d21673070000000034a2610e75816607f671f20600000000b83ff907464ab704fc2d420a7b65e6082bf2"
    "fb06c3dd5104000000007c74b907";
static const char G_U_K5H8_K7H6[] = /* 56 bytes */
    "0a0107050018040200000000000000000000000000e8e53f000000000000000003000000000000001242"
    "3411312106331441143220021122";
static const char G_U_K7H6_K5H8[] = /* 56 bytes */
    "0a0107050018040200000000000000000000000000e8e53f000000000000000003000000000000001242"
    "3411312106331441143220021122";
static const char G_U_K6H4U_K7H6[] = /* 72 bytes */
    "0a010706001805020000000000000000000000000085df3f000000000000000003000000000000007532"
    "933155301536143543243223231321441424323111104312102463221223";
static const char G_U_K4LIST_K6H4U[] = /* 72 bytes */
    "0a010706000805020acb6e5a7d1bb540000000000085df3f000000000000000003000000000000007532"
    "933155301536143543243223231321441424323111104312102463221223";
static const char G_U_K6H4U_K4LIST[] = /* 48 bytes */
    "0a010704000807020acb6e5a7d1bb5400000000000a8a13f000000000000000001000000000000005323"
    "721243110314";
static const char G_U_K8SET_OF20[] = /* 132 bytes */
    "0301070c060800011e00000081bc5d06c3dd5104c4b59f07862ff90dc87a2404b856a90ccbd7c204cef0"
    "5b1fd2167307364709076ec53406597fd40ddb522d049ee49b18223beb05ef2df707c1e917052bf2fb06"
    "c6196a04ae3c8811464ab704b05b4612fc2d420a34a2610e35a93104f671f206b83ff907758166077b65"
    "e6087c74b907";
static const char G_U_OF20_K8SET[] = /* 168 bytes */
    "0a010708000800029e9f233828563e4000000000c0b46d400000000000000000e3000000000000000000"
    "000000000000000000000000000000010000001000000000130100000000000000010000000000000000"
    "300000000000000000000001000010000020010010000003000000000000000000000006000000000000"
    "000404000000030000001010010101100007000100000010000000000000000000100000000100000200";
static const golden_sum S_OOO = {
    2088, "0a01070c001800020000000000000000000000a8d3afa14000000000000000000506000000000000",
    0x672aeaba2d1fbeedULL};
static const golden_sum S_U_OOO_OF = {
    2088, "0a01070c0018000236286b6a2bf45940000000a8fb6da1400000000000000000dc05000000000000",
    0x34f72a919897bdecULL};
static const golden_sum S_U_OF_OOO = {
    2088, "0a01070c0018000236286b6a2bf45940000000a8fb6da1400000000000000000dc05000000000000",
    0x34f72a919897bdecULL};
static const char G_EMPTY12[] = /* 8 bytes */
    "0201070c030c0000";
static const char G_EMPTY5[] = /* 8 bytes */
    "02010705030c0000";
static const char G_U_E_E[] = /* 8 bytes */
    "02010705030c0000";
static const char G_U_LIST_E5[] = /* 20 bytes */
    "02010705030803002bf2fb06862ff90d75816607";
static const char G_U_E5_LIST[] = /* 20 bytes */
    "0201070c030803002bf2fb06862ff90d75816607";
static const golden_sum S_U_HLL_E5 = {
    56, "0a010705000804026104164e73218f400000000000e8e53f00000000000000000300000000000000",
    0xa6aa0df522f24675ULL};

/* ---- helpers ------------------------------------------------------------------------- */

typedef pm_test_bytes bytes;

static bytes unhex(const char *h) { return pm_test_unhex(h); }

static char *tohex(const uint8_t *p, size_t n) {
  char *s = malloc(2 * n + 1);
  assert_non_null(s);
  for (size_t i = 0; i < n; i++) sprintf(s + 2 * i, "%02x", p[i]);
  s[2 * n] = 0;
  return s;
}

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static bytes copy_buf(const pm_buf *b) { return pm_test_copy(b->data, b->len); }

static void expect_full(const char *what, const pm_buf *got, const char *hex) {
  char *g = tohex(got->data, got->len);
  if (strcmp(g, hex) != 0) fail_msg("%s:\n got  %s\n want %s", what, g, hex);
  free(g);
}

static void expect_sum(const char *what, const pm_buf *got, const golden_sum *want) {
  if (got->len != want->len) fail_msg("%s: %zu bytes, want %zu", what, got->len, want->len);
  char *g = tohex(got->data, 40);
  if (strcmp(g, want->head) != 0) fail_msg("%s preamble:\n got  %s\n want %s", what, g, want->head);
  free(g);
  uint64_t f = fnv1a64(got->data, got->len);
  if (f != want->fnv)
    fail_msg("%s: checksum %016llx, want %016llx", what, (unsigned long long)f,
             (unsigned long long)want->fnv);
}

/* sketchOf(lo .. hi-1) as Java's HllSketchUtil.sketchOf builds it. */
static bytes of_range(int64_t lo, int64_t hi) {
  size_t n = (size_t)(hi - lo);
  int64_t *v = malloc((n + 1) * sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < n; i++) v[i] = lo + (int64_t)i;
  pm_buf out = PM_BUF_INIT;
  paimon_error err = {0};
  PM_ASSERT_OK(pm_agg_hll_of(v, n, &out, &err), &err);
  free(v);
  bytes r = copy_buf(&out);
  pm_buf_free(&out);
  return r;
}

static void do_union(bytes a, bytes b, pm_buf *out) {
  paimon_error err = {0};
  PM_ASSERT_OK(pm_agg_hll_union(a.p, a.n, b.p, b.n, out, &err), &err);
}

static void union_full(const char *what, bytes a, bytes b, const char *hex) {
  pm_buf out = PM_BUF_INIT;
  do_union(a, b, &out);
  expect_full(what, &out, hex);
  pm_buf_free(&out);
}

static void union_sum(const char *what, bytes a, bytes b, const golden_sum *want) {
  pm_buf out = PM_BUF_INIT;
  do_union(a, b, &out);
  expect_sum(what, &out, want);
  pm_buf_free(&out);
}

static void expect_corrupt(const char *what, bytes a, bytes b, const char *msg_part) {
  pm_buf out = PM_BUF_INIT;
  paimon_error err = {0};
  int rc = pm_agg_hll_union(a.p, a.n, b.p, b.n, &out, &err);
  if (rc != PAIMON_ECORRUPT) fail_msg("%s: status %d, want ECORRUPT", what, rc);
  if (msg_part && !strstr(err.message, msg_part))
    fail_msg("%s: message \"%s\" lacks \"%s\"", what, err.message, msg_part);
  pm_buf_free(&out);
}

/* ---- tests --------------------------------------------------------------------------- */

static void test_sketch_of(void **state) {
  (void)state;
  bytes b = of_range(1, 4);
  pm_buf out = {b.p, b.n, b.n};
  expect_full("sketchOf(1,2,3)", &out, G_OF_1_2_3);
  free(b.p);
  b = of_range(2, 4), out = (pm_buf){b.p, b.n, b.n};
  expect_full("sketchOf(2,3)", &out, G_OF_2_3);
  free(b.p);
  b = of_range(1, 2), out = (pm_buf){b.p, b.n, b.n};
  expect_full("sketchOf(1)", &out, G_OF_1);
  free(b.p);
  b = of_range(0, 0), out = (pm_buf){b.p, b.n, b.n};
  expect_full("sketchOf()", &out, G_EMPTY12);
  free(b.p);
  /* SET mode, HLL_4 mode, and HLL_4 with an exception (aux) entry */
  static const struct {
    int64_t lo, hi;
    const golden_sum *s;
  } cases[] = {{0, 100, &S_OF_0_100},
               {0, 1000, &S_OF_0_1000},
               {0, 100000, &S_OF_0_100000},
               {50000, 150000, &S_OF_50000_150000}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    b = of_range(cases[i].lo, cases[i].hi), out = (pm_buf){b.p, b.n, b.n};
    char what[64];
    snprintf(what, sizeof what, "sketchOf(%lld..%lld)", (long long)cases[i].lo,
             (long long)cases[i].hi - 1);
    expect_sum(what, &out, cases[i].s);
    free(b.p);
  }
}

/* FieldAggregatorTest.testFieldHllSketchAgg */
static void test_java_field_agg(void **state) {
  (void)state;
  bytes s123 = of_range(1, 4), s23 = of_range(2, 4), s1 = of_range(1, 2);
  union_full("sketchOf(2,3) agg sketchOf(1)", s23, s1, G_U_23_1);
  union_full("sketchOf(1,2,3) agg sketchOf(1)", s123, s1, G_U_123_1);
  /* both equal sketchOf(1,2,3) itself */
  assert_string_equal(G_U_23_1, G_OF_1_2_3);
  assert_string_equal(G_U_123_1, G_OF_1_2_3);
  free(s123.p);
  free(s23.p);
  free(s1.p);
}

static void test_coupon_modes(void **state) {
  (void)state;
  bytes a = of_range(0, 5), b = of_range(5, 10);
  union_full("LIST+LIST -> SET", a, b, G_U_LIST_SET);
  free(a.p);
  free(b.p);
  a = of_range(0, 100), b = of_range(50, 200);
  union_full("SET+SET", a, b, G_U_SET_SET);
  free(a.p);
  free(b.p);
}

static void test_hll_modes(void **state) {
  (void)state;
  bytes a = of_range(0, 300), b = of_range(200, 500);
  union_sum("SET+SET -> HLL", a, b, &S_U_SET_HLL);
  free(a.p);
  free(b.p);
  a = of_range(0, 1000), b = of_range(500, 2000);
  union_sum("0..999 + 500..1999", a, b, &S_U_HLL_1000);
  free(a.p);
  free(b.p);
  a = of_range(0, 100000), b = of_range(50000, 150000);
  union_sum("0..99999 + 50000..149999", a, b, &S_U_HLL_100000);
  free(b.p);
  b = of_range(-3, 0);
  union_sum("HLL + LIST", a, b, &S_U_HLL_LIST);
  union_sum("LIST + HLL", b, a, &S_U_LIST_HLL);
  free(a.p);
  free(b.p);
}

/* Inputs of other lgK and register types (not producible by sketchOf), embedded whole:
 * lgK 5 HLL_8, lgK 7 HLL_6, lgK 6 updatable HLL_4, lgK 4 LIST, lgK 8 updatable SET. */
static void test_lgk_and_types(void **state) {
  (void)state;
  bytes k5h8 = unhex(G_K5H8), k7h6 = unhex(G_K7H6), k6h4u = unhex(G_K6H4U);
  bytes k4list = unhex(G_K4LIST), k8set = unhex(G_K8SET), of20 = of_range(10, 30);
  union_full("lgK5 HLL_8 + lgK7 HLL_6", k5h8, k7h6, G_U_K5H8_K7H6);
  union_full("lgK7 HLL_6 + lgK5 HLL_8", k7h6, k5h8, G_U_K7H6_K5H8);
  union_full("lgK6 HLL_4 updatable + lgK7 HLL_6", k6h4u, k7h6, G_U_K6H4U_K7H6);
  union_full("lgK4 LIST + lgK6 HLL_4", k4list, k6h4u, G_U_K4LIST_K6H4U);
  union_full("lgK6 HLL_4 + lgK4 LIST", k6h4u, k4list, G_U_K6H4U_K4LIST);
  union_full("lgK8 SET + lgK12 SET", k8set, of20, G_U_K8SET_OF20);
  union_full("lgK12 SET + lgK8 SET", of20, k8set, G_U_OF20_K8SET);
  free(k5h8.p);
  free(k7h6.p);
  free(k6h4u.p);
  free(k4list.p);
  free(k8set.p);
  free(of20.p);
}

/* A union result carries the out-of-order flag (HIP zeroed); merging it with a SET again
 * (Java then adds HIP increments on top of the zeroed accumulator). */
static void test_out_of_order(void **state) {
  (void)state;
  bytes a = of_range(0, 3000), b = of_range(1000, 4000), c = of_range(5000, 5100);
  pm_buf out = PM_BUF_INIT;
  do_union(a, b, &out);
  expect_sum("out-of-order union", &out, &S_OOO);
  bytes ooo = copy_buf(&out);
  union_sum("out-of-order + HLL", ooo, c, &S_U_OOO_OF);
  union_sum("HLL + out-of-order", c, ooo, &S_U_OF_OOO);
  pm_buf_free(&out);
  free(a.p);
  free(b.p);
  free(c.p);
  free(ooo.p);
}

static void test_empty(void **state) {
  (void)state;
  bytes e12 = unhex(G_EMPTY12), e5 = unhex(G_EMPTY5), l = of_range(1, 4), h = of_range(0, 1000);
  union_full("empty + empty (lgK from the input)", e12, e5, G_U_E_E);
  union_full("LIST + empty lgK 5", l, e5, G_U_LIST_E5);
  union_full("empty lgK 5 + LIST", e5, l, G_U_E5_LIST);
  union_sum("HLL lgK 12 + empty lgK 5 (downsampled)", h, e5, &S_U_HLL_E5);
  free(e12.p);
  free(e5.p);
  free(l.p);
  free(h.p);
}

/* `out` is cleared by each call and may be reused. */
static void test_out_reuse(void **state) {
  (void)state;
  bytes big = of_range(0, 1000), s1 = of_range(1, 2), s23 = of_range(2, 4);
  pm_buf out = PM_BUF_INIT;
  do_union(big, big, &out);
  do_union(s23, s1, &out);
  expect_full("reused buffer", &out, G_OF_1_2_3);
  pm_buf_free(&out);
  free(big.p);
  free(s1.p);
  free(s23.p);
}

/* Every strict prefix of a valid sketch, in either position, is rejected cleanly. (The
 * updatable lgK 6 HLL_4 ends in a 16-byte exception table that is empty and, as in Java,
 * never read, so only its first 72 bytes are needed.) */
static void test_truncations(void **state) {
  (void)state;
  bytes good = of_range(7, 9);
  bytes in[] = {of_range(1, 4), of_range(0, 100), of_range(0, 100000), unhex(G_K5H8),
                unhex(G_K7H6),  unhex(G_K6H4U),   unhex(G_K8SET),      unhex(G_EMPTY12)};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
    size_t need = i == 5 ? 72 : in[i].n;
    for (size_t n = 0; n < need; n++) {
      bytes t = {in[i].p, n};
      char what[80];
      snprintf(what, sizeof what, "input %zu cut to %zu of %zu bytes", i, n, in[i].n);
      expect_corrupt(what, t, good, NULL);
      expect_corrupt(what, good, t, NULL);
    }
    free(in[i].p);
  }
  free(good.p);
}

static bytes dup_bytes(bytes b) {
  bytes r = {malloc(b.n + 1), b.n};
  assert_non_null(r.p);
  memcpy(r.p, b.p, b.n);
  return r;
}

/* One field broken at a time; each must fail with a message naming the problem. */
static void test_corrupt_fields(void **state) {
  (void)state;
  bytes good = of_range(7, 9), list = of_range(1, 4), set = of_range(0, 100);
  bytes hll = of_range(0, 100000), h8 = unhex(G_K5H8), setu = unhex(G_K8SET);
  bytes t;
  struct {
    bytes *src;
    size_t off;
    uint8_t val;
    const char *msg;
  } cases[] = {
      {&list, 2, 3, "family"},
      {&list, 1, 2, "serial version"},
      {&list, 3, 3, "lgK"},
      {&list, 3, 22, "lgK"},
      {&list, 7, 3, "mode"},
      {&list, 0, 3, "preamble"},
      {&hll, 0, 2, "preamble"},
      {&list, 6, 8, "LIST count"},
      {&list, 11, 0, "value 0"},     /* first coupon's value bits cleared */
      {&set, 8, 101, "SET coupons"}, /* count above the stored coupons */
      {&set, 3, 7, "SET mode needs"},
      {&hll, 7, 14, "mode"},            /* HLL with type 3 */
      {&hll, 36, 0, "exception count"}, /* aux count dropped */
      {&h8, 40, 64, "above 63"},
      /* updatable SET table entry 3 rewritten: off its probe path */
      {&setu, 12 + 4 * 3, 0x55, "inconsistent"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    t = dup_bytes(*cases[i].src);
    assert_true(cases[i].off < t.n);
    /* an empty table entry gets a nonzero value too, so it reads as a coupon */
    if (cases[i].src == &setu && t.p[cases[i].off] == 0) t.p[cases[i].off + 3] = 0x10;
    t.p[cases[i].off] = cases[i].val;
    char what[64];
    snprintf(what, sizeof what, "case %zu", i);
    expect_corrupt(what, t, good, cases[i].msg);
    expect_corrupt(what, good, t, cases[i].msg);
    free(t.p);
  }
  /* a duplicated LIST coupon */
  t = dup_bytes(list);
  memcpy(t.p + 12, t.p + 8, 4);
  expect_corrupt("duplicate coupon", t, good, "duplicate");
  free(t.p);
  /* the HLL_4 exception moved to a slot without the token */
  t = dup_bytes(hll);
  size_t aux = 40 + 2048;
  uint32_t pair;
  memcpy(&pair, t.p + aux, 4);
  pair ^= 1;
  memcpy(t.p + aux, &pair, 4);
  expect_corrupt("aux slot", t, good, "token");
  free(t.p);
  free(good.p);
  free(list.p);
  free(set.p);
  free(hll.p);
  free(h8.p);
  free(setu.p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sketch_of),     cmocka_unit_test(test_java_field_agg),
      cmocka_unit_test(test_coupon_modes),  cmocka_unit_test(test_hll_modes),
      cmocka_unit_test(test_lgk_and_types), cmocka_unit_test(test_out_of_order),
      cmocka_unit_test(test_empty),         cmocka_unit_test(test_out_reuse),
      cmocka_unit_test(test_truncations),   cmocka_unit_test(test_corrupt_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
