/* table/cast.c: reading a column written with an older type as its current type
 * (schema evolution). Follows Java Paimon's CastExecutors: numeric casts truncate like
 * Java primitive casts, decimals rescale with HALF_UP and become null on overflow,
 * strings parse strictly (a value that does not parse is an error naming the column),
 * values render to strings as Paimon's cast-to-string does, and integer <-> timestamp
 * casts use epoch seconds. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/read_internal.h"

typedef __int128 i128;

typedef enum { K_BOOL, K_INT, K_FLOAT, K_DEC, K_STR, K_BIN, K_DATE, K_TIME, K_TS, K_OTHER } kind;

static kind kind_of(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN: return K_BOOL;
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT: return K_INT;
    case PM_FLOAT:
    case PM_DOUBLE: return K_FLOAT;
    case PM_DECIMAL: return K_DEC;
    case PM_CHAR:
    case PM_VARCHAR: return K_STR;
    case PM_BINARY:
    case PM_VARBINARY: return K_BIN;
    case PM_DATE: return K_DATE;
    case PM_TIME: return K_TIME;
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return K_TS;
    default: return K_OTHER;
  }
}

int pm_cast_check(const pm_type *from, const pm_type *to, const char *column, paimon_error *err) {
  kind a = kind_of(from), b = kind_of(to);
  if (a == K_OTHER || b == K_OTHER) {
    if (from->id == to->id) return 0; /* nested: only nullability may differ */
    goto no;
  }
  if (a == b) return 0;
  if (b == K_STR) return 0; /* everything atomic renders to a string */
  if (a == K_STR) return 0; /* parsed; bad values fail at read time */
  if ((a == K_BIN && b == K_STR) || (a == K_STR && b == K_BIN)) return 0;
  bool num_a = a == K_INT || a == K_FLOAT || a == K_DEC || a == K_BOOL;
  bool num_b = b == K_INT || b == K_FLOAT || b == K_DEC || b == K_BOOL;
  if (num_a && num_b) return 0;
  if ((a == K_DATE && b == K_TS) || (a == K_TS && b == K_DATE)) return 0;
  if ((a == K_TS && b == K_TIME)) return 0;
  if ((a == K_INT && b == K_TS) || (a == K_TS && b == K_INT)) return 0;
no:;
  char *fs = pm_type_to_string(from), *ts = pm_type_to_string(to);
  int rc = pm_fail(err, PAIMON_EUNSUPPORTED, "column '%s': cannot read %s data as %s", column,
                   fs ? fs : "?", ts ? ts : "?");
  pm_free(fs);
  pm_free(ts);
  return rc;
}

static i128 pow10_128(int n) {
  i128 r = 1;
  while (n-- > 0) r *= 10;
  return r;
}

static i128 load_dec(const struct ArrowArray *a, int64_t i) {
  const uint8_t *p = (const uint8_t *)a->buffers[1] + 16 * (a->offset + i);
  i128 v;
  memcpy(&v, p, 16);
  return v;
}

/* Timestamp value as epoch nanoseconds. */
static i128 ts_nanos(const struct ArrowArray *a, const pm_type *t, int64_t i) {
  int64_t v = PM_ARR_FIXED(a, int64_t, i);
  switch (pm_ts_unit(t->precision)) {
    case 0: return (i128)v * 1000000;
    case 1: return (i128)v * 1000;
    default: return v;
  }
}

static int64_t floordiv(i128 a, int64_t b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return (int64_t)q;
}

static int64_t nanos_to_unit(i128 ns, const pm_type *t) {
  switch (pm_ts_unit(t->precision)) {
    case 0: return floordiv(ns, 1000000);
    case 1: return floordiv(ns, 1000);
    default: return (int64_t)ns;
  }
}

static void fmt_dec(i128 v, int scale, char *out) {
  char tmp[64];
  int n = 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  do {
    tmp[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale) tmp[n++] = '0';
  int o = 0;
  if (neg) out[o++] = '-';
  for (int i = n - 1; i >= 0; i--) {
    out[o++] = tmp[i];
    if (i == scale && scale > 0) out[o++] = '.';
  }
  out[o] = 0;
}

/* Java Double.toString-like rendering: shortest round-trip digits. */
static void fmt_double(double v, bool is_float, char *out) {
  if (isnan(v)) {
    strcpy(out, "NaN");
    return;
  }
  if (isinf(v)) {
    strcpy(out, v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  for (int p = is_float ? 6 : 15; p <= 17; p++) {
    snprintf(out, 64, "%.*g", p, v);
    if (is_float ? (float)strtod(out, NULL) == (float)v : strtod(out, NULL) == v) break;
  }
  double av = fabs(v);
  if (av != 0 && (av < 1e-3 || av >= 1e7)) return; /* scientific, close enough to Java */
  if (!strchr(out, '.') && !strchr(out, 'e')) strcat(out, ".0");
}

static void fmt_ts(i128 ns, int precision, char *out) {
  int64_t secs = floordiv(ns, 1000000000);
  int64_t frac = (int64_t)(ns - (i128)secs * 1000000000);
  int64_t days = floordiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  int64_t y;
  int m, d;
  pm_civil_from_days(days, &y, &m, &d);
  int n = snprintf(out, 80, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)y, m, d,
                   (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
  if (precision > 0 && frac) {
    char f[16];
    snprintf(f, sizeof f, "%09lld", (long long)frac);
    int len = precision < 9 ? precision : 9;
    while (len > 0 && f[len - 1] == '0') len--;
    if (len > 0) snprintf(out + n, 80 - (size_t)n, ".%.*s", len, f);
  }
}

static bool parse_i128(const char *s, size_t n, i128 *out) {
  size_t i = 0;
  while (i < n && isspace((unsigned char)s[i])) i++;
  while (n > i && isspace((unsigned char)s[n - 1])) n--;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i >= n) return false;
  i128 v = 0;
  for (; i < n; i++) {
    if (!isdigit((unsigned char)s[i])) return false;
    v = v * 10 + (s[i] - '0');
    if (v > ((i128)1 << 100)) return false;
  }
  *out = neg ? -v : v;
  return true;
}

/* Decimal text -> unscaled at `scale` (HALF_UP). */
static bool parse_dec(const char *s, size_t n, int scale, i128 *out) {
  char buf[128];
  if (n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *p = buf;
  while (isspace((unsigned char)*p)) p++;
  bool neg = false;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  i128 v = 0;
  int frac = -1, digits = 0;
  int round_digit = -1;
  for (; *p && !isspace((unsigned char)*p); p++) {
    if (*p == '.') {
      if (frac >= 0) return false;
      frac = 0;
      continue;
    }
    if (!isdigit((unsigned char)*p)) return false;
    digits++;
    if (frac >= 0) {
      if (frac == scale) {
        if (round_digit < 0) round_digit = *p - '0';
        continue;
      }
      frac++;
    }
    v = v * 10 + (*p - '0');
    if (v > ((i128)1 << 120)) return false;
  }
  while (isspace((unsigned char)*p)) p++;
  if (*p || digits == 0) return false;
  if (frac < 0) frac = 0;
  for (; frac < scale; frac++) v *= 10;
  if (round_digit >= 5) v += 1;
  *out = neg ? -v : v;
  return true;
}

static bool parse_ts(const char *s, size_t n, i128 *ns_out, bool *date_only) {
  char buf[64];
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  if (n >= sizeof buf || n < 8) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  long long y;
  int mo, d, h = 0, mi = 0, se = 0, used = 0;
  if (sscanf(buf, "%lld-%d-%d%n", &y, &mo, &d, &used) != 3) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  *date_only = true;
  int64_t frac = 0;
  const char *p = buf + used;
  if (*p == ' ' || *p == 'T') {
    *date_only = false;
    int u2 = 0;
    if (sscanf(p + 1, "%d:%d%n", &h, &mi, &u2) != 2) return false;
    p += 1 + u2;
    if (*p == ':') {
      int u3 = 0;
      if (sscanf(p + 1, "%d%n", &se, &u3) != 1) return false;
      p += 1 + u3;
    }
    if (*p == '.') {
      p++;
      int k = 0;
      while (isdigit((unsigned char)*p)) {
        if (k < 9) frac = frac * 10 + (*p - '0');
        k++;
        p++;
      }
      for (; k < 9; k++) frac *= 10;
    }
  }
  if (*p) return false;
  if (h > 23 || mi > 59 || se > 59) return false;
  int64_t days = pm_days_from_civil(y, mo, d);
  *ns_out = ((i128)days * 86400 + h * 3600 + mi * 60 + se) * 1000000000 + frac;
  return true;
}

static int bad_value(paimon_error *err, const char *what, const uint8_t *p, int32_t n) {
  return pm_fail(err, PAIMON_EINVAL, "cannot cast string '%.*s' to %s", n > 64 ? 64 : (int)n,
                 (const char *)p, what);
}

/* Writes decimal `v` (scale `s`) into a column of type `to`. */
static int put_decimal(pm_col *c, const pm_type *to, i128 v, int s) {
  if (to->id == PM_DECIMAL) {
    int ds = to->scale - s;
    if (ds > 0) v *= pow10_128(ds);
    else if (ds < 0) {
      i128 q = pow10_128(-ds);
      i128 r = v % q;
      v /= q;
      if ((r < 0 ? -r : r) * 2 >= q) v += v < 0 || r < 0 ? -1 : 1;
    }
    if ((v < 0 ? -v : v) >= pow10_128(to->precision)) return pm_col_append_null(c);
    uint8_t b[16];
    memcpy(b, &v, 16);
    return pm_col_append_dec128(c, b);
  }
  if (to->id == PM_FLOAT || to->id == PM_DOUBLE) {
    double d = (double)v / (double)pow10_128(s);
    return to->id == PM_FLOAT ? pm_col_append_f32(c, (float)d) : pm_col_append_f64(c, d);
  }
  if (to->id == PM_BOOLEAN) return pm_col_append_bool(c, v != 0);
  return pm_col_append_int(c, (int64_t)(v / pow10_128(s)));
}

int pm_array_cast(const struct ArrowArray *src, const pm_type *from, const pm_type *to,
                  struct ArrowArray *out, paimon_error *err) {
  kind a = kind_of(from), b = kind_of(to);
  if (a == K_OTHER || (a == b && pm_type_fixed_width(from) == pm_type_fixed_width(to) &&
                       a != K_DEC && a != K_TS && a != K_INT && a != K_FLOAT)) {
    /* same physical layout (CHAR<->VARCHAR, BINARY<->VARBINARY, nested nullability) */
    return pm_array_slice_copy(src, to, 0, src->length, out, err);
  }
  pm_col c;
  PM_TRY(pm_col_init(&c, to));
  int rc = pm_col_reserve(&c, src->length, 0);
  char sbuf[128];
  for (int64_t i = 0; rc == 0 && i < src->length; i++) {
    if (!pm_arr_is_valid(src, i)) {
      rc = pm_col_append_null(&c);
      continue;
    }
    /* -> string */
    if (b == K_STR && a != K_STR && a != K_BIN) {
      switch (a) {
        case K_BOOL: strcpy(sbuf, pm_arr_bool(src, i) ? "true" : "false"); break;
        case K_INT: snprintf(sbuf, sizeof sbuf, "%lld", (long long)pm_arr_int(src, from, i)); break;
        case K_FLOAT:
          fmt_double(from->id == PM_FLOAT ? (double)PM_ARR_FIXED(src, float, i)
                                          : PM_ARR_FIXED(src, double, i),
                     from->id == PM_FLOAT, sbuf);
          break;
        case K_DEC: fmt_dec(load_dec(src, i), from->scale, sbuf); break;
        case K_DATE: {
          int64_t y;
          int m, d;
          pm_civil_from_days(PM_ARR_FIXED(src, int32_t, i), &y, &m, &d);
          snprintf(sbuf, sizeof sbuf, "%04lld-%02d-%02d", (long long)y, m, d);
          break;
        }
        case K_TIME: {
          int32_t ms = PM_ARR_FIXED(src, int32_t, i);
          snprintf(sbuf, sizeof sbuf, "%02d:%02d:%02d", ms / 3600000, ms / 60000 % 60,
                   ms / 1000 % 60);
          break;
        }
        case K_TS: fmt_ts(ts_nanos(src, from, i), from->precision, sbuf); break;
        default: sbuf[0] = 0;
      }
      rc = pm_col_append_bytes(&c, sbuf, strlen(sbuf));
      continue;
    }
    if (a == K_STR || a == K_BIN) {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(src, i, &n);
      const char *s = (const char *)p;
      if (b == K_STR || b == K_BIN) {
        rc = pm_col_append_bytes(&c, p, (size_t)n);
      } else if (b == K_BOOL) {
        char low[8];
        int32_t j = 0, k = 0;
        while (j < n && isspace((unsigned char)s[j])) j++;
        while (j < n && k < 7 && !isspace((unsigned char)s[j]))
          low[k++] = (char)tolower((unsigned char)s[j++]);
        low[k] = 0;
        if (!strcmp(low, "t") || !strcmp(low, "true") || !strcmp(low, "y") || !strcmp(low, "yes") ||
            !strcmp(low, "1"))
          rc = pm_col_append_bool(&c, true);
        else if (!strcmp(low, "f") || !strcmp(low, "false") || !strcmp(low, "n") ||
                 !strcmp(low, "no") || !strcmp(low, "0"))
          rc = pm_col_append_bool(&c, false);
        else rc = bad_value(err, "BOOLEAN", p, n);
      } else if (b == K_INT) {
        i128 v;
        if (!parse_i128(s, (size_t)n, &v)) rc = bad_value(err, "an integer", p, n);
        else rc = pm_col_append_int(&c, (int64_t)v);
      } else if (b == K_FLOAT) {
        char tmp[128];
        int32_t m = n < 127 ? n : 127;
        memcpy(tmp, s, (size_t)m);
        tmp[m] = 0;
        char *end;
        double d = strtod(tmp, &end);
        while (*end && isspace((unsigned char)*end)) end++;
        if (*end || end == tmp) rc = bad_value(err, "a floating-point number", p, n);
        else rc = to->id == PM_FLOAT ? pm_col_append_f32(&c, (float)d) : pm_col_append_f64(&c, d);
      } else if (b == K_DEC) {
        i128 v;
        if (!parse_dec(s, (size_t)n, to->scale, &v)) rc = bad_value(err, "DECIMAL", p, n);
        else rc = put_decimal(&c, to, v, to->scale);
      } else if (b == K_DATE || b == K_TS || b == K_TIME) {
        i128 ns;
        bool date_only;
        if (!parse_ts(s, (size_t)n, &ns, &date_only)) rc = bad_value(err, "a date/time", p, n);
        else if (b == K_DATE) rc = pm_col_append_i32(&c, (int32_t)floordiv(ns, 86400000000000LL));
        else if (b == K_TS) rc = pm_col_append_i64(&c, nanos_to_unit(ns, to));
        else rc = pm_col_append_i32(&c, (int32_t)(floordiv(ns, 1000000) % 86400000));
      } else {
        rc = PAIMON_EUNSUPPORTED;
      }
      continue;
    }
    switch (a) {
      case K_BOOL: rc = put_decimal(&c, to, pm_arr_bool(src, i) ? 1 : 0, 0); break;
      case K_INT: {
        int64_t v = pm_arr_int(src, from, i);
        if (b == K_TS) rc = pm_col_append_i64(&c, nanos_to_unit((i128)v * 1000000000, to));
        else rc = put_decimal(&c, to, v, 0);
        break;
      }
      case K_FLOAT: {
        double d = from->id == PM_FLOAT ? (double)PM_ARR_FIXED(src, float, i)
                                        : PM_ARR_FIXED(src, double, i);
        if (to->id == PM_FLOAT) rc = pm_col_append_f32(&c, (float)d);
        else if (to->id == PM_DOUBLE) rc = pm_col_append_f64(&c, d);
        else if (to->id == PM_BOOLEAN) rc = pm_col_append_bool(&c, d != 0);
        else if (to->id == PM_DECIMAL) {
          double scaled = d * (double)pow10_128(to->scale);
          if (!isfinite(scaled) || fabs(scaled) >= 1e38) rc = pm_col_append_null(&c);
          else rc = put_decimal(&c, to, (i128)llround(scaled), to->scale);
        } else rc = pm_col_append_int(&c, isnan(d) ? 0 : (int64_t)d);
        break;
      }
      case K_DEC: rc = put_decimal(&c, to, load_dec(src, i), from->scale); break;
      case K_DATE: {
        int64_t days = PM_ARR_FIXED(src, int32_t, i);
        rc = pm_col_append_i64(&c, nanos_to_unit((i128)days * 86400 * 1000000000, to));
        break;
      }
      case K_TS: {
        i128 ns = ts_nanos(src, from, i);
        if (b == K_TS) rc = pm_col_append_i64(&c, nanos_to_unit(ns, to));
        else if (b == K_DATE) rc = pm_col_append_i32(&c, (int32_t)floordiv(ns, 86400000000000LL));
        else if (b == K_TIME) {
          int64_t ms = floordiv(ns, 1000000);
          rc = pm_col_append_i32(&c, (int32_t)(ms - floordiv(ms, 86400000) * 86400000));
        } else if (b == K_INT) rc = pm_col_append_int(&c, floordiv(ns, 1000000000));
        else rc = PAIMON_EUNSUPPORTED;
        break;
      }
      case K_TIME: rc = pm_col_append_int(&c, PM_ARR_FIXED(src, int32_t, i)); break;
      default: rc = PAIMON_EUNSUPPORTED;
    }
  }
  if (rc == 0) rc = pm_col_export(&c, out, err);
  else if (!err || err->code != rc) rc = pm_fail(err, rc, "cast failed");
  pm_col_free(&c);
  return rc;
}
