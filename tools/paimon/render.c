/* tools/paimon/render.c: Arrow batches -> JSON lines / CSV rows (the `cat` contract),
 * shared by `paimon cat` and the ingest server's /query. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define TRY(x)               \
  do {                       \
    if ((x) != 0) return -1; \
  } while (0)

int cli_json_str(fv_out *o, const char *s, size_t n) {
  /* reuse the value writer's escaping through a one-row utf8 array */
  fv_field sf = {.kind = FV_UTF8, .width = 4, .name = (char *)""};
  int32_t offs[2] = {0, (int32_t)n};
  const void *bufs[3] = {NULL, offs, s};
  struct ArrowArray one = {.length = 1, .n_buffers = 3, .buffers = bufs};
  return fv_json(o, &sf, &one, 0);
}

int cli_csv_cell(fv_out *o, const char *p, size_t n, bool is_null) {
  if (is_null) return 0;
  bool q = n == 0;
  for (size_t i = 0; i < n && !q; i++)
    if (p[i] == ',' || p[i] == '"' || p[i] == '\r' || p[i] == '\n') q = true;
  if (!q) return fv_write(o, p, n);
  TRY(fv_write(o, "\"", 1));
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] != '"') continue;
    TRY(fv_write(o, p + run, i + 1 - run)); /* up to and including the quote */
    TRY(fv_write(o, "\"", 1));
    run = i + 1;
  }
  TRY(fv_write(o, p + run, n - run));
  return fv_write(o, "\"", 1);
}

int cli_render_init(cli_render *r, const struct ArrowSchema *schema, int mode, char *emsg,
                    size_t n) {
  memset(r, 0, sizeof *r);
  r->mode = mode;
  if (fv_field_init(&r->root, schema, emsg, n) != 0) return -1;
  if (r->root.kind != FV_STRUCT) {
    snprintf(emsg, n, "result is not a struct");
    return -1;
  }
  int nc = r->root.nchildren;
  r->keys = calloc((size_t)nc + 1, sizeof *r->keys);
  if (!r->keys) {
    snprintf(emsg, n, "out of memory");
    return -1;
  }
  for (int j = 0; j < nc; j++) {
    const char *name = r->root.children[j].name;
    if (fv_puts(&r->keys[j], j ? ", " : "{") || cli_json_str(&r->keys[j], name, strlen(name)) ||
        fv_puts(&r->keys[j], ": ")) {
      snprintf(emsg, n, "out of memory");
      return -1;
    }
  }
  return 0;
}

int cli_render_header(cli_render *r, fv_out *o) {
  if (r->mode != RENDER_CSV) return 0;
  for (int j = 0; j < r->root.nchildren; j++) {
    if (j) TRY(fv_write(o, ",", 1));
    TRY(cli_csv_cell(o, r->root.children[j].name, strlen(r->root.children[j].name), false));
  }
  return fv_write(o, "\r\n", 2);
}

int cli_render_check(cli_render *r, const struct ArrowArray *batch, char *emsg, size_t n) {
  return fv_check(&r->root, batch, emsg, n);
}

int cli_render_row(cli_render *r, const struct ArrowArray *batch, int64_t i, fv_out *o) {
  int nc = r->root.nchildren;
  int64_t row = batch->offset + i; /* struct children are indexed past the parent's offset */
  if (r->mode == RENDER_JSONL) {
    for (int j = 0; j < nc; j++) {
      TRY(fv_write(o, r->keys[j].data, r->keys[j].len));
      TRY(fv_json(o, &r->root.children[j], batch->children[j], row));
    }
    return fv_write(o, nc ? "}\n" : "{}\n", nc ? 2 : 3);
  }
  for (int j = 0; j < nc; j++) {
    const fv_field *f = &r->root.children[j];
    bool isnull = f->kind == FV_NA || fv_is_null(batch->children[j], row);
    r->cell.len = 0;
    if (!isnull) TRY(fv_text(&r->cell, f, batch->children[j], row));
    if (j) TRY(fv_write(o, ",", 1));
    TRY(cli_csv_cell(o, r->cell.data, r->cell.len, isnull));
  }
  return fv_write(o, "\r\n", 2);
}

void cli_render_free(cli_render *r) {
  for (int j = 0; r->keys && j < r->root.nchildren; j++) fv_out_free(&r->keys[j]);
  free(r->keys);
  fv_out_free(&r->cell);
  fv_field_free(&r->root);
  memset(r, 0, sizeof *r);
}
