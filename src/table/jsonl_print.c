/* table/jsonl_print.c: Arrow batches -> JSON lines, the encoding paimon_jsonl_parse
 * (table/jsonl.c) reads back and `paimon cat --format jsonl` prints.
 *
 * Driven by the ArrowSchema format strings alone (plus the "paimon.type" metadata of
 * top-level TIME/TIMESTAMP fields for their precision), so it prints any batch of the
 * Arrow C Data Interface types listed in paimon/jsonl.h, not only the library's own.
 * Batches come from the caller: each call checks the buffers and offsets of exactly the
 * rows it prints (recursively through nested values) before reading them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <paimon/jsonl.h>

#include "util/util.h"

#define MAX_DEPTH 64           /* nested types deeper than this are refused */
#define FLUSH_AT (64u * 1024u) /* bytes buffered before handing them to the sink */

typedef enum jk {
  JK_NA,
  JK_BOOL,
  JK_INT,  /* signed, width 1/2/4/8 */
  JK_UINT, /* unsigned, width 1/2/4/8 */
  JK_F32,
  JK_F64,
  JK_DEC128,
  JK_UTF8,   /* width 4 (int32 offsets) or 8 (large) */
  JK_BIN,    /* width 4 or 8 */
  JK_FIXBIN, /* width = byte width */
  JK_DATE32,
  JK_DATE64,
  JK_TIME, /* width 4 or 8, unit */
  JK_TS,   /* unit, tz */
  JK_LIST, /* width 4 or 8 */
  JK_MAP,
  JK_STRUCT
} jk;

typedef struct jfield {
  jk kind;
  int width;
  int unit;      /* 0 s, 1 ms, 2 us, 3 ns */
  int precision; /* fraction digits printed for TIME/TIMESTAMP */
  bool tz;       /* timestamp with a time zone: printed in UTC with "Z" */
  int dec_scale;
  char *name;
  pm_buf key; /* struct children: the quoted, escaped name */
  int nchildren;
  struct jfield *children;
} jfield;

struct paimon_jsonl_printer {
  jfield root;
  pm_buf out;
};

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
static int type_precision(const char *t, bool *is_time) {
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
  for (p++; *p >= '0' && *p <= '9' && v < 100; p++) v = v * 10 + (*p - '0');
  return v <= 9 ? v : 9;
}

static int bad_format(paimon_error *err, const char *what, const char *fmt) {
  return pm_fail(err, PAIMON_EUNSUPPORTED, "jsonl print: %s '%s'", what, fmt);
}

/* TIME/TIMESTAMP/DATE formats ("tdD", "ttm", "tsu:UTC", ...). */
static int field_temporal(jfield *f, const struct ArrowSchema *s, const char *fmt,
                          paimon_error *err) {
  static const char units[] = "smun";
  if (strcmp(fmt, "tdD") == 0) {
    f->kind = JK_DATE32;
    f->width = 4;
  } else if (strcmp(fmt, "tdm") == 0) {
    f->kind = JK_DATE64;
    f->width = 8;
  } else if (fmt[1] == 't' && fmt[2] && strchr(units, fmt[2]) && !fmt[3]) {
    f->kind = JK_TIME;
    f->unit = (int)(strchr(units, fmt[2]) - units);
    f->width = f->unit <= 1 ? 4 : 8;
    f->precision = f->unit * 3;
  } else if (fmt[1] == 's' && fmt[2] && strchr(units, fmt[2]) && fmt[3] == ':') {
    f->kind = JK_TS;
    f->unit = (int)(strchr(units, fmt[2]) - units);
    f->tz = fmt[4] != 0;
    f->precision = f->unit * 3;
    f->width = 8;
  } else {
    return bad_format(err, "unsupported Arrow format", fmt);
  }
  char ty[128];
  bool is_time;
  if ((f->kind == JK_TS || f->kind == JK_TIME) &&
      meta_get(s->metadata, "paimon.type", ty, sizeof ty)) {
    int p = type_precision(ty, &is_time);
    if (p >= 0 && is_time == (f->kind == JK_TIME)) f->precision = p;
  }
  return 0;
}

/* Nested formats ("+l", "+L", "+m", "+s"). */
static int field_nested(jfield *f, const struct ArrowSchema *s, const char *fmt,
                        paimon_error *err) {
  if (fmt[1] == 'l' || fmt[1] == 'L') {
    f->kind = JK_LIST;
    f->width = fmt[1] == 'l' ? 4 : 8;
    if (s->n_children != 1) return bad_format(err, "list without one child:", fmt);
  } else if (fmt[1] == 'm') {
    f->kind = JK_MAP;
    f->width = 4;
    if (s->n_children != 1 || !s->children || !s->children[0] || s->children[0]->n_children != 2)
      return bad_format(err, "map without key/value entries:", fmt);
  } else if (fmt[1] == 's') {
    f->kind = JK_STRUCT;
  } else {
    return bad_format(err, "unsupported Arrow format", fmt);
  }
  if (fmt[2]) return bad_format(err, "unsupported Arrow format", fmt);
  return 0;
}

/* Scalar formats with no parameters. */
static bool field_simple(jfield *f, char c) {
  static const struct {
    char c;
    jk kind;
    int width;
  } tab[] = {{'n', JK_NA, 0},   {'b', JK_BOOL, 0}, {'c', JK_INT, 1},  {'s', JK_INT, 2},
             {'i', JK_INT, 4},  {'l', JK_INT, 8},  {'C', JK_UINT, 1}, {'S', JK_UINT, 2},
             {'I', JK_UINT, 4}, {'L', JK_UINT, 8}, {'f', JK_F32, 4},  {'g', JK_F64, 8},
             {'u', JK_UTF8, 4}, {'U', JK_UTF8, 8}, {'z', JK_BIN, 4},  {'Z', JK_BIN, 8}};
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (tab[i].c == c) {
      f->kind = tab[i].kind;
      f->width = tab[i].width;
      return true;
    }
  return false;
}

static int put_json_str(pm_buf *o, const uint8_t *p, size_t n);

static int field_init(jfield *f, const struct ArrowSchema *s, int depth, paimon_error *err) {
  memset(f, 0, sizeof *f);
  if (!s) return pm_fail(err, PAIMON_EINVAL, "jsonl print: NULL Arrow schema");
  const char *fmt = s->format ? s->format : "";
  if (depth > MAX_DEPTH)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "jsonl print: type nested deeper than %d levels",
                   MAX_DEPTH);
  if (!(f->name = pm_strdup(s->name ? s->name : "")))
    return pm_fail(err, PAIMON_ENOMEM, "jsonl print: out of memory");
  if (s->dictionary) return bad_format(err, "dictionary-encoded arrays are not supported:", fmt);
  if (fmt[0] && !fmt[1] && field_simple(f, fmt[0])) {
    /* done */
  } else if (fmt[0] == 'w') {
    f->kind = JK_FIXBIN;
    f->width = fmt[1] == ':' ? atoi(fmt + 2) : 0;
    if (f->width <= 0) return bad_format(err, "bad Arrow format", fmt);
  } else if (fmt[0] == 'd') {
    int p = 0, sc = 0, bits = 128;
    if (sscanf(fmt, "d:%d,%d,%d", &p, &sc, &bits) < 2 || bits != 128 || sc < 0 || sc > 38)
      return bad_format(err, "unsupported Arrow decimal format", fmt);
    f->kind = JK_DEC128;
    f->dec_scale = sc;
    f->width = 16;
  } else if (fmt[0] == 't') {
    PM_TRY(field_temporal(f, s, fmt, err));
  } else if (fmt[0] == '+') {
    PM_TRY(field_nested(f, s, fmt, err));
  } else {
    return bad_format(err, "unsupported Arrow format", fmt);
  }
  if (f->kind != JK_LIST && f->kind != JK_MAP && f->kind != JK_STRUCT) return 0;
  if (s->n_children < 0 || s->n_children > 100000 || (s->n_children > 0 && !s->children))
    return bad_format(err, "bad children of", fmt);
  if (s->n_children == 0) return 0;
  if (!(f->children = pm_calloc((size_t)s->n_children, sizeof *f->children)))
    return pm_fail(err, PAIMON_ENOMEM, "jsonl print: out of memory");
  for (int64_t i = 0; i < s->n_children; i++) {
    f->nchildren = (int)i + 1;
    jfield *c = &f->children[i];
    PM_TRY(field_init(c, s->children[i], depth + 1, err));
    if (f->kind == JK_STRUCT &&
        (pm_buf_append_str(&c->key, i ? ", " : "{") != 0 ||
         put_json_str(&c->key, (const uint8_t *)c->name, strlen(c->name)) != 0 ||
         pm_buf_append_str(&c->key, ": ") != 0))
      return pm_fail(err, PAIMON_ENOMEM, "jsonl print: out of memory");
  }
  if (f->kind == JK_MAP && f->children[0].kind != JK_STRUCT)
    return bad_format(err, "map entries are not a struct:", fmt);
  return 0;
}

static void field_free(jfield *f) {
  for (int i = 0; i < f->nchildren; i++) field_free(&f->children[i]);
  pm_free(f->children);
  pm_free(f->name);
  pm_buf_free(&f->key);
}

/* ---- structural checks of the rows to print ------------------------------------------ */

static int64_t off_at(const void *offs, int w, int64_t k) {
  return w == 4 ? ((const int32_t *)offs)[k] : ((const int64_t *)offs)[k];
}

static int bad_array(paimon_error *err, const jfield *f, const char *what) {
  return pm_fail(err, PAIMON_EINVAL, "jsonl print: column '%s': %s", f->name, what);
}

/* Offsets of rows [first, first + n) of `a` ascending from >= 0 up to at most `limit`
 * (-1: no limit); their range in *b / *e. */
static int check_offsets(const jfield *f, const struct ArrowArray *a, int64_t first, int64_t n,
                         int64_t limit, int64_t *b, int64_t *e, paimon_error *err) {
  const void *offs = a->buffers[1];
  if (!offs) return bad_array(err, f, "missing offsets buffer");
  int64_t prev = off_at(offs, f->width, a->offset + first);
  *b = prev;
  if (prev < 0) return bad_array(err, f, "Arrow offsets out of order or out of range");
  for (int64_t i = 1; i <= n; i++) {
    int64_t v = off_at(offs, f->width, a->offset + first + i);
    if (v < prev) return bad_array(err, f, "Arrow offsets out of order or out of range");
    prev = v;
  }
  if (limit >= 0 && prev > limit)
    return bad_array(err, f, "Arrow offsets out of order or out of range");
  *e = prev;
  return 0;
}

/* Checks that rows [first, first + n) of `a` can be printed as `f` without reading out of
 * bounds: buffers present, offsets ordered and within their child, children long enough. */
static int check_rows(const jfield *f, const struct ArrowArray *a, int64_t first, int64_t n,
                      paimon_error *err) {
  if (!a || a->length < 0 || a->offset < 0 || a->n_buffers < 0 || (a->n_buffers > 0 && !a->buffers))
    return bad_array(err, f, "malformed Arrow array");
  if (first < 0 || n < 0 || first > a->length - n)
    return bad_array(err, f, "rows out of the array's range");
  int need = f->kind == JK_NA                            ? 0
             : f->kind == JK_STRUCT                      ? 1
             : (f->kind == JK_UTF8 || f->kind == JK_BIN) ? 3
                                                         : 2;
  if (a->n_buffers < need) return bad_array(err, f, "Arrow array has too few buffers");
  if (n == 0 || need < 2) {
    /* nothing to read, or a struct: its children are checked below */
  } else if (!a->buffers[1]) {
    return bad_array(err, f, "missing data buffer");
  }
  int64_t b = 0, e = 0;
  if (n > 0 && need == 3) {
    PM_TRY(check_offsets(f, a, first, n, -1, &b, &e, err));
    if (!a->buffers[2] && e > b) return bad_array(err, f, "missing data buffer");
    return 0;
  }
  if (f->kind != JK_LIST && f->kind != JK_MAP && f->kind != JK_STRUCT) return 0;
  if (a->n_children != f->nchildren || (f->nchildren > 0 && !a->children))
    return bad_array(err, f, "Arrow array's children do not match the schema");
  for (int i = 0; i < f->nchildren; i++)
    if (!a->children[i]) return bad_array(err, f, "missing child array");
  if (f->kind == JK_STRUCT) {
    for (int i = 0; i < f->nchildren; i++) {
      if (a->children[i]->length < a->offset + first + n)
        return bad_array(err, f, "struct child shorter than its parent");
      PM_TRY(check_rows(&f->children[i], a->children[i], a->offset + first, n, err));
    }
    return 0;
  }
  if (n == 0) return 0;
  PM_TRY(check_offsets(f, a, first, n, a->children[0]->length, &b, &e, err));
  return check_rows(&f->children[0], a->children[0], b, e - b, err);
}

/* ---- values ------------------------------------------------------------------------ */

static bool is_null(const struct ArrowArray *a, int64_t i) {
  if (a->n_buffers == 0) return true; /* null type */
  const uint8_t *v = a->buffers[0];
  if (!v || a->null_count == 0) return false;
  int64_t j = a->offset + i;
  return !((v[j >> 3] >> (j & 7)) & 1);
}

static int put_u64(pm_buf *o, uint64_t u, bool neg) {
  char buf[24];
  char *e = buf + sizeof buf, *p = e;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg) *--p = '-';
  return pm_buf_append(o, p, (size_t)(e - p));
}

static int put_i64(pm_buf *o, int64_t v) {
  return put_u64(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
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

/* "YYYY-MM-DD" (ISO 8601: sign for years outside 0..9999). Returns chars written. */
static size_t date_text(int64_t days, char *buf) {
  int64_t y;
  int m, d;
  pm_civil_from_days(days, &y, &m, &d);
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
  return (size_t)(p - buf);
}

static const int64_t UNIT_PER_SEC[4] = {1, 1000, 1000000, 1000000000};
static const int64_t NANOS_PER_UNIT[4] = {1000000000, 1000000, 1000, 1};

/* Shortest %.{lo..hi}g form that reads back as the same value; NaN and the infinities
 * as the strings paimon_jsonl_parse accepts. */
static int put_float(pm_buf *o, double v, bool single) {
  if (isnan(v)) return pm_buf_append_str(o, "\"NaN\"");
  if (isinf(v)) return pm_buf_append_str(o, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  char buf[40];
  int lo = single ? 6 : 15, hi = single ? 9 : 17;
  for (int p = lo; p <= hi; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, v);
    if (single ? (strtof(buf, NULL) == (float)v) : (strtod(buf, NULL) == v)) break;
  }
  return pm_buf_append_str(o, buf);
}

/* 128-bit two's complement little-endian -> quoted decimal with `scale` fraction digits. */
static int put_decimal(pm_buf *o, const uint8_t *p, int scale) {
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
  char out[100];
  int k = 0;
  out[k++] = '"';
  if (neg) out[k++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    out[k++] = digits[i];
    if (i == scale && scale > 0) out[k++] = '.';
  }
  out[k++] = '"';
  return pm_buf_append(o, out, (size_t)k);
}

/* Quoted standard padded base64. */
static int put_base64(pm_buf *o, const uint8_t *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  PM_TRY(pm_buf_reserve(o, (n + 2) / 3 * 4 + 2));
  char *d = (char *)o->data + o->len;
  *d++ = '"';
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
  *d++ = '"';
  o->len = (size_t)(d - (char *)o->data);
  return 0;
}

/* Quoted JSON string; invalid UTF-8 bytes become U+FFFD. */
static int put_json_str(pm_buf *o, const uint8_t *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  PM_TRY(pm_buf_append(o, "\"", 1));
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\') run++;
    if (run > i) {
      PM_TRY(pm_buf_append(o, p + i, run - i));
      i = run;
      if (i == n) break;
    }
    uint8_t c = p[i];
    if (c >= 0x80) {
      size_t l = pm_utf8_seq_len(p + i, n - i);
      PM_TRY(l ? pm_buf_append(o, p + i, l) : pm_buf_append(o, "\xef\xbf\xbd", 3));
      i += l ? l : 1;
      continue;
    }
    char esc[8] = {'\\', 0};
    size_t el = 2;
    switch (c) {
      case '"': esc[1] = '"'; break;
      case '\\': esc[1] = '\\'; break;
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      case '\t': esc[1] = 't'; break;
      case '\b': esc[1] = 'b'; break;
      case '\f': esc[1] = 'f'; break;
      default:
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        el = 6;
    }
    PM_TRY(pm_buf_append(o, esc, el));
    i++;
  }
  return pm_buf_append(o, "\"", 1);
}

static const uint8_t *var_bytes(const jfield *f, const struct ArrowArray *a, int64_t i,
                                size_t *len) {
  int64_t j = a->offset + i;
  int64_t b = off_at(a->buffers[1], f->width, j), e = off_at(a->buffers[1], f->width, j + 1);
  *len = (size_t)(e - b);
  return *len ? (const uint8_t *)a->buffers[2] + b : (const uint8_t *)"";
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

static int put_value(pm_buf *o, const jfield *f, const struct ArrowArray *a, int64_t i);

/* A struct row j (children indexed past the struct's offset): {"name": value, ...}. */
static int put_struct_row(pm_buf *o, const jfield *f, const struct ArrowArray *a, int64_t j) {
  if (f->nchildren == 0) return pm_buf_append(o, "{}", 2);
  for (int c = 0; c < f->nchildren; c++) {
    PM_TRY(pm_buf_append(o, f->children[c].key.data, f->children[c].key.len));
    PM_TRY(put_value(o, &f->children[c], a->children[c], j));
  }
  return pm_buf_append(o, "}", 1);
}

/* ARRAY as [v, ...]; MAP and MULTISET as [[key, value], ...]; ROW as an object. */
static int put_nested(pm_buf *o, const jfield *f, const struct ArrowArray *a, int64_t i) {
  int64_t j = a->offset + i;
  if (f->kind == JK_STRUCT) return put_struct_row(o, f, a, j);
  int64_t b = off_at(a->buffers[1], f->width, j), e = off_at(a->buffers[1], f->width, j + 1);
  PM_TRY(pm_buf_append(o, "[", 1));
  for (int64_t k = b; k < e; k++) {
    if (k > b) PM_TRY(pm_buf_append(o, ", ", 2));
    if (f->kind == JK_LIST) {
      PM_TRY(put_value(o, &f->children[0], a->children[0], k));
      continue;
    }
    const struct ArrowArray *ent = a->children[0];
    const jfield *ef = &f->children[0];
    int64_t r = ent->offset + k; /* entries struct: children indexed past its offset */
    PM_TRY(pm_buf_append(o, "[", 1));
    PM_TRY(put_value(o, &ef->children[0], ent->children[0], r));
    PM_TRY(pm_buf_append(o, ", ", 2));
    PM_TRY(put_value(o, &ef->children[1], ent->children[1], r));
    PM_TRY(pm_buf_append(o, "]", 1));
  }
  return pm_buf_append(o, "]", 1);
}

/* Dates, times and timestamps as quoted ISO 8601 text. */
static int put_temporal(pm_buf *o, const jfield *f, const struct ArrowArray *a, int64_t i) {
  char buf[96];
  size_t n = 0;
  buf[n++] = '"';
  int64_t v = int_at(a, f->width, i);
  if (f->kind == JK_DATE32 || f->kind == JK_DATE64) {
    n += date_text(f->kind == JK_DATE64 ? floor_div(v, 86400000) : v, buf + n);
  } else {
    int64_t secs = floor_div(v, UNIT_PER_SEC[f->unit]);
    int64_t nanos = (v - secs * UNIT_PER_SEC[f->unit]) * NANOS_PER_UNIT[f->unit];
    if (f->kind == JK_TIME) {
      if (secs < 0 || secs > 999999) secs = 0; /* malformed time of day */
      n += time_text(secs, nanos, f->precision, buf + n);
    } else {
      int64_t days = floor_div(secs, 86400);
      n += date_text(days, buf + n);
      buf[n++] = 'T';
      n += time_text(secs - days * 86400, nanos, f->precision, buf + n);
      if (f->tz) buf[n++] = 'Z';
    }
  }
  buf[n++] = '"';
  return pm_buf_append(o, buf, n);
}

static int put_value(pm_buf *o, const jfield *f, const struct ArrowArray *a, int64_t i) {
  if (f->kind == JK_NA || is_null(a, i)) return pm_buf_append(o, "null", 4);
  size_t n;
  switch (f->kind) {
    case JK_BOOL: {
      int64_t j = a->offset + i;
      bool v = (((const uint8_t *)a->buffers[1])[j >> 3] >> (j & 7)) & 1;
      return pm_buf_append_str(o, v ? "true" : "false");
    }
    case JK_INT: return put_i64(o, int_at(a, f->width, i));
    case JK_UINT: return put_u64(o, uint_at(a, f->width, i), false);
    case JK_F32: return put_float(o, ((const float *)a->buffers[1])[a->offset + i], true);
    case JK_F64: return put_float(o, ((const double *)a->buffers[1])[a->offset + i], false);
    case JK_DEC128:
      return put_decimal(o, (const uint8_t *)a->buffers[1] + 16 * (a->offset + i), f->dec_scale);
    case JK_UTF8: {
      const uint8_t *p = var_bytes(f, a, i, &n);
      return put_json_str(o, p, n);
    }
    case JK_BIN: {
      const uint8_t *p = var_bytes(f, a, i, &n);
      return put_base64(o, p, n);
    }
    case JK_FIXBIN:
      return put_base64(o,
                        (const uint8_t *)a->buffers[1] + (size_t)f->width * (size_t)(a->offset + i),
                        (size_t)f->width);
    case JK_DATE32:
    case JK_DATE64:
    case JK_TIME:
    case JK_TS: return put_temporal(o, f, a, i);
    default: return put_nested(o, f, a, i);
  }
}

/* ---- public API ------------------------------------------------------------------------ */

PAIMON_API int paimon_jsonl_printer_new(paimon_jsonl_printer **out,
                                        const struct ArrowSchema *schema, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "jsonl print: NULL out");
  *out = NULL;
  paimon_jsonl_printer *p = pm_calloc(1, sizeof *p);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "jsonl print: out of memory");
  int rc = field_init(&p->root, schema, 0, err);
  if (rc == 0 && p->root.kind != JK_STRUCT)
    rc = pm_fail(err, PAIMON_EINVAL, "jsonl print: the schema is not a struct (format '%s')",
                 schema->format ? schema->format : "");
  if (rc != 0) {
    paimon_jsonl_printer_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

PAIMON_API void paimon_jsonl_printer_free(paimon_jsonl_printer *p) {
  if (!p) return;
  field_free(&p->root);
  pm_buf_free(&p->out);
  pm_free(p);
}

/* Hands the buffered text to the sink. */
static int flush(paimon_jsonl_printer *p, paimon_jsonl_write_fn write, void *ctx,
                 paimon_error *err) {
  if (p->out.len == 0) return 0;
  int rc = write(ctx, (const char *)p->out.data, p->out.len);
  pm_buf_clear(&p->out);
  if (rc != 0) return pm_fail(err, PAIMON_EIO, "jsonl print: the write callback failed (%d)", rc);
  return 0;
}

static int nomem(paimon_jsonl_printer *p, paimon_error *err) {
  pm_buf_clear(&p->out);
  return pm_fail(err, PAIMON_ENOMEM, "jsonl print: out of memory");
}

PAIMON_API int paimon_jsonl_print(paimon_jsonl_printer *p, const struct ArrowArray *batch,
                                  int64_t first, int64_t n, paimon_jsonl_write_fn write, void *ctx,
                                  paimon_error *err) {
  if (!p || !batch || !write)
    return pm_fail(err, PAIMON_EINVAL, "jsonl print: NULL printer, batch or write callback");
  PM_TRY(check_rows(&p->root, batch, first, n, err));
  for (int64_t i = first; i < first + n; i++) {
    if (put_struct_row(&p->out, &p->root, batch, batch->offset + i) != 0 ||
        pm_buf_append(&p->out, "\n", 1) != 0)
      return nomem(p, err);
    if (p->out.len >= FLUSH_AT) PM_TRY(flush(p, write, ctx, err));
  }
  return flush(p, write, ctx, err);
}

PAIMON_API int paimon_jsonl_print_value(paimon_jsonl_printer *p, const struct ArrowArray *batch,
                                        int64_t row, int column, paimon_jsonl_write_fn write,
                                        void *ctx, paimon_error *err) {
  if (!p || !batch || !write)
    return pm_fail(err, PAIMON_EINVAL, "jsonl print: NULL printer, batch or write callback");
  if (column < 0 || column >= p->root.nchildren)
    return pm_fail(err, PAIMON_EINVAL, "jsonl print: column %d of a %d-column schema", column,
                   p->root.nchildren);
  /* only the printed column is checked (a renderer prints a row cell by cell) */
  const jfield *f = &p->root.children[column];
  if (batch->length < 0 || batch->offset < 0 || row < 0 || row >= batch->length)
    return pm_fail(err, PAIMON_EINVAL, "jsonl print: row %lld of a %lld-row batch", (long long)row,
                   (long long)batch->length);
  if (batch->n_children != p->root.nchildren || !batch->children || !batch->children[column])
    return bad_array(err, f, "Arrow array's children do not match the schema");
  const struct ArrowArray *c = batch->children[column];
  if (c->length < batch->offset + row + 1)
    return bad_array(err, f, "struct child shorter than its parent");
  PM_TRY(check_rows(f, c, batch->offset + row, 1, err));
  if (put_value(&p->out, f, c, batch->offset + row)) return nomem(p, err);
  return flush(p, write, ctx, err);
}
