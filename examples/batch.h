/* batch.h: a minimal way to build Arrow C Data Interface batches for the examples.
 *
 * libpaimon takes and returns data as `struct ArrowArray` + `struct ArrowSchema`
 * (paimon/arrow.h). Real programs usually get them from an Arrow library (Arrow C++,
 * nanoarrow, arrow-rs, pyarrow ...). These helpers show what such a batch is made of:
 * a struct array whose children are the columns, each owning its buffers and freed by
 * its `release` callback.
 *
 *   ex_batch *b = ex_batch_new(3);               // 3 rows
 *   ex_batch_i64(b, "id", (int64_t[]){1, 2, 3});
 *   ex_batch_str(b, "name", (const char *[]){"a", NULL, "c"});   // NULL = null
 *   struct ArrowArray array; struct ArrowSchema schema;
 *   ex_batch_export(b, &array, &schema);         // frees b; release array and schema later
 *
 * Supported column types: int64 ("l"), int32 ("i"), int8 ("c"), double ("g"),
 * utf8 string ("u"). Allocation failures abort: this is example code. */
#ifndef EXAMPLES_BATCH_H
#define EXAMPLES_BATCH_H

#include <paimon/arrow.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EX_MAX_COLUMNS 16

/* One column being built. `buffers` follows the Arrow layout of its type:
 * [validity bitmap (NULL: no nulls), values] or, for strings,
 * [validity, int32 offsets, characters]. */
typedef struct ex_column {
  char name[64];
  const char *format;
  int64_t null_count;
  int n_buffers;
  void *buffers[3];
} ex_column;

typedef struct ex_batch {
  int64_t rows;
  int ncols;
  ex_column cols[EX_MAX_COLUMNS];
} ex_batch;

static inline void *ex_alloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    abort();
  }
  return p;
}

static inline ex_batch *ex_batch_new(int64_t rows) {
  ex_batch *b = (ex_batch *)ex_alloc(sizeof *b);
  b->rows = rows;
  return b;
}

static inline ex_column *ex_add(ex_batch *b, const char *name, const char *format) {
  if (b->ncols == EX_MAX_COLUMNS) {
    fprintf(stderr, "too many columns\n");
    abort();
  }
  ex_column *c = &b->cols[b->ncols++];
  snprintf(c->name, sizeof c->name, "%s", name);
  c->format = format;
  c->n_buffers = 2;
  return c;
}

/* Fixed-width columns: copy `rows` values. */
static inline void ex_batch_fixed(ex_batch *b, const char *name, const char *format, const void *v,
                                  size_t width) {
  ex_column *c = ex_add(b, name, format);
  c->buffers[1] = ex_alloc((size_t)b->rows * width);
  memcpy(c->buffers[1], v, (size_t)b->rows * width);
}
static inline void ex_batch_i64(ex_batch *b, const char *name, const int64_t *v) {
  ex_batch_fixed(b, name, "l", v, sizeof *v);
}
static inline void ex_batch_i32(ex_batch *b, const char *name, const int32_t *v) {
  ex_batch_fixed(b, name, "i", v, sizeof *v);
}
static inline void ex_batch_i8(ex_batch *b, const char *name, const int8_t *v) {
  ex_batch_fixed(b, name, "c", v, sizeof *v);
}
static inline void ex_batch_f64(ex_batch *b, const char *name, const double *v) {
  ex_batch_fixed(b, name, "g", v, sizeof *v);
}

/* String column; a NULL entry is a null value (recorded in the validity bitmap). */
static inline void ex_batch_str(ex_batch *b, const char *name, const char *const *v) {
  ex_column *c = ex_add(b, name, "u");
  c->n_buffers = 3;
  size_t total = 0;
  for (int64_t i = 0; i < b->rows; i++) total += v[i] ? strlen(v[i]) : 0;
  uint8_t *valid = (uint8_t *)ex_alloc((size_t)(b->rows + 7) / 8);
  int32_t *offsets = (int32_t *)ex_alloc(sizeof(int32_t) * (size_t)(b->rows + 1));
  char *chars = (char *)ex_alloc(total);
  int32_t pos = 0;
  for (int64_t i = 0; i < b->rows; i++) {
    offsets[i] = pos;
    if (v[i]) {
      valid[i / 8] |= (uint8_t)(1u << (i % 8));
      memcpy(chars + pos, v[i], strlen(v[i]));
      pos += (int32_t)strlen(v[i]);
    } else {
      c->null_count++;
    }
  }
  offsets[b->rows] = pos;
  c->buffers[0] = valid;
  c->buffers[1] = offsets;
  c->buffers[2] = chars;
}

/* ---- export: the ownership rules of the C Data Interface ---------------------------- */

/* A child array owns its buffers; release frees them and marks the array released. */
static inline void ex_release_child(struct ArrowArray *a) {
  void **buffers = (void **)a->buffers;
  for (int64_t i = 0; i < a->n_buffers; i++) free(buffers[i]);
  free(buffers);
  a->release = NULL;
}

/* The parent releases the children it still owns (a consumer may have moved some out,
 * setting their release to NULL), then itself. */
static inline void ex_release_struct(struct ArrowArray *a) {
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *child = a->children[i];
    if (child->release) child->release(child);
    free(child);
  }
  free(a->children);
  free((void *)a->buffers);
  a->release = NULL;
}

static inline void ex_release_schema(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *child = s->children[i];
    if (child->release) child->release(child);
    free(child);
  }
  free(s->children);
  free((void *)s->name); /* children's names are heap copies; the root's is NULL */
  s->release = NULL;
}

/* Moves the batch into `array` + `schema` (a struct of the columns) and frees `b`. */
static inline void ex_batch_export(ex_batch *b, struct ArrowArray *array,
                                   struct ArrowSchema *schema) {
  memset(array, 0, sizeof *array);
  memset(schema, 0, sizeof *schema);
  array->length = b->rows;
  array->n_buffers = 1; /* a struct array has only a validity bitmap (NULL: no nulls) */
  array->buffers = (const void **)ex_alloc(sizeof(void *));
  array->n_children = b->ncols;
  array->children = (struct ArrowArray **)ex_alloc(sizeof(void *) * (size_t)b->ncols);
  array->release = ex_release_struct;
  schema->format = "+s";
  schema->n_children = b->ncols;
  schema->children = (struct ArrowSchema **)ex_alloc(sizeof(void *) * (size_t)b->ncols);
  schema->release = ex_release_schema;
  for (int i = 0; i < b->ncols; i++) {
    ex_column *c = &b->cols[i];
    struct ArrowArray *ca = (struct ArrowArray *)ex_alloc(sizeof *ca);
    ca->length = b->rows;
    ca->null_count = c->null_count;
    ca->n_buffers = c->n_buffers;
    void **buffers = (void **)ex_alloc(sizeof(void *) * (size_t)c->n_buffers);
    memcpy(buffers, c->buffers, sizeof(void *) * (size_t)c->n_buffers);
    ca->buffers = (const void **)buffers;
    ca->release = ex_release_child;
    array->children[i] = ca;

    struct ArrowSchema *cs = (struct ArrowSchema *)ex_alloc(sizeof *cs);
    char *name = (char *)ex_alloc(strlen(c->name) + 1);
    strcpy(name, c->name);
    cs->format = c->format;
    cs->name = name;
    cs->flags = ARROW_FLAG_NULLABLE;
    cs->release = ex_release_schema;
    schema->children[i] = cs;
  }
  free(b);
}

#endif
