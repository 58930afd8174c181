/* table/jsonl.c: JSON lines (the `paimon cat --format jsonl` encoding) -> Arrow batch.
 *
 * A single-pass recursive-descent parser driven by the column types: values go straight
 * into pm_col builders, nothing is materialised as a JSON tree. Lines are untrusted and
 * not NUL-terminated: every read is bounded by the line's end. Nesting depth is bounded
 * by the table's type (unknown keys, when skipped, by MAX_SKIP_DEPTH). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <paimon/jsonl.h>

#include "arrow/column.h"
#include "meta/kv_layout.h"
#include "table/table_internal.h"

#define MAX_SKIP_DEPTH 64
#define MAX_NUMBER_LEN 400

typedef struct jp {
  const char *line, *p, *end;
  int64_t lineno;    /* 1-based, for messages */
  const char *field; /* top-level column being parsed (messages) */
  pm_buf str;        /* decoded string with escapes */
  pm_buf bin;        /* decoded base64 */
  paimon_error *err;
} jp;

PM_PRINTF(2, 3)
static int jfail(jp *j, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  long long col = (long long)(j->p - j->line) + 1;
  if (j->field)
    return pm_fail(j->err, PAIMON_EINVAL, "line %lld, column %lld: field '%s': %s",
                   (long long)j->lineno, col, j->field, msg);
  return pm_fail(j->err, PAIMON_EINVAL, "line %lld, column %lld: %s", (long long)j->lineno, col,
                 msg);
}

static int nomem(jp *j) {
  return pm_fail(j->err, PAIMON_ENOMEM, "line %lld: out of memory", (long long)j->lineno);
}

/* Maps a builder status to an error with a message. */
static int col_rc(jp *j, int rc) {
  if (rc == 0) return 0;
  if (rc == PAIMON_ENOMEM) return nomem(j);
  return jfail(j, "cannot append value (status %d)", rc);
}

static void ws(jp *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static bool peek(jp *j, char c) { return j->p < j->end && *j->p == c; }

static int expect(jp *j, char c, const char *what) {
  ws(j);
  if (!peek(j, c)) {
    if (j->p >= j->end) return jfail(j, "unexpected end of line, expected %s", what);
    return jfail(j, "expected %s, found '%c'", what, *j->p);
  }
  j->p++;
  return 0;
}

static bool literal(jp *j, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0) return false;
  j->p += n;
  return true;
}

static const char *type_name(const pm_type *t) { return pm_type_id_name(t->id); }

/* ---- strings -------------------------------------------------------------------------- */

static int hex4(jp *j, uint32_t *out) {
  if (j->end - j->p < 4) return jfail(j, "truncated \\u escape");
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    char h = j->p[k];
    v <<= 4;
    if (h >= '0' && h <= '9') v |= (uint32_t)(h - '0');
    else if (h >= 'a' && h <= 'f') v |= (uint32_t)(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') v |= (uint32_t)(h - 'A' + 10);
    else return jfail(j, "bad \\u escape");
  }
  j->p += 4;
  *out = v;
  return 0;
}

static int put_utf8(jp *j, uint32_t cp) {
  uint8_t u[4];
  size_t n;
  if (cp < 0x80) u[0] = (uint8_t)cp, n = 1;
  else if (cp < 0x800)
    u[0] = (uint8_t)(0xc0 | (cp >> 6)), u[1] = (uint8_t)(0x80 | (cp & 63)), n = 2;
  else if (cp < 0x10000)
    u[0] = (uint8_t)(0xe0 | (cp >> 12)), u[1] = (uint8_t)(0x80 | ((cp >> 6) & 63)),
    u[2] = (uint8_t)(0x80 | (cp & 63)), n = 3;
  else
    u[0] = (uint8_t)(0xf0 | (cp >> 18)), u[1] = (uint8_t)(0x80 | ((cp >> 12) & 63)),
    u[2] = (uint8_t)(0x80 | ((cp >> 6) & 63)), u[3] = (uint8_t)(0x80 | (cp & 63)), n = 4;
  return pm_buf_append(&j->str, u, n) ? nomem(j) : 0;
}

/* Reads the JSON string at j->p (after ws). *out points into the line when the string
 * has no escapes, else into j->str (valid until the next string is read). */
static int read_string(jp *j, const uint8_t **out, size_t *len) {
  ws(j);
  if (!peek(j, '"')) return jfail(j, "expected a string");
  j->p++;
  const char *start = j->p;
  /* fast path: no escapes */
  while (j->p < j->end) {
    uint8_t c = (uint8_t)*j->p;
    if (c == '"' || c == '\\') break;
    if (c < 0x20) return jfail(j, "control character in string");
    if (c < 0x80) {
      j->p++;
      continue;
    }
    size_t l = pm_utf8_seq_len((const uint8_t *)j->p, (size_t)(j->end - j->p));
    if (!l) return jfail(j, "invalid UTF-8 in string");
    j->p += l;
  }
  if (j->p >= j->end) return jfail(j, "unterminated string");
  if (*j->p == '"') {
    *out = (const uint8_t *)start;
    *len = (size_t)(j->p - start);
    j->p++;
    return 0;
  }
  pm_buf_clear(&j->str);
  if (pm_buf_append(&j->str, start, (size_t)(j->p - start))) return nomem(j);
  while (j->p < j->end && *j->p != '"') {
    uint8_t c = (uint8_t)*j->p;
    if (c < 0x20) return jfail(j, "control character in string");
    if (c >= 0x80) {
      size_t l = pm_utf8_seq_len((const uint8_t *)j->p, (size_t)(j->end - j->p));
      if (!l) return jfail(j, "invalid UTF-8 in string");
      if (pm_buf_append(&j->str, j->p, l)) return nomem(j);
      j->p += l;
      continue;
    }
    if (c != '\\') {
      if (pm_buf_append(&j->str, j->p, 1)) return nomem(j);
      j->p++;
      continue;
    }
    j->p++;
    if (j->p >= j->end) break;
    char e = *j->p++;
    char ch;
    switch (e) {
      case '"': ch = '"'; break;
      case '\\': ch = '\\'; break;
      case '/': ch = '/'; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'n': ch = '\n'; break;
      case 'r': ch = '\r'; break;
      case 't': ch = '\t'; break;
      case 'u': {
        uint32_t cp;
        PM_TRY(hex4(j, &cp));
        if (cp >= 0xd800 && cp <= 0xdbff) {
          uint32_t lo;
          if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
            return jfail(j, "unpaired UTF-16 surrogate in \\u escape");
          j->p += 2;
          PM_TRY(hex4(j, &lo));
          if (lo < 0xdc00 || lo > 0xdfff)
            return jfail(j, "unpaired UTF-16 surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
          return jfail(j, "unpaired UTF-16 surrogate in \\u escape");
        }
        PM_TRY(put_utf8(j, cp));
        continue;
      }
      default: j->p--; return jfail(j, "bad escape '\\%c'", e);
    }
    if (pm_buf_append(&j->str, &ch, 1)) return nomem(j);
  }
  if (j->p >= j->end) return jfail(j, "unterminated string");
  j->p++;
  *out = j->str.data ? j->str.data : (const uint8_t *)"";
  *len = j->str.len;
  return 0;
}

/* ---- numbers ------------------------------------------------------------------------ */

/* Delimits a JSON number token at j->p: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?.
 * *is_int is true when it has neither fraction nor exponent. */
static int number_token(jp *j, const char **s, size_t *n, bool *is_int) {
  const char *p = j->p, *e = j->end;
  const char *b = p;
  if (p < e && *p == '-') p++;
  if (p >= e || *p < '0' || *p > '9') return jfail(j, "expected a number");
  if (*p == '0') {
    p++;
    if (p < e && *p >= '0' && *p <= '9') return jfail(j, "leading zero in number");
  } else {
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  *is_int = true;
  if (p < e && *p == '.') {
    p++;
    if (p >= e || *p < '0' || *p > '9') return jfail(j, "malformed number");
    while (p < e && *p >= '0' && *p <= '9') p++;
    *is_int = false;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || *p < '0' || *p > '9') return jfail(j, "malformed number");
    while (p < e && *p >= '0' && *p <= '9') p++;
    *is_int = false;
  }
  *s = b;
  *n = (size_t)(p - b);
  j->p = p;
  return 0;
}

static int parse_int(jp *j, const pm_type *t, int64_t *out) {
  const char *s;
  size_t n;
  bool is_int;
  const char *at = j->p;
  PM_TRY(number_token(j, &s, &n, &is_int));
  if (!is_int) {
    j->p = at;
    return jfail(j, "expected an integer for %s", type_name(t));
  }
  bool neg = s[0] == '-';
  uint64_t v = 0;
  for (size_t i = neg; i < n; i++) {
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) goto range;
    v = v * 10 + d;
  }
  int64_t lo, hi;
  switch (t->id) {
    case PM_TINYINT: lo = INT8_MIN, hi = INT8_MAX; break;
    case PM_SMALLINT: lo = INT16_MIN, hi = INT16_MAX; break;
    case PM_INT: lo = INT32_MIN, hi = INT32_MAX; break;
    default: lo = INT64_MIN, hi = INT64_MAX; break;
  }
  if (neg) {
    if (v > (uint64_t)INT64_MAX + 1) goto range;
    int64_t x = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    if (x < lo) goto range;
    *out = x;
  } else {
    if (v > (uint64_t)hi) goto range;
    *out = (int64_t)v;
  }
  (void)lo;
  return 0;
range:
  j->p = at;
  return jfail(j, "integer %.*s out of range for %s", (int)(n > 40 ? 40 : n), s, type_name(t));
}

static int parse_float(jp *j, const pm_type *t, pm_col *c) {
  double d;
  float f;
  bool single = t->id == PM_FLOAT;
  if (peek(j, '"')) {
    const uint8_t *s;
    size_t n;
    const char *at = j->p;
    PM_TRY(read_string(j, &s, &n));
    if (n == 3 && memcmp(s, "NaN", 3) == 0) d = NAN;
    else if (n == 8 && memcmp(s, "Infinity", 8) == 0) d = INFINITY;
    else if (n == 9 && memcmp(s, "-Infinity", 9) == 0) d = -INFINITY;
    else {
      j->p = at;
      return jfail(j, "expected a number or \"NaN\", \"Infinity\", \"-Infinity\" for %s",
                   type_name(t));
    }
    f = (float)d;
  } else {
    const char *s;
    size_t n;
    bool is_int;
    const char *at = j->p;
    PM_TRY(number_token(j, &s, &n, &is_int));
    if (n > MAX_NUMBER_LEN) {
      j->p = at;
      return jfail(j, "number longer than %d characters", MAX_NUMBER_LEN);
    }
    char buf[MAX_NUMBER_LEN + 1];
    memcpy(buf, s, n);
    buf[n] = 0;
    /* strtof for FLOAT: rounding through double could differ from the nearest float */
    if (single) f = strtof(buf, NULL), d = f;
    else d = strtod(buf, NULL), f = (float)d;
    if (isinf(d)) {
      j->p = at;
      return jfail(j, "number %s out of range for %s", buf, type_name(t));
    }
  }
  return col_rc(j, single ? pm_col_append_f32(c, f) : pm_col_append_f64(c, d));
}

/* Decimal digits -> 128-bit two's complement little-endian, in four 32-bit limbs. */
static void limbs_muladd(uint32_t w[4], uint32_t mul, uint32_t add) {
  uint64_t carry = add;
  for (int i = 0; i < 4; i++) {
    uint64_t v = (uint64_t)w[i] * mul + carry;
    w[i] = (uint32_t)v;
    carry = v >> 32;
  }
}

static int parse_decimal(jp *j, const pm_type *t, pm_col *c) {
  const char *s;
  size_t n;
  const char *at = j->p;
  if (peek(j, '"')) {
    const uint8_t *u;
    PM_TRY(read_string(j, &u, &n));
    s = (const char *)u;
  } else {
    bool is_int;
    PM_TRY(number_token(j, &s, &n, &is_int));
  }
  /* -?digits(.digits)? */
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  size_t int_b = i;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  size_t int_e = i, fr_b = i, fr_e = i;
  if (i < n && s[i] == '.') {
    fr_b = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    fr_e = i;
  }
  if (i != n || (int_e == int_b && fr_e == fr_b)) {
    j->p = at;
    return jfail(j, "expected a decimal number for DECIMAL(%d, %d)", (int)t->precision,
                 (int)t->scale);
  }
  size_t nfrac = fr_e - fr_b;
  while (nfrac > (size_t)t->scale && s[fr_b + nfrac - 1] == '0') nfrac--;
  if (nfrac > (size_t)t->scale) {
    j->p = at;
    return jfail(j, "%.*s has more than %d fraction digits for DECIMAL(%d, %d)",
                 (int)(n > 60 ? 60 : n), s, (int)t->scale, (int)t->precision, (int)t->scale);
  }
  while (int_b < int_e && s[int_b] == '0') int_b++;
  size_t digits = (int_e - int_b) + (size_t)t->scale;
  if (int_e - int_b > 0 && digits > (size_t)t->precision) {
    j->p = at;
    return jfail(j, "%.*s does not fit DECIMAL(%d, %d)", (int)(n > 60 ? 60 : n), s,
                 (int)t->precision, (int)t->scale);
  }
  uint32_t w[4] = {0, 0, 0, 0};
  for (size_t k = int_b; k < int_e; k++) limbs_muladd(w, 10, (uint32_t)(s[k] - '0'));
  for (int k = 0; k < t->scale; k++)
    limbs_muladd(w, 10, (size_t)k < nfrac ? (uint32_t)(s[fr_b + (size_t)k] - '0') : 0);
  if (neg) {
    uint64_t carry = 1;
    for (int k = 0; k < 4; k++) {
      uint64_t v = (uint64_t)(uint32_t)~w[k] + carry;
      w[k] = (uint32_t)v;
      carry = v >> 32;
    }
  }
  uint8_t b[16];
  for (int k = 0; k < 4; k++) pm_store_le32(b + 4 * k, w[k]);
  return col_rc(j, pm_col_append_dec128(c, b));
}

/* ---- base64 ------------------------------------------------------------------------- */

static int b64val(uint8_t ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

static int parse_binary(jp *j, const pm_type *t, pm_col *c) {
  const uint8_t *s;
  size_t n;
  const char *at = j->p;
  PM_TRY(read_string(j, &s, &n));
  if (n % 4) goto bad;
  pm_buf_clear(&j->bin);
  if (pm_buf_reserve(&j->bin, n / 4 * 3 + 1)) return nomem(j);
  uint8_t *o = j->bin.data;
  size_t k = 0;
  for (size_t i = 0; i < n; i += 4) {
    int v[4];
    int pad = 0;
    for (size_t q = 0; q < 4; q++) {
      if (s[i + q] == '=' && i + 4 == n && q >= 2) {
        v[q] = 0;
        pad++;
        continue;
      }
      if (pad) goto bad; /* data after padding */
      v[q] = b64val(s[i + q]);
      if (v[q] < 0) goto bad;
    }
    uint32_t x =
        ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) | ((uint32_t)v[2] << 6) | (uint32_t)v[3];
    o[k++] = (uint8_t)(x >> 16);
    if (pad < 2) o[k++] = (uint8_t)(x >> 8);
    if (pad < 1) o[k++] = (uint8_t)x;
  }
  if (t->id == PM_BINARY && t->length > 0 && t->length != INT32_MAX && k > (size_t)t->length) {
    j->p = at;
    return jfail(j, "%zu bytes do not fit BINARY(%d)", k, (int)t->length);
  }
  return col_rc(j, pm_col_append_bytes(c, o, k));
bad:
  j->p = at;
  return jfail(j, "expected a base64 string for %s", type_name(t));
}

/* ---- dates and times ------------------------------------------------------------------ */

static int days_in_month(int64_t y, int m) {
  static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
  return dm[m - 1];
}

/* Exactly `n` digits at *p (bounded by e). */
static bool digits(const char **p, const char *e, int n, int64_t *out) {
  int64_t v = 0;
  for (int i = 0; i < n; i++) {
    if (*p >= e || **p < '0' || **p > '9') return false;
    v = v * 10 + (**p - '0');
    (*p)++;
  }
  *out = v;
  return true;
}

static bool parse_date_at(const char **pp, const char *e, int64_t *days) {
  const char *p = *pp;
  bool neg = false;
  if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
  int64_t y = 0;
  int nd = 0;
  while (p < e && *p >= '0' && *p <= '9' && nd < 7) y = y * 10 + (*p++ - '0'), nd++;
  if (nd < 4 || (p < e && *p >= '0' && *p <= '9')) return false;
  if (neg) y = -y;
  int64_t m, d;
  if (p >= e || *p++ != '-' || !digits(&p, e, 2, &m) || p >= e || *p++ != '-' ||
      !digits(&p, e, 2, &d))
    return false;
  if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (int)m)) return false;
  *days = pm_days_from_civil(y, (int)m, (int)d);
  *pp = p;
  return true;
}

/* "HH:MM:SS[.f{1,9}]" -> seconds of day and nanos. */
static bool parse_time_at(const char **pp, const char *e, int64_t *secs, int64_t *nanos,
                          int *nfrac) {
  const char *p = *pp;
  int64_t h, mi, s;
  if (!digits(&p, e, 2, &h) || p >= e || *p++ != ':' || !digits(&p, e, 2, &mi) || p >= e ||
      *p++ != ':' || !digits(&p, e, 2, &s))
    return false;
  if (h > 23 || mi > 59 || s > 59) return false;
  int64_t f = 0;
  int nf = 0;
  if (p < e && *p == '.') {
    p++;
    while (p < e && *p >= '0' && *p <= '9') {
      if (nf == 9) return false;
      f = f * 10 + (*p++ - '0');
      nf++;
    }
    if (nf == 0) return false;
  }
  for (int k = nf; k < 9; k++) f *= 10;
  *secs = h * 3600 + mi * 60 + s;
  *nanos = f;
  *nfrac = nf;
  *pp = p;
  return true;
}

static const int64_t UNIT_PER_SEC[3] = {1000, 1000000, 1000000000};
static const int64_t NANOS_PER_UNIT[3] = {1000000, 1000, 1};

static int parse_temporal(jp *j, const pm_type *t, pm_col *c) {
  const uint8_t *u;
  size_t n;
  const char *at = j->p;
  PM_TRY(read_string(j, &u, &n));
  const char *p = (const char *)u, *e = p + n;
  int64_t days = 0, secs = 0, nanos = 0;
  int nfrac = 0;
  if (t->id == PM_DATE) {
    if (!parse_date_at(&p, e, &days) || p != e || days < INT32_MIN || days > INT32_MAX) goto bad;
    return col_rc(j, pm_col_append_int(c, days));
  }
  if (t->id == PM_TIME) {
    if (!parse_time_at(&p, e, &secs, &nanos, &nfrac) || p != e) goto bad;
    if (nanos % 1000000) {
      j->p = at;
      return jfail(j, "TIME holds milliseconds; %.*s has finer digits", (int)n, (const char *)u);
    }
    return col_rc(j, pm_col_append_int(c, secs * 1000 + nanos / 1000000));
  }
  /* TIMESTAMP / TIMESTAMP_LTZ */
  if (!parse_date_at(&p, e, &days) || p >= e || (*p != 'T' && *p != ' ')) goto bad;
  p++;
  if (!parse_time_at(&p, e, &secs, &nanos, &nfrac)) goto bad;
  int64_t tz = 0; /* seconds east of UTC */
  if (p < e) {
    if (t->id != PM_TIMESTAMP_LTZ) {
      j->p = at;
      return jfail(j, "TIMESTAMP without time zone takes no zone suffix: %.*s",
                   (int)(n > 60 ? 60 : n), (const char *)u);
    }
    if (*p == 'Z') {
      p++;
    } else if (*p == '+' || *p == '-') {
      bool west = *p++ == '-';
      int64_t hh, mm;
      if (!digits(&p, e, 2, &hh) || p >= e || *p++ != ':' || !digits(&p, e, 2, &mm) || hh > 18 ||
          mm > 59)
        goto bad;
      tz = (hh * 3600 + mm * 60) * (west ? -1 : 1);
    }
    if (p != e) goto bad;
  }
  int unit = pm_ts_unit(t->precision);
  if (nanos % NANOS_PER_UNIT[unit]) {
    j->p = at;
    return jfail(j, "%.*s has more fraction digits than %s(%d) holds", (int)(n > 60 ? 60 : n),
                 (const char *)u, type_name(t), (int)t->precision);
  }
  int64_t total = days * 86400 + secs - tz; /* |days| < 4e8: no overflow */
  int64_t per = UNIT_PER_SEC[unit];
  if (total > INT64_MAX / per - 1 || total < INT64_MIN / per + 1) {
    j->p = at;
    return jfail(j, "%.*s is out of range for %s(%d)", (int)(n > 60 ? 60 : n), (const char *)u,
                 type_name(t), (int)t->precision);
  }
  return col_rc(j, pm_col_append_int(c, total * per + nanos / NANOS_PER_UNIT[unit]));
bad:
  j->p = at;
  return jfail(j, "malformed %s value %.*s", type_name(t), (int)(n > 60 ? 60 : n), (const char *)u);
}

/* ---- generic skipping (unknown keys) -------------------------------------------------- */

static int skip_value(jp *j, int depth) {
  ws(j);
  if (depth > MAX_SKIP_DEPTH) return jfail(j, "nesting deeper than %d", MAX_SKIP_DEPTH);
  if (j->p >= j->end) return jfail(j, "unexpected end of line, expected a value");
  char ch = *j->p;
  if (ch == '"') {
    const uint8_t *s;
    size_t n;
    return read_string(j, &s, &n);
  }
  if (ch == '{' || ch == '[') {
    char close = ch == '{' ? '}' : ']';
    j->p++;
    ws(j);
    if (peek(j, close)) {
      j->p++;
      return 0;
    }
    for (;;) {
      if (ch == '{') {
        const uint8_t *s;
        size_t n;
        PM_TRY(read_string(j, &s, &n));
        PM_TRY(expect(j, ':', "':'"));
      }
      PM_TRY(skip_value(j, depth + 1));
      ws(j);
      if (peek(j, ',')) {
        j->p++;
        continue;
      }
      return expect(j, close, close == '}' ? "',' or '}'" : "',' or ']'");
    }
  }
  if (literal(j, "true") || literal(j, "false") || literal(j, "null")) return 0;
  const char *s;
  size_t n;
  bool is_int;
  return number_token(j, &s, &n, &is_int);
}

/* ---- values ------------------------------------------------------------------------- */

static int parse_value(jp *j, pm_col *c, const pm_type *t);

/* Object members into the children `kids` of ROW type `row`, each of which holds `len`
 * rows before the call. Missing members become nulls. `kind` (top level with
 * PAIMON_JSONL_VALUE_KIND) receives the row kind, or stays -1. */
static int parse_object(jp *j, pm_col *kids, const pm_type *row, int64_t len, bool top, int flags,
                        int *kind) {
  PM_TRY(expect(j, '{', "'{'"));
  ws(j);
  int32_t hint = 0;
  if (peek(j, '}')) {
    j->p++;
  } else {
    for (;;) {
      const uint8_t *key;
      size_t klen;
      const char *kat = (ws(j), j->p);
      PM_TRY(read_string(j, &key, &klen));
      int32_t k = -1;
      for (int32_t q = 0; q < row->nfields; q++) {
        int32_t f = (hint + q) % row->nfields;
        const char *name = row->fields[f].name;
        if (strlen(name) == klen && memcmp(name, key, klen) == 0) {
          k = f;
          break;
        }
      }
      PM_TRY(expect(j, ':', "':'"));
      ws(j);
      if (k >= 0) {
        if (kids[k].length != len) {
          j->p = kat;
          return jfail(j, "duplicate key '%s'", row->fields[k].name);
        }
        const char *saved = j->field;
        if (top) j->field = row->fields[k].name;
        PM_TRY(parse_value(j, &kids[k], row->fields[k].type));
        j->field = saved;
        hint = k + 1;
      } else if (top && klen == 11 && memcmp(key, PM_KV_VALUE_KIND, 11) == 0 &&
                 (flags & PAIMON_JSONL_VALUE_KIND)) {
        if (*kind >= 0) {
          j->p = kat;
          return jfail(j, "duplicate key '_VALUE_KIND'");
        }
        const char *vat = j->p;
        if (peek(j, '"')) {
          const uint8_t *s;
          size_t n;
          PM_TRY(read_string(j, &s, &n));
          *kind = pm_kv_kind_from_string(s, n);
        } else if (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '-')) {
          static const pm_type i8 = {.id = PM_TINYINT};
          int64_t v;
          PM_TRY(parse_int(j, &i8, &v));
          if (v >= 0 && v <= 3) *kind = (int)v;
        }
        if (*kind < 0) {
          j->p = vat;
          return jfail(j, "_VALUE_KIND must be 0..3 or \"+I\", \"-U\", \"+U\", \"-D\"");
        }
      } else if (flags & PAIMON_JSONL_IGNORE_UNKNOWN) {
        PM_TRY(skip_value(j, 0));
      } else {
        j->p = kat;
        if (top && klen == 11 && memcmp(key, PM_KV_VALUE_KIND, 11) == 0)
          return jfail(j, "_VALUE_KIND applies to primary-key tables only");
        return jfail(j, "unknown %s '%.*s'", top ? "column" : "field", (int)(klen > 80 ? 80 : klen),
                     (const char *)key);
      }
      ws(j);
      if (peek(j, ',')) {
        j->p++;
        continue;
      }
      PM_TRY(expect(j, '}', "',' or '}'"));
      break;
    }
  }
  for (int32_t k = 0; k < row->nfields; k++) {
    if (kids[k].length != len) continue;
    if (!row->fields[k].type->nullable) {
      j->p--;
      const char *saved = j->field;
      if (top) j->field = NULL;
      int rc = jfail(j, "missing value for NOT NULL %s '%s'", top ? "column" : "field",
                     row->fields[k].name);
      j->field = saved;
      return rc;
    }
    PM_TRY(col_rc(j, pm_col_append_null(&kids[k])));
  }
  return 0;
}

static int parse_value(jp *j, pm_col *c, const pm_type *t) {
  ws(j);
  if (j->p >= j->end) return jfail(j, "unexpected end of line, expected a value");
  if (literal(j, "null")) {
    if (!t->nullable) {
      j->p -= 4;
      return jfail(j, "null for a NOT NULL %s", type_name(t));
    }
    return col_rc(j, pm_col_append_null(c));
  }
  switch (t->id) {
    case PM_BOOLEAN:
      if (literal(j, "true")) return col_rc(j, pm_col_append_bool(c, true));
      if (literal(j, "false")) return col_rc(j, pm_col_append_bool(c, false));
      return jfail(j, "expected true or false for BOOLEAN");
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT: {
      int64_t v;
      PM_TRY(parse_int(j, t, &v));
      return col_rc(j, pm_col_append_int(c, v));
    }
    case PM_FLOAT:
    case PM_DOUBLE: return parse_float(j, t, c);
    case PM_DECIMAL: return parse_decimal(j, t, c);
    case PM_CHAR:
    case PM_VARCHAR: {
      const uint8_t *s;
      size_t n;
      PM_TRY(read_string(j, &s, &n));
      if (n > (size_t)INT32_MAX) return nomem(j);
      return col_rc(j, pm_col_append_bytes(c, s, n));
    }
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_VARIANT:
    case PM_BLOB: return parse_binary(j, t, c);
    case PM_DATE:
    case PM_TIME:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return parse_temporal(j, t, c);
    case PM_ARRAY: {
      PM_TRY(expect(j, '[', "'[' (an array)"));
      ws(j);
      if (!peek(j, ']')) {
        for (;;) {
          PM_TRY(parse_value(j, &c->children[0], t->elem));
          ws(j);
          if (peek(j, ',')) {
            j->p++;
            continue;
          }
          PM_TRY(expect(j, ']', "',' or ']'"));
          break;
        }
      } else {
        j->p++;
      }
      return col_rc(j, pm_col_append_list_end(c));
    }
    case PM_MAP:
    case PM_MULTISET: {
      /* [[k, v], ...] into the entries struct {key, value} */
      pm_col *ent = &c->children[0];
      static const pm_type int_nn = {.id = PM_INT, .nullable = false};
      const pm_type *vt = t->id == PM_MAP ? t->value : &int_nn;
      PM_TRY(expect(j, '[', "'[' (a map as an array of [key, value] pairs)"));
      ws(j);
      if (!peek(j, ']')) {
        for (;;) {
          PM_TRY(expect(j, '[', "'[' (a [key, value] pair)"));
          PM_TRY(parse_value(j, &ent->children[0], t->elem));
          PM_TRY(expect(j, ',', "',' in a [key, value] pair"));
          PM_TRY(parse_value(j, &ent->children[1], vt));
          PM_TRY(expect(j, ']', "']' closing a [key, value] pair"));
          PM_TRY(col_rc(j, pm_col_append_struct(ent, true)));
          ws(j);
          if (peek(j, ',')) {
            j->p++;
            continue;
          }
          PM_TRY(expect(j, ']', "',' or ']'"));
          break;
        }
      } else {
        j->p++;
      }
      return col_rc(j, pm_col_append_list_end(c));
    }
    case PM_ROW: {
      int64_t len = c->length;
      PM_TRY(parse_object(j, c->children, t, len, false, 0, NULL));
      return col_rc(j, pm_col_append_struct(c, true));
    }
  }
  return jfail(j, "unsupported type");
}

/* ---- entry point ---------------------------------------------------------------------- */

int paimon_jsonl_parse(struct ArrowArray *out, struct ArrowSchema *out_schema,
                       const paimon_table *t, const char *const *lines, const size_t *lens,
                       size_t n, const int64_t *line_numbers, int flags, paimon_error *err) {
  memset(out, 0, sizeof *out);
  memset(out_schema, 0, sizeof *out_schema);
  if (!t || (n && !lines)) return pm_fail(err, PAIMON_EINVAL, "paimon_jsonl_parse: NULL argument");
  if (n > (size_t)INT32_MAX)
    return pm_fail(err, PAIMON_EINVAL, "paimon_jsonl_parse: too many lines (%zu)", n);
  const pm_type *row = t->schema->row;
  bool want_offset = (flags & PAIMON_JSONL_REALTIME_OFFSET) != 0;
  bool want_kind = (flags & PAIMON_JSONL_VALUE_KIND) && t->schema->nprimary_keys > 0;
  if (!want_kind) flags &= ~PAIMON_JSONL_VALUE_KIND;
  int32_t nf = row->nfields;
  int32_t first = want_offset ? 1 : 0;
  int32_t ncols = first + nf + (want_kind ? 1 : 0);
  int rc = 0;
  /* the output row type: [_REALTIME_OFFSET], columns, [_VALUE_KIND] */
  pm_type *otype = pm_type_new_row(false);
  pm_col *cols = pm_calloc((size_t)ncols + 1, sizeof *cols);
  int32_t inited = 0;
  jp j;
  memset(&j, 0, sizeof j);
  j.err = err;
  if (!otype || !cols) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  if (want_offset) {
    pm_type *ot = pm_type_new(PM_BIGINT, false);
    if (!ot || pm_type_row_add(otype, -1, PM_KV_REALTIME_OFFSET, ot)) rc = PAIMON_ENOMEM;
  }
  for (int32_t f = 0; rc == 0 && f < nf; f++) {
    pm_type *ft = pm_type_clone(row->fields[f].type);
    if (!ft || pm_type_row_add(otype, row->fields[f].id, row->fields[f].name, ft))
      rc = PAIMON_ENOMEM;
  }
  if (rc == 0 && want_kind) {
    pm_type *kt = pm_type_new(PM_TINYINT, false);
    if (!kt || pm_type_row_add(otype, PM_KV_VALUE_KIND_ID, PM_KV_VALUE_KIND, kt))
      rc = PAIMON_ENOMEM;
  }
  for (; rc == 0 && inited < ncols; inited++)
    rc = pm_col_init(&cols[inited], otype->fields[inited].type);
  for (int32_t k = 0; rc == 0 && k < ncols; k++) rc = pm_col_reserve(&cols[k], (int64_t)n, 0);
  if (rc) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto done;
  }
  pm_col *data = cols + first;
  for (size_t i = 0; i < n && rc == 0; i++) {
    const char *line = lines[i];
    size_t len = lens ? lens[i] : (line ? strlen(line) : 0);
    int64_t num = line_numbers ? line_numbers[i] : (int64_t)i;
    j.line = j.p = line ? line : "";
    j.end = j.p + len;
    j.lineno = num + 1;
    j.field = NULL;
    if (j.end > j.p && j.end[-1] == '\n') j.end--;
    if (j.end > j.p && j.end[-1] == '\r') j.end--;
    ws(&j);
    if (j.p >= j.end) {
      rc = jfail(&j, "empty line");
      break;
    }
    int kind = -1;
    rc = parse_object(&j, data, row, (int64_t)i, true, flags, &kind);
    if (rc) break;
    ws(&j);
    if (j.p < j.end) {
      rc = jfail(&j, "unexpected characters after the object");
      break;
    }
    if (want_offset) rc = col_rc(&j, pm_col_append_i64(&cols[0], num));
    if (rc == 0 && want_kind)
      rc = col_rc(&j, pm_col_append_i8(&cols[ncols - 1], (int8_t)(kind < 0 ? 0 : kind)));
  }
  if (rc) goto done;
  rc = pm_type_to_arrow(otype, NULL, out_schema, err);
  if (rc == 0) rc = pm_cols_export_struct(cols, ncols, (int64_t)n, out, err);
  if (rc) pm_schema_release(out_schema);
done:
  for (int32_t k = 0; k < inited; k++) pm_col_free(&cols[k]);
  pm_free(cols);
  pm_type_free(otype);
  pm_buf_free(&j.str);
  pm_buf_free(&j.bin);
  if (rc) {
    memset(out, 0, sizeof *out);
    memset(out_schema, 0, sizeof *out_schema);
  }
  return rc;
}
