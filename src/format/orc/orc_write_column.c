/* format/orc/orc_write_column.c: one ORC column within a stripe: row-index positions,
 * the string dictionary (DICTIONARY_V2 when distinct/values <= 0.8 after the first
 * stride, as ORC Java decides) and the writers of each kind of value into its streams. */
#include "format/orc/orc_write.h"
#include "util/sort.h"

#include <limits.h>

#define ORC_EPOCH_2015 1420070400LL
#define DICT_THRESHOLD 0.8

/* ---- columns -------------------------------------------------------------------------------- */

bool pm_orcw_is_str_kind(int k) {
  return k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR;
}

bool pm_orcw_uses_stream(const ocol *c, int slot) {
  switch (slot) {
    case S_PRESENT: return !c->is_root && c->found_nulls;
    case S_DATA: return c->kind != PM_ORC_STRUCT && c->kind != PM_ORC_LIST && c->kind != PM_ORC_MAP;
    case S_LENGTH:
      return pm_orcw_is_str_kind(c->kind) || c->kind == PM_ORC_BINARY || c->kind == PM_ORC_LIST ||
             c->kind == PM_ORC_MAP;
    case S_DICT: return pm_orcw_is_str_kind(c->kind) && c->smode == SMODE_DICT;
    case S_SECONDARY:
      return c->kind == PM_ORC_DECIMAL || c->kind == PM_ORC_TIMESTAMP ||
             c->kind == PM_ORC_TIMESTAMP_INSTANT;
  }
  return false;
}

int pm_orcw_col_encoding(const ocol *c) {
  switch (c->kind) {
    case PM_ORC_STRUCT:
    case PM_ORC_BOOLEAN:
    case PM_ORC_BYTE:
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: return PM_ORC_ENC_DIRECT;
    default:
      return pm_orcw_is_str_kind(c->kind) && c->smode == SMODE_DICT ? PM_ORC_ENC_DICT_V2
                                                                    : PM_ORC_ENC_DIRECT_V2;
  }
}

/* Positions of every stream of the column at the start of a row group (ORC Java's
 * recordPosition order: PRESENT, then the value streams). */
void pm_orcw_record_positions(ocol *c) {
  ri_entry *e = &c->cur;
  uint64_t *p = e->pos;
  int k = 0;
  e->deferred = false;
  e->values = 0;
  if (!c->is_root) k += pm_orcw_bits_pos(&c->present, p + k);
  e->npres = (uint8_t)k;
  switch (c->kind) {
    case PM_ORC_BOOLEAN: k += pm_orcw_bits_pos(&c->bits, p + k); break;
    case PM_ORC_BYTE: k += pm_orcw_brle_pos(&c->bdata, p + k); break;
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: k += pm_orcw_irle_pos(&c->idata, p + k); break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: k += pm_orcw_stream_pos(&c->s[S_DATA], p + k); break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      if (c->smode == SMODE_DIRECT) {
        k += pm_orcw_stream_pos(&c->s[S_DATA], p + k);
        k += pm_orcw_irle_pos(&c->ilen, p + k);
      } else {
        e->deferred = true;
        e->values = c->rows.len / 4;
      }
      break;
    case PM_ORC_BINARY:
      k += pm_orcw_stream_pos(&c->s[S_DATA], p + k);
      k += pm_orcw_irle_pos(&c->ilen, p + k);
      break;
    case PM_ORC_DECIMAL:
      k += pm_orcw_stream_pos(&c->s[S_DATA], p + k);
      k += pm_orcw_irle_pos(&c->isec, p + k);
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      k += pm_orcw_irle_pos(&c->idata, p + k);
      k += pm_orcw_irle_pos(&c->isec, p + k);
      break;
    case PM_ORC_LIST:
    case PM_ORC_MAP: k += pm_orcw_irle_pos(&c->ilen, p + k); break;
    default: break;
  }
  e->nval = (uint8_t)(k - e->npres);
}

/* ---- string dictionary ------------------------------------------------------------------- */

static inline const uint64_t *koffs(const ocol *c) {
  return (const uint64_t *)(const void *)c->koff.data;
}

static int dict_grow(ocol *c) {
  uint32_t n = c->nslots ? c->nslots * 2 : 1024;
  if (pm_buf_resize(&c->slots, (size_t)n * 4) != 0) return PAIMON_ENOMEM;
  uint32_t *sl = (uint32_t *)(void *)c->slots.data;
  memset(sl, 0, (size_t)n * 4);
  c->nslots = n;
  const uint64_t *off = koffs(c);
  for (uint32_t id = 0; id < c->nkeys; id++) {
    uint64_t h = pm_hash_bytes64(c->keys.data + off[id], (size_t)(off[id + 1] - off[id]));
    uint32_t i = (uint32_t)h & (n - 1);
    while (sl[i]) i = (i + 1) & (n - 1);
    sl[i] = id + 1;
  }
  return 0;
}

static int dict_add(ocol *c, const uint8_t *p, size_t n) {
  if ((uint64_t)(c->nkeys + 1) * 2 > c->nslots) PM_TRY(dict_grow(c));
  if (c->koff.len == 0) {
    uint64_t z = 0;
    if (pm_buf_append(&c->koff, &z, 8) != 0) return PAIMON_ENOMEM;
  }
  uint32_t *sl = (uint32_t *)(void *)c->slots.data;
  uint32_t mask = c->nslots - 1;
  uint32_t i = (uint32_t)pm_hash_bytes64(p, n) & mask;
  const uint64_t *off = koffs(c);
  uint32_t id;
  for (;;) {
    uint32_t s = sl[i];
    if (s == 0) {
      id = c->nkeys;
      uint64_t end = off[id] + n;
      if (pm_buf_append(&c->keys, p, n) != 0 || pm_buf_append(&c->koff, &end, 8) != 0)
        return PAIMON_ENOMEM;
      sl[i] = id + 1;
      c->nkeys++;
      break;
    }
    s--;
    if (off[s + 1] - off[s] == n && (n == 0 || memcmp(c->keys.data + off[s], p, n) == 0)) {
      id = s;
      break;
    }
    i = (i + 1) & mask;
  }
  return pm_buf_append(&c->rows, &id, 4) == 0 ? 0 : PAIMON_ENOMEM;
}

static void dict_clear(ocol *c) {
  pm_buf_clear(&c->keys);
  pm_buf_clear(&c->koff);
  pm_buf_clear(&c->rows);
  if (c->nslots) memset(c->slots.data, 0, (size_t)c->nslots * 4);
  c->nkeys = 0;
}

static int key_cmp(const ocol *c, uint32_t a, uint32_t b) {
  const uint64_t *off = koffs(c);
  return pm_orcw_bytes_cmp(c->keys.data + off[a], (size_t)(off[a + 1] - off[a]),
                           c->keys.data + off[b], (size_t)(off[b + 1] - off[b]));
}

static inline bool key_less(const ocol *c, uint32_t a, uint32_t b) { return key_cmp(c, a, b) < 0; }

/* Dictionary ids by key bytes (the keys are distinct, so any order-correct sort would do;
 * ORC Java's StringRedBlackTree visits them in this order). */
PM_STABLE_SORT_DEFINE(sort_ids, uint32_t, const ocol, key_less)

/* Fills the deferred value positions of the row-index entries whose group starts at
 * value `i`. `*next` walks the entries in order. */
static void fill_positions(ocol *c, uint64_t i, uint32_t *next, bool dict) {
  while (*next < c->nri) {
    ri_entry *e = &c->ri[*next];
    if (!e->deferred) {
      (*next)++;
      continue;
    }
    if (e->values != i) break;
    int k = e->npres;
    if (dict) {
      k += pm_orcw_irle_pos(&c->idata, e->pos + k);
    } else {
      k += pm_orcw_stream_pos(&c->s[S_DATA], e->pos + k);
      k += pm_orcw_irle_pos(&c->ilen, e->pos + k);
    }
    e->nval = (uint8_t)(k - e->npres);
    e->deferred = false;
    (*next)++;
  }
}

/* Writes the buffered strings: as a sorted dictionary (DICTIONARY_DATA + LENGTH, DATA
 * = sorted ids) or directly (DATA bytes + LENGTH). */
int pm_orcw_emit_buffered(ocol *c, bool dict) {
  uint64_t nrows = c->rows.len / 4;
  const uint32_t *rows = (const uint32_t *)(const void *)c->rows.data;
  const uint64_t *off = koffs(c);
  uint32_t next = 0;
  if (dict) {
    uint32_t n = c->nkeys;
    if (pm_buf_resize(&c->tmp, (size_t)(n ? n : 1) * 8) != 0 ||
        pm_buf_resize(&c->tmp2, (size_t)(n ? n : 1) * 4) != 0)
      return PAIMON_ENOMEM;
    uint32_t *order = (uint32_t *)(void *)c->tmp.data, *scratch = order + n;
    uint32_t *rank = (uint32_t *)(void *)c->tmp2.data;
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    sort_ids(c, order, scratch, n);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t id = order[i];
      rank[id] = i;
      size_t len = (size_t)(off[id + 1] - off[id]);
      pm_orcw_stream_write(&c->s[S_DICT], c->keys.data + off[id], len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
    }
    for (uint64_t i = 0; i < nrows; i++) {
      fill_positions(c, i, &next, true);
      pm_orcw_irle_put(&c->idata, rank[rows[i]]);
    }
    fill_positions(c, nrows, &next, true);
    c->dict_size = n;
  } else {
    for (uint64_t i = 0; i < nrows; i++) {
      fill_positions(c, i, &next, false);
      uint32_t id = rows[i];
      size_t len = (size_t)(off[id + 1] - off[id]);
      pm_orcw_stream_write(&c->s[S_DATA], c->keys.data + off[id], len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
    }
    fill_positions(c, nrows, &next, false);
  }
  dict_clear(c);
  return 0;
}

/* ORC Java's check: dictionary while distinct keys / values <= 0.8 (in float). */
static bool want_dict(const ocol *c) {
  uint64_t nrows = c->rows.len / 4;
  float ratio = nrows > 0 ? (float)c->nkeys / (float)nrows : 0.0f;
  return (double)ratio <= DICT_THRESHOLD;
}

int pm_orcw_decide_strings(ocol *c) {
  c->decided = true;
  if (want_dict(c)) {
    c->smode = SMODE_DICT;
    return 0;
  }
  c->smode = SMODE_DIRECT;
  return pm_orcw_emit_buffered(c, false);
}

/* ---- writing values ------------------------------------------------------------------------ */

static inline bool bit_at(const uint8_t *vb, int64_t j) { return (vb[j >> 3] >> (j & 7)) & 1; }

/* Validity bitmap of `a` or NULL when every value is valid. */
static inline const uint8_t *validity(const struct ArrowArray *a) {
  return a->null_count != 0 ? (const uint8_t *)a->buffers[0] : NULL;
}

static inline int64_t load_int(const void *buf, int width, int64_t j) {
  switch (width) {
    case 1: return ((const int8_t *)buf)[j];
    case 2: return ((const int16_t *)buf)[j];
    case 4: return ((const int32_t *)buf)[j];
    default: return ((const int64_t *)buf)[j];
  }
}

static void write_ints(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                       int64_t n) {
  const void *buf = a->buffers[1];
  ostats *s = &c->rg;
  int w = c->width;
  bool date = c->kind == PM_ORC_DATE, byte = c->kind == PM_ORC_BYTE;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    int64_t x = load_int(buf, w, j);
    if (date) pm_orcw_stat_date(s, x);
    else pm_orcw_stat_int(s, x);
    if (byte) pm_orcw_brle_put(&c->bdata, (uint8_t)x);
    else pm_orcw_irle_put(&c->idata, x);
  }
}

static void write_bools(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                        int64_t n) {
  const uint8_t *buf = a->buffers[1];
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    int b = bit_at(buf, j);
    c->rg.trues += (uint64_t)b;
    pm_orcw_bits_put(&c->bits, b);
  }
}

static void write_floats(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                         int64_t n) {
  size_t w = c->kind == PM_ORC_FLOAT ? 4 : 8;
  const uint8_t *buf = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + off) * w;
  if (!vb) pm_orcw_stream_write(&c->s[S_DATA], buf, (size_t)n * w);
  for (int64_t i = 0; i < n; i++) {
    if (vb && !bit_at(vb, a->offset + off + i)) continue;
    const uint8_t *p = buf + (size_t)i * w;
    double x;
    if (w == 4) {
      float f;
      memcpy(&f, p, 4);
      x = f;
    } else {
      memcpy(&x, p, 8);
    }
    pm_orcw_stat_double(&c->rg, x);
    if (vb) pm_orcw_stream_write(&c->s[S_DATA], p, w);
  }
}

static void put_varint128(pm_orcw_stream *s, i128 z) {
  uint8_t b[20];
  size_t k = 0;
  while (z.hi != 0 || z.lo >= 0x80) {
    b[k++] = (uint8_t)(z.lo | 0x80);
    z.lo = (z.lo >> 7) | (z.hi << 57);
    z.hi >>= 7;
  }
  b[k++] = (uint8_t)z.lo;
  pm_orcw_stream_write(s, b, k);
}

/* DATA: zigzag varint of the unscaled value with trailing zeros removed (HiveDecimal's
 * normalized form), SECONDARY: that value's scale. */
static void write_decimals(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                           int64_t n) {
  const uint8_t *buf = a->buffers[1];
  int scale = c->type->scale;
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    i128 v = {pm_load_le64(buf + j * 16), pm_load_le64(buf + j * 16 + 8)};
    pm_orcw_stat_decimal(&c->rg, v);
    int sc = scale;
    bool neg = pm_orcw_i128_neg(v);
    if (v.hi == (neg ? UINT64_MAX : 0) && (v.lo >> 63) == (neg ? 1u : 0u)) { /* fits int64 */
      int64_t x = (int64_t)v.lo;
      while (sc > 0 && x != 0 && x % 10 == 0) {
        x /= 10;
        sc--;
      }
      if (x == 0) sc = 0;
      uint8_t b[10];
      pm_orcw_stream_write(&c->s[S_DATA], b, pm_varint_enc(b, pm_zigzag_enc(x)));
    } else {
      i128 m = neg ? pm_orcw_i128_negate(v) : v;
      for (;;) {
        if (sc == 0) break;
        i128 q = m;
        if (pm_orcw_u128_div10(&q) != 0) break;
        m = q;
        sc--;
      }
      /* zigzag: 2m for positive, 2m - 1 for negative */
      i128 z = {m.lo << 1, (m.hi << 1) | (m.lo >> 63)};
      if (neg) z = pm_orcw_i128_add(z, (i128){UINT64_MAX, UINT64_MAX});
      put_varint128(&c->s[S_DATA], z);
    }
    pm_orcw_irle_put(&c->isec, sc);
  }
}

static inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* SECONDARY nanos: value << 3, or with z >= 2 trailing decimal zeros (nanos/10^z) << 3
 * | (z - 1) (ORC Java's formatNanos). */
static inline uint64_t format_nanos(int64_t nanos) {
  if (nanos == 0) return 0;
  if (nanos % 100 != 0) return (uint64_t)nanos << 3;
  nanos /= 100;
  int z = 1;
  while (nanos % 10 == 0 && z < 7) {
    nanos /= 10;
    z++;
  }
  return ((uint64_t)nanos << 3) | (uint64_t)z;
}

/* As ORC Java with the JVM zone UTC: the java.sql.Timestamp (floor millis `time`, nanos
 * of second) gives DATA = trunc(time / 1000) - 2015-01-01 and statistics in millis
 * (with Java's adjustment for negative times). */
static void write_timestamps(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                             int64_t n) {
  const int64_t *buf = a->buffers[1];
  for (int64_t i = 0; i < n; i++) {
    int64_t j = a->offset + off + i;
    if (vb && !bit_at(vb, j)) continue;
    int64_t v = buf[j], time_ms, nanos;
    if (c->unit == 0) {
      time_ms = v;
      nanos = (v - floor_div(v, 1000) * 1000) * 1000000;
    } else if (c->unit == 1) {
      time_ms = floor_div(v, 1000);
      nanos = (v - floor_div(v, 1000000) * 1000000) * 1000;
    } else {
      time_ms = floor_div(v, 1000000);
      nanos = v - floor_div(v, 1000000000) * 1000000000;
    }
    int64_t secs = time_ms / 1000;
    int64_t millis = (int64_t)((uint64_t)secs * 1000u + (uint64_t)(nanos / 1000000));
    if (millis < 0 && nanos > 999999) millis -= 1000;
    pm_orcw_stat_ts(&c->rg, millis, (int32_t)(nanos % 1000000));
    pm_orcw_irle_put(&c->idata, (int64_t)((uint64_t)secs - (uint64_t)ORC_EPOCH_2015));
    pm_orcw_irle_put(&c->isec, (int64_t)format_nanos(nanos));
  }
}

/* Byte length of the first `max` characters of UTF-8 `p` and the character count. */
static size_t utf8_cut(const uint8_t *p, size_t n, int32_t max, int64_t *chars) {
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) {
      if (k == max) {
        *chars = k;
        return i;
      }
      k++;
    }
  }
  *chars = k;
  return n;
}

static int write_strings(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                         int64_t n) {
  const int32_t *offs = a->buffers[1];
  const uint8_t *data = a->buffers[2];
  bool bin = c->kind == PM_ORC_BINARY;
  int64_t first = a->offset + off;
  if (bin && !vb && n > 0) { /* bulk: the bytes of a run of values are contiguous */
    int32_t b0 = offs[first], b1 = offs[first + n];
    if (b1 < b0) return PAIMON_EINVAL;
    pm_orcw_stream_write(&c->s[S_DATA], data + b0, (size_t)(b1 - b0));
    for (int64_t i = 0; i < n; i++)
      pm_orcw_irle_put(&c->ilen, offs[first + i + 1] - offs[first + i]);
    c->rg.ssum += (uint64_t)(b1 - b0);
    return 0;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t j = first + i;
    if (vb && !bit_at(vb, j)) continue;
    int32_t b0 = offs[j], b1 = offs[j + 1];
    if (b1 < b0) return PAIMON_EINVAL;
    const uint8_t *p = data + b0;
    size_t len = (size_t)(b1 - b0);
    if (bin) {
      pm_orcw_stream_write(&c->s[S_DATA], p, len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
      c->rg.ssum += len;
      continue;
    }
    if (c->max_chars >= 0) { /* CHAR pads with spaces, CHAR and VARCHAR truncate */
      int64_t chars;
      size_t cut = utf8_cut(p, len, c->max_chars, &chars);
      if (c->pad && chars < c->max_chars) {
        size_t need = len + (size_t)(c->max_chars - chars);
        if (pm_buf_resize(&c->tmp, need) != 0) return PAIMON_ENOMEM;
        if (len) memcpy(c->tmp.data, p, len);
        memset(c->tmp.data + len, ' ', need - len);
        p = c->tmp.data;
        len = need;
      } else {
        len = cut;
      }
    }
    if (pm_orcw_stat_string(&c->rg, p, len) != 0) return PAIMON_ENOMEM;
    if (c->smode == SMODE_DIRECT) {
      pm_orcw_stream_write(&c->s[S_DATA], p, len);
      pm_orcw_irle_put(&c->ilen, (int64_t)len);
    } else {
      PM_TRY(dict_add(c, p, len));
    }
  }
  return 0;
}

/* Writes the children of the valid rows of a struct, in runs of consecutive rows. */
static int write_struct_children(ocol *c, const struct ArrowArray *a, const uint8_t *vb,
                                 int64_t off, int64_t n) {
  if (a->n_children != c->nchild) return PAIMON_EINVAL;
  int64_t i = 0;
  while (i < n) {
    int64_t start = i;
    if (vb) {
      while (start < n && !bit_at(vb, a->offset + off + start)) start++;
      i = start;
      while (i < n && bit_at(vb, a->offset + off + i)) i++;
    } else {
      i = n;
    }
    if (i > start)
      for (int32_t k = 0; k < c->nchild; k++)
        PM_TRY(pm_orcw_col_write(&c->child[k], a->children[k], a->offset + off + start, i - start));
  }
  return 0;
}

/* LIST/MAP: LENGTH of each valid row, then the children of the valid rows in runs of
 * contiguous element ranges. */
static int write_lists(ocol *c, const struct ArrowArray *a, const uint8_t *vb, int64_t off,
                       int64_t n) {
  const int32_t *offs = a->buffers[1];
  if (a->n_children != 1) return PAIMON_EINVAL;
  const struct ArrowArray *ch = a->children[0];
  if (c->kind == PM_ORC_MAP && ch->n_children != 2) return PAIMON_EINVAL;
  int64_t run_b = 0, run_n = 0;
  for (int64_t i = 0; i <= n; i++) {
    bool flush = i == n;
    int64_t b = 0, len = 0;
    if (!flush) {
      int64_t j = a->offset + off + i;
      if (vb && !bit_at(vb, j)) continue;
      b = offs[j];
      len = (int64_t)offs[j + 1] - b;
      if (len < 0) return PAIMON_EINVAL;
      pm_orcw_irle_put(&c->ilen, len);
      pm_orcw_stat_len(&c->rg, (uint64_t)len);
      if (run_n == 0) {
        run_b = b;
        run_n = len;
        continue;
      }
      if (run_b + run_n == b) {
        run_n += len;
        continue;
      }
    }
    if (run_n > 0) {
      if (c->kind == PM_ORC_LIST) {
        PM_TRY(pm_orcw_col_write(&c->child[0], ch, run_b, run_n));
      } else {
        PM_TRY(pm_orcw_col_write(&c->child[0], ch->children[0], ch->offset + run_b, run_n));
        PM_TRY(pm_orcw_col_write(&c->child[1], ch->children[1], ch->offset + run_b, run_n));
      }
    }
    run_b = b;
    run_n = len;
  }
  return 0;
}

/* Writes rows [off, off + n) of `a` (indexes before a->offset) to column c. */
int pm_orcw_col_write(ocol *c, const struct ArrowArray *a, int64_t off, int64_t n) {
  if (n <= 0) return 0;
  if (off < 0 || n > a->length || off > a->length - n) return PAIMON_EINVAL;
  const uint8_t *vb = validity(a);
  int64_t nonnull = n;
  if (!vb) {
    pm_orcw_bits_fill(&c->present, 1, n);
  } else {
    nonnull = 0;
    for (int64_t i = 0; i < n; i++) {
      int b = bit_at(vb, a->offset + off + i);
      nonnull += b;
      pm_orcw_bits_put(&c->present, b);
    }
    if (nonnull == n) vb = NULL;
  }
  c->rg.count += (uint64_t)nonnull;
  if (nonnull != n) {
    c->rg.has_null = true;
    c->found_nulls = true;
  }
  switch (c->kind) {
    case PM_ORC_BOOLEAN: write_bools(c, a, vb, off, n); return 0;
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: write_ints(c, a, vb, off, n); return 0;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: write_floats(c, a, vb, off, n); return 0;
    case PM_ORC_DECIMAL: write_decimals(c, a, vb, off, n); return 0;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT: write_timestamps(c, a, vb, off, n); return 0;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY: return write_strings(c, a, vb, off, n);
    case PM_ORC_STRUCT: return write_struct_children(c, a, vb, off, n);
    case PM_ORC_LIST:
    case PM_ORC_MAP: return write_lists(c, a, vb, off, n);
    default: return PAIMON_EUNSUPPORTED;
  }
}
