/* tests/unit/mergetree/test_agg_theta.c: the theta_sketch aggregate value codec.
 *
 * Golden bytes come from an oracle: datasketches-java 4.2.0 (tag 4.2.0, the version Java
 * Paimon depends on) with datasketches-memory 2.2.0, both compiled from source with
 * javac 17, driven by a small program that calls exactly what Java Paimon's
 * ThetaSketch.union / ThetaSketch.sketchOf call (Sketches.setOperationBuilder()
 * .buildUnion(), union(Memory.wrap(..)) twice, getResult().toByteArray(); and
 * UpdateSketch.builder().build(), update(long), compact().toByteArray()). Other input
 * forms are that library's own writers: toByteArrayCompressed() (serial version 4),
 * UpdateSketch.toByteArray() (hash-table image), compact(false, null) (unordered), and
 * p-sampled sketches. Serial versions 1 and 2 have no writer in 4.2.0; those images were
 * re-encoded by the oracle program from its v3 bytes, and the union results are Java's.
 * Large results are pinned by length, CRC-32 and their 24-byte preamble. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"

/* ---- helpers ----------------------------------------------------------------------- */

typedef pm_test_bytes bytes;

static bytes hex(const char *h) { return pm_test_unhex(h); }

static bytes copy_buf(const pm_buf *b) { return pm_test_copy(b->data, b->len); }

static void assert_bytes(const uint8_t *got, size_t n, const bytes *want) {
  if (n != want->n || memcmp(got, want->p, n) != 0) {
    char g[200] = {0};
    for (size_t i = 0; i < n && i < 64; i++) snprintf(g + 2 * i, 3, "%02x", got[i]);
    fail_msg("got %zu bytes %s..., want %zu bytes", n, g, want->n);
  }
}

/* sketchOf(values) through the codec */
static bytes of(const int64_t *v, size_t n) {
  pm_buf out = PM_BUF_INIT;
  paimon_error err;
  PM_ASSERT_OK(pm_agg_theta_of(v, n, &out, &err), &err);
  bytes b = copy_buf(&out);
  pm_buf_free(&out);
  return b;
}

static bytes of_range(int64_t lo, int64_t hi) { /* [lo, hi] */
  size_t n = (size_t)(hi - lo + 1);
  int64_t *v = malloc(n * sizeof(int64_t));
  assert_non_null(v);
  for (size_t i = 0; i < n; i++) v[i] = lo + (int64_t)i;
  bytes b = of(v, n);
  free(v);
  return b;
}

static bytes uni(const bytes *a, const bytes *b) {
  pm_buf out = PM_BUF_INIT;
  paimon_error err;
  PM_ASSERT_OK(pm_agg_theta_union(a->p, a->n, b->p, b->n, &out, &err), &err);
  bytes r = copy_buf(&out);
  pm_buf_free(&out);
  return r;
}

/* union in both argument orders must give `want` */
static void check_union(const char *ha, const char *hb, const char *hwant) {
  bytes a = hex(ha), b = hex(hb), want = hex(hwant);
  bytes r1 = uni(&a, &b), r2 = uni(&b, &a);
  assert_bytes(r1.p, r1.n, &want);
  assert_bytes(r2.p, r2.n, &want);
  free(a.p), free(b.p), free(want.p), free(r1.p), free(r2.p);
}

/* large golden value: length, CRC-32 and the preamble (with theta) */
static void check_summary(const bytes *b, size_t len, uint32_t crc, const char *pre24) {
  bytes pre = hex(pre24);
  assert_int_equal(b->n, len);
  assert_memory_equal(b->p, pre.p, 24);
  assert_int_equal(pm_crc32(0, b->p, b->n), crc);
  free(pre.p);
}

static void expect_corrupt(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  pm_buf out = PM_BUF_INIT;
  paimon_error err = {0};
  int rc = pm_agg_theta_union(a, an, b, bn, &out, &err);
  if (rc != PAIMON_ECORRUPT) fail_msg("expected PAIMON_ECORRUPT, got %d", rc);
  assert_true(strstr(err.message, "theta_sketch") != NULL);
  pm_buf_free(&out);
}

/* ---- golden values (oracle: datasketches-java 4.2.0, see the header) --------------- */

#define EMPTY "01030300001e0000"
#define OF_1 "01030300003acc9315f97dcbbd86a105"
#define OF_2_3 "02030300001acc93020000000000803fc397fc1281709d1eba40b3c1da06695d"
#define OF_1_2_3 "02030300001acc93030000000000803f15f97dcbbd86a105c397fc1281709d1eba40b3c1da06695d"
#define OF_1_2_3_4                                                                         \
  "02030300001acc93040000000000803f15f97dcbbd86a10540de2ee1c9db3d08c397fc1281709d1eba40b3" \
  "c1da06695d"
#define OF_1_TO_12                                                                         \
  "02030300001acc930c0000000000803ffb38798913248f0115f97dcbbd86a10540de2ee1c9db3d08698bb9" \
  "91b8685708fe162113fb98bc10bd3273724691cc14c397fc1281709d1e23a55b381afd741f1ad1300b998c" \
  "2f22ba40b3c1da06695de0f48bea9983c37cd82d23774bb9357e"
#define OF_5_TO_12                                                                         \
  "02030300001acc93080000000000803ffb38798913248f01698bb991b8685708fe162113fb98bc10bd3273" \
  "724691cc1423a55b381afd741f1ad1300b998c2f22e0f48bea9983c37cd82d23774bb9357e"
/* toByteArrayCompressed() of sketchOf(1..10): serial version 4 */
#define V4_1_TO_10                                                                         \
  "0104033e011acc930a16861af72df7e45429c550c15b0e52b006633bac22ab4a4865304281678b95103fe1" \
  "2d7d486efc9d0df3aa08965060e48705fe0d0e55fb397a41b6826fa07d69f2fca362d09817235b18c9738f" \
  "80"
/* p = 0.01 sketch of 1..1000 (8 entries, theta 0x0147ae1400000000), compressed and compact */
#define V4_P01                                                                             \
  "02040337011acc930000000014ae47010854e975e5db13aaed949bb9f88c2446b9a35a3e40e04cdfd38ce4" \
  "fcd46f63b88b2f4711ba2f7d098a148baec7d83eabfd11841b23da0899"
#define OF_P01                                                                             \
  "03030300001acc93080000000000803f0000000014ae4701d589edf2ba742a00deac6be1e1d96500fa74b3" \
  "4c16b16e00c7c48185137f7300ff3edb4931fa96005167013eefe2dd004bbf7eee7e40f500e4c758129ac4" \
  "0601"
/* hand re-encoded older serial versions of sketchOf(1,2,3), sketchOf(1), sketchOf(4) */
#define V2_1_2_3 "020203000000cc93030000000000803f15f97dcbbd86a105c397fc1281709d1eba40b3c1da06695d"
#define V2_1 "020203000000cc93010000000000803f15f97dcbbd86a105"
#define V1_1_2_3                                                                           \
  "03010300000000000300000000000000ffffffffffffff7f15f97dcbbd86a105c397fc1281709d1eba40b3" \
  "c1da06695d"
#define V1_4 "03010300000000000100000000000000ffffffffffffff7f40de2ee1c9db3d08"
/* an intersection-style result: no entries, theta = 0.5 */
#define THETA_HALF "03030300001acc93000000000000803f0000000000000040"
/* compact(false, null) of sketchOf(1,2,3): unordered */
#define UNORDERED_1_2_3 \
  "02030300000acc93030000000000803f15f97dcbbd86a105ba40b3c1da06695dc397fc1281709d1e"

/* UpdateSketch.toByteArray() images (QuickSelect hash table, 2^7 slots), given as the
 * 24-byte preamble plus the non-zero slots, to keep the 1048-byte values short */
typedef struct slot {
  int i;
  uint64_t h;
} slot;

static bytes table_image(const char *pre24, const slot *s, size_t n) {
  bytes pre = hex(pre24);
  bytes b = {calloc(1, 24 + 128 * 8), 24 + 128 * 8};
  assert_non_null(b.p);
  memcpy(b.p, pre.p, 24);
  for (size_t k = 0; k < n; k++) pm_store_le64(b.p + 24 + 8 * (size_t)s[k].i, s[k].h);
  free(pre.p);
  return b;
}

static bytes table_1_2_3(void) {
  static const slot s[] = {
      {21, 0x05a186bdcb7df915ull}, {58, 0x5d6906dac1b340baull}, {67, 0x1e9d708112fc97c3ull}};
  return table_image("c303020c0700cc93030000000000803fffffffffffffff7f", s, 3);
}

static bytes table_p01(void) { /* p = 0.01 sketch of 1..1000 */
  static const slot s[] = {{71, 0x737f138581c4c7ull},  {75, 0xf5407eee7ebf4bull},
                           {81, 0xdde2ef3e016751ull},  {85, 0x2a74baf2ed89d5ull},
                           {94, 0x65d9e1e16bacdeull},  {100, 0x106c49a1258c7e4ull},
                           {122, 0x6eb1164cb374faull}, {127, 0x96fa3149db3effull}};
  return table_image("c303020c0700cc93080000000ad7233c0000000014ae4701", s, 8);
}

/* ---- tests ------------------------------------------------------------------------- */

/* FieldAggregatorTest.testFieldThetaSketchAgg */
static void test_java_field_aggregator_cases(void **state) {
  (void)state;
  int64_t v123[] = {1, 2, 3}, v23[] = {2, 3}, v1[] = {1};
  bytes a = of(v23, 2), b = of(v1, 1), c = of(v123, 3);
  bytes w23 = hex(OF_2_3), w1 = hex(OF_1), w123 = hex(OF_1_2_3);
  assert_bytes(a.p, a.n, &w23);
  assert_bytes(b.p, b.n, &w1);
  assert_bytes(c.p, c.n, &w123);
  bytes r = uni(&a, &b);
  assert_bytes(r.p, r.n, &w123);
  free(r.p);
  r = uni(&c, &b);
  assert_bytes(r.p, r.n, &w123);
  free(r.p);
  free(a.p), free(b.p), free(c.p), free(w23.p), free(w1.p), free(w123.p);
}

static void test_of_forms(void **state) {
  (void)state;
  bytes e = of(NULL, 0), we = hex(EMPTY);
  assert_bytes(e.p, e.n, &we);
  /* hashing of extreme longs */
  int64_t x[] = {-1, INT64_MIN, INT64_MAX, 0, -1};
  bytes s = of(x, 5);
  bytes ws =
      hex("02030300001acc93040000000000803f6cb2f30dc6cf7b0e7f5ddab40a14c61be56b61eec8804420"
          "ba0c612afdab9779");
  assert_bytes(s.p, s.n, &ws);
  bytes t = of_range(1, 12), wt = hex(OF_1_TO_12);
  assert_bytes(t.p, t.n, &wt);
  free(e.p), free(we.p), free(s.p), free(ws.p), free(t.p), free(wt.p);
}

static void test_empty_and_single(void **state) {
  (void)state;
  check_union(EMPTY, EMPTY, EMPTY);
  check_union(EMPTY, OF_1, OF_1);
  check_union(OF_1, OF_1, OF_1);
  check_union(EMPTY, OF_1_2_3, OF_1_2_3);
  /* theta < 1 with no entries keeps its theta; a single item under it stays listed */
  check_union(THETA_HALF, EMPTY, THETA_HALF);
  check_union(THETA_HALF, OF_1, "03030300001acc93010000000000803f000000000000004015f97dcbbd86a105");
  check_union(THETA_HALF, OF_1_TO_12,
              "03030300001acc93090000000000803f0000000000000040fb38798913248f0115f97dcbbd86a105"
              "40de2ee1c9db3d08698bb991b8685708fe162113fb98bc10bd3273724691cc14c397fc1281709d1e"
              "23a55b381afd741f1ad1300b998c2f22");
  /* datasketches-cpp writes p = 0 and may leave out the single-item flag */
  check_union("01030300001acc9315f97dcbbd86a105", OF_2_3, OF_1_2_3);
  check_union("02030300001acc930200000000000000c397fc1281709d1eba40b3c1da06695d", OF_1, OF_1_2_3);
  /* an unordered one-long image is not a single item to Java: it is skipped as empty */
  check_union("01030300000acc9315f97dcbbd86a105", OF_2_3, OF_2_3);
}

static void test_other_forms(void **state) {
  (void)state;
  check_union(UNORDERED_1_2_3, OF_1, OF_1_2_3);
  check_union(V4_1_TO_10, OF_5_TO_12, OF_1_TO_12);
  check_union(V4_P01, OF_1_2_3, OF_P01);
  check_union(V2_1_2_3, V1_4, OF_1_2_3_4);
  check_union(V2_1, V1_1_2_3, OF_1_2_3);
  check_union(V2_1, EMPTY, OF_1);
  bytes t = table_1_2_3(), one = hex(OF_1), want = hex(OF_1_2_3);
  bytes r = uni(&t, &one);
  assert_bytes(r.p, r.n, &want);
  free(r.p);
  bytes tp = table_p01(), wp = hex(OF_P01), x = hex(OF_1_2_3);
  r = uni(&x, &tp);
  assert_bytes(r.p, r.n, &wp);
  free(r.p);
  free(t.p), free(one.p), free(want.p), free(tp.p), free(wp.p), free(x.p);
}

/* estimation mode: sketchOf of 10000 items is not trimmed (rebuilds keep 4096..7680
 * entries), the union is trimmed to k = 4096 */
static void test_estimation(void **state) {
  (void)state;
  bytes e1 = of_range(0, 9999), e2 = of_range(5000, 14999);
  check_summary(&e1, 42616, 0xa2f12aa5u, "03030300001acc93cc1400000000803f88db099599c20e44");
  check_summary(&e2, 42648, 0xa573fc60u, "03030300001acc93d01400000000803fcd0940aec6173945");
  bytes e3 = uni(&e1, &e2), e3r = uni(&e2, &e1);
  check_summary(&e3, 32792, 0x0598da98u, "03030300001acc93001000000000803f185c72e11ca02b23");
  assert_memory_equal(e3.p, e3r.p, e3.n);
  /* two exact sketches whose union passes k */
  bytes a = of_range(0, 2999), b = of_range(2000, 5999);
  bytes e4 = uni(&a, &b);
  check_summary(&e4, 32792, 0x25f10382u, "03030300001acc93001000000000803f2caf126200614a57");
  bytes e6 = of_range(0, 99999);
  check_summary(&e6, 34304, 0x1a8d566cu, "03030300001acc93bd1000000000803fb45c206511599a05");
  bytes e7 = uni(&e6, &e3);
  check_summary(&e7, 32792, 0x40486fa3u, "03030300001acc93001000000000803f4cb24f6c66ed5805");
  /* a union result is a fixed point of union with the empty sketch */
  bytes em = hex(EMPTY), f = uni(&e7, &em);
  assert_bytes(f.p, f.n, &e7);
  free(e1.p), free(e2.p), free(e3.p), free(e3r.p), free(a.p), free(b.p), free(e4.p);
  free(e6.p), free(e7.p), free(em.p), free(f.p);
}

/* properties without the oracle: exact unions equal the sketch of the union of the item
 * sets; union is commutative and associative */
static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void test_properties(void **state) {
  (void)state;
  for (int round = 0; round < 40; round++) {
    size_t na = next() % 2500, nb = next() % 1500, nc = next() % 9000;
    int64_t *v = malloc((na + nb + nc + 1) * sizeof(int64_t));
    assert_non_null(v);
    int64_t span = (int64_t)(next() % 5000) + 1;
    for (size_t i = 0; i < na + nb + nc; i++) v[i] = (int64_t)(next() % (uint64_t)span);
    bytes a = of(v, na), b = of(v + na, nb), c = of(v + na + nb, nc), ab = of(v, na + nb);
    bytes u = uni(&a, &b), ur = uni(&b, &a);
    if (span <= 4096) assert_bytes(u.p, u.n, &ab); /* at most k distinct items: exact */
    assert_bytes(ur.p, ur.n, &u);
    bytes bc = uni(&b, &c), l = uni(&u, &c), r = uni(&a, &bc);
    assert_bytes(r.p, r.n, &l);
    free(v), free(a.p), free(b.p), free(c.p), free(ab.p), free(u.p), free(ur.p);
    free(bc.p), free(l.p), free(r.p);
  }
}

/* every proper prefix of a valid value is rejected, as either argument */
static void truncations(const bytes *v) {
  bytes ok = hex(OF_1_2_3);
  for (size_t n = 0; n < v->n; n++) {
    uint8_t *t = malloc(n ? n : 1); /* exact size so ASan sees any overread */
    memcpy(t, v->p, n);
    expect_corrupt(t, n, ok.p, ok.n);
    expect_corrupt(ok.p, ok.n, t, n);
    free(t);
  }
  free(ok.p);
}

static void test_truncations(void **state) {
  (void)state;
  const char *golden[] = {EMPTY,    OF_1, OF_1_2_3, OF_1_TO_12, V4_1_TO_10, V4_P01,         OF_P01,
                          V2_1_2_3, V2_1, V1_1_2_3, V1_4,       THETA_HALF, UNORDERED_1_2_3};
  for (size_t i = 0; i < sizeof golden / sizeof *golden; i++) {
    bytes v = hex(golden[i]);
    truncations(&v);
    free(v.p);
  }
  bytes t = table_1_2_3();
  truncations(&t);
  free(t.p);
  bytes e = of_range(0, 9999);
  truncations(&e);
  free(e.p);
}

static void corrupt_case(const char *h, size_t at, uint8_t val) {
  bytes v = hex(h), ok = hex(OF_1);
  assert_true(at < v.n);
  v.p[at] = val;
  expect_corrupt(v.p, v.n, ok.p, ok.n);
  expect_corrupt(ok.p, ok.n, v.p, v.n);
  free(v.p), free(ok.p);
}

static void test_corrupt(void **state) {
  (void)state;
  corrupt_case(OF_1_2_3, 1, 5); /* serial version */
  corrupt_case(OF_1_2_3, 1, 0);
  corrupt_case(OF_1_2_3, 2, 4); /* Union family */
  corrupt_case(OF_1_2_3, 2, 2); /* compact flag on a QuickSelect image */
  corrupt_case(OF_1_2_3, 0, 0); /* preamble longs */
  corrupt_case(OF_1_2_3, 0, 4);
  corrupt_case(OF_1_2_3, 6, 0xcd); /* seed hash */
  corrupt_case(OF_1, 7, 0x94);
  corrupt_case(V2_1_2_3, 6, 0);
  corrupt_case(V4_1_TO_10, 6, 0);
  corrupt_case(OF_1_2_3, 5, 0x1b); /* big-endian */
  corrupt_case(OF_1_2_3, 5, 0x12); /* ordered without compact */
  corrupt_case(OF_1_2_3, 5, 0x1e); /* empty flag with entries */
  corrupt_case(OF_1, 5, 0x3e);     /* empty and single-item */
  corrupt_case(OF_1_2_3, 8, 4);    /* count beyond the data */
  corrupt_case(OF_1_2_3, 8, 2);    /* trailing hash */
  corrupt_case(OF_1_2_3, 8, 0xff);
  corrupt_case(OF_1_2_3, 11, 0x80);
  corrupt_case(OF_1_2_3, 23, 0x1f); /* hashes out of order */
  corrupt_case(OF_1_2_3, 39, 0x80); /* hash with the sign bit */
  corrupt_case(OF_1, 15, 0x80);
  corrupt_case(OF_1, 15, 0xff);
  corrupt_case(THETA_HALF, 23, 0);    /* theta 0 */
  corrupt_case(THETA_HALF, 23, 0x80); /* theta beyond 1.0 */
  corrupt_case(OF_P01, 23, 0);        /* hashes at or above theta */
  corrupt_case(V4_1_TO_10, 3, 0);     /* delta width 0 */
  corrupt_case(V4_1_TO_10, 3, 64);
  corrupt_case(V4_1_TO_10, 3, 0x3d); /* width vs length */
  corrupt_case(V4_1_TO_10, 4, 5);    /* entry-count bytes */
  corrupt_case(V4_1_TO_10, 8, 11);   /* entry count vs length */
  corrupt_case(V4_1_TO_10, 5, 0x0a); /* not ordered */
  corrupt_case(V4_1_TO_10, 0, 3);
  corrupt_case(V4_P01, 15, 0xff); /* theta beyond 1.0 */
  corrupt_case(V4_P01, 15, 0);    /* theta below the hashes */
  corrupt_case(V1_1_2_3, 0, 2);   /* v1 needs 3 preamble longs */
  corrupt_case(V1_1_2_3, 2, 7);
  corrupt_case(V2_1_2_3, 0, 4);

  /* a zero hash */
  bytes z = hex(OF_1);
  memset(z.p + 8, 0, 8);
  bytes ok = hex(OF_1);
  expect_corrupt(z.p, z.n, ok.p, ok.n);
  free(z.p);

  /* a zero delta (duplicate hash) in a compressed sketch: first delta's bits cleared */
  bytes v4 =
      hex("0104033e011acc9302"
          "00000000000000000000000000000000");
  v4.p[9] = 0x10; /* first delta = 2^58, second 0 */
  expect_corrupt(v4.p, v4.n, ok.p, ok.n);
  free(v4.p);

  /* hash tables: count mismatch, duplicate slot value, a hash above theta, bad lgArr */
  bytes t = table_1_2_3();
  t.p[8] = 2;
  expect_corrupt(t.p, t.n, ok.p, ok.n);
  t.p[8] = 3;
  pm_store_le64(t.p + 24, 0x05a186bdcb7df915ull); /* duplicate of slot 21 */
  t.p[8] = 4;
  expect_corrupt(t.p, t.n, ok.p, ok.n);
  free(t.p);
  t = table_p01();
  pm_store_le64(t.p + 24, 0x0200000000000000ull);
  t.p[8] = 9;
  expect_corrupt(t.p, t.n, ok.p, ok.n);
  t.p[4] = 6;
  expect_corrupt(t.p, t.n, ok.p, ok.n);
  free(t.p);

  /* a trailing byte, and garbage shorter than any sketch */
  bytes x = hex(OF_1_2_3 "00");
  expect_corrupt(x.p, x.n, ok.p, ok.n);
  free(x.p);
  x = hex(EMPTY "00");
  expect_corrupt(x.p, x.n, ok.p, ok.n);
  free(x.p);
  expect_corrupt(NULL, 0, ok.p, ok.n);
  free(ok.p);
}

/* random bit flips never crash; accepted inputs give a canonical result */
static void test_mutations(void **state) {
  (void)state;
  const char *golden[] = {OF_1,   OF_1_2_3, OF_1_TO_12, V4_1_TO_10, V4_P01,
                          OF_P01, V2_1_2_3, V1_1_2_3,   THETA_HALF, UNORDERED_1_2_3};
  bytes em = hex(EMPTY), ok = hex(OF_1_2_3);
  pm_buf out = PM_BUF_INIT;
  paimon_error err;
  for (size_t g = 0; g < sizeof golden / sizeof *golden; g++) {
    bytes v = hex(golden[g]);
    for (int k = 0; k < 3000; k++) {
      uint8_t *m = malloc(v.n);
      memcpy(m, v.p, v.n);
      int flips = 1 + (int)(next() % 3);
      for (int f = 0; f < flips; f++) m[next() % v.n] ^= (uint8_t)(1u << (next() % 8));
      int rc = pm_agg_theta_union(m, v.n, ok.p, ok.n, &out, &err);
      if (rc == 0) {
        bytes r = copy_buf(&out), again = uni(&r, &em);
        assert_bytes(again.p, again.n, &r);
        free(r.p), free(again.p);
      } else {
        assert_int_equal(rc, PAIMON_ECORRUPT);
      }
      free(m);
    }
    free(v.p);
  }
  pm_buf_free(&out);
  free(em.p), free(ok.p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_java_field_aggregator_cases),
      cmocka_unit_test(test_of_forms),
      cmocka_unit_test(test_empty_and_single),
      cmocka_unit_test(test_other_forms),
      cmocka_unit_test(test_estimation),
      cmocka_unit_test(test_properties),
      cmocka_unit_test(test_truncations),
      cmocka_unit_test(test_corrupt),
      cmocka_unit_test(test_mutations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
