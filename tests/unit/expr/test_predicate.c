/* Predicates: parser/printer, binding and literal conversion, exact three-valued
 * evaluation against a reference evaluator written here over native C values, and
 * soundness of statistics pruning (never prunes a unit holding a matching row). */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

/* ---- helpers -------------------------------------------------------------------- */

static paimon_predicate *parse_ok(const char *text) {
  paimon_error err;
  paimon_predicate *p = NULL;
  PM_ASSERT_OK(paimon_predicate_parse(&p, text, &err), &err);
  assert_non_null(p);
  return p;
}

static void check_print(const char *text, const char *want) {
  paimon_predicate *p = parse_ok(text);
  char *s = NULL;
  assert_int_equal(paimon_predicate_to_string(&s, p, NULL), PAIMON_OK);
  assert_non_null(s);
  if (strcmp(s, want) != 0) fail_msg("parse(%s) printed as [%s], want [%s]", text, s, want);
  /* printing is a fixpoint of parse */
  paimon_predicate *q = parse_ok(s);
  char *s2 = NULL;
  assert_int_equal(paimon_predicate_to_string(&s2, q, NULL), PAIMON_OK);
  assert_string_equal(s, s2);
  paimon_free(s);
  paimon_free(s2);
  paimon_predicate_free(p);
  paimon_predicate_free(q);
}

static pm_type *type_ok(const char *text) {
  paimon_error err;
  pm_type *t = NULL;
  PM_ASSERT_OK(pm_type_parse(&t, text, &err), &err);
  return t;
}

/* ---- parser and printer --------------------------------------------------------- */

static void test_parse_print(void **state) {
  (void)state;
  check_print("f1 = 10 AND f3 IS NOT NULL", "f1 = 10 AND f3 IS NOT NULL");
  check_print("f1=10 and (f2 <> 'x' or f2 is null)", "f1 = 10 AND (f2 <> 'x' OR f2 IS NULL)");
  check_print("a != -1.5e3", "a <> -1.5e3");
  check_print("10 < a", "a > 10");
  check_print("'2024-01-01' >= d", "d <= '2024-01-01'");
  check_print("s = 'it''s'", "s = 'it''s'");
  check_print("\"my col\" IN (1, 'two', TRUE)", "\"my col\" IN (1, 'two', 'true')");
  check_print("\"AND\" = 1", "\"AND\" = 1");
  check_print("x NOT IN (1,2)", "NOT x IN (1, 2)");
  check_print("x BETWEEN 1 AND 5", "x >= 1 AND x <= 5");
  check_print("NOT (a = 1 OR b = 2)", "NOT (a = 1 OR b = 2)");
  check_print("a = 1 AND b = 2 AND c = 3 OR d = 4", "(a = 1 AND b = 2 AND c = 3) OR d = 4");
  check_print("ts > TIMESTAMP '2024-01-01 00:00:00'", "ts > '2024-01-01 00:00:00'");
  check_print("date = DATE '2024-01-01' AND date IS NOT NULL",
              "\"date\" = '2024-01-01' AND \"date\" IS NOT NULL");
  check_print("x IN ()", "x IN ()");

  /* API-built trees flatten and print the same way */
  paimon_error err;
  paimon_predicate *a, *b, *c, *ab, *abc;
  PM_ASSERT_OK(paimon_predicate_compare(&a, "a", PAIMON_LE, "5", &err), &err);
  PM_ASSERT_OK(paimon_predicate_is_null(&b, "b", &err), &err);
  const char *lits[] = {"x", "y'z"};
  PM_ASSERT_OK(paimon_predicate_in(&c, "c", lits, 2, &err), &err);
  PM_ASSERT_OK(paimon_predicate_and(&ab, a, b, &err), &err);
  PM_ASSERT_OK(paimon_predicate_and(&abc, ab, c, &err), &err);
  assert_int_equal(abc->nkids, 3);
  char *s = NULL;
  assert_int_equal(paimon_predicate_to_string(&s, abc, NULL), PAIMON_OK);
  assert_string_equal(s, "a <= 5 AND b IS NULL AND c IN ('x', 'y''z')");
  paimon_free(s);
  paimon_predicate *cl = pm_pred_clone(abc);
  assert_int_equal(paimon_predicate_to_string(&s, cl, NULL), PAIMON_OK);
  assert_string_equal(s, "a <= 5 AND b IS NULL AND c IN ('x', 'y''z')");
  paimon_free(s);
  paimon_predicate_free(cl);
  paimon_predicate_free(abc);
}

static void test_parse_errors(void **state) {
  (void)state;
  const char *bad[] = {"",          "   ",       "f1 =",     "(f1 = 1",     "f1 = 1)",
                       "f1 = NULL", "1 = 2",     "a = b",    "f1 == ",      "f1 IS 3",
                       "f1 IN 1",   "f1 IN (1,", "'abc",     "\"abc",       "a = 1 AND",
                       "NOT",       "a ~ 1",     "a IN (b)", "a BETWEEN 1", "AND = 1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    paimon_error err = {0, ""};
    paimon_predicate *p = (paimon_predicate *)1;
    int rc = paimon_predicate_parse(&p, bad[i], &err);
    if (rc != PAIMON_EINVAL) fail_msg("'%s' parsed with rc %d", bad[i], rc);
    assert_null(p);
    assert_true(strncmp(err.message, "predicate:", 10) == 0);
  }
  /* hostile nesting is rejected, not a stack overflow */
  char *deep = malloc(200001);
  memset(deep, '(', 100000);
  strcpy(deep + 100000, "a = 1");
  paimon_predicate *p = NULL;
  assert_int_equal(paimon_predicate_parse(&p, deep, NULL), PAIMON_EINVAL);
  memset(deep, 0, 200001);
  for (int i = 0; i < 40000; i++) memcpy(deep + 4 * i, "NOT ", 4);
  strcat(deep, "a = 1");
  assert_int_equal(paimon_predicate_parse(&p, deep, NULL), PAIMON_EINVAL);
  /* long flat chains are fine (n-ary nodes) */
  memset(deep, 0, 200001);
  strcpy(deep, "a = 1");
  for (size_t i = 0, at = 5; i < 5000; i++, at += 9) memcpy(deep + at, " OR a = 1", 10);
  paimon_error perr;
  PM_ASSERT_OK(paimon_predicate_parse(&p, deep, &perr), &perr);
  assert_int_equal(p->kind, PM_PRED_OR);
  assert_int_equal(p->nkids, 5001);
  paimon_predicate_free(p);
  free(deep);
  /* API misuse */
  assert_int_equal(paimon_predicate_compare(&p, "a", 99, "1", NULL), PAIMON_EINVAL);
  assert_int_equal(paimon_predicate_compare(&p, "", PAIMON_EQ, "1", NULL), PAIMON_EINVAL);
  assert_int_equal(paimon_predicate_compare(&p, "a", PAIMON_EQ, NULL, NULL), PAIMON_EINVAL);
  assert_int_equal(paimon_predicate_and(&p, NULL, parse_ok("a = 1"), NULL), PAIMON_EINVAL);
  assert_int_equal(paimon_predicate_not(&p, NULL, NULL), PAIMON_EINVAL);
}

/* Random token soup: the parser either fails cleanly or yields a printable predicate
 * whose printed form reparses to the same text. */
static void test_parse_fuzz(void **state) {
  (void)state;
  static const char *toks[] = {
      "a",      "\"b c\"", "=",    "<>",           "<",    ">=", "(",       ")",      ",",
      "AND",    "OR",      "NOT",  "IS",           "NULL", "IN", "BETWEEN", "'x''y'", "12",
      "-1.5e3", "TRUE",    "DATE", "'2024-01-01'", "'",    "\"", "!",       "\x01",   "\xc3"};
  uint64_t x = 12345;
  for (int it = 0; it < 20000; it++) {
    char text[256] = "";
    size_t len = 0;
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int n = 1 + (int)((x >> 33) % 12);
    for (int k = 0; k < n; k++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      const char *t = toks[(x >> 33) % (sizeof toks / sizeof toks[0])];
      size_t tl = strlen(t);
      if (len + tl + 2 >= sizeof text) break;
      memcpy(text + len, t, tl);
      len += tl;
      if ((x >> 20) & 1) text[len++] = ' ';
      text[len] = 0;
    }
    paimon_error err;
    paimon_predicate *p = NULL;
    int rc = paimon_predicate_parse(&p, text, &err);
    if (rc != 0) {
      assert_int_equal(rc, PAIMON_EINVAL);
      assert_null(p);
      continue;
    }
    char *s1 = NULL;
    assert_int_equal(paimon_predicate_to_string(&s1, p, NULL), PAIMON_OK);
    paimon_predicate *q = NULL;
    rc = paimon_predicate_parse(&q, s1, &err);
    if (rc != 0) fail_msg("[%s] printed as [%s] which does not parse: %s", text, s1, err.message);
    char *s2 = NULL;
    assert_int_equal(paimon_predicate_to_string(&s2, q, NULL), PAIMON_OK);
    assert_string_equal(s1, s2);
    paimon_free(s1);
    paimon_free(s2);
    paimon_predicate_free(p);
    paimon_predicate_free(q);
  }
}

static void test_columns_restrict(void **state) {
  (void)state;
  paimon_error err;
  paimon_predicate *p =
      parse_ok("pt = 1 AND (x > 3 OR pt = 2) AND NOT (pt2 = 'a' OR pt2 = 'b') AND y IS NULL");
  const char **names;
  size_t n;
  PM_ASSERT_OK(pm_pred_columns(p, &names, &n, &err), &err);
  assert_int_equal(n, 4);
  assert_string_equal(names[0], "pt");
  assert_string_equal(names[1], "x");
  assert_string_equal(names[2], "pt2");
  assert_string_equal(names[3], "y");
  pm_free((void *)names);
  const char *parts[] = {"pt", "pt2"};
  assert_false(pm_pred_only_columns(p, parts, 2));
  paimon_predicate *r = NULL;
  PM_ASSERT_OK(pm_pred_restrict(&r, p, parts, 2, &err), &err);
  char *s = NULL;
  assert_int_equal(paimon_predicate_to_string(&s, r, NULL), PAIMON_OK);
  assert_string_equal(s, "pt = 1 AND NOT (pt2 = 'a' OR pt2 = 'b')");
  assert_true(pm_pred_only_columns(r, parts, 2));
  paimon_free(s);
  paimon_predicate_free(r);
  const char *none[] = {"zz"};
  PM_ASSERT_OK(pm_pred_restrict(&r, p, none, 1, &err), &err);
  assert_null(r);
  paimon_predicate_free(p);
  p = parse_ok("pt = 1 OR x = 2");
  PM_ASSERT_OK(pm_pred_restrict(&r, p, parts, 2, &err), &err);
  assert_null(r); /* an OR touching other columns constrains nothing */
  paimon_predicate_free(p);
}

/* ---- test table: native columns + Arrow views over the same buffers -------------- */

#define N 240
enum { C_I, C_L, C_D, C_S, C_M, C_DT, C_TS, C_B, C_F, C_LTZ, C_ARR, NCOLS };
static const char *COLS[NCOLS] = {"i", "l", "d", "s", "m", "dt", "ts", "b", "f", "ltz", "arr"};
static const char *ROW_TYPE =
    "ROW<`i` INT, `l` BIGINT, `d` DOUBLE, `s` STRING, `m` DECIMAL(10, 2), `dt` DATE, "
    "`ts` TIMESTAMP(3), `b` BOOLEAN, `f` FLOAT, `ltz` TIMESTAMP(6) WITH LOCAL TIME ZONE, "
    "`arr` ARRAY<INT>>";

static const double DPOOL[] = {-1.5, -0.0, 0.0, 1.0, 2.5, NAN, INFINITY, -INFINITY};
static const char *SPOOL[] = {"", "a", "ab", "b", "\xc3\xa9", "zz", "a\x01"};
static const int64_t TSPOOL[] = {0, 1, -1, 1709210096789LL, 946684800000LL, -2208988801000LL};
static const float FPOOL[] = {0.1f, -2.0f, 3.5f};

typedef struct table {
  bool valid[NCOLS][N];
  int32_t i[N];
  int64_t l[N];
  double d[N];
  int32_t s_off[N + 1];
  char s_data[N * 4];
  uint8_t m[N][16];
  int64_t m_native[N];
  int32_t dt[N];
  int64_t ts[N];
  bool b[N];
  float f[N];
  int64_t ltz[N];
  int32_t arr_off[N + 1];
  int32_t arr_vals[1];
  uint8_t vbits[NCOLS][N / 8 + 1];
  uint8_t bbits[N / 8 + 1];
  const void *bufs[NCOLS][3];
  struct ArrowArray cols[NCOLS];
  struct ArrowArray arr_child;
  struct ArrowArray *kids[NCOLS];
  struct ArrowArray batch;
  const void *batch_bufs[1];
} table;

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static int rndn(int n) { return (int)(rnd() % (uint64_t)n); }

static void set_dec(uint8_t out[16], int64_t v) {
  uint64_t lo = (uint64_t)v;
  uint64_t hi = v < 0 ? UINT64_MAX : 0;
  memcpy(out, &lo, 8);
  memcpy(out + 8, &hi, 8);
}

static void build_table(table *t) {
  memset(t, 0, sizeof *t);
  int32_t so = 0;
  for (int r = 0; r < N; r++) {
    for (int c = 0; c < NCOLS; c++) t->valid[c][r] = rndn(10) != 0;
    t->i[r] = rndn(11) - 5;
    t->l[r] = (int64_t)(rndn(7) - 3) * 1000000000000LL;
    t->d[r] = DPOOL[rndn(8)];
    const char *s = SPOOL[rndn(7)];
    t->s_off[r] = so;
    memcpy(t->s_data + so, s, strlen(s));
    so += (int32_t)strlen(s);
    t->m_native[r] = rndn(1001) - 500;
    set_dec(t->m[r], t->m_native[r]);
    t->dt[r] = rndn(7) - 3;
    t->ts[r] = TSPOOL[rndn(6)];
    t->b[r] = rndn(2);
    t->f[r] = FPOOL[rndn(3)];
    t->ltz[r] = (int64_t)(rndn(5) - 2) * 500; /* microseconds */
    t->arr_off[r + 1] = 0;
  }
  t->s_off[N] = so;
  for (int c = 0; c < NCOLS; c++)
    for (int r = 0; r < N; r++)
      if (t->valid[c][r]) t->vbits[c][r >> 3] |= (uint8_t)(1 << (r & 7));
  for (int r = 0; r < N; r++)
    if (t->b[r]) t->bbits[r >> 3] |= (uint8_t)(1 << (r & 7));
  const void *data[NCOLS] = {t->i,  t->l,     t->d, t->s_off, t->m,      t->dt,
                             t->ts, t->bbits, t->f, t->ltz,   t->arr_off};
  for (int c = 0; c < NCOLS; c++) {
    int64_t nulls = 0;
    for (int r = 0; r < N; r++) nulls += !t->valid[c][r];
    t->bufs[c][0] = t->vbits[c];
    t->bufs[c][1] = data[c];
    t->bufs[c][2] = t->s_data;
    struct ArrowArray *a = &t->cols[c];
    a->length = N;
    a->null_count = nulls;
    a->n_buffers = c == C_S ? 3 : 2;
    a->buffers = t->bufs[c];
    a->release = noop_release;
    t->kids[c] = a;
  }
  static const void *child_bufs[2];
  child_bufs[1] = t->arr_vals;
  t->arr_child.n_buffers = 2;
  t->arr_child.buffers = child_bufs;
  t->arr_child.release = noop_release;
  static struct ArrowArray *arr_kids[1];
  arr_kids[0] = &t->arr_child;
  t->cols[C_ARR].n_children = 1;
  t->cols[C_ARR].children = arr_kids;
  t->batch.length = N;
  t->batch.n_buffers = 1;
  t->batch.buffers = t->batch_bufs;
  t->batch.n_children = NCOLS;
  t->batch.children = t->kids;
  t->batch.release = noop_release;
}

/* ---- reference evaluator ---------------------------------------------------------- */

/* A literal known natively: integer-like columns compare v*scale against num (scale lets
 * fractions like 2.5 be exact); doubles with Java's Double.compare; strings by bytes. */
typedef struct rlit {
  const char *text;
  int64_t num;
  int64_t scale; /* value multiplier; 0 = literal beyond range (num sign gives side) */
  double dv;
  const char *sv;
} rlit;

typedef struct rnode {
  int kind; /* PM_PRED_* */
  int op;
  int col;
  int nlits;
  rlit lits[3];
  int nkids;
  struct rnode *kids[3];
} rnode;

static int jcmp(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  if (isnan(a) || isnan(b)) return isnan(a) == isnan(b) ? 0 : isnan(a) ? 1 : -1;
  return signbit(a) == signbit(b) ? 0 : signbit(a) ? -1 : 1;
}

static int cmp3(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int ref_cmp(const table *t, int col, int r, const rlit *l) {
  switch (col) {
    case C_D: return jcmp(t->d[r], l->dv);
    case C_F: return jcmp((double)t->f[r], l->dv);
    case C_S: {
      size_t n = (size_t)(t->s_off[r + 1] - t->s_off[r]), m = strlen(l->sv);
      int c = memcmp(t->s_data + t->s_off[r], l->sv, n < m ? n : m);
      if (c) return c < 0 ? -1 : 1;
      return n < m ? -1 : n > m;
    }
    default: {
      int64_t v;
      switch (col) {
        case C_I: v = t->i[r]; break;
        case C_L: v = t->l[r]; break;
        case C_M: v = t->m_native[r]; break;
        case C_DT: v = t->dt[r]; break;
        case C_TS: v = t->ts[r]; break;
        case C_LTZ: v = t->ltz[r]; break;
        default: v = t->b[r]; break;
      }
      if (l->scale == 0) return l->num > 0 ? -1 : 1;
      return cmp3(v * l->scale, l->num);
    }
  }
}

enum { RF = 0, RT = 1, RU = 2 };

static int ref_eval(const table *t, const rnode *n, int r) {
  switch (n->kind) {
    case PM_PRED_IS_NULL: return t->valid[n->col][r] ? RF : RT;
    case PM_PRED_IS_NOT_NULL: return t->valid[n->col][r] ? RT : RF;
    case PM_PRED_CMP: {
      if (!t->valid[n->col][r]) return RU;
      int c = ref_cmp(t, n->col, r, &n->lits[0]);
      switch (n->op) {
        case PAIMON_EQ: return c == 0;
        case PAIMON_NE: return c != 0;
        case PAIMON_LT: return c < 0;
        case PAIMON_LE: return c <= 0;
        case PAIMON_GT: return c > 0;
        default: return c >= 0;
      }
    }
    case PM_PRED_IN: {
      if (!t->valid[n->col][r]) return RU;
      for (int i = 0; i < n->nlits; i++)
        if (ref_cmp(t, n->col, r, &n->lits[i]) == 0) return RT;
      return RF;
    }
    case PM_PRED_NOT: {
      int v = ref_eval(t, n->kids[0], r);
      return v == RU ? RU : !v;
    }
    default: {
      bool is_and = n->kind == PM_PRED_AND;
      bool unknown = false;
      for (int i = 0; i < n->nkids; i++) {
        int v = ref_eval(t, n->kids[i], r);
        if (v == RU) unknown = true;
        else if (v == (is_and ? RF : RT)) return v;
      }
      return unknown ? RU : (is_and ? RT : RF);
    }
  }
}

/* Literal candidates per column (text and its native meaning). */
#define RL(t, n, s) \
  { t, n, s, 0, NULL }
static rlit pick_lit(int col) {
  rlit l = {0};
  l.scale = 1;
  switch (col) {
    case C_I: {
      static const rlit c[] = {RL("0", 0, 1),
                               RL("-5", -5, 1),
                               RL("3", 3, 1),
                               RL("2.5", 25, 10),
                               RL("-2.5", -25, 10),
                               RL("99999999999999999999", 1, 0),
                               RL("-99999999999999999999", -1, 0),
                               RL(" 4 ", 4, 1),
                               RL("1e1", 10, 1)};
      return c[rndn(9)];
    }
    case C_L: {
      static const rlit c[] = {RL("0", 0, 1), RL("1000000000000", 1000000000000LL, 1),
                               RL("-3000000000000", -3000000000000LL, 1),
                               RL("1.5e12", 1500000000000LL, 1)};
      return c[rndn(4)];
    }
    case C_M: {
      static const rlit c[] = {RL("0", 0, 10),
                               RL("1.23", 1230, 10),
                               RL("-4.5", -4500, 10),
                               RL("1.005", 1005, 10),
                               RL("-1.005", -1005, 10),
                               RL("5", 5000, 10),
                               RL("123456789012345678901234567890", 1, 0)};
      return c[rndn(7)];
    }
    case C_DT: {
      static const rlit c[] = {RL("1970-01-01", 0, 1), RL("1970-01-03", 2, 1),
                               RL("1969-12-30", -2, 1), RL("2", 2, 1), RL("1970-1-2", 1, 1)};
      return c[rndn(5)];
    }
    case C_TS: {
      static const rlit c[] = {
          RL("1970-01-01 00:00:00", 0, 1),       RL("1970-01-01T00:00:00.001", 1, 1),
          RL("1969-12-31 23:59:59.999", -1, 1),  RL("2024-02-29 12:34:56.789", 1709210096789LL, 1),
          RL("2000-01-01", 946684800000LL, 1),   RL("1899-12-31 23:59:59", -2208988801000LL, 1),
          RL("1970-01-01 00:00:00.0005", 5, 10), RL("1969-12-31 23:59:59.9995", -5, 10)};
      return c[rndn(8)];
    }
    case C_LTZ: {
      static const rlit c[] = {
          RL("1970-01-01 00:00:00", 0, 1), RL("1970-01-01 00:00:00.0005Z", 500, 1),
          RL("1970-01-01 01:00:00.001+01:00", 1000, 1), RL("1969-12-31 23:59:59.999", -1000, 1),
          RL("1970-01-01 00:00:00.0000005", 5, 10)};
      return c[rndn(5)];
    }
    case C_B: {
      static const rlit c[] = {RL("true", 1, 1), RL("false", 0, 1), RL("TRUE", 1, 1)};
      return c[rndn(3)];
    }
    case C_D: {
      static const char *c[] = {"-1.5", "0",        "-0.0",      "1",    "2.5",
                                "NaN",  "Infinity", "-Infinity", "1e300"};
      l.text = c[rndn(9)];
      l.dv = strtod(l.text, NULL);
      return l;
    }
    case C_F: {
      static const char *c[] = {"0.1", "-2", "3.5", "0.2"};
      l.text = c[rndn(4)];
      l.dv = (double)strtof(l.text, NULL);
      return l;
    }
    default: {
      static const char *c[] = {"", "a", "ab", "b", "\xc3\xa9", "zz", "aa", "a\x01"};
      l.text = c[rndn(8)];
      l.sv = l.text;
      return l;
    }
  }
}

static rnode pool[4096];
static int npool;

static rnode *gen(int depth) {
  rnode *n = &pool[npool++];
  memset(n, 0, sizeof *n);
  int k = depth >= 3 ? rndn(4) : rndn(8);
  if (k < 4) {
    n->col = rndn(C_ARR); /* comparable columns */
    if (k == 0) n->kind = PM_PRED_IS_NULL;
    else if (k == 1) n->kind = PM_PRED_IS_NOT_NULL;
    else if (k == 2) {
      n->kind = PM_PRED_IN;
      n->nlits = 1 + rndn(3);
    } else {
      n->kind = PM_PRED_CMP;
      n->op = 1 + rndn(6);
      n->nlits = 1;
    }
    for (int i = 0; i < n->nlits; i++) n->lits[i] = pick_lit(n->col);
    return n;
  }
  if (k == 4) {
    n->kind = PM_PRED_NOT;
    n->nkids = 1;
  } else {
    n->kind = k == 5 ? PM_PRED_OR : PM_PRED_AND;
    n->nkids = 2 + rndn(2);
  }
  for (int i = 0; i < n->nkids; i++) n->kids[i] = gen(depth + 1);
  return n;
}

static paimon_predicate *to_pred(const rnode *n) {
  paimon_error err;
  paimon_predicate *p = NULL;
  const char *lits[3];
  for (int i = 0; i < n->nlits; i++) lits[i] = n->lits[i].text;
  switch (n->kind) {
    case PM_PRED_IS_NULL:
      PM_ASSERT_OK(paimon_predicate_is_null(&p, COLS[n->col], &err), &err);
      break;
    case PM_PRED_IS_NOT_NULL:
      PM_ASSERT_OK(paimon_predicate_is_not_null(&p, COLS[n->col], &err), &err);
      break;
    case PM_PRED_CMP:
      PM_ASSERT_OK(paimon_predicate_compare(&p, COLS[n->col], n->op, lits[0], &err), &err);
      break;
    case PM_PRED_IN:
      PM_ASSERT_OK(paimon_predicate_in(&p, COLS[n->col], lits, (size_t)n->nlits, &err), &err);
      break;
    case PM_PRED_NOT:
      PM_ASSERT_OK(paimon_predicate_not(&p, to_pred(n->kids[0]), &err), &err);
      break;
    default:
      p = to_pred(n->kids[0]);
      for (int i = 1; i < n->nkids; i++) {
        if (n->kind == PM_PRED_AND)
          PM_ASSERT_OK(paimon_predicate_and(&p, p, to_pred(n->kids[i]), &err), &err);
        else PM_ASSERT_OK(paimon_predicate_or(&p, p, to_pred(n->kids[i]), &err), &err);
      }
  }
  return p;
}

/* A 1-row view of column c at row r (shares buffers). */
static struct ArrowArray view1(const table *t, int c, int r) {
  struct ArrowArray a = t->cols[c];
  a.offset = r;
  a.length = 1;
  a.null_count = 0;
  return a;
}

static int stats_cmp(const table *t, int c, int r1, int r2) {
  rlit l = {0};
  l.scale = 1;
  switch (c) {
    case C_D: l.dv = t->d[r2]; break;
    case C_F: l.dv = t->f[r2]; break;
    case C_S: {
      static char buf[16];
      size_t n = (size_t)(t->s_off[r2 + 1] - t->s_off[r2]);
      memcpy(buf, t->s_data + t->s_off[r2], n);
      buf[n] = 0;
      l.sv = buf;
      break;
    }
    case C_I: l.num = t->i[r2]; break;
    case C_L: l.num = t->l[r2]; break;
    case C_M: l.num = t->m_native[r2]; break;
    case C_DT: l.num = t->dt[r2]; break;
    case C_TS: l.num = t->ts[r2]; break;
    case C_LTZ: l.num = t->ltz[r2]; break;
    default: l.num = t->b[r2]; break;
  }
  return ref_cmp(t, c, r1, &l);
}

static void test_eval_and_stats_random(void **state) {
  (void)state;
  static table t;
  build_table(&t);
  pm_type *row = type_ok(ROW_TYPE);
  paimon_error err;
  uint8_t sel[N], sel2[N];
  int pruned = 0, units = 0, selected_total = 0;
  for (int iter = 0; iter < 3000; iter++) {
    npool = 0;
    rnode *rn = gen(0);
    paimon_predicate *p = to_pred(rn);
    /* the printed text parses back to an equivalent predicate */
    char *text = NULL;
    assert_int_equal(paimon_predicate_to_string(&text, p, NULL), PAIMON_OK);
    paimon_predicate *q = NULL;
    PM_ASSERT_OK(paimon_predicate_parse(&q, text, &err), &err);
    pm_pred *b = NULL, *b2 = NULL;
    PM_ASSERT_OK(pm_pred_bind(&b, p, row, &err), &err);
    PM_ASSERT_OK(pm_pred_bind(&b2, q, row, &err), &err);
    int64_t nsel = -1;
    PM_ASSERT_OK(pm_pred_eval(b, &t.batch, sel, &nsel, &err), &err);
    PM_ASSERT_OK(pm_pred_eval(b2, &t.batch, sel2, NULL, &err), &err);
    int64_t cnt = 0;
    for (int r = 0; r < N; r++) {
      int want = ref_eval(&t, rn, r) == RT;
      if (sel[r] != want || sel2[r] != want)
        fail_msg("row %d: predicate [%s] gave %d/%d, reference %d", r, text, sel[r], sel2[r], want);
      cnt += want;
    }
    assert_int_equal(nsel, cnt);
    selected_total += (int)cnt;

    /* statistics over random row ranges: never prune a range holding a selected row */
    for (int u = 0; u < 4; u++) {
      int a = rndn(N), len = 1 + rndn(u == 0 ? 3 : 40);
      if (a + len > N) len = N - a;
      struct ArrowArray mins[NCOLS], maxs[NCOLS];
      const struct ArrowArray *pmin[NCOLS], *pmax[NCOLS];
      int64_t nulls[NCOLS];
      for (int c = 0; c < NCOLS; c++) {
        int lo = -1, hi = -1;
        nulls[c] = 0;
        for (int r = a; r < a + len; r++) {
          if (!t.valid[c][r]) {
            nulls[c]++;
            continue;
          }
          if (c == C_ARR) continue;
          /* like Parquet writers: NaN never enters the bounds */
          if ((c == C_D && isnan(t.d[r]))) continue;
          if (lo < 0 || stats_cmp(&t, c, r, lo) < 0) lo = r;
          if (hi < 0 || stats_cmp(&t, c, r, hi) > 0) hi = r;
        }
        pmin[c] = pmax[c] = NULL;
        if (lo >= 0 && rndn(8) != 0) {
          mins[c] = view1(&t, c, lo);
          maxs[c] = view1(&t, c, hi);
          pmin[c] = &mins[c];
          pmax[c] = &maxs[c];
        }
        if (rndn(10) == 0) nulls[c] = -1;
      }
      pm_pred_stats st = {len, pmin, pmax, 0, nulls};
      bool any = false;
      for (int r = a; r < a + len; r++) any |= sel[r] != 0;
      bool may = pm_pred_may_match(b, &st);
      if (any && !may) fail_msg("[%s] pruned rows %d..%d that hold a match", text, a, a + len);
      units++;
      pruned += !may;
    }
    paimon_free(text);
    pm_pred_free(b);
    pm_pred_free(b2);
    paimon_predicate_free(p);
    paimon_predicate_free(q);
  }
  /* the generator exercises both outcomes and pruning really happens */
  assert_true(selected_total > 0);
  assert_true(pruned > units / 10);
  pm_type_free(row);
}

/* ---- focused checks ------------------------------------------------------------- */

static int count_sel(const char *text, const table *t, const pm_type *row,
                     const struct ArrowArray *batch) {
  paimon_error err;
  paimon_predicate *p = parse_ok(text);
  pm_pred *b = NULL;
  PM_ASSERT_OK(pm_pred_bind(&b, p, row, &err), &err);
  uint8_t sel[N];
  int64_t n = 0;
  PM_ASSERT_OK(pm_pred_eval(b, batch ? batch : &t->batch, sel, &n, &err), &err);
  pm_pred_free(b);
  paimon_predicate_free(p);
  return (int)n;
}

static void test_bind_errors(void **state) {
  (void)state;
  pm_type *row = type_ok(ROW_TYPE);
  struct {
    const char *text;
    int rc;
    const char *needle;
  } cases[] = {
      {"nope = 1", PAIMON_EINVAL, "'nope'"},
      {"i = 'abc'", PAIMON_EINVAL, "'i'"},
      {"i = '1x'", PAIMON_EINVAL, "'i'"},
      {"dt = '2023-02-29'", PAIMON_EINVAL, "'dt'"},
      {"dt = '2024-13-01'", PAIMON_EINVAL, "'dt'"},
      {"ts = '2024-01-01 24:00:00'", PAIMON_EINVAL, "'ts'"},
      {"ts = '2024-01-01 00:00:00Z'", PAIMON_EINVAL, "'ts'"}, /* no zone for TIMESTAMP */
      {"b = 'maybe'", PAIMON_EINVAL, "'b'"},
      {"d = 'x1'", PAIMON_EINVAL, "'d'"},
      {"m = '1.2.3'", PAIMON_EINVAL, "'m'"},
      {"arr = 1", PAIMON_EUNSUPPORTED, "'arr'"},
      {"i = 1 AND arr IN (1)", PAIMON_EUNSUPPORTED, "'arr'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    paimon_error err = {0, ""};
    paimon_predicate *p = parse_ok(cases[i].text);
    pm_pred *b = (pm_pred *)1;
    int rc = pm_pred_bind(&b, p, row, &err);
    if (rc != cases[i].rc) fail_msg("%s: rc %d", cases[i].text, rc);
    assert_null(b);
    if (!strstr(err.message, cases[i].needle))
      fail_msg("%s: message '%s'", cases[i].text, err.message);
    paimon_predicate_free(p);
  }
  /* IS NULL works on nested columns */
  paimon_error err;
  paimon_predicate *p = parse_ok("arr IS NULL OR i = 1");
  pm_pred *b = NULL;
  PM_ASSERT_OK(pm_pred_bind(&b, p, row, &err), &err);
  const int32_t *f;
  size_t nf = pm_pred_fields(b, &f);
  assert_int_equal(nf, 2);
  assert_int_equal(f[0], C_I);
  assert_int_equal(f[1], C_ARR);
  pm_pred_free(b);
  paimon_predicate_free(p);
  pm_type_free(row);
}

static void test_eval_semantics(void **state) {
  (void)state;
  static table t;
  build_table(&t);
  pm_type *row = type_ok(ROW_TYPE);
  int valid_i = 0, null_i = 0;
  for (int r = 0; r < N; r++) t.valid[C_I][r] ? valid_i++ : null_i++;
  /* a row with a null i is neither = 1 nor NOT (= 1) */
  int eq = count_sel("i = 1", &t, row, NULL), neq = count_sel("NOT i = 1", &t, row, NULL);
  assert_int_equal(eq + neq, valid_i);
  assert_int_equal(count_sel("i = 1 OR NOT i = 1", &t, row, NULL), valid_i);
  assert_int_equal(count_sel("i IS NULL", &t, row, NULL), null_i);
  assert_int_equal(
      count_sel("NOT i IN (1, 2)", &t, row, NULL) + count_sel("i IN (1,2)", &t, row, NULL),
      valid_i);
  assert_int_equal(count_sel("i IS NULL OR i = 1 OR NOT i = 1", &t, row, NULL), N);
  assert_int_equal(count_sel("i > 99999999999999999999", &t, row, NULL), 0);
  assert_int_equal(count_sel("i < 99999999999999999999", &t, row, NULL), valid_i);
  assert_int_equal(count_sel("i IN ()", &t, row, NULL), 0);

  /* offsets: struct offset and child offsets shift which rows are seen */
  struct ArrowArray batch = t.batch;
  batch.offset = 50;
  batch.length = 100;
  paimon_error err;
  paimon_predicate *p = parse_ok("i >= 0 AND s <> 'a'");
  pm_pred *b = NULL;
  PM_ASSERT_OK(pm_pred_bind(&b, p, row, &err), &err);
  uint8_t full[N], part[N];
  PM_ASSERT_OK(pm_pred_eval(b, &t.batch, full, NULL, &err), &err);
  PM_ASSERT_OK(pm_pred_eval(b, &batch, part, NULL, &err), &err);
  for (int r = 0; r < 100; r++) assert_int_equal(part[r], full[r + 50]);
  struct ArrowArray kids[NCOLS];
  struct ArrowArray *kp[NCOLS];
  for (int c = 0; c < NCOLS; c++) {
    kids[c] = t.cols[c];
    kids[c].offset = 7;
    kids[c].length = N - 7;
    kp[c] = &kids[c];
  }
  struct ArrowArray shifted = t.batch;
  shifted.children = kp;
  shifted.length = N - 7 - 3;
  shifted.offset = 3;
  PM_ASSERT_OK(pm_pred_eval(b, &shifted, part, NULL, &err), &err);
  for (int r = 0; r < N - 10; r++) assert_int_equal(part[r], full[r + 10]);
  /* a too-short child is an error, not an overread */
  kids[C_S].length = 5;
  assert_int_equal(pm_pred_eval(b, &shifted, part, NULL, &err), PAIMON_EINVAL);
  /* struct-level nulls drop rows */
  uint8_t sbits[N / 8 + 1];
  memset(sbits, 0xff, sizeof sbits);
  sbits[0] = 0;
  const void *sb[1] = {sbits};
  struct ArrowArray nb = t.batch;
  nb.buffers = sb;
  PM_ASSERT_OK(pm_pred_eval(b, &nb, part, NULL, &err), &err);
  for (int r = 0; r < N; r++) assert_int_equal(part[r], r < 8 ? 0 : full[r]);
  pm_pred_free(b);
  paimon_predicate_free(p);
  pm_type_free(row);
}

static void test_literals_exact(void **state) {
  (void)state;
  /* hand-made single-column tables with known values */
  pm_type *row = type_ok(
      "ROW<`m` DECIMAL(38, 0), `s` DECIMAL(5, 2), `d` DATE, `t` TIME(3), "
      "`n` TIMESTAMP(9), `x` VARBINARY(10), `c` CHAR(3)>");
  uint8_t m[4][16], s[4][16];
  /* 10^37 + 1, -(10^37), 0, 12 */
  int64_t sv[4] = {100, 101, -100, 12345};
  for (int i = 0; i < 4; i++) set_dec(s[i], sv[i]);
  memset(m, 0, sizeof m);
  /* 10^37 = 0x0785EE10D5DA46D900F436A000000000 */
  uint64_t lo = 0x00F436A000000000ULL, hi = 0x0785EE10D5DA46D9ULL;
  memcpy(m[0], &lo, 8);
  memcpy(m[0] + 8, &hi, 8);
  m[0][0] = 1; /* +1 */
  uint64_t nlo = ~lo + 1, nhi = ~hi + (nlo == 0);
  memcpy(m[1], &nlo, 8);
  memcpy(m[1] + 8, &nhi, 8);
  set_dec(m[3], 12);
  int32_t days[4] = {0, 11017, -719162, 2932896};
  int32_t tms[4] = {0, 45296789, 86399999, 1};
  int64_t ns[4] = {0, 1709210096789123456LL, -1, -2208988801000000000LL};
  int32_t xo[5] = {0, 2, 2, 5, 6};
  const char *xd =
      "\x00\xff"
      "abc"
      "\x80";
  int32_t co[5] = {0, 3, 6, 9, 12};
  const char *cd = "ab abcxyzé ";
  const void *bufs[7][3] = {{NULL, m},  {NULL, s},      {NULL, days},  {NULL, tms},
                            {NULL, ns}, {NULL, xo, xd}, {NULL, co, cd}};
  struct ArrowArray cols[7], *kp[7];
  for (int c = 0; c < 7; c++) {
    memset(&cols[c], 0, sizeof cols[c]);
    cols[c].length = 4;
    cols[c].n_buffers = c >= 5 ? 3 : 2;
    cols[c].buffers = bufs[c];
    cols[c].release = noop_release;
    kp[c] = &cols[c];
  }
  struct ArrowArray batch = {
      .length = 4, .n_buffers = 1, .n_children = 7, .children = kp, .release = noop_release};
  const void *bb[1] = {NULL};
  batch.buffers = bb;
  struct {
    const char *text;
    const char *want; /* selected rows */
  } cases[] = {
      {"m = 10000000000000000000000000000000000001", "1000"},
      {"m = -10000000000000000000000000000000000000", "0100"},
      {"m > 10000000000000000000000000000000000000.5", "1000"},
      {"m < 1e38", "1111"},
      {"m > -1e40", "1111"},
      {"m >= 1.2e1", "1001"},
      {"s = 1", "1000"},
      {"s = 1.00", "1000"},
      {"s = 1.005", "0000"},
      {"s > 1.005", "0101"},
      {"s <= 1.009", "1010"},
      {"s < -0.999", "0010"},
      {"s IN (1.01, 123.45, 7.001)", "0101"},
      {"d = '1970-01-01'", "1000"},
      {"d = '2000-03-01'", "0100"},
      {"d = '0001-01-01'", "0010"},
      {"d = '9999-12-31'", "0001"},
      {"d = -719162", "0010"},
      {"d < '1600-02-29'", "0010"},
      {"t = '12:34:56.789'", "0100"},
      {"t = '23:59:59.999'", "0010"},
      {"t > '00:00:00.0005'", "0111"},
      {"t = '00:00'", "1000"},
      {"n = '2024-02-29 12:34:56.789123456'", "0100"},
      {"n = '1969-12-31 23:59:59.999999999'", "0010"},
      {"n = '1899-12-31 23:59:59'", "0001"},
      {"n < '1970-01-01'", "0011"},
      {"n > '2024-02-29 12:34:56.7891234555'", "0100"},
      {"n < '2024-02-29 12:34:56.7891234565'", "1111"},
      {"x = 'abc'", "0010"},
      {"x > ''", "1011"},
      {"x < 'abd'", "1110"},
      {"c = 'ab '", "1000"},
      {"c >= 'xyz'", "0011"},
      {"c = '\xc3\xa9 '", "0001"},
  };
  paimon_error err;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    paimon_predicate *p = parse_ok(cases[i].text);
    pm_pred *b = NULL;
    PM_ASSERT_OK(pm_pred_bind(&b, p, row, &err), &err);
    uint8_t sel[4];
    PM_ASSERT_OK(pm_pred_eval(b, &batch, sel, NULL, &err), &err);
    char got[5];
    for (int r = 0; r < 4; r++) got[r] = (char)('0' + sel[r]);
    got[4] = 0;
    if (strcmp(got, cases[i].want) != 0)
      fail_msg("%s: got %s want %s", cases[i].text, got, cases[i].want);
    pm_pred_free(b);
    paimon_predicate_free(p);
  }
  pm_type_free(row);
}

static void test_stats_cases(void **state) {
  (void)state;
  pm_type *row = type_ok("ROW<`a` INT, `s` STRING, `d` DOUBLE>");
  int32_t amin = 10, amax = 20;
  int32_t so[2] = {0, 3}, so2[2] = {0, 3};
  const char *smin = "abc", *smax = "abd"; /* a truncated max: upper bound of "abc..." */
  double dmin = 1.0, dmax = 2.0;
  const void *b_amin[2] = {NULL, &amin}, *b_amax[2] = {NULL, &amax};
  const void *b_smin[3] = {NULL, so, smin}, *b_smax[3] = {NULL, so2, smax};
  const void *b_dmin[2] = {NULL, &dmin}, *b_dmax[2] = {NULL, &dmax};
  struct ArrowArray mn[3] = {
      {.length = 1, .n_buffers = 2, .buffers = b_amin, .release = noop_release},
      {.length = 1, .n_buffers = 3, .buffers = b_smin, .release = noop_release},
      {.length = 1, .n_buffers = 2, .buffers = b_dmin, .release = noop_release}};
  struct ArrowArray mx[3] = {
      {.length = 1, .n_buffers = 2, .buffers = b_amax, .release = noop_release},
      {.length = 1, .n_buffers = 3, .buffers = b_smax, .release = noop_release},
      {.length = 1, .n_buffers = 2, .buffers = b_dmax, .release = noop_release}};
  const struct ArrowArray *pmin[3] = {&mn[0], &mn[1], &mn[2]}, *pmax[3] = {&mx[0], &mx[1], &mx[2]};
  int64_t nulls[3] = {0, 0, 0};
  pm_pred_stats st = {100, pmin, pmax, 0, nulls};
  struct {
    const char *text;
    bool may;
    int64_t a_nulls;
  } cases[] = {
      {"a = 15", true, 0},
      {"a = 9", false, 0},
      {"a = 21", false, 0},
      {"a < 10", false, 0},
      {"a <= 10", true, 0},
      {"a > 20", false, 0},
      {"a >= 20", true, 0},
      {"a <> 15", true, 0},
      {"a IN (1, 2, 30)", false, 0},
      {"a IN (1, 12)", true, 0},
      {"a > 10.5", true, 0},
      {"a > 20.5", false, 0},
      {"a IS NULL", false, 0},
      {"a IS NULL", true, 3},
      {"a IS NULL", true, -1},
      {"a IS NOT NULL", false, 100},
      {"a = 15", false, 100},
      {"NOT a = 15", false, 100},
      {"NOT a IS NULL", true, 3},
      {"NOT (a >= 10 AND a <= 20)", false, 0},
      {"NOT (a >= 10 AND a <= 20)", false, 5},
      {"NOT a > 5", false, 0},
      {"a = 5 OR s = 'abcz'", true, 0},
      {"a = 5 AND s = 'abcz'", false, 0},
      {"s = 'abd'", true, 0},
      {"s > 'abd'", false, 0},
      {"s < 'abc'", false, 0},
      {"s = 'abc'", true, 0},
      {"d < 1", false, 0},
      {"d = 1.5", true, 0},
      {"d > 5", true, 0} /* NaN may hide above the max */,
      {"d = 'NaN'", true, 0},
      {"d < 0", false, 0},
      {"d = 0", false, 0},
      {"d <> 1.5", true, 0},
  };
  paimon_error err;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    paimon_predicate *p = parse_ok(cases[i].text);
    pm_pred *b = NULL;
    PM_ASSERT_OK(pm_pred_bind(&b, p, row, &err), &err);
    nulls[0] = cases[i].a_nulls;
    bool may = pm_pred_may_match(b, &st);
    if (may != cases[i].may)
      fail_msg("%s (a nulls %lld): may_match %d", cases[i].text, (long long)cases[i].a_nulls, may);
    /* without bounds nothing is pruned except by null counts */
    pm_pred_stats none = {100, NULL, NULL, 0, NULL};
    assert_true(pm_pred_may_match(b, &none));
    /* empty units never match */
    pm_pred_stats empty = {0, NULL, NULL, 0, NULL};
    assert_false(pm_pred_may_match(b, &empty));
    /* the pm_col_stats form agrees */
    pm_col_stats cs[3];
    for (int c = 0; c < 3; c++) {
      cs[c].has_min_max = true;
      cs[c].min = mn[c];
      cs[c].max = mx[c];
      cs[c].null_count = nulls[c];
    }
    assert_int_equal(pm_pred_may_match_cols(b, cs, 100), may);
    pm_pred_free(b);
    paimon_predicate_free(p);
  }
  pm_type_free(row);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_print),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_parse_fuzz),
      cmocka_unit_test(test_columns_restrict),
      cmocka_unit_test(test_bind_errors),
      cmocka_unit_test(test_eval_semantics),
      cmocka_unit_test(test_literals_exact),
      cmocka_unit_test(test_stats_cases),
      cmocka_unit_test(test_eval_and_stats_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
