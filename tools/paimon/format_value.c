/* tools/paimon/format_value.c: Arrow values -> text cells (csv, table), from format strings;
 * JSON comes from the library (paimon/jsonl.h). */
#include "format_value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output buffer ------------------------------------------------------------------ */

int fv_reserve(fv_out *o, size_t extra) {
  if (o->cap - o->len >= extra) return 0;
  size_t nc = o->cap ? o->cap : 4096;
  while (nc - o->len < extra) {
    if (nc > ((size_t)1 << 40)) return -1;
    nc *= 2;
  }
  char *p = realloc(o->data, nc);
  if (!p) return -1;
  o->data = p;
  o->cap = nc;
  return 0;
}

int fv_write(fv_out *o, const void *p, size_t n) {
  if (fv_reserve(o, n) != 0) return -1;
  if (n) memcpy(o->data + o->len, p, n);
  o->len += n;
  return 0;
}

int fv_puts(fv_out *o, const char *s) { return fv_write(o, s, strlen(s)); }

int fv_sink(void *ctx, const char *data, size_t len) { return fv_write(ctx, data, len); }

void fv_out_free(fv_out *o) {
  free(o->data);
  o->data = NULL;
  o->len = o->cap = 0;
}

#define TRY(x)               \
  do {                       \
    if ((x) != 0) return -1; \
  } while (0)

/* ---- schema description ------------------------------------------------------------- */

/* Value of `key` in Arrow metadata (int32 count, then int32-length-prefixed key/value
 * pairs), copied into buf; false when absent. */
static bool meta_get(const char *md, const char *key, char *buf, size_t n) {
  if (!md) return false;
  int32_t cnt;
  memcpy(&cnt, md, 4);
  const char *p = md + 4;
  size_t kl = strlen(key);
  for (int32_t i = 0; i < cnt && i < 4096; i++) {
    int32_t l1, l2;
    memcpy(&l1, p, 4);
    if (l1 < 0) return false;
    const char *k = p + 4;
    p = k + l1;
    memcpy(&l2, p, 4);
    if (l2 < 0) return false;
    const char *v = p + 4;
    p = v + l2;
    if ((size_t)l1 == kl && memcmp(k, key, kl) == 0) {
      size_t m = (size_t)l2 < n - 1 ? (size_t)l2 : n - 1;
      memcpy(buf, v, m);
      buf[m] = 0;
      return true;
    }
  }
  return false;
}

/* Precision of a Paimon "TIMESTAMP(p)..." / "TIME(p)" type string; -1 when not one. */
static int paimon_type_precision(const char *t, bool *is_time) {
  *is_time = false;
  int def;
  const char *p;
  if (strncmp(t, "TIMESTAMP_LTZ", 13) == 0) {
    p = t + 13;
    def = 6;
  } else if (strncmp(t, "TIMESTAMP", 9) == 0) {
    p = t + 9;
    def = 6;
  } else if (strncmp(t, "TIME", 4) == 0) {
    p = t + 4;
    def = 0;
    *is_time = true;
  } else {
    return -1;
  }
  if (*p != '(') return def;
  int v = 0;
  for (p++; *p >= '0' && *p <= '9'; p++) v = v * 10 + (*p - '0');
  return v <= 9 ? v : 9;
}

static int fmt_fail(char *err, size_t n, const char *msg, const char *fmt) {
  snprintf(err, n, "%s '%s'", msg, fmt);
  return -1;
}

int fv_field_init(fv_field *f, const struct ArrowSchema *s, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  const char *fmt = s->format ? s->format : "";
  f->name = strdup(s->name ? s->name : "");
  if (!f->name) return fmt_fail(err, errlen, "out of memory for", fmt);
  int w = 0;
  switch (fmt[0]) {
    case 'n': f->kind = FV_NA; break;
    case 'b': f->kind = FV_BOOL; break;
    case 'c': f->kind = FV_INT, w = 1; break;
    case 's': f->kind = FV_INT, w = 2; break;
    case 'i': f->kind = FV_INT, w = 4; break;
    case 'l': f->kind = FV_INT, w = 8; break;
    case 'C': f->kind = FV_UINT, w = 1; break;
    case 'S': f->kind = FV_UINT, w = 2; break;
    case 'I': f->kind = FV_UINT, w = 4; break;
    case 'L': f->kind = FV_UINT, w = 8; break;
    case 'f': f->kind = FV_F32, w = 4; break;
    case 'g': f->kind = FV_F64, w = 8; break;
    case 'u': f->kind = FV_UTF8, w = 4; break;
    case 'U': f->kind = FV_UTF8, w = 8; break;
    case 'z': f->kind = FV_BIN, w = 4; break;
    case 'Z': f->kind = FV_BIN, w = 8; break;
    case 'w':
      f->kind = FV_FIXBIN;
      w = fmt[1] == ':' ? atoi(fmt + 2) : 0;
      if (w <= 0) return fmt_fail(err, errlen, "bad Arrow format", fmt);
      break;
    case 'd': {
      int p = 0, sc = 0, bits = 128;
      if (sscanf(fmt, "d:%d,%d,%d", &p, &sc, &bits) < 2 || bits != 128 || sc < 0 || sc > 76)
        return fmt_fail(err, errlen, "unsupported Arrow decimal format", fmt);
      f->kind = FV_DEC128;
      f->dec_precision = p;
      f->dec_scale = sc;
      w = 16;
      break;
    }
    case 't': {
      static const char units[] = "smun";
      if (strcmp(fmt, "tdD") == 0) {
        f->kind = FV_DATE32;
        w = 4;
      } else if (strcmp(fmt, "tdm") == 0) {
        f->kind = FV_DATE64;
        w = 8;
      } else if (fmt[1] == 't' && fmt[2] && strchr(units, fmt[2]) && !fmt[3]) {
        f->kind = FV_TIME;
        f->unit = (int)(strchr(units, fmt[2]) - units);
        w = f->unit <= 1 ? 4 : 8;
        f->precision = f->unit * 3;
      } else if (fmt[1] == 's' && fmt[2] && strchr(units, fmt[2]) && fmt[3] == ':') {
        f->kind = FV_TS;
        f->unit = (int)(strchr(units, fmt[2]) - units);
        f->tz = fmt[4] != 0;
        f->precision = f->unit * 3;
        w = 8;
      } else {
        return fmt_fail(err, errlen, "unsupported Arrow format", fmt);
      }
      char ty[128];
      bool is_time;
      if ((f->kind == FV_TS || f->kind == FV_TIME) &&
          meta_get(s->metadata, "paimon.type", ty, sizeof ty)) {
        int p = paimon_type_precision(ty, &is_time);
        if (p >= 0 && is_time == (f->kind == FV_TIME)) f->precision = p;
      }
      break;
    }
    case '+':
      if (fmt[1] == 'l' || fmt[1] == 'L') {
        f->kind = FV_LIST;
        w = fmt[1] == 'l' ? 4 : 8;
        if (s->n_children != 1) return fmt_fail(err, errlen, "list without one child:", fmt);
      } else if (fmt[1] == 'm') {
        f->kind = FV_MAP;
        w = 4;
        if (s->n_children != 1 || !s->children[0] || s->children[0]->n_children != 2)
          return fmt_fail(err, errlen, "map without key/value entries:", fmt);
      } else if (fmt[1] == 's') {
        f->kind = FV_STRUCT;
      } else {
        return fmt_fail(err, errlen, "unsupported Arrow format", fmt);
      }
      if (fmt[2]) return fmt_fail(err, errlen, "unsupported Arrow format", fmt);
      break;
    default: return fmt_fail(err, errlen, "unsupported Arrow format", fmt);
  }
  if (s->dictionary)
    return fmt_fail(err, errlen, "dictionary-encoded arrays are not supported:", fmt);
  f->width = w;
  if (s->n_children > 0 && (f->kind == FV_LIST || f->kind == FV_MAP || f->kind == FV_STRUCT)) {
    f->children = calloc((size_t)s->n_children, sizeof *f->children);
    if (!f->children) return fmt_fail(err, errlen, "out of memory for", fmt);
    for (int64_t i = 0; i < s->n_children; i++) {
      f->nchildren = (int)i + 1;
      if (fv_field_init(&f->children[i], s->children[i], err, errlen) != 0) return -1;
    }
    if (f->kind == FV_MAP && f->children[0].kind != FV_STRUCT)
      return fmt_fail(err, errlen, "map entries are not a struct:", fmt);
  }
  if (f->kind == FV_LIST || f->kind == FV_MAP || f->kind == FV_STRUCT) {
    /* nested cells are JSON: the library's printer, over a one-column struct of this field */
    struct ArrowSchema *one[1] = {(struct ArrowSchema *)s};
    struct ArrowSchema wrap = {.format = "+s", .name = "", .n_children = 1, .children = one};
    paimon_error perr = {0, ""};
    if (paimon_jsonl_printer_new(&f->jp, &wrap, &perr) != 0) {
      snprintf(err, errlen, "%s", perr.message);
      return -1;
    }
  }
  return 0;
}

void fv_field_free(fv_field *f) {
  if (!f) return;
  for (int i = 0; i < f->nchildren; i++) fv_field_free(&f->children[i]);
  free(f->children);
  paimon_jsonl_printer_free(f->jp);
  free(f->name);
  memset(f, 0, sizeof *f);
}

/* ---- structural checks ---------------------------------------------------------------- */

static int64_t off_at(const void *offs, int w, int64_t k) {
  return w == 4 ? ((const int32_t *)offs)[k] : ((const int64_t *)offs)[k];
}

static int check_offsets(const fv_field *f, const struct ArrowArray *a, int64_t limit, char *err,
                         size_t n) {
  const void *offs = a->buffers[1];
  if (!offs) {
    snprintf(err, n, "column '%s': missing offsets buffer", f->name);
    return -1;
  }
  int64_t prev = off_at(offs, f->width, a->offset);
  if (prev < 0) goto bad;
  for (int64_t i = 1; i <= a->length; i++) {
    int64_t v = off_at(offs, f->width, a->offset + i);
    if (v < prev) goto bad;
    prev = v;
  }
  if (limit >= 0 && prev > limit) goto bad;
  return 0;
bad:
  snprintf(err, n, "column '%s': Arrow offsets out of order or out of range", f->name);
  return -1;
}

int fv_check(const fv_field *f, const struct ArrowArray *a, char *err, size_t n) {
  if (!a || a->length < 0 || a->offset < 0 || (a->n_buffers > 0 && !a->buffers)) {
    snprintf(err, n, "column '%s': malformed Arrow array", f->name);
    return -1;
  }
  int need;
  switch (f->kind) {
    case FV_NA: need = 0; break;
    case FV_STRUCT: need = 1; break;
    case FV_UTF8:
    case FV_BIN: need = 3; break;
    default: need = 2; break;
  }
  if (a->n_buffers < need) {
    snprintf(err, n, "column '%s': Arrow array has %lld buffers, expected %d", f->name,
             (long long)a->n_buffers, need);
    return -1;
  }
  if (a->length == 0) return 0;
  if (need >= 2 && !a->buffers[1]) {
    snprintf(err, n, "column '%s': missing data buffer", f->name);
    return -1;
  }
  if (need == 3) {
    if (!a->buffers[2] && off_at(a->buffers[1], f->width, a->offset + a->length) != 0) {
      snprintf(err, n, "column '%s': missing data buffer", f->name);
      return -1;
    }
    return check_offsets(f, a, -1, err, n);
  }
  if (f->kind == FV_LIST || f->kind == FV_MAP || f->kind == FV_STRUCT) {
    if (a->n_children != f->nchildren || (f->nchildren > 0 && !a->children)) {
      snprintf(err, n, "column '%s': Arrow array has %lld children, schema %d", f->name,
               (long long)a->n_children, f->nchildren);
      return -1;
    }
    for (int i = 0; i < f->nchildren; i++)
      if (!a->children[i]) {
        snprintf(err, n, "column '%s': missing child array", f->name);
        return -1;
      }
    if (f->kind == FV_STRUCT) {
      for (int i = 0; i < f->nchildren; i++) {
        if (a->children[i]->length < a->offset + a->length) {
          snprintf(err, n, "column '%s': struct child '%s' shorter than its parent", f->name,
                   f->children[i].name);
          return -1;
        }
        if (fv_check(&f->children[i], a->children[i], err, n) != 0) return -1;
      }
      return 0;
    }
    if (check_offsets(f, a, a->children[0]->length, err, n) != 0) return -1;
    return fv_check(&f->children[0], a->children[0], err, n);
  }
  return 0;
}

/* ---- scalar helpers ------------------------------------------------------------------- */

bool fv_is_null(const struct ArrowArray *a, int64_t i) {
  if (a->n_buffers == 0) return true; /* null type */
  const uint8_t *v = a->buffers[0];
  if (!v || a->null_count == 0) return false;
  int64_t j = a->offset + i;
  return !((v[j >> 3] >> (j & 7)) & 1);
}

static int put_i64(fv_out *o, int64_t v) {
  char buf[24];
  char *e = buf + sizeof buf, *p = e;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *--p = '-';
  return fv_write(o, p, (size_t)(e - p));
}

static int put_u64(fv_out *o, uint64_t u) {
  char buf[24];
  char *e = buf + sizeof buf, *p = e;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  return fv_write(o, p, (size_t)(e - p));
}

/* Zero-padded to `width` digits. */
static void put_pad(char **p, int64_t v, int width) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v && n < 23);
  while (n < width) tmp[n++] = '0';
  while (n) *(*p)++ = tmp[--n];
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* Proleptic Gregorian date of a day number (days since 1970-01-01). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = floor_div(z, 146097);
  int64_t doe = z - era * 146097;                                      /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
  int64_t mp = (5 * doy + 2) / 153;                                    /* March = 0 */
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

/* "YYYY-MM-DD" (ISO 8601: sign for years outside 0..9999). Returns chars written. */
static size_t date_text(int64_t days, char *buf) {
  int64_t y;
  int m, d;
  civil_from_days(days, &y, &m, &d);
  char *p = buf;
  if (y < 0) {
    *p++ = '-';
    y = -y;
  } else if (y > 9999) {
    *p++ = '+';
  }
  put_pad(&p, y, 4);
  *p++ = '-';
  put_pad(&p, m, 2);
  *p++ = '-';
  put_pad(&p, d, 2);
  *p = 0;
  return (size_t)(p - buf);
}

/* "HH:MM:SS[.f{precision}]" from seconds of day and nanos. */
static size_t time_text(int64_t secs, int64_t nanos, int precision, char *buf) {
  char *p = buf;
  put_pad(&p, secs / 3600, 2);
  *p++ = ':';
  put_pad(&p, (secs / 60) % 60, 2);
  *p++ = ':';
  put_pad(&p, secs % 60, 2);
  if (precision > 0) {
    char frac[10];
    char *q = frac;
    put_pad(&q, nanos, 9);
    *p++ = '.';
    memcpy(p, frac, (size_t)precision);
    p += precision;
  }
  *p = 0;
  return (size_t)(p - buf);
}

static const int64_t UNIT_PER_SEC[4] = {1, 1000, 1000000, 1000000000};
static const int64_t NANOS_PER_UNIT[4] = {1000000000, 1000000, 1000, 1};

static size_t ts_text(int64_t v, int unit, int precision, bool tz, char sep, char *buf) {
  int64_t secs = floor_div(v, UNIT_PER_SEC[unit]);
  int64_t nanos = (v - secs * UNIT_PER_SEC[unit]) * NANOS_PER_UNIT[unit];
  int64_t days = floor_div(secs, 86400);
  size_t n = date_text(days, buf);
  buf[n++] = sep;
  n += time_text(secs - days * 86400, nanos, precision, buf + n);
  if (tz) buf[n++] = 'Z';
  buf[n] = 0;
  return n;
}

void fv_millis_text(int64_t millis, char *buf, size_t n) {
  char tmp[64];
  ts_text(millis, 1, 3, false, ' ', tmp);
  snprintf(buf, n, "%s", tmp);
}

/* Shortest %.{lo..hi}g form that reads back as the same value. */
static int put_float(fv_out *o, double v, bool single) {
  if (isnan(v)) return fv_puts(o, "NaN");
  if (isinf(v)) return fv_puts(o, v > 0 ? "Infinity" : "-Infinity");
  char buf[40];
  int lo = single ? 6 : 15, hi = single ? 9 : 17;
  for (int p = lo; p <= hi; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, v);
    if (single ? (strtof(buf, NULL) == (float)v) : (strtod(buf, NULL) == v)) break;
  }
  return fv_puts(o, buf);
}

/* 128-bit two's complement little-endian -> decimal string with `scale` fraction digits. */
static int put_decimal(fv_out *o, const uint8_t *p, int scale) {
  uint32_t w[4];
  for (int i = 0; i < 4; i++) memcpy(&w[i], p + 4 * i, 4);
  bool neg = (w[3] >> 31) != 0;
  if (neg) { /* negate: invert and add one */
    uint64_t carry = 1;
    for (int i = 0; i < 4; i++) {
      uint64_t t = (uint64_t)(uint32_t)~w[i] + carry;
      w[i] = (uint32_t)t;
      carry = t >> 32;
    }
  }
  char digits[48];
  int nd = 0;
  for (;;) { /* repeated division by 10^9 */
    bool zero = true;
    uint64_t rem = 0;
    for (int i = 3; i >= 0; i--) {
      uint64_t cur = (rem << 32) | w[i];
      w[i] = (uint32_t)(cur / 1000000000u);
      rem = cur % 1000000000u;
      if (w[i]) zero = false;
    }
    for (int k = 0; k < 9; k++) {
      digits[nd++] = (char)('0' + rem % 10);
      rem /= 10;
    }
    if (zero) break;
  }
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  while (nd <= scale) digits[nd++] = '0'; /* at least one integer digit */
  char out[96];
  int k = 0;
  if (neg) out[k++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    out[k++] = digits[i];
    if (i == scale && scale > 0) out[k++] = '.';
  }
  return fv_write(o, out, (size_t)k);
}

static int put_base64(fv_out *o, const uint8_t *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  TRY(fv_reserve(o, (n + 2) / 3 * 4));
  char *d = o->data + o->len;
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = ((uint32_t)p[i] << 16) | ((uint32_t)p[i + 1] << 8) | p[i + 2];
    *d++ = tab[v >> 18];
    *d++ = tab[(v >> 12) & 63];
    *d++ = tab[(v >> 6) & 63];
    *d++ = tab[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    *d++ = tab[v >> 18];
    *d++ = tab[(v >> 12) & 63];
    *d++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
    *d++ = '=';
  }
  o->len = (size_t)(d - o->data);
  return 0;
}

/* Length of the valid UTF-8 sequence at p (n bytes available), or 0 when invalid. */
static size_t utf8_seq(const uint8_t *p, size_t n) {
  uint8_t c = p[0];
  size_t len;
  uint32_t min;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
  else return 0;
  if (n < len) return 0;
  uint32_t cp = c & (0x3f >> (len - 1));
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

size_t fv_utf8_invalid_at(const void *p, size_t n) {
  const uint8_t *u = p;
  size_t i = 0;
  while (i < n) {
    if (u[i] < 0x80) {
      i++;
      continue;
    }
    size_t l = utf8_seq(u + i, n - i);
    if (l == 0) return i;
    i += l;
  }
  return n;
}

/* Raw text (csv/table): invalid UTF-8 bytes become U+FFFD, nothing else changes. */
static int put_raw_str(fv_out *o, const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    while (run < n && p[run] < 0x80) run++;
    TRY(fv_write(o, p + i, run - i));
    i = run;
    if (i == n) break;
    size_t l = utf8_seq(p + i, n - i);
    if (l == 0) {
      TRY(fv_write(o, "\xef\xbf\xbd", 3));
      i++;
    } else {
      TRY(fv_write(o, p + i, l));
      i += l;
    }
  }
  return 0;
}

static const uint8_t *var_bytes(const fv_field *f, const struct ArrowArray *a, int64_t i,
                                size_t *len) {
  int64_t j = a->offset + i;
  int64_t b = off_at(a->buffers[1], f->width, j), e = off_at(a->buffers[1], f->width, j + 1);
  *len = (size_t)(e - b);
  return (const uint8_t *)a->buffers[2] + b;
}

static int64_t int_at(const struct ArrowArray *a, int width, int64_t i) {
  int64_t j = a->offset + i;
  switch (width) {
    case 1: return ((const int8_t *)a->buffers[1])[j];
    case 2: return ((const int16_t *)a->buffers[1])[j];
    case 4: return ((const int32_t *)a->buffers[1])[j];
    default: return ((const int64_t *)a->buffers[1])[j];
  }
}

static uint64_t uint_at(const struct ArrowArray *a, int width, int64_t i) {
  int64_t j = a->offset + i;
  switch (width) {
    case 1: return ((const uint8_t *)a->buffers[1])[j];
    case 2: return ((const uint16_t *)a->buffers[1])[j];
    case 4: return ((const uint32_t *)a->buffers[1])[j];
    default: return ((const uint64_t *)a->buffers[1])[j];
  }
}

/* ---- values ------------------------------------------------------------------------ */

/* A nested value as the JSON the library prints for it. */
static int put_nested(fv_out *o, const fv_field *f, const struct ArrowArray *a, int64_t i) {
  struct ArrowArray *one[1] = {(struct ArrowArray *)a};
  const void *nobuf[1] = {NULL};
  struct ArrowArray wrap = {
      .length = i + 1, .n_buffers = 1, .buffers = nobuf, .n_children = 1, .children = one};
  return paimon_jsonl_print_value(f->jp, &wrap, i, 0, fv_sink, o, NULL) == 0 ? 0 : -1;
}

int fv_text(fv_out *o, const fv_field *f, const struct ArrowArray *a, int64_t i) {
  if (f->kind == FV_NA || fv_is_null(a, i)) return 0;
  char buf[96];
  size_t n;
  switch (f->kind) {
    case FV_BOOL: {
      int64_t j = a->offset + i;
      bool v = (((const uint8_t *)a->buffers[1])[j >> 3] >> (j & 7)) & 1;
      return fv_puts(o, v ? "true" : "false");
    }
    case FV_INT: return put_i64(o, int_at(a, f->width, i));
    case FV_UINT: return put_u64(o, uint_at(a, f->width, i));
    case FV_F32: return put_float(o, ((const float *)a->buffers[1])[a->offset + i], true);
    case FV_F64: return put_float(o, ((const double *)a->buffers[1])[a->offset + i], false);
    case FV_DEC128:
      return put_decimal(o, (const uint8_t *)a->buffers[1] + 16 * (a->offset + i), f->dec_scale);
    case FV_UTF8: {
      const uint8_t *p = var_bytes(f, a, i, &n);
      return put_raw_str(o, p, n);
    }
    case FV_BIN:
    case FV_FIXBIN: {
      const uint8_t *p;
      if (f->kind == FV_BIN) {
        p = var_bytes(f, a, i, &n);
      } else {
        n = (size_t)f->width;
        p = (const uint8_t *)a->buffers[1] + (size_t)f->width * (size_t)(a->offset + i);
      }
      return put_base64(o, p, n);
    }
    case FV_DATE32:
    case FV_DATE64: {
      int64_t v = int_at(a, f->width, i);
      if (f->kind == FV_DATE64) v = floor_div(v, 86400000);
      n = date_text(v, buf);
      break;
    }
    case FV_TIME: {
      int64_t v = int_at(a, f->width, i);
      int64_t secs = floor_div(v, UNIT_PER_SEC[f->unit]);
      int64_t nanos = (v - secs * UNIT_PER_SEC[f->unit]) * NANOS_PER_UNIT[f->unit];
      if (secs < 0 || secs > 999999) secs = 0; /* malformed time of day */
      n = time_text(secs, nanos, f->precision, buf);
      break;
    }
    case FV_TS: n = ts_text(int_at(a, 8, i), f->unit, f->precision, f->tz, 'T', buf); break;
    default: return put_nested(o, f, a, i);
  }
  return fv_write(o, buf, n);
}
