/* arrow/column.c: columnar builders exported as Arrow arrays, with a buffer pool.
 *
 * Buffer conventions inside a pm_col:
 *   validity.len  bytes of the bitmap already initialised (zeroed or written)
 *   data.len      BOOLEAN: bitmap bytes initialised; fixed: length*width; var: bytes used
 *   offsets.len   (length+1)*4 once the first offset (0) is written
 * Exported buffers return to a process-wide pool when the Arrow array is released, and
 * builders draw from that pool, so steady-state decoding reuses warm pages. Pool blocks
 * come from pm_malloc, so pm_buf_* functions stay usable on column buffers. */
#include "arrow/column.h"

#include <pthread.h>

#include "util/caches.h"

/* ---- buffer pool ----------------------------------------------------------------- */

#define POOL_MAX_BYTES ((size_t)64 << 20)
#define POOL_MAX_BLOCKS 256
#define POOL_MIN_BLOCK 64

typedef struct pool_block {
  void *p;
  size_t cap;
} pool_block;

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pool_block g_pool[POOL_MAX_BLOCKS];
static size_t g_pool_n;
static size_t g_pool_bytes;

/* A block of at least `need` bytes (best fit from the pool, else fresh). */
static void *pool_take(size_t need, size_t *cap) {
  if (need < POOL_MIN_BLOCK) need = POOL_MIN_BLOCK;
  pthread_mutex_lock(&g_pool_mu);
  size_t best = g_pool_n;
  for (size_t i = 0; i < g_pool_n; i++) {
    if (g_pool[i].cap >= need && (best == g_pool_n || g_pool[i].cap < g_pool[best].cap)) best = i;
  }
  /* Don't hand a huge block to a tiny request: it would starve big consumers. */
  if (best < g_pool_n && g_pool[best].cap <= need * 8 + 4096) {
    void *p = g_pool[best].p;
    *cap = g_pool[best].cap;
    g_pool_bytes -= g_pool[best].cap;
    g_pool[best] = g_pool[--g_pool_n];
    pthread_mutex_unlock(&g_pool_mu);
    return p;
  }
  pthread_mutex_unlock(&g_pool_mu);
  size_t c = (need + 63) & ~(size_t)63;
  void *p = pm_malloc(c);
  if (!p) return NULL;
  *cap = c;
  return p;
}

/* paimon_release_caches(): frees every pooled block (blocks in use are not pooled). */
static void pool_release(void) {
  pool_block out[POOL_MAX_BLOCKS];
  pthread_mutex_lock(&g_pool_mu);
  size_t n = g_pool_n;
  memcpy(out, g_pool, n * sizeof *out);
  g_pool_n = 0;
  g_pool_bytes = 0;
  pthread_mutex_unlock(&g_pool_mu);
  for (size_t i = 0; i < n; i++) pm_free(out[i].p);
}

static pthread_once_t g_pool_once = PTHREAD_ONCE_INIT;
static void pool_register(void) { pm_caches_register(pool_release); }

static void pool_give(void *p, size_t cap) {
  if (!p) return;
  void *evict = NULL;
  if (cap >= POOL_MIN_BLOCK && cap <= POOL_MAX_BYTES / 4) {
    pthread_once(&g_pool_once, pool_register);
    pthread_mutex_lock(&g_pool_mu);
    /* When full, a bigger block displaces the smallest one (big pages are the costly ones). */
    if (g_pool_n == POOL_MAX_BLOCKS || g_pool_bytes + cap > POOL_MAX_BYTES) {
      size_t small = 0;
      for (size_t i = 1; i < g_pool_n; i++)
        if (g_pool[i].cap < g_pool[small].cap) small = i;
      if (g_pool_n > 0 && g_pool[small].cap < cap &&
          g_pool_bytes - g_pool[small].cap + cap <= POOL_MAX_BYTES) {
        evict = g_pool[small].p;
        g_pool_bytes -= g_pool[small].cap;
        g_pool[small] = g_pool[--g_pool_n];
      }
    }
    if (g_pool_n < POOL_MAX_BLOCKS && g_pool_bytes + cap <= POOL_MAX_BYTES) {
      g_pool[g_pool_n].p = p;
      g_pool[g_pool_n].cap = cap;
      g_pool_n++;
      g_pool_bytes += cap;
      p = NULL;
    }
    pthread_mutex_unlock(&g_pool_mu);
  }
  pm_free(evict);
  pm_free(p);
}

void pm_col_pool_release(void) {
  pthread_mutex_lock(&g_pool_mu);
  for (size_t i = 0; i < g_pool_n; i++) pm_free(g_pool[i].p);
  g_pool_n = 0;
  g_pool_bytes = 0;
  pthread_mutex_unlock(&g_pool_mu);
}

/* Grows `b` to hold `need` bytes, preserving its whole previous content. */
static int buf_grow(pm_buf *b, size_t need) {
  if (need <= b->cap && b->data) return PAIMON_OK;
  if (need > PM_MAX_ALLOC * 4) return PAIMON_ENOMEM;
  size_t want = b->cap * 2;
  if (want < need) want = need;
  size_t cap = 0;
  uint8_t *p = pool_take(want, &cap);
  if (!p) return PAIMON_ENOMEM;
  if (b->data) {
    memcpy(p, b->data, b->cap);
    pool_give(b->data, b->cap);
  }
  b->data = p;
  b->cap = cap;
  return PAIMON_OK;
}

static inline int buf_need(pm_buf *b, size_t need) {
  if (PM_LIKELY(need <= b->cap && b->data)) return PAIMON_OK;
  return buf_grow(b, need);
}

static void buf_release(pm_buf *b) {
  pool_give(b->data, b->cap);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* ---- layout helpers -------------------------------------------------------------- */

typedef enum layout { L_BOOL, L_FIXED, L_VAR, L_LIST, L_STRUCT } layout;

static layout col_layout(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN: return L_BOOL;
    case PM_ARRAY:
    case PM_MAP:
    case PM_MULTISET: return L_LIST;
    case PM_ROW: return L_STRUCT;
    default: return pm_type_is_var(t) ? L_VAR : L_FIXED;
  }
}

static inline void bit_set(uint8_t *bm, int64_t i, bool v) {
  uint8_t m = (uint8_t)(1u << (i & 7));
  if (v) bm[i >> 3] |= m;
  else bm[i >> 3] &= (uint8_t)~m;
}

/* Ensures an initialised bitmap covering `bits` bits. */
static int bitmap_need(pm_buf *b, int64_t bits) {
  size_t bytes = (size_t)((bits + 7) >> 3);
  if (bytes <= b->len && b->data) return PAIMON_OK;
  PM_TRY(buf_need(b, bytes));
  if (bytes > b->len) {
    memset(b->data + b->len, 0, bytes - b->len);
    b->len = bytes;
  }
  return PAIMON_OK;
}

static int offsets_need(pm_buf *o, int64_t rows) {
  PM_TRY(buf_need(o, (size_t)(rows + 1) * 4));
  if (o->len < 4) {
    int32_t z = 0;
    memcpy(o->data, &z, 4);
    o->len = 4;
  }
  return PAIMON_OK;
}

/* ---- init / reset / free --------------------------------------------------------- */

static int col_init(pm_col *c, const pm_type *type) {
  memset(c, 0, sizeof *c);
  c->type = type;
  int rc = PAIMON_OK;
  if (type->id == PM_ARRAY) {
    if (!type->elem) return PAIMON_EINVAL;
    c->children = pm_calloc(1, sizeof *c->children);
    if (!c->children) return PAIMON_ENOMEM;
    c->nchildren = 1;
    rc = col_init(&c->children[0], type->elem);
  } else if (type->id == PM_MAP || type->id == PM_MULTISET) {
    if (!type->elem || (type->id == PM_MAP && !type->value)) return PAIMON_EINVAL;
    pm_type *e = pm_type_new_row(false);
    pm_type *k = pm_type_clone(type->elem);
    pm_type *v = type->id == PM_MAP ? pm_type_clone(type->value) : pm_type_new(PM_INT, false);
    if (!e || !k || !v) {
      pm_type_free(e);
      pm_type_free(k);
      pm_type_free(v);
      return PAIMON_ENOMEM;
    }
    k->nullable = false;
    c->owned_entries_type = e;
    if (pm_type_row_add(e, -1, "key", k) != 0) {
      pm_type_free(v);
      return PAIMON_ENOMEM;
    }
    if (pm_type_row_add(e, -1, "value", v) != 0) return PAIMON_ENOMEM;
    c->children = pm_calloc(1, sizeof *c->children);
    if (!c->children) return PAIMON_ENOMEM;
    c->nchildren = 1;
    rc = col_init(&c->children[0], e);
  } else if (type->id == PM_ROW) {
    if (type->nfields > 0) {
      c->children = pm_calloc((size_t)type->nfields, sizeof *c->children);
      if (!c->children) return PAIMON_ENOMEM;
    }
    for (int32_t i = 0; i < type->nfields && rc == 0; i++) {
      c->nchildren = i + 1;
      rc = col_init(&c->children[i], type->fields[i].type);
    }
  }
  return rc;
}

/* On failure the partly built column is freed (callers free only columns that
 * initialised). */
int pm_col_init(pm_col *c, const pm_type *type) {
  int rc = col_init(c, type);
  if (rc) {
    pm_col_free(c);
    c->type = type;
  }
  return rc;
}

void pm_col_reset(pm_col *c) {
  c->length = 0;
  c->null_count = 0;
  c->validity.len = 0;
  c->offsets.len = 0;
  c->data.len = 0;
  for (int32_t i = 0; i < c->nchildren; i++) pm_col_reset(&c->children[i]);
}

void pm_col_free(pm_col *c) {
  if (!c) return;
  buf_release(&c->validity);
  buf_release(&c->offsets);
  buf_release(&c->data);
  for (int32_t i = 0; i < c->nchildren; i++) pm_col_free(&c->children[i]);
  pm_free(c->children);
  c->children = NULL;
  c->nchildren = 0;
  pm_type_free(c->owned_entries_type);
  c->owned_entries_type = NULL;
  c->length = c->null_count = 0;
}

int pm_col_reserve(pm_col *c, int64_t n, size_t bytes) {
  if (n < 0) return PAIMON_EINVAL;
  int64_t rows = c->length + n;
  PM_TRY(bitmap_need(&c->validity, rows));
  switch (col_layout(c->type)) {
    case L_BOOL: return bitmap_need(&c->data, rows);
    case L_FIXED: return buf_need(&c->data, (size_t)rows * (size_t)pm_type_fixed_width(c->type));
    case L_VAR:
      PM_TRY(offsets_need(&c->offsets, rows));
      if (bytes > PM_MAX_ALLOC * 2 || c->data.len + bytes > (size_t)INT32_MAX) return PAIMON_ENOMEM;
      return buf_need(&c->data, c->data.len + bytes);
    case L_LIST: return offsets_need(&c->offsets, rows);
    case L_STRUCT:
      for (int32_t i = 0; i < c->nchildren; i++) PM_TRY(pm_col_reserve(&c->children[i], n, 0));
      return PAIMON_OK;
  }
  return PAIMON_OK;
}

/* ---- appends --------------------------------------------------------------------- */

/* Validity bit for the row being appended (row index c->length). */
static inline int push_valid(pm_col *c, bool valid) {
  PM_TRY(bitmap_need(&c->validity, c->length + 1));
  bit_set(c->validity.data, c->length, valid);
  if (!valid) c->null_count++;
  return PAIMON_OK;
}

static int append_fixed(pm_col *c, const void *v, size_t w) {
  size_t need = (size_t)(c->length + 1) * w;
  PM_TRY(buf_need(&c->data, need));
  PM_TRY(push_valid(c, true));
  memcpy(c->data.data + (size_t)c->length * w, v, w);
  c->data.len = need;
  c->length++;
  return PAIMON_OK;
}

static int close_offset(pm_col *c, int64_t end) {
  if (end > INT32_MAX) return PAIMON_ENOMEM;
  PM_TRY(offsets_need(&c->offsets, c->length + 1));
  int32_t e = (int32_t)end;
  memcpy(c->offsets.data + (size_t)(c->length + 1) * 4, &e, 4);
  c->offsets.len = (size_t)(c->length + 2) * 4;
  return PAIMON_OK;
}

static int append_nulls_rec(pm_col *c, int64_t n) {
  if (n <= 0) return n == 0 ? PAIMON_OK : PAIMON_EINVAL;
  int64_t rows = c->length + n;
  PM_TRY(bitmap_need(&c->validity, rows));
  pm_col_set_validity(c, c->length, n, false);
  switch (col_layout(c->type)) {
    case L_BOOL: {
      PM_TRY(bitmap_need(&c->data, rows));
      for (int64_t i = c->length; i < rows; i++) bit_set(c->data.data, i, false);
      break;
    }
    case L_FIXED: {
      size_t w = (size_t)pm_type_fixed_width(c->type);
      PM_TRY(buf_need(&c->data, (size_t)rows * w));
      memset(c->data.data + (size_t)c->length * w, 0, (size_t)n * w);
      c->data.len = (size_t)rows * w;
      break;
    }
    case L_VAR:
    case L_LIST: {
      PM_TRY(offsets_need(&c->offsets, rows));
      int32_t cur;
      memcpy(&cur, c->offsets.data + (size_t)c->length * 4, 4);
      for (int64_t i = c->length + 1; i <= rows; i++)
        memcpy(c->offsets.data + (size_t)i * 4, &cur, 4);
      c->offsets.len = (size_t)(rows + 1) * 4;
      break;
    }
    case L_STRUCT:
      for (int32_t i = 0; i < c->nchildren; i++) PM_TRY(append_nulls_rec(&c->children[i], n));
      break;
  }
  c->null_count += n;
  c->length = rows;
  return PAIMON_OK;
}

int pm_col_append_null(pm_col *c) { return append_nulls_rec(c, 1); }
int pm_col_append_nulls(pm_col *c, int64_t n) { return append_nulls_rec(c, n); }

int pm_col_append_bool(pm_col *c, bool v) {
  if (c->type->id != PM_BOOLEAN) return pm_col_append_int(c, v ? 1 : 0);
  PM_TRY(bitmap_need(&c->data, c->length + 1));
  PM_TRY(push_valid(c, true));
  bit_set(c->data.data, c->length, v);
  c->length++;
  return PAIMON_OK;
}

int pm_col_append_i8(pm_col *c, int8_t v) { return pm_col_append_int(c, v); }
int pm_col_append_i16(pm_col *c, int16_t v) { return pm_col_append_int(c, v); }
int pm_col_append_i32(pm_col *c, int32_t v) { return pm_col_append_int(c, v); }
int pm_col_append_i64(pm_col *c, int64_t v) { return pm_col_append_int(c, v); }

int pm_col_append_f32(pm_col *c, float v) {
  if (c->type->id != PM_FLOAT) return PAIMON_EINVAL;
  return append_fixed(c, &v, 4);
}

int pm_col_append_f64(pm_col *c, double v) {
  if (c->type->id != PM_DOUBLE) return PAIMON_EINVAL;
  return append_fixed(c, &v, 8);
}

int pm_col_append_dec128(pm_col *c, const uint8_t v[16]) {
  if (c->type->id != PM_DECIMAL) return PAIMON_EINVAL;
  return append_fixed(c, v, 16);
}

int pm_col_append_int(pm_col *c, int64_t v) {
  switch (c->type->id) {
    case PM_BOOLEAN: return pm_col_append_bool(c, v != 0);
    case PM_TINYINT: {
      int8_t x = (int8_t)v;
      return append_fixed(c, &x, 1);
    }
    case PM_SMALLINT: {
      int16_t x = (int16_t)v;
      return append_fixed(c, &x, 2);
    }
    case PM_INT:
    case PM_DATE:
    case PM_TIME: {
      int32_t x = (int32_t)v;
      return append_fixed(c, &x, 4);
    }
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return append_fixed(c, &v, 8);
    case PM_DECIMAL: {
      /* Sign-extend a small unscaled value into decimal128. */
      uint8_t d[16];
      uint64_t lo = (uint64_t)v, hi = v < 0 ? UINT64_MAX : 0;
      pm_store_le64(d, lo);
      pm_store_le64(d + 8, hi);
      return append_fixed(c, d, 16);
    }
    default: return PAIMON_EINVAL;
  }
}

int pm_col_append_bytes(pm_col *c, const void *p, size_t n) {
  if (col_layout(c->type) != L_VAR) return PAIMON_EINVAL;
  if (n > (size_t)INT32_MAX - c->data.len) return PAIMON_ENOMEM;
  PM_TRY(buf_need(&c->data, c->data.len + n));
  PM_TRY(offsets_need(&c->offsets, c->length + 1));
  PM_TRY(push_valid(c, true));
  if (n) memcpy(c->data.data + c->data.len, p, n);
  c->data.len += n;
  PM_TRY(close_offset(c, (int64_t)c->data.len));
  c->length++;
  return PAIMON_OK;
}

int pm_col_append_list_end(pm_col *c) {
  if (col_layout(c->type) != L_LIST || c->nchildren != 1) return PAIMON_EINVAL;
  PM_TRY(offsets_need(&c->offsets, c->length + 1));
  PM_TRY(push_valid(c, true));
  PM_TRY(close_offset(c, c->children[0].length));
  c->length++;
  return PAIMON_OK;
}

int pm_col_append_struct(pm_col *c, bool valid) {
  if (c->type->id != PM_ROW) return PAIMON_EINVAL;
  PM_TRY(push_valid(c, valid));
  c->length++;
  return PAIMON_OK;
}

void pm_col_set_validity(pm_col *c, int64_t from, int64_t n, bool valid) {
  if (n <= 0) return;
  uint8_t *bm = c->validity.data;
  int64_t i = from, end = from + n;
  size_t need = (size_t)((end + 7) >> 3);
  if (c->validity.len < need) c->validity.len = need; /* caller reserved; now initialised */
  while (i < end && (i & 7)) bit_set(bm, i++, valid);
  if (end - i >= 8) {
    int64_t bytes = (end - i) >> 3;
    memset(bm + (i >> 3), valid ? 0xff : 0, (size_t)bytes);
    i += bytes << 3;
  }
  while (i < end) bit_set(bm, i++, valid);
}

/* ---- export ---------------------------------------------------------------------- */

typedef struct arr_priv {
  const void *bufs[3];
  pm_buf owned[3];
  struct ArrowArray **child_ptrs;
  struct ArrowArray *child_store;
} arr_priv;

static void arr_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  arr_priv *pv = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *ch = a->children[i];
    if (ch && ch->release) ch->release(ch);
  }
  if (pv) {
    for (int i = 0; i < 3; i++) buf_release(&pv->owned[i]);
    pm_free(pv->child_ptrs);
    pm_free(pv->child_store);
    pm_free(pv);
  }
  a->release = NULL;
}

/* A live, empty array node with `nbuf` buffer slots and `nchild` zeroed children. */
static int arr_node(struct ArrowArray *a, int64_t length, int64_t null_count, int nbuf,
                    int64_t nchild) {
  memset(a, 0, sizeof *a);
  arr_priv *pv = pm_calloc(1, sizeof *pv);
  if (!pv) return PAIMON_ENOMEM;
  if (nchild > 0) {
    pv->child_ptrs = pm_calloc((size_t)nchild, sizeof *pv->child_ptrs);
    pv->child_store = pm_calloc((size_t)nchild, sizeof *pv->child_store);
    if (!pv->child_ptrs || !pv->child_store) {
      pm_free(pv->child_ptrs);
      pm_free(pv->child_store);
      pm_free(pv);
      return PAIMON_ENOMEM;
    }
    for (int64_t i = 0; i < nchild; i++) pv->child_ptrs[i] = &pv->child_store[i];
  }
  a->length = length;
  a->null_count = null_count;
  a->n_buffers = nbuf;
  a->n_children = nchild;
  a->buffers = pv->bufs;
  a->children = pv->child_ptrs;
  a->private_data = pv;
  a->release = arr_release;
  return PAIMON_OK;
}

/* Moves buffer `b` into slot i of the exported node. */
static void move_buf(struct ArrowArray *a, int i, pm_buf *b) {
  arr_priv *pv = a->private_data;
  pv->owned[i] = *b;
  pv->bufs[i] = b->data;
  b->data = NULL;
  b->len = b->cap = 0;
}

static int col_export(pm_col *c, struct ArrowArray *out) {
  layout l = col_layout(c->type);
  int nbuf = l == L_STRUCT ? 1 : (l == L_LIST || l == L_BOOL || l == L_FIXED) ? 2 : 3;
  int64_t nchild = (l == L_LIST || l == L_STRUCT) ? c->nchildren : 0;
  int64_t len = c->length;
  /* Make every buffer present before moving anything, so failure leaves `c` intact. */
  if (c->null_count > 0) PM_TRY(bitmap_need(&c->validity, len));
  switch (l) {
    case L_BOOL: PM_TRY(bitmap_need(&c->data, len > 0 ? len : 1)); break;
    case L_FIXED: {
      size_t w = (size_t)pm_type_fixed_width(c->type);
      PM_TRY(buf_need(&c->data, (size_t)(len > 0 ? len : 1) * w));
      break;
    }
    case L_VAR:
      PM_TRY(offsets_need(&c->offsets, len));
      PM_TRY(buf_need(&c->data, c->data.len > 0 ? c->data.len : 1));
      break;
    case L_LIST: PM_TRY(offsets_need(&c->offsets, len)); break;
    case L_STRUCT: break;
  }
  PM_TRY(arr_node(out, len, c->null_count, nbuf, nchild));
  for (int64_t i = 0; i < nchild; i++) {
    int rc = col_export(&c->children[i], out->children[i]);
    if (rc) {
      out->release(out);
      return rc;
    }
  }
  if (c->null_count > 0) move_buf(out, 0, &c->validity);
  switch (l) {
    case L_BOOL:
    case L_FIXED: move_buf(out, 1, &c->data); break;
    case L_VAR:
      move_buf(out, 1, &c->offsets);
      move_buf(out, 2, &c->data);
      break;
    case L_LIST: move_buf(out, 1, &c->offsets); break;
    case L_STRUCT: break;
  }
  c->length = 0;
  c->null_count = 0;
  c->validity.len = 0;
  c->offsets.len = 0;
  c->data.len = 0;
  return PAIMON_OK;
}

int pm_col_export(pm_col *c, struct ArrowArray *out, paimon_error *err) {
  int rc = col_export(c, out);
  if (rc) {
    memset(out, 0, sizeof *out);
    return pm_fail(err, rc, "cannot export Arrow array: %s", paimon_strerror(rc));
  }
  return PAIMON_OK;
}

int pm_cols_export_struct(pm_col *cols, int32_t n, int64_t length, struct ArrowArray *out,
                          paimon_error *err) {
  for (int32_t i = 0; i < n; i++)
    if (cols[i].length != length)
      return pm_fail(err, PAIMON_EINVAL, "column %d has %lld rows, expected %lld", (int)i,
                     (long long)cols[i].length, (long long)length);
  int rc = arr_node(out, length, 0, 1, n);
  if (rc) return pm_fail(err, rc, "out of memory exporting Arrow struct");
  for (int32_t i = 0; i < n; i++) {
    rc = col_export(&cols[i], out->children[i]);
    if (rc) {
      out->release(out);
      memset(out, 0, sizeof *out);
      return pm_fail(err, rc, "cannot export Arrow column %d", (int)i);
    }
  }
  return PAIMON_OK;
}

int pm_array_make_nulls(const pm_type *type, int64_t length, struct ArrowArray *out,
                        paimon_error *err) {
  pm_col c;
  int rc = pm_col_init(&c, type);
  if (!rc) rc = pm_col_append_nulls(&c, length);
  if (!rc) rc = col_export(&c, out);
  pm_col_free(&c);
  if (rc) {
    memset(out, 0, sizeof *out);
    return pm_fail(err, rc, "cannot build all-null Arrow array of %lld rows", (long long)length);
  }
  return PAIMON_OK;
}

/* ---- reading --------------------------------------------------------------------- */

int64_t pm_arr_int(const struct ArrowArray *a, const pm_type *t, int64_t i) {
  switch (t->id) {
    case PM_BOOLEAN: return pm_arr_bool(a, i) ? 1 : 0;
    case PM_TINYINT: return PM_ARR_FIXED(a, int8_t, i);
    case PM_SMALLINT: return PM_ARR_FIXED(a, int16_t, i);
    case PM_INT:
    case PM_DATE:
    case PM_TIME: return PM_ARR_FIXED(a, int32_t, i);
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: return PM_ARR_FIXED(a, int64_t, i);
    case PM_DECIMAL: {
      const uint8_t *p = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * 16;
      return (int64_t)pm_load_le64(p); /* low 64 bits */
    }
    default: return 0;
  }
}

/* Appends struct row i of `src` (offset already applied by the caller via src->offset). */
static int append_struct_from(pm_col *dst, const struct ArrowArray *src, int64_t i) {
  if (src->n_children != dst->nchildren) return PAIMON_EINVAL;
  int64_t j = src->offset + i;
  for (int32_t k = 0; k < dst->nchildren; k++)
    PM_TRY(pm_col_append_from(&dst->children[k], src->children[k], j));
  return PAIMON_OK;
}

int pm_col_append_from(pm_col *dst, const struct ArrowArray *src, int64_t i) {
  const pm_type *t = dst->type;
  if (!pm_arr_is_valid(src, i)) return pm_col_append_null(dst);
  switch (col_layout(t)) {
    case L_BOOL: return pm_col_append_bool(dst, pm_arr_bool(src, i));
    case L_FIXED: {
      size_t w = (size_t)pm_type_fixed_width(t);
      const uint8_t *p = (const uint8_t *)src->buffers[1] + (size_t)(src->offset + i) * w;
      return append_fixed(dst, p, w);
    }
    case L_VAR: {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(src, i, &n);
      if (n < 0) return PAIMON_ECORRUPT;
      return pm_col_append_bytes(dst, p, (size_t)n);
    }
    case L_LIST: {
      int64_t b, e;
      pm_arr_list_range(src, i, &b, &e);
      if (src->n_children != 1 || e < b) return PAIMON_ECORRUPT;
      pm_col *ch = &dst->children[0];
      const struct ArrowArray *sc = src->children[0];
      for (int64_t j = b; j < e; j++) {
        if (t->id == PM_ARRAY) {
          PM_TRY(pm_col_append_from(ch, sc, j));
        } else {
          if (!pm_arr_is_valid(sc, j)) return PAIMON_ECORRUPT; /* map entries are never null */
          PM_TRY(append_struct_from(ch, sc, j));
          PM_TRY(pm_col_append_struct(ch, true));
        }
      }
      return pm_col_append_list_end(dst);
    }
    case L_STRUCT: PM_TRY(append_struct_from(dst, src, i)); return pm_col_append_struct(dst, true);
  }
  return PAIMON_EINVAL;
}

int pm_array_slice_copy(const struct ArrowArray *src, const pm_type *t, int64_t offset,
                        int64_t length, struct ArrowArray *out, paimon_error *err) {
  if (offset < 0 || length < 0 || offset + length > src->length)
    return pm_fail(err, PAIMON_EINVAL, "slice [%lld, +%lld) outside array of %lld rows",
                   (long long)offset, (long long)length, (long long)src->length);
  pm_col c;
  int rc = pm_col_init(&c, t);
  if (!rc) rc = pm_col_reserve(&c, length, 0);
  layout l = col_layout(t);
  if (!rc && l == L_FIXED) {
    /* Fast path: one memcpy for the values, then the validity bits. */
    size_t w = (size_t)pm_type_fixed_width(t);
    if (length > 0)
      memcpy(c.data.data, (const uint8_t *)src->buffers[1] + (size_t)(src->offset + offset) * w,
             (size_t)length * w);
    c.data.len = (size_t)length * w;
    if (src->buffers[0] == NULL || src->null_count == 0) {
      pm_col_set_validity(&c, 0, length, true);
    } else {
      for (int64_t r = 0; r < length; r++) {
        bool v = pm_arr_is_valid(src, offset + r);
        bit_set(c.validity.data, r, v);
        if (!v) c.null_count++;
      }
    }
    c.length = length;
  } else if (!rc && l == L_VAR && length > 0) {
    /* Fast path: one memcpy for the bytes, offsets rebased to 0, then the validity bits. */
    const int32_t *so = (const int32_t *)src->buffers[1] + src->offset + offset;
    int64_t base = so[0], bytes = (int64_t)so[length] - base;
    if (base < 0 || bytes < 0 || bytes > INT32_MAX) rc = PAIMON_ECORRUPT;
    if (!rc) rc = pm_col_reserve(&c, length, (size_t)bytes);
    if (!rc) {
      if (bytes) memcpy(c.data.data, (const uint8_t *)src->buffers[2] + base, (size_t)bytes);
      c.data.len = (size_t)bytes;
      int32_t *dof = (int32_t *)(void *)c.offsets.data;
      for (int64_t r = 0; r <= length; r++) dof[r] = (int32_t)(so[r] - base);
      c.offsets.len = (size_t)(length + 1) * 4;
      if (src->buffers[0] == NULL || src->null_count == 0) {
        pm_col_set_validity(&c, 0, length, true);
      } else {
        for (int64_t r = 0; r < length; r++) {
          bool v = pm_arr_is_valid(src, offset + r);
          bit_set(c.validity.data, r, v);
          if (!v) c.null_count++;
        }
      }
      c.length = length;
    }
  } else {
    for (int64_t r = 0; r < length && rc == 0; r++) rc = pm_col_append_from(&c, src, offset + r);
  }
  if (!rc) rc = col_export(&c, out);
  pm_col_free(&c);
  if (rc) {
    memset(out, 0, sizeof *out);
    return pm_fail(err, rc, "cannot copy Arrow slice: %s", paimon_strerror(rc));
  }
  return PAIMON_OK;
}
