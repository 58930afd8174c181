/* meta/partition.c: partition directory names (format-metadata.md §7): Hive-style
 * escaping and Java's legacy toString rendering of partition values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "meta/meta.h"

/* Characters Java's PartitionPathUtils escapes (besides controls and DEL). */
static bool needs_escape(unsigned char c) {
  if (c < 0x20 || c == 0x7f) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '}':
    case '[':
    case ']':
    case '^': return true;
    default: return false;
  }
}

static int escape_into(pm_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (needs_escape(c)) {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      PM_TRY(pm_buf_append(b, e, 3));
    } else {
      PM_TRY(pm_buf_append(b, &s[i], 1));
    }
  }
  return 0;
}

char *pm_partition_escape(const char *s) {
  pm_buf b = PM_BUF_INIT;
  if (pm_buf_reserve(&b, strlen(s) + 1) || escape_into(&b, s, strlen(s))) {
    pm_buf_free(&b);
    return NULL;
  }
  if (b.len == 0) {
    pm_buf_free(&b);
    return pm_strdup("");
  }
  return pm_buf_detach(&b);
}

/* ---- Java number formatting ----------------------------------------------------- */

/* Shortest decimal digits that read back as the same value (Java 19+ Float/Double
 * toString), then Java's layout: plain for 1e-3 <= |v| < 1e7, else d.dddE[-]n. */
static int put_java_fp(pm_buf *b, double v, bool is_float) {
  if (isnan(v)) return pm_buf_append_str(b, "NaN");
  if (isinf(v)) return pm_buf_append_str(b, v > 0 ? "Infinity" : "-Infinity");
  if (v == 0) return pm_buf_append_str(b, signbit(v) ? "-0.0" : "0.0");
  char tmp[64];
  int maxp = is_float ? 9 : 17;
  /* From 2 digits: when one digit would do, Java picks the closest decimal of length 1
   * or 2 (4.9E-324, not 5.0E-324), which is the correctly rounded 2-digit value. */
  for (int p = 2; p <= maxp; p++) {
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
    if (is_float ? (strtof(tmp, NULL) == (float)v) : (strtod(tmp, NULL) == v)) break;
  }
  /* tmp = [-]d[.ddd]e[+-]xx */
  bool neg = tmp[0] == '-';
  const char *m = tmp + (neg ? 1 : 0);
  char digits[32];
  int nd = 0;
  const char *e = m;
  for (; *e && *e != 'e'; e++)
    if (*e >= '0' && *e <= '9') digits[nd++] = *e;
  int exp = atoi(e + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  if (neg) PM_TRY(pm_buf_append(b, "-", 1));
  double a = fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    if (exp >= 0) {
      for (int k = 0; k <= exp; k++) PM_TRY(pm_buf_append(b, k < nd ? &digits[k] : "0", 1));
      PM_TRY(pm_buf_append(b, ".", 1));
      if (nd > exp + 1) PM_TRY(pm_buf_append(b, digits + exp + 1, (size_t)(nd - exp - 1)));
      else PM_TRY(pm_buf_append(b, "0", 1));
    } else {
      PM_TRY(pm_buf_append(b, "0.", 2));
      for (int k = 0; k < -exp - 1; k++) PM_TRY(pm_buf_append(b, "0", 1));
      PM_TRY(pm_buf_append(b, digits, (size_t)nd));
    }
    return 0;
  }
  PM_TRY(pm_buf_append(b, digits, 1));
  PM_TRY(pm_buf_append(b, ".", 1));
  if (nd > 1) PM_TRY(pm_buf_append(b, digits + 1, (size_t)(nd - 1)));
  else PM_TRY(pm_buf_append(b, "0", 1));
  return pm_buf_printf(b, "E%d", exp);
}

/* BigDecimal.toPlainString of a 128-bit unscaled value. */
static int put_decimal(pm_buf *b, const uint8_t le[16], int32_t scale) {
  uint32_t w[4];
  for (int k = 0; k < 4; k++) w[k] = pm_load_le32(le + 4 * k);
  bool neg = (w[3] >> 31) != 0;
  if (neg) { /* magnitude = -value (two's complement) */
    uint64_t carry = 1;
    for (int k = 0; k < 4; k++) {
      uint64_t x = (uint64_t)(uint32_t)~w[k] + carry;
      w[k] = (uint32_t)x;
      carry = x >> 32;
    }
  }
  char digits[48];
  int nd = 0;
  while (w[0] | w[1] | w[2] | w[3]) {
    uint64_t rem = 0;
    for (int k = 3; k >= 0; k--) {
      uint64_t cur = (rem << 32) | w[k];
      w[k] = (uint32_t)(cur / 10);
      rem = cur % 10;
    }
    digits[nd++] = (char)('0' + rem);
  }
  if (nd == 0) digits[nd++] = '0';
  char s[96];
  int n = 0;
  if (neg) s[n++] = '-';
  if (scale <= 0) {
    for (int k = nd - 1; k >= 0; k--) s[n++] = digits[k];
    for (int k = 0; k < -scale && n < 90; k++) s[n++] = '0';
  } else if (nd > scale) {
    for (int k = nd - 1; k >= 0; k--) {
      s[n++] = digits[k];
      if (k == scale) s[n++] = '.';
    }
  } else {
    s[n++] = '0';
    s[n++] = '.';
    for (int k = 0; k < scale - nd && n < 90; k++) s[n++] = '0';
    for (int k = nd - 1; k >= 0; k--) s[n++] = digits[k];
  }
  return pm_buf_append(b, s, (size_t)n);
}

/* ---- dates and times ------------------------------------------------------------ */

/* java.time.LocalDate#toString. */
static int put_date(pm_buf *b, int64_t days) {
  int64_t y;
  int m, d;
  pm_civil_from_days(days, &y, &m, &d);
  if (y > 9999) PM_TRY(pm_buf_printf(b, "+%lld", (long long)y));
  else if (y < 0) PM_TRY(pm_buf_printf(b, "-%04lld", (long long)-y));
  else PM_TRY(pm_buf_printf(b, "%04lld", (long long)y));
  return pm_buf_printf(b, "-%02d-%02d", m, d);
}

/* java.time.LocalTime#toString (HH:mm, :ss when non-zero, fraction in 3/6/9 digits). */
static int put_local_time(pm_buf *b, int64_t sec_of_day, int64_t nano) {
  int h = (int)(sec_of_day / 3600), mi = (int)(sec_of_day / 60 % 60), s = (int)(sec_of_day % 60);
  PM_TRY(pm_buf_printf(b, "%02d:%02d", h, mi));
  if (s > 0 || nano > 0) {
    PM_TRY(pm_buf_printf(b, ":%02d", s));
    if (nano > 0) {
      if (nano % 1000000 == 0) PM_TRY(pm_buf_printf(b, ".%03lld", (long long)(nano / 1000000)));
      else if (nano % 1000 == 0) PM_TRY(pm_buf_printf(b, ".%06lld", (long long)(nano / 1000)));
      else PM_TRY(pm_buf_printf(b, ".%09lld", (long long)nano));
    }
  }
  return 0;
}

static int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* SQL-style fraction: at least `precision` digits, further trailing zeros dropped. */
static int put_sql_fraction(pm_buf *b, int64_t nano, int32_t precision) {
  char f[24];
  snprintf(f, sizeof f, "%09lld", (long long)nano);
  int n = 9;
  while (n > precision && f[n - 1] == '0') n--;
  if (n == 0) return 0;
  PM_TRY(pm_buf_append(b, ".", 1));
  return pm_buf_append(b, f, (size_t)n);
}

static int put_timestamp(pm_buf *b, int64_t millis, int32_t nano_of_milli, bool legacy,
                         int32_t precision) {
  int64_t days = fdiv(millis, 86400000);
  int64_t ms_of_day = millis - days * 86400000;
  int64_t nano = (ms_of_day % 1000) * 1000000 + nano_of_milli;
  PM_TRY(put_date(b, days));
  if (legacy) {
    PM_TRY(pm_buf_append(b, "T", 1));
    return put_local_time(b, ms_of_day / 1000, nano);
  }
  int64_t sod = ms_of_day / 1000;
  PM_TRY(pm_buf_printf(b, " %02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60),
                       (int)(sod % 60)));
  return put_sql_fraction(b, nano, precision);
}

/* ---- rendering ------------------------------------------------------------------ */

static int render(pm_buf *b, const pm_binrow *r, int32_t i, const pm_type *t, bool legacy,
                  paimon_error *err) {
  switch (t->id) {
    case PM_BOOLEAN: return pm_buf_append_str(b, pm_binrow_get_int(r, i, t) ? "true" : "false");
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT: return pm_buf_printf(b, "%lld", (long long)pm_binrow_get_int(r, i, t));
    case PM_FLOAT:
    case PM_DOUBLE: return put_java_fp(b, pm_binrow_get_double(r, i, t), t->id == PM_FLOAT);
    case PM_CHAR:
    case PM_VARCHAR: {
      const uint8_t *p;
      int32_t n;
      PM_TRY(pm_binrow_get_bytes(r, i, &p, &n, err));
      return pm_buf_append(b, p, (size_t)n);
    }
    case PM_DECIMAL: {
      uint8_t v[16];
      PM_TRY(pm_binrow_get_decimal(r, i, t, v, err));
      return put_decimal(b, v, t->scale);
    }
    case PM_DATE: {
      int64_t d = pm_binrow_get_int(r, i, t);
      if (legacy) return pm_buf_printf(b, "%lld", (long long)d); /* the day number */
      return put_date(b, d);
    }
    case PM_TIME: {
      int64_t ms = pm_binrow_get_int(r, i, t);
      if (legacy) return pm_buf_printf(b, "%lld", (long long)ms);
      if (ms < 0 || ms >= 86400000)
        return pm_fail(err, PAIMON_ECORRUPT, "partition TIME %lld out of range", (long long)ms);
      PM_TRY(pm_buf_printf(b, "%02d:%02d:%02d", (int)(ms / 3600000), (int)(ms / 60000 % 60),
                           (int)(ms / 1000 % 60)));
      return put_sql_fraction(b, (ms % 1000) * 1000000, t->precision);
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int64_t ms;
      int32_t nano;
      PM_TRY(pm_binrow_get_timestamp(r, i, t, &ms, &nano, err));
      if (ms > (int64_t)1 << 52 || ms < -((int64_t)1 << 52))
        return pm_fail(err, PAIMON_ECORRUPT, "partition timestamp %lld out of range",
                       (long long)ms);
      return put_timestamp(b, ms, nano, legacy, t->precision);
    }
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED, "partition column of type %d cannot be rendered",
                     (int)t->id);
  }
}

/* Java StringUtils.isNullOrWhitespaceOnly over ASCII whitespace. */
static bool blank(const uint8_t *p, size_t n) {
  for (size_t k = 0; k < n; k++) {
    uint8_t c = p[k];
    if (!(c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f))) return false;
  }
  return true;
}

int pm_partition_path(const pm_type *part_type, const pm_binrow *part, const char *default_name,
                      bool legacy, char **out, paimon_error *err) {
  *out = NULL;
  if (part->arity != part_type->nfields)
    return pm_fail(err, PAIMON_ECORRUPT, "partition row has %d fields, table has %d partition keys",
                   (int)part->arity, (int)part_type->nfields);
  if (!default_name) default_name = "__DEFAULT_PARTITION__";
  pm_buf b = PM_BUF_INIT, v = PM_BUF_INIT;
  int rc = pm_buf_reserve(&b, 16);
  for (int32_t i = 0; rc == 0 && i < part_type->nfields; i++) {
    const pm_field *f = &part_type->fields[i];
    pm_buf_clear(&v);
    bool is_null = pm_binrow_is_null(part, i);
    if (!is_null) rc = render(&v, part, i, f->type, legacy, err);
    if (rc) break;
    if (is_null || blank(v.data, v.len)) {
      pm_buf_clear(&v);
      rc = pm_buf_append_str(&v, default_name);
      if (rc) break;
    }
    if (i) rc = pm_buf_append(&b, "/", 1);
    if (!rc) rc = escape_into(&b, f->name, strlen(f->name));
    if (!rc) rc = pm_buf_append(&b, "=", 1);
    if (!rc) rc = escape_into(&b, (const char *)v.data, v.len);
  }
  pm_buf_free(&v);
  if (rc) {
    pm_buf_free(&b);
    if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "partition path: out of memory");
    return rc;
  }
  *out = b.len ? pm_buf_detach(&b) : (pm_buf_free(&b), pm_strdup(""));
  if (!*out) return pm_fail(err, PAIMON_ENOMEM, "partition path: out of memory");
  return 0;
}
