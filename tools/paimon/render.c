/* tools/paimon/render.c: Arrow batches -> JSON lines (the library's paimon_jsonl_print) /
 * CSV rows (the `cat` contract), shared by `paimon cat` and the ingest server's /query. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define TRY(x)               \
  do {                       \
    if ((x) != 0) return -1; \
  } while (0)

int cli_json_str(fv_out *o, const char *s, size_t n) {
  /* the library's string escaping, through a one-row, one-column utf8 batch */
  struct ArrowSchema col = {.format = "u", .name = ""};
  struct ArrowSchema *cols[1] = {&col};
  struct ArrowSchema sch = {.format = "+s", .name = "", .n_children = 1, .children = cols};
  if (n > INT32_MAX) return -1;
  int32_t offs[2] = {0, (int32_t)n};
  const void *bufs[3] = {NULL, offs, s};
  struct ArrowArray one = {.length = 1, .n_buffers = 3, .buffers = bufs};
  struct ArrowArray *kids[1] = {&one};
  const void *nobuf[1] = {NULL};
  struct ArrowArray batch = {
      .length = 1, .n_buffers = 1, .buffers = nobuf, .n_children = 1, .children = kids};
  paimon_jsonl_printer *jp = NULL;
  int rc = paimon_jsonl_printer_new(&jp, &sch, NULL);
  if (rc == 0) rc = paimon_jsonl_print_value(jp, &batch, 0, 0, fv_sink, o, NULL);
  paimon_jsonl_printer_free(jp);
  return rc == 0 ? 0 : -1;
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
  if (mode == RENDER_JSONL) {
    paimon_error err = {0, ""};
    if (paimon_jsonl_printer_new(&r->jp, schema, &err) != 0) {
      snprintf(emsg, n, "%s", err.message);
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
  if (r->mode == RENDER_JSONL)
    return paimon_jsonl_print(r->jp, batch, i, 1, fv_sink, o, NULL) ? -1 : 0;
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
  paimon_jsonl_printer_free(r->jp);
  fv_out_free(&r->cell);
  fv_field_free(&r->root);
  memset(r, 0, sizeof *r);
}
