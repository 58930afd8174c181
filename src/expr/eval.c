/* expr/eval.c: binding predicate trees to a ROW type (typed, exact literals) and exact
 * three-valued evaluation over Arrow batches. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <paimon/common.h>

#include "expr/bound.h"

/* ======================================================================================
 * 128-bit integers (decimal values, exact literal scaling)
 * ==================================================================================== */

static i128 i128_load(const uint8_t *p) {
  i128 v;
  v.lo = pm_load_le64(p);
  v.hi = (int64_t)pm_load_le64(p + 8);
  return v;
}

static int i128_cmp(i128 a, i128 b) {
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
  return 0;
}

static i128 i128_neg(i128 a) {
  i128 r;
  r.lo = ~a.lo + 1;
  r.hi = (int64_t)(~(uint64_t)a.hi + (r.lo == 0 ? 1 : 0));
  return r;
}

/* a * 10 + d for non-negative a below 10^38 (no overflow possible). */
static i128 i128_mul10_add(i128 a, unsigned d) {
  uint64_t lo = a.lo, hi = (uint64_t)a.hi;
  uint64_t lo8 = lo << 3, hi8 = (hi << 3) | (lo >> 61);
  uint64_t lo2 = lo << 1, hi2 = (hi << 1) | (lo >> 63);
  uint64_t rlo = lo8 + lo2;
  uint64_t rhi = hi8 + hi2 + (rlo < lo8 ? 1 : 0);
  uint64_t r2 = rlo + d;
  rhi += (r2 < rlo ? 1 : 0);
  i128 r = {r2, (int64_t)rhi};
  return r;
}

static i128 i128_sub1(i128 a) {
  i128 r = a;
  if (r.lo == 0) r.hi--;
  r.lo--;
  return r;
}

/* ======================================================================================
 * Literals
 * ==================================================================================== */

/* A decimal number: value = (neg ? -1 : 1) * digits * 10^exp10. */
typedef struct num {
  bool neg;
  char digits[80]; /* significant digits, no leading zeros; longer inputs are exact via
                      `sticky` (a nonzero digit was dropped past the 79th) */
  size_t ndigits;
  bool sticky;
  int64_t exp10;
} num;

static bool parse_num(const char *s, num *n) {
  memset(n, 0, sizeof *n);
  while (isspace((unsigned char)*s)) s++;
  if (*s == '+' || *s == '-') n->neg = *s++ == '-';
  bool any = false;
  int64_t frac = 0;
  for (bool dot = false;; s++) {
    if (*s == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!isdigit((unsigned char)*s)) break;
    any = true;
    if (dot) frac++;
    if (n->ndigits == 0 && *s == '0') continue; /* leading zero */
    if (n->ndigits < sizeof n->digits - 1) {
      n->digits[n->ndigits++] = *s;
    } else {
      if (*s != '0') n->sticky = true;
      frac--; /* the dropped digit still scales the value */
    }
    if (frac > 100000) return false;
  }
  if (!any) return false;
  int64_t e = 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    bool eneg = false;
    if (*s == '+' || *s == '-') eneg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return false;
    for (; isdigit((unsigned char)*s); s++)
      if (e < 1000000) e = e * 10 + (*s - '0');
    if (eneg) e = -e;
  }
  while (isspace((unsigned char)*s)) s++;
  if (*s) return false;
  n->exp10 = e - frac;
  return true;
}

/* Exact floor(value * 10^scale) as int128 with inexact / overflow (inf) flags. */
static void num_scale(const num *n, int32_t scale, pm_lit *out) {
  out->inf = 0;
  out->inexact = false;
  out->d.lo = 0;
  out->d.hi = 0;
  if (n->ndigits == 0) return; /* zero */
  int64_t shift = n->exp10 + scale;
  int64_t keep = (int64_t)n->ndigits + shift;
  if (keep > 38) {
    out->inf = n->neg ? -1 : 1;
    return;
  }
  bool inexact = n->sticky;
  i128 v = {0, 0};
  for (int64_t k = 0; k < keep; k++) {
    unsigned dg = k < (int64_t)n->ndigits ? (unsigned)(n->digits[k] - '0') : 0;
    v = i128_mul10_add(v, dg);
  }
  for (int64_t k = keep < 0 ? 0 : keep; k < (int64_t)n->ndigits; k++)
    if (n->digits[k] != '0') inexact = true;
  if (n->neg) {
    v = i128_neg(v);
    if (inexact) v = i128_sub1(v);
  }
  out->d = v;
  out->inexact = inexact;
}

/* As num_scale at scale 0 into an int64 (beyond int64 becomes +-inf). */
static void num_to_i64(const num *n, pm_lit *out) {
  num_scale(n, 0, out);
  if (out->inf) return;
  i128 v = out->d;
  bool fits =
      (v.hi == 0 && v.lo <= (uint64_t)INT64_MAX) || (v.hi == -1 && v.lo >= (uint64_t)INT64_MIN);
  if (!fits) {
    out->inf = v.hi < 0 ? -1 : 1;
    return;
  }
  out->i = (int64_t)v.lo;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int read_digits(const char **s, int min, int max, int64_t *v) {
  int n = 0;
  *v = 0;
  while (n < max && isdigit((unsigned char)**s)) {
    *v = *v * 10 + (**s - '0');
    (*s)++;
    n++;
  }
  return n >= min ? 0 : -1;
}

/* [+-]YYYY-MM-DD -> days since epoch; advances *s. */
static bool parse_date_part(const char **s, int64_t *days) {
  const char *p = *s;
  bool neg = false;
  if (*p == '+' || *p == '-') neg = *p++ == '-';
  int64_t y, m, d;
  if (read_digits(&p, 4, 6, &y) || *p++ != '-' || read_digits(&p, 1, 2, &m) || *p++ != '-' ||
      read_digits(&p, 1, 2, &d))
    return false;
  if (neg) y = -y;
  if (m < 1 || m > 12) return false;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int dim = mdays[m - 1] + (m == 2 && is_leap(y) ? 1 : 0);
  if (d < 1 || d > dim) return false;
  *days = pm_days_from_civil(y, (int)m, (int)d);
  *s = p;
  return true;
}

/* HH:MM[:SS[.fffffffff]] -> seconds of day and nanos; more than 9 fraction digits set
 * *extra when nonzero. Advances *s. */
static bool parse_time_part(const char **s, int64_t *secs, int64_t *nanos, bool *extra) {
  const char *p = *s;
  int64_t h, mi, se = 0, ns = 0;
  *extra = false;
  if (read_digits(&p, 1, 2, &h) || *p++ != ':' || read_digits(&p, 2, 2, &mi)) return false;
  if (*p == ':') {
    p++;
    if (read_digits(&p, 2, 2, &se)) return false;
    if (*p == '.') {
      p++;
      int nd = 0;
      if (!isdigit((unsigned char)*p)) return false;
      for (; isdigit((unsigned char)*p); p++, nd++) {
        if (nd < 9) ns = ns * 10 + (*p - '0');
        else if (*p != '0') *extra = true;
      }
      for (; nd < 9; nd++) ns *= 10;
    }
  }
  if (h > 23 || mi > 59 || se > 59) return false;
  *secs = h * 3600 + mi * 60 + se;
  *nanos = ns;
  *s = p;
  return true;
}

/* Timestamp text -> epoch seconds + nanos (UTC wall clock, offset applied when allowed). */
static bool parse_timestamp(const char *s, bool allow_zone, int64_t *secs, int64_t *nanos,
                            bool *extra) {
  while (isspace((unsigned char)*s)) s++;
  int64_t days, tsec = 0, tns = 0;
  *extra = false;
  if (!parse_date_part(&s, &days)) return false;
  if (*s == ' ' || *s == 'T' || *s == 't') {
    s++;
    if (!parse_time_part(&s, &tsec, &tns, extra)) return false;
  }
  int64_t off = 0;
  if (allow_zone) {
    if (*s == 'Z' || *s == 'z') {
      s++;
    } else if (*s == '+' || *s == '-') {
      bool neg = *s++ == '-';
      int64_t oh, om = 0;
      if (read_digits(&s, 2, 2, &oh)) return false;
      if (*s == ':') s++;
      if (isdigit((unsigned char)*s) && read_digits(&s, 2, 2, &om)) return false;
      if (oh > 18 || om > 59) return false;
      off = (oh * 3600 + om * 60) * (neg ? -1 : 1);
    }
  }
  while (isspace((unsigned char)*s)) s++;
  if (*s) return false;
  *secs = days * 86400 + tsec - off;
  *nanos = tns;
  return true;
}

/* Exact floor of (secs, nanos) in unit 0/1/2 (ms/us/ns) with overflow to inf. */
static void ts_to_unit(int64_t secs, int64_t nanos, bool extra, int unit, pm_lit *out) {
  static const int64_t per_sec[] = {1000, 1000000, 1000000000};
  static const int64_t ns_per[] = {1000000, 1000, 1};
  int64_t ps = per_sec[unit];
  if (secs > INT64_MAX / ps - 1 || secs < INT64_MIN / ps + 1) {
    out->inf = secs < 0 ? -1 : 1;
    return;
  }
  out->i = secs * ps + nanos / ns_per[unit];
  out->inexact = extra || nanos % ns_per[unit] != 0;
}

/* Class and Arrow value width (bytes; 0 for bit-packed / variable) of a column type. */
static tclass type_class(const pm_type *t, int *width) {
  *width = 0;
  switch (t->id) {
    case PM_BOOLEAN: return TC_BOOL;
    case PM_TINYINT: *width = 1; return TC_INT;
    case PM_SMALLINT: *width = 2; return TC_INT;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: *width = 4; return TC_INT;
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: *width = 8; return TC_INT;
    case PM_FLOAT: *width = 4; return TC_FLOAT;
    case PM_DOUBLE: *width = 8; return TC_FLOAT;
    case PM_DECIMAL: *width = 16; return TC_DEC;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: return TC_BYTES;
    default: return TC_NONE;
  }
}

/* ASCII case-insensitive equality of n bytes (kw is lower case). */
static bool ieq(const char *s, const char *kw, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)s[i]) != kw[i]) return false;
  return true;
}

static int lit_parse(const pm_type *t, const char *col, const char *text, pm_lit *out,
                     paimon_error *err) {
  memset(out, 0, sizeof *out);
  num n;
  int64_t secs, nanos;
  bool extra;
  switch (t->id) {
    case PM_BOOLEAN: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      size_t len = strlen(s);
      while (len && isspace((unsigned char)s[len - 1])) len--;
      if ((len == 4 && ieq(s, "true", 4)) || (len == 1 && s[0] == '1')) out->i = 1;
      else if ((len == 5 && ieq(s, "false", 5)) || (len == 1 && s[0] == '0')) out->i = 0;
      else goto bad;
      return 0;
    }
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
      if (!parse_num(text, &n)) goto bad;
      num_to_i64(&n, out);
      return 0;
    case PM_DECIMAL:
      if (!parse_num(text, &n)) goto bad;
      num_scale(&n, t->scale, out);
      return 0;
    case PM_FLOAT:
    case PM_DOUBLE: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      char *end;
      errno = 0;
      if (t->id == PM_FLOAT) out->f = strtof(s, &end);
      else out->f = strtod(s, &end);
      if (end == s) goto bad;
      while (isspace((unsigned char)*end)) end++;
      if (*end) goto bad;
      return 0;
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
      out->owned = pm_strdup(text);
      if (!out->owned) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
      out->bytes = (const uint8_t *)out->owned;
      out->len = strlen(text);
      return 0;
    case PM_DATE: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      int64_t days;
      if (parse_date_part(&s, &days)) {
        while (isspace((unsigned char)*s)) s++;
        if (*s) goto bad;
        out->i = days;
        return 0;
      }
      if (!parse_num(text, &n)) goto bad; /* a day number */
      num_to_i64(&n, out);
      return 0;
    }
    case PM_TIME: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      if (!parse_time_part(&s, &secs, &nanos, &extra)) goto bad;
      while (isspace((unsigned char)*s)) s++;
      if (*s) goto bad;
      out->i = secs * 1000 + nanos / 1000000;
      out->inexact = extra || nanos % 1000000 != 0;
      return 0;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (!parse_timestamp(text, t->id == PM_TIMESTAMP_LTZ, &secs, &nanos, &extra)) goto bad;
      ts_to_unit(secs, nanos, extra, pm_ts_unit(t->precision), out);
      return 0;
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "predicate on column '%s': comparisons on %s columns are not supported", col,
                     pm_type_id_name(t->id));
  }
bad:
  return pm_fail(err, PAIMON_EINVAL, "predicate on column '%s': cannot parse '%.64s' as %s", col,
                 text, pm_type_id_name(t->id));
}

/* Java's Double.compare: -0.0 < 0.0, NaN above everything and equal to itself. */
static int cmp_double(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  bool na = isnan(a), nb = isnan(b);
  if (na || nb) return na == nb ? 0 : na ? 1 : -1;
  bool sa = signbit(a) != 0, sb = signbit(b) != 0;
  return sa == sb ? 0 : sa ? -1 : 1;
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
  size_t n = alen < blen ? alen : blen;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Compares an exact value v with literal l: -1 v < l, 0 equal, 1 v > l. */
int pm_lit_cmp(tclass tc, const pm_lit *v, const pm_lit *l) {
  if (l->inf) return -l->inf;
  int c;
  switch (tc) {
    case TC_BOOL:
    case TC_INT: c = v->i < l->i ? -1 : v->i > l->i ? 1 : 0; break;
    case TC_DEC: c = i128_cmp(v->d, l->d); break;
    case TC_FLOAT: return cmp_double(v->f, l->f);
    case TC_BYTES: return cmp_bytes(v->bytes, v->len, l->bytes, l->len);
    default: return 0;
  }
  if (c == 0 && l->inexact) c = -1; /* v == floor(l) < l */
  return c;
}

/* Reads logical row j of `a` (its offset is added here). */
void pm_lit_read(tclass tc, int width, const struct ArrowArray *a, int64_t j, pm_lit *v) {
  int64_t k = a->offset + j;
  switch (tc) {
    case TC_BOOL: {
      const uint8_t *d = a->buffers[1];
      v->i = (d[k >> 3] >> (k & 7)) & 1;
      break;
    }
    case TC_INT:
      switch (width) {
        case 1: v->i = ((const int8_t *)a->buffers[1])[k]; break;
        case 2: v->i = ((const int16_t *)a->buffers[1])[k]; break;
        case 4: v->i = ((const int32_t *)a->buffers[1])[k]; break;
        default: v->i = ((const int64_t *)a->buffers[1])[k]; break;
      }
      break;
    case TC_DEC: v->d = i128_load((const uint8_t *)a->buffers[1] + 16 * k); break;
    case TC_FLOAT:
      v->f = width == 4 ? (double)((const float *)a->buffers[1])[k]
                        : ((const double *)a->buffers[1])[k];
      break;
    case TC_BYTES: {
      const int32_t *off = a->buffers[1];
      /* producers may omit the data buffer when every value is empty */
      if (a->buffers[2]) {
        v->bytes = (const uint8_t *)a->buffers[2] + off[k];
        v->len = (size_t)(off[k + 1] - off[k]);
      } else {
        v->bytes = (const uint8_t *)"";
        v->len = 0;
      }
      break;
    }
    default: break;
  }
}

/* ======================================================================================
 * Binding
 * ==================================================================================== */

static void bnode_clear(bnode *n) {
  for (size_t i = 0; i < n->nlits; i++) pm_free(n->lits[i].owned);
  pm_free(n->lits);
  for (size_t i = 0; i < n->nkids; i++) bnode_clear(&n->kids[i]);
  pm_free(n->kids);
}

void pm_pred_free(pm_pred *b) {
  if (!b) return;
  bnode_clear(&b->root);
  pm_free(b->fields);
  if (b->scratch)
    for (int i = 0; i <= b->depth; i++) pm_buf_free(&b->scratch[i]);
  pm_free(b->scratch);
  pm_free(b);
}

static int lit_sort_cmp(const pm_lit *a, const pm_lit *b, tclass tc) {
  return pm_lit_cmp(tc, a, b);
}

/* Insertion sort + dedupe (IN lists are short; avoids qsort's global context). */
static size_t sort_unique(pm_lit *l, size_t n, tclass tc) {
  for (size_t i = 1; i < n; i++) {
    pm_lit x = l[i];
    size_t j = i;
    while (j > 0 && lit_sort_cmp(&l[j - 1], &x, tc) > 0) {
      l[j] = l[j - 1];
      j--;
    }
    l[j] = x;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && lit_sort_cmp(&l[m - 1], &l[i], tc) == 0) {
      pm_free(l[i].owned);
      continue;
    }
    l[m++] = l[i];
  }
  return m;
}

static int bind_node(bnode *bn, const paimon_predicate *p, const pm_type *row, paimon_error *err) {
  memset(bn, 0, sizeof *bn);
  bn->kind = p->kind;
  bn->op = p->op;
  if (p->column) {
    int32_t f = -1;
    for (int32_t i = 0; i < row->nfields; i++)
      if (strcmp(row->fields[i].name, p->column) == 0) {
        f = i;
        break;
      }
    if (f < 0) return pm_fail(err, PAIMON_EINVAL, "predicate: unknown column '%s'", p->column);
    bn->field = f;
    bn->type = row->fields[f].type;
    bn->tc = type_class(bn->type, &bn->width);
    if (p->kind == PM_PRED_CMP || p->kind == PM_PRED_IN) {
      if (bn->tc == TC_NONE)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "predicate on column '%s': comparisons on %s columns are not supported",
                       p->column, pm_type_id_name(bn->type->id));
      if (p->nlits) {
        bn->lits = pm_calloc(p->nlits, sizeof *bn->lits);
        if (!bn->lits) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
      }
      for (size_t i = 0; i < p->nlits; i++) {
        pm_lit l;
        PM_TRY(lit_parse(bn->type, p->column, p->lits[i], &l, err));
        if (p->kind == PM_PRED_IN && (l.inf || l.inexact)) {
          pm_free(l.owned); /* never equal to any value */
          continue;
        }
        bn->lits[bn->nlits++] = l;
      }
      if (p->kind == PM_PRED_IN) bn->nlits = sort_unique(bn->lits, bn->nlits, bn->tc);
    }
  }
  if (p->nkids) {
    bn->kids = pm_calloc(p->nkids, sizeof *bn->kids);
    if (!bn->kids) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
    for (size_t i = 0; i < p->nkids; i++) {
      bn->nkids = i + 1;
      PM_TRY(bind_node(&bn->kids[i], p->kids[i], row, err));
    }
  }
  return 0;
}

static int collect_fields(const bnode *n, int32_t *fields, size_t *nf) {
  if (n->kind != PM_PRED_AND && n->kind != PM_PRED_OR && n->kind != PM_PRED_NOT) {
    size_t i = 0;
    while (i < *nf && fields[i] < n->field) i++;
    if (i == *nf || fields[i] != n->field) {
      memmove(fields + i + 1, fields + i, (*nf - i) * sizeof *fields);
      fields[i] = n->field;
      (*nf)++;
    }
  }
  for (size_t i = 0; i < n->nkids; i++) collect_fields(&n->kids[i], fields, nf);
  return 0;
}

int pm_pred_bind(pm_pred **out, const paimon_predicate *p, const pm_type *row, paimon_error *err) {
  *out = NULL;
  if (!p || !row || row->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "predicate: bind needs a predicate and a ROW type");
  pm_pred *b = pm_calloc(1, sizeof *b);
  if (!b) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  b->row = row;
  b->depth = p->depth;
  int rc = bind_node(&b->root, p, row, err);
  if (rc == 0) {
    b->fields = pm_malloc((size_t)(row->nfields > 0 ? row->nfields : 1) * sizeof *b->fields);
    b->scratch = pm_calloc((size_t)b->depth + 1, sizeof *b->scratch);
    if (!b->fields || !b->scratch) rc = pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (rc != 0) {
    pm_pred_free(b);
    return rc;
  }
  collect_fields(&b->root, b->fields, &b->nfields);
  *out = b;
  return 0;
}

size_t pm_pred_fields(const pm_pred *b, const int32_t **fields) {
  *fields = b->fields;
  return b->nfields;
}

/* ======================================================================================
 * Evaluation: per-row FALSE (0) / TRUE (1) / UNKNOWN (2)
 * ==================================================================================== */

enum { V_F = 0, V_T = 1, V_U = 2 };

static const uint8_t AND_TAB[9] = {V_F, V_F, V_F, V_F, V_T, V_U, V_F, V_U, V_U};
static const uint8_t OR_TAB[9] = {V_F, V_T, V_U, V_T, V_T, V_T, V_U, V_T, V_U};

/* Result per comparison outcome c in {-1, 0, 1} (index c + 1). */
static void op_results(int op, uint8_t r[3]) {
  r[0] = op == PAIMON_NE || op == PAIMON_LT || op == PAIMON_LE;
  r[1] = op == PAIMON_EQ || op == PAIMON_LE || op == PAIMON_GE;
  r[2] = op == PAIMON_NE || op == PAIMON_GT || op == PAIMON_GE;
}

#define PM_CMP_LOOP(T)                                         \
  do {                                                         \
    const T *d_ = (const T *)c->buffers[1] + c->offset + base; \
    for (int64_t i = 0; i < n; i++) {                          \
      int64_t v_ = d_[i];                                      \
      out[i] = v_ < k ? rl : v_ > k ? rg : re;                 \
    }                                                          \
  } while (0)

bool pm_bnode_in(const bnode *bn, const pm_lit *v) {
  size_t lo = 0, hi = bn->nlits;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = pm_lit_cmp(bn->tc, v, &bn->lits[mid]);
    if (c == 0) return true;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return false;
}

static void eval_leaf(const bnode *bn, const struct ArrowArray *c, int64_t base, int64_t n,
                      uint8_t *out) {
  if (bn->kind == PM_PRED_IS_NULL || bn->kind == PM_PRED_IS_NOT_NULL) {
    uint8_t vnull = bn->kind == PM_PRED_IS_NULL ? V_T : V_F;
    const uint8_t *vb = c->buffers[0];
    if (!vb || c->null_count == 0) {
      memset(out, vnull ^ 1, (size_t)n);
      return;
    }
    for (int64_t i = 0; i < n; i++) {
      int64_t j = c->offset + base + i;
      out[i] = ((vb[j >> 3] >> (j & 7)) & 1) ? (uint8_t)(vnull ^ 1) : vnull;
    }
    return;
  }
  if (bn->kind == PM_PRED_IN) {
    pm_lit v;
    memset(&v, 0, sizeof v);
    for (int64_t i = 0; i < n; i++) {
      pm_lit_read(bn->tc, bn->width, c, base + i, &v);
      out[i] = bn->nlits && pm_bnode_in(bn, &v) ? V_T : V_F;
    }
  } else {
    uint8_t r[3];
    op_results(bn->op, r);
    const pm_lit *l = &bn->lits[0];
    if (l->inf) {
      memset(out, r[l->inf > 0 ? 0 : 2], (size_t)n);
    } else if (bn->tc == TC_INT) {
      int64_t k = l->i;
      uint8_t rl = r[0], rg = r[2], re = l->inexact ? r[0] : r[1];
      switch (bn->width) {
        case 1: PM_CMP_LOOP(int8_t); break;
        case 2: PM_CMP_LOOP(int16_t); break;
        case 4: PM_CMP_LOOP(int32_t); break;
        default: PM_CMP_LOOP(int64_t); break;
      }
    } else {
      pm_lit v;
      memset(&v, 0, sizeof v);
      for (int64_t i = 0; i < n; i++) {
        pm_lit_read(bn->tc, bn->width, c, base + i, &v);
        out[i] = r[pm_lit_cmp(bn->tc, &v, l) + 1];
      }
    }
  }
  const uint8_t *vb = c->buffers[0];
  if (vb && c->null_count != 0)
    for (int64_t i = 0; i < n; i++) {
      int64_t j = c->offset + base + i;
      if (!((vb[j >> 3] >> (j & 7)) & 1)) out[i] = V_U;
    }
}

static int eval_node(pm_pred *b, const bnode *bn, const struct ArrowArray *batch, int64_t n,
                     uint8_t *out, int level) {
  if (bn->kind == PM_PRED_NOT) {
    PM_TRY(eval_node(b, &bn->kids[0], batch, n, out, level + 1));
    for (int64_t i = 0; i < n; i++)
      if (out[i] != V_U) out[i] ^= 1;
    return 0;
  }
  if (bn->kind == PM_PRED_AND || bn->kind == PM_PRED_OR) {
    PM_TRY(eval_node(b, &bn->kids[0], batch, n, out, level + 1));
    pm_buf *s = &b->scratch[level];
    pm_buf_clear(s);
    if (pm_buf_reserve(s, (size_t)n) != 0) return PAIMON_ENOMEM;
    const uint8_t *tab = bn->kind == PM_PRED_AND ? AND_TAB : OR_TAB;
    for (size_t k = 1; k < bn->nkids; k++) {
      PM_TRY(eval_node(b, &bn->kids[k], batch, n, s->data, level + 1));
      for (int64_t i = 0; i < n; i++) out[i] = tab[out[i] * 3 + s->data[i]];
    }
    return 0;
  }
  eval_leaf(bn, batch->children[bn->field], batch->offset, n, out);
  return 0;
}

static bool child_ok(const bnode *bn, const struct ArrowArray *c, int64_t need) {
  if (!c || c->length < need || c->offset < 0) return false;
  if (bn->kind == PM_PRED_IS_NULL || bn->kind == PM_PRED_IS_NOT_NULL) return true;
  if (need > 0 && (c->n_buffers < (bn->tc == TC_BYTES ? 3 : 2) || !c->buffers[1])) return false;
  return true;
}

static int check_shape(const bnode *bn, const struct ArrowArray *batch, int64_t need,
                       paimon_error *err) {
  if (bn->kind == PM_PRED_AND || bn->kind == PM_PRED_OR || bn->kind == PM_PRED_NOT) {
    for (size_t i = 0; i < bn->nkids; i++) PM_TRY(check_shape(&bn->kids[i], batch, need, err));
    return 0;
  }
  if (bn->field >= batch->n_children || !child_ok(bn, batch->children[bn->field], need))
    return pm_fail(err, PAIMON_EINVAL, "predicate: batch column %d does not match the bound type",
                   (int)bn->field);
  return 0;
}

int pm_pred_eval(pm_pred *b, const struct ArrowArray *batch, uint8_t *sel, int64_t *nsel,
                 paimon_error *err) {
  if (nsel) *nsel = 0;
  if (!b || !batch || batch->length < 0 || batch->offset < 0)
    return pm_fail(err, PAIMON_EINVAL, "predicate: bad batch");
  int64_t n = batch->length;
  if (n == 0) return 0;
  PM_TRY(check_shape(&b->root, batch, batch->offset + n, err));
  int rc = eval_node(b, &b->root, batch, n, sel, 0);
  if (rc != 0) return pm_fail(err, rc, "predicate: out of memory evaluating a batch");
  const uint8_t *vb = batch->n_buffers > 0 ? batch->buffers[0] : NULL;
  int64_t cnt = 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t s = sel[i] == V_T;
    if (vb && s) {
      int64_t j = batch->offset + i;
      s = (vb[j >> 3] >> (j & 7)) & 1;
    }
    sel[i] = s;
    cnt += s;
  }
  if (nsel) *nsel = cnt;
  return 0;
}
