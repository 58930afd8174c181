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

static int fmt_fail(char *err, size_t n, const char *msg, const char *fmt) {
  snprintf(err, n, "%s '%s'", msg, fmt);
  return -1;
}

int fv_field_init(fv_field *f, const struct ArrowSchema *s, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  const char *fmt = s->format ? s->format : "";
  f->name = strdup(s->name ? s->name : "");
  if (!f->name) return fmt_fail(err, errlen, "out of memory for", fmt);
  /* the library's printer, over a one-column struct of this field, checks the format and
   * renders every value but raw strings */
  struct ArrowSchema *one[1] = {(struct ArrowSchema *)s};
  struct ArrowSchema wrap = {.format = "+s", .name = "", .n_children = 1, .children = one};
  paimon_error perr = {0, ""};
  if (paimon_jsonl_printer_new(&f->jp, &wrap, &perr) != 0) {
    snprintf(err, errlen, "%s", perr.message);
    return -1;
  }
  /* what the structural checks need: buffers, offset widths, children */
  f->kind = FV_SCALAR;
  if (fmt[0] == 'n') f->kind = FV_NA;
  else if (fmt[0] == 'u' || fmt[0] == 'U') f->kind = FV_UTF8, f->width = fmt[0] == 'u' ? 4 : 8;
  else if (fmt[0] == 'z' || fmt[0] == 'Z') f->kind = FV_BIN, f->width = fmt[0] == 'z' ? 4 : 8;
  else if (fmt[0] == '+' && (fmt[1] == 'l' || fmt[1] == 'L'))
    f->kind = FV_LIST, f->width = fmt[1] == 'l' ? 4 : 8;
  else if (fmt[0] == '+' && fmt[1] == 'm') f->kind = FV_MAP, f->width = 4;
  else if (fmt[0] == '+' && fmt[1] == 's') f->kind = FV_STRUCT;
  if (s->n_children > 0 && (f->kind == FV_LIST || f->kind == FV_MAP || f->kind == FV_STRUCT)) {
    f->children = calloc((size_t)s->n_children, sizeof *f->children);
    if (!f->children) return fmt_fail(err, errlen, "out of memory for", fmt);
    for (int64_t i = 0; i < s->n_children; i++) {
      f->nchildren = (int)i + 1;
      if (fv_field_init(&f->children[i], s->children[i], err, errlen) != 0) return -1;
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

/* A value as the JSON the library prints for it (paimon_jsonl_print_value). */
static int put_json(fv_out *o, const fv_field *f, const struct ArrowArray *a, int64_t i) {
  struct ArrowArray *one[1] = {(struct ArrowArray *)a};
  const void *nobuf[1] = {NULL};
  struct ArrowArray wrap = {
      .length = i + 1, .n_buffers = 1, .buffers = nobuf, .n_children = 1, .children = one};
  return paimon_jsonl_print_value(f->jp, &wrap, i, 0, fv_sink, o, NULL) == 0 ? 0 : -1;
}

int fv_text(fv_out *o, const fv_field *f, const struct ArrowArray *a, int64_t i) {
  if (f->kind == FV_NA || fv_is_null(a, i)) return 0;
  if (f->kind == FV_UTF8) {
    size_t n;
    const uint8_t *p = var_bytes(f, a, i, &n);
    return put_raw_str(o, p, n);
  }
  size_t start = o->len;
  TRY(put_json(o, f, a, i));
  /* a quoted scalar (decimal, binary, date, time, NaN, Infinity) shows without its
   * quotes; nested values stay JSON */
  bool nested = f->kind == FV_LIST || f->kind == FV_MAP || f->kind == FV_STRUCT;
  if (!nested && o->len - start >= 2 && o->data[start] == '"') {
    memmove(o->data + start, o->data + start + 1, o->len - start - 2);
    o->len -= 2;
  }
  return 0;
}

void fv_millis_text(int64_t millis, char *buf, size_t n) {
  /* the library's TIMESTAMP(3) text, with a space for the T */
  struct ArrowSchema ts = {.format = "tsm:", .name = ""};
  fv_field f;
  char err[128];
  fv_out o = {0};
  const void *bufs[2] = {NULL, &millis};
  struct ArrowArray a = {.length = 1, .n_buffers = 2, .buffers = bufs};
  if (fv_field_init(&f, &ts, err, sizeof err) == 0 && fv_text(&o, &f, &a, 0) == 0 &&
      fv_write(&o, "", 1) == 0) {
    char *t = strchr(o.data, 'T');
    if (t) *t = ' ';
    snprintf(buf, n, "%s", o.data);
  } else {
    snprintf(buf, n, "%lld", (long long)millis);
  }
  fv_out_free(&o);
  fv_field_free(&f);
}
