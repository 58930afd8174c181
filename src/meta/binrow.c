/* meta/binrow.c: Paimon BinaryRow / BinaryArray / BinaryMap decoding into Arrow builders
 * and encoding from Arrow arrays (format-metadata.md §5), and fixed-bucket hashing (§6). */
#include <stdlib.h>

#include "meta/meta.h"

#define MAX_ARITY (1 << 20)

static inline int64_t null_bits_bytes(int64_t arity) { return ((arity + 63 + 8) / 64) * 8; }

/* Element width inside a BinaryArray (Java BinaryArray.calculateFixLengthPartSize). */
static int elem_size(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN:
    case PM_TINYINT: return 1;
    case PM_SMALLINT: return 2;
    case PM_INT:
    case PM_FLOAT:
    case PM_DATE:
    case PM_TIME: return 4;
    default: return 8;
  }
}

static bool dec_compact(const pm_type *t) { return t->precision <= 18; }
static bool ts_compact(const pm_type *t) { return t->precision <= 3; }

int pm_binrow_view(pm_binrow *out, const uint8_t *bytes, size_t len, paimon_error *err) {
  if (len < 4) return pm_fail(err, PAIMON_ECORRUPT, "BinaryRow of %zu bytes has no arity", len);
  if (len - 4 > INT32_MAX)
    return pm_fail(err, PAIMON_ECORRUPT, "BinaryRow of %zu bytes is too large", len);
  int32_t arity = (int32_t)pm_load_be32(bytes);
  if (arity < 0 || arity > MAX_ARITY)
    return pm_fail(err, PAIMON_ECORRUPT, "BinaryRow arity %d is out of range", (int)arity);
  int64_t need = null_bits_bytes(arity) + 8 * (int64_t)arity;
  if ((int64_t)(len - 4) < need)
    return pm_fail(err, PAIMON_ECORRUPT, "BinaryRow of arity %d needs %lld bytes, has %zu",
                   (int)arity, (long long)need, len - 4);
  out->row = bytes + 4;
  out->size = (int32_t)(len - 4);
  out->arity = arity;
  return 0;
}

/* ---- decoding ------------------------------------------------------------------- */

static int corrupt(paimon_error *err, const char *what) {
  return pm_fail(err, PAIMON_ECORRUPT, "BinaryRow: %s", what);
}

/* pm_col_append_null also fills the children of a null ROW. */
static int append_null(pm_col *c) { return pm_col_append_null(c); }

/* (offset, length) of a variable-length value referenced by the 8-byte slot, checked
 * against the enclosing region [base, base+size). Inline strings point into the slot. */
static int var_ref(const uint8_t *base, int64_t size, const uint8_t *slot, bool allow_inline,
                   const uint8_t **p, int64_t *n, paimon_error *err) {
  uint64_t v = pm_load_le64(slot);
  if (allow_inline && (v >> 63)) {
    int64_t len = (int64_t)((v >> 56) & 0x7f);
    if (len > 7) return corrupt(err, "inline string longer than 7 bytes");
    *p = slot;
    *n = len;
    return 0;
  }
  uint64_t off = v >> 32, len = v & 0xffffffffu;
  if (off > (uint64_t)size || len > (uint64_t)size - off)
    return pm_fail(err, PAIMON_ECORRUPT,
                   "BinaryRow: variable-length part [%llu, +%llu) outside %lld bytes",
                   (unsigned long long)off, (unsigned long long)len, (long long)size);
  *p = base + off;
  *n = (int64_t)len;
  return 0;
}

static int decode_value(const uint8_t *base, int64_t size, const uint8_t *slot, const pm_type *t,
                        pm_col *dst, int depth, paimon_error *err);

static int decode_row(const uint8_t *p, int64_t n, const pm_type *t, pm_col *dst, int depth,
                      paimon_error *err) {
  int64_t nf = t->nfields;
  int64_t nb = null_bits_bytes(nf);
  if (n < nb + 8 * nf) return corrupt(err, "nested row shorter than its fixed part");
  for (int32_t i = 0; i < t->nfields; i++) {
    int32_t b = i + 8;
    if ((p[b >> 3] >> (b & 7)) & 1) {
      PM_TRY(append_null(&dst->children[i]));
    } else {
      PM_TRY(
          decode_value(p, n, p + nb + 8 * i, t->fields[i].type, &dst->children[i], depth + 1, err));
    }
  }
  return pm_col_append_struct(dst, true);
}

/* Validates a BinaryArray header; returns element count and header size. */
static int array_header(const uint8_t *p, int64_t n, const pm_type *elem, int64_t *count,
                        int64_t *hdr, paimon_error *err) {
  if (n < 4) return corrupt(err, "array shorter than its length prefix");
  int32_t cnt = (int32_t)pm_load_le32(p);
  if (cnt < 0) return corrupt(err, "negative array length");
  int64_t h = 4 + (((int64_t)cnt + 31) / 32) * 4;
  if (h + (int64_t)cnt * elem_size(elem) > n) return corrupt(err, "array elements exceed its size");
  *count = cnt;
  *hdr = h;
  return 0;
}

/* Appends the elements of one BinaryArray to `child`. */
static int decode_array_elems(const uint8_t *p, int64_t n, const pm_type *elem, pm_col *child,
                              int depth, paimon_error *err) {
  int64_t cnt, hdr;
  PM_TRY(array_header(p, n, elem, &cnt, &hdr, err));
  int es = elem_size(elem);
  for (int64_t i = 0; i < cnt; i++) {
    if ((p[4 + (i >> 3)] >> (i & 7)) & 1) {
      PM_TRY(append_null(child));
    } else {
      PM_TRY(decode_value(p, n, p + hdr + i * es, elem, child, depth + 1, err));
    }
  }
  return 0;
}

static int decode_map(const uint8_t *p, int64_t n, const pm_type *t, pm_col *dst, int depth,
                      paimon_error *err) {
  if (n < 4) return corrupt(err, "map shorter than its key-array size");
  int32_t ks = (int32_t)pm_load_le32(p);
  if (ks < 0 || ks > n - 4) return corrupt(err, "map key-array size out of range");
  const uint8_t *kp = p + 4, *vp = p + 4 + ks;
  int64_t kn = ks, vn = n - 4 - ks;
  const pm_type *kt = t->elem;
  pm_type int_nn = {0};
  const pm_type *vt = t->value;
  if (t->id == PM_MULTISET) { /* counts are INT NOT NULL */
    int_nn.id = PM_INT;
    vt = &int_nn;
  }
  int64_t kc, kh, vc, vh;
  PM_TRY(array_header(kp, kn, kt, &kc, &kh, err));
  PM_TRY(array_header(vp, vn, vt, &vc, &vh, err));
  if (kc != vc) return corrupt(err, "map key and value arrays differ in length");
  pm_col *entries = &dst->children[0];
  int kes = elem_size(kt), ves = elem_size(vt);
  for (int64_t i = 0; i < kc; i++) {
    if ((kp[4 + (i >> 3)] >> (i & 7)) & 1) return corrupt(err, "null map key");
    PM_TRY(decode_value(kp, kn, kp + kh + i * kes, kt, &entries->children[0], depth + 1, err));
    if ((vp[4 + (i >> 3)] >> (i & 7)) & 1) {
      PM_TRY(append_null(&entries->children[1]));
    } else {
      PM_TRY(decode_value(vp, vn, vp + vh + i * ves, vt, &entries->children[1], depth + 1, err));
    }
    PM_TRY(pm_col_append_struct(entries, true));
  }
  return pm_col_append_list_end(dst);
}

/* 16-byte LE two's complement from a big-endian two's complement of 1..16 bytes. */
static void be_to_dec128(const uint8_t *p, int64_t n, uint8_t out[16]) {
  uint8_t fill = (p[0] & 0x80) ? 0xff : 0x00;
  memset(out, fill, 16);
  for (int64_t i = 0; i < n; i++) out[i] = p[n - 1 - i];
}

static void i64_to_dec128(int64_t v, uint8_t out[16]) {
  pm_store_le64(out, (uint64_t)v);
  memset(out + 8, v < 0 ? 0xff : 0x00, 8);
}

static int decode_value(const uint8_t *base, int64_t size, const uint8_t *slot, const pm_type *t,
                        pm_col *dst, int depth, paimon_error *err) {
  if (depth > 64) return corrupt(err, "nesting too deep");
  const uint8_t *p;
  int64_t n;
  switch (t->id) {
    case PM_BOOLEAN: return pm_col_append_bool(dst, slot[0] != 0);
    case PM_TINYINT: return pm_col_append_i8(dst, (int8_t)slot[0]);
    case PM_SMALLINT: return pm_col_append_i16(dst, (int16_t)pm_load_le16(slot));
    case PM_INT:
    case PM_DATE:
    case PM_TIME: return pm_col_append_i32(dst, (int32_t)pm_load_le32(slot));
    case PM_BIGINT: return pm_col_append_i64(dst, (int64_t)pm_load_le64(slot));
    case PM_FLOAT: {
      float f;
      memcpy(&f, slot, 4);
      return pm_col_append_f32(dst, f);
    }
    case PM_DOUBLE: {
      double d;
      memcpy(&d, slot, 8);
      return pm_col_append_f64(dst, d);
    }
    case PM_DECIMAL: {
      uint8_t v[16];
      if (dec_compact(t)) {
        i64_to_dec128((int64_t)pm_load_le64(slot), v);
      } else {
        PM_TRY(var_ref(base, size, slot, false, &p, &n, err));
        if (n < 1 || n > 16) return corrupt(err, "decimal of more than 16 bytes");
        be_to_dec128(p, n, v);
      }
      return pm_col_append_dec128(dst, v);
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int64_t ms, nano = 0;
      if (ts_compact(t)) {
        ms = (int64_t)pm_load_le64(slot);
      } else {
        uint64_t v = pm_load_le64(slot);
        uint64_t off = v >> 32;
        nano = (int64_t)(v & 0xffffffffu);
        if (off > (uint64_t)size || (uint64_t)size - off < 8)
          return corrupt(err, "timestamp millis outside the row");
        if (nano > 999999) return corrupt(err, "timestamp nano-of-millisecond above 999999");
        ms = (int64_t)pm_load_le64(base + off);
      }
      int unit = pm_ts_unit(t->precision);
      int64_t mul = unit == 0 ? 1 : unit == 1 ? 1000 : 1000000;
      if (ms > INT64_MAX / mul - 1 || ms < INT64_MIN / mul + 1)
        return corrupt(err, "timestamp out of range");
      int64_t v = ms * mul + (unit == 1 ? nano / 1000 : unit == 2 ? nano : 0);
      return pm_col_append_i64(dst, v);
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB:
      PM_TRY(var_ref(base, size, slot, true, &p, &n, err));
      return pm_col_append_bytes(dst, p, (size_t)n);
    case PM_ROW:
      PM_TRY(var_ref(base, size, slot, false, &p, &n, err));
      return decode_row(p, n, t, dst, depth, err);
    case PM_ARRAY:
      PM_TRY(var_ref(base, size, slot, false, &p, &n, err));
      PM_TRY(decode_array_elems(p, n, t->elem, &dst->children[0], depth, err));
      return pm_col_append_list_end(dst);
    case PM_MAP:
    case PM_MULTISET:
      PM_TRY(var_ref(base, size, slot, false, &p, &n, err));
      return decode_map(p, n, t, dst, depth, err);
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED, "BinaryRow: type %d is not supported", (int)t->id);
  }
}

int pm_binrow_append(const pm_binrow *r, int32_t i, const pm_type *t, pm_col *dst,
                     paimon_error *err) {
  if (i < 0 || i >= r->arity)
    return pm_fail(err, PAIMON_ECORRUPT, "BinaryRow: field %d of a row of arity %d", (int)i,
                   (int)r->arity);
  if (pm_binrow_is_null(r, i)) return append_null(dst);
  int64_t nb = null_bits_bytes(r->arity);
  return decode_value(r->row, r->size, r->row + nb + 8 * (int64_t)i, t, dst, 0, err);
}

/* ---- encoding ------------------------------------------------------------------- */

static int enc_fail(paimon_error *err, const char *what) {
  return pm_fail(err, PAIMON_EINVAL, "BinaryRow build: %s", what);
}

/* Appends `n` bytes to the var part, zero-padded to 8; returns the offset from `start`. */
static int var_append(pm_buf *out, size_t start, const void *p, size_t n, uint64_t *off) {
  size_t rounded = (n + 7) & ~(size_t)7;
  *off = out->len - start;
  if (*off > INT32_MAX || n > INT32_MAX) return PAIMON_ENOMEM;
  size_t at = out->len;
  PM_TRY(pm_buf_resize(out, at + rounded));
  if (n) memcpy(out->data + at, p, n);
  memset(out->data + at + n, 0, rounded - n);
  return 0;
}

static void set_slot(pm_buf *out, size_t slot_at, uint64_t v) {
  pm_store_le64(out->data + slot_at, v);
}

static int encode_value(const struct ArrowArray *a, int64_t i, const pm_type *t, pm_buf *out,
                        size_t start, size_t slot_at, int width, paimon_error *err);

/* Writes a BinaryRow of `t` (no arity prefix) from row i of `cols` at the end of out. */
static int encode_row(const pm_type *t, const struct ArrowArray *const *cols, int64_t i,
                      pm_buf *out, paimon_error *err) {
  size_t start = out->len;
  int64_t nb = null_bits_bytes(t->nfields);
  size_t fixed = (size_t)(nb + 8 * (int64_t)t->nfields);
  PM_TRY(pm_buf_resize(out, start + fixed));
  memset(out->data + start, 0, fixed); /* header 0 = +I */
  for (int32_t f = 0; f < t->nfields; f++) {
    const pm_type *ft = t->fields[f].type;
    size_t slot_at = start + (size_t)nb + 8 * (size_t)f;
    if (!pm_arr_is_valid(cols[f], i)) {
      int32_t b = f + 8;
      out->data[start + (size_t)(b >> 3)] |= (uint8_t)(1u << (b & 7));
      /* Non-compact decimals/timestamps keep their var-part space (Java RowHelper). */
      size_t reserve = 0;
      if (ft->id == PM_DECIMAL && !dec_compact(ft)) reserve = 16;
      if ((ft->id == PM_TIMESTAMP || ft->id == PM_TIMESTAMP_LTZ) && !ts_compact(ft)) reserve = 8;
      if (reserve) {
        static const uint8_t zeros[16] = {0};
        uint64_t off;
        PM_TRY(var_append(out, start, zeros, reserve, &off));
        set_slot(out, slot_at, off << 32);
      }
      continue;
    }
    PM_TRY(encode_value(cols[f], i, ft, out, start, slot_at, 8, err));
  }
  return 0;
}

/* Writes a BinaryArray of elements [b, e) of `child` at the end of out. */
static int encode_array(const struct ArrowArray *child, int64_t b, int64_t e, const pm_type *elem,
                        pm_buf *out, paimon_error *err) {
  size_t start = out->len;
  int64_t cnt = e - b;
  if (cnt < 0 || cnt > INT32_MAX) return enc_fail(err, "bad list offsets");
  int es = elem_size(elem);
  int64_t hdr = 4 + ((cnt + 31) / 32) * 4;
  size_t fixed = (size_t)((hdr + cnt * es + 7) & ~(int64_t)7);
  PM_TRY(pm_buf_resize(out, start + fixed));
  memset(out->data + start, 0, fixed);
  pm_store_le32(out->data + start, (uint32_t)cnt);
  for (int64_t k = 0; k < cnt; k++) {
    if (!pm_arr_is_valid(child, b + k)) {
      out->data[start + 4 + (size_t)(k >> 3)] |= (uint8_t)(1u << (k & 7));
      continue;
    }
    PM_TRY(encode_value(child, b + k, elem, out, start, start + (size_t)(hdr + k * es), es, err));
  }
  return 0;
}

static void dec128_to_be_min(const uint8_t *le, uint8_t *be, size_t *n) {
  /* Java BigInteger.toByteArray: shortest two's complement keeping the sign bit. */
  size_t len = 16;
  while (len > 1) {
    uint8_t top = le[len - 1], next = le[len - 2];
    if ((top == 0x00 && !(next & 0x80)) || (top == 0xff && (next & 0x80))) len--;
    else break;
  }
  for (size_t k = 0; k < len; k++) be[k] = le[len - 1 - k];
  *n = len;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int encode_value(const struct ArrowArray *a, int64_t i, const pm_type *t, pm_buf *out,
                        size_t start, size_t slot_at, int width, paimon_error *err) {
  uint8_t *s;
  uint64_t off;
  switch (t->id) {
    case PM_BOOLEAN: out->data[slot_at] = pm_arr_bool(a, i) ? 1 : 0; return 0;
    case PM_TINYINT: out->data[slot_at] = (uint8_t)PM_ARR_FIXED(a, int8_t, i); return 0;
    case PM_SMALLINT: {
      uint16_t v = (uint16_t)PM_ARR_FIXED(a, int16_t, i);
      memcpy(out->data + slot_at, &v, 2);
      return 0;
    }
    case PM_INT:
    case PM_DATE:
    case PM_TIME:
      pm_store_le32(out->data + slot_at, (uint32_t)PM_ARR_FIXED(a, int32_t, i));
      return 0;
    case PM_FLOAT: memcpy(out->data + slot_at, &PM_ARR_FIXED(a, float, i), 4); return 0;
    case PM_BIGINT: set_slot(out, slot_at, (uint64_t)PM_ARR_FIXED(a, int64_t, i)); return 0;
    case PM_DOUBLE: memcpy(out->data + slot_at, &PM_ARR_FIXED(a, double, i), 8); return 0;
    case PM_DECIMAL: {
      const uint8_t *le = (const uint8_t *)a->buffers[1] + 16 * (a->offset + i);
      if (dec_compact(t)) {
        int64_t lo = (int64_t)pm_load_le64(le);
        set_slot(out, slot_at, (uint64_t)lo);
        return 0;
      }
      uint8_t be[16];
      size_t n;
      dec128_to_be_min(le, be, &n);
      uint8_t buf[16] = {0};
      memcpy(buf, be, n);
      PM_TRY(var_append(out, start, buf, 16, &off));
      set_slot(out, slot_at, (off << 32) | n);
      return 0;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: {
      int64_t v = PM_ARR_FIXED(a, int64_t, i);
      int unit = pm_ts_unit(t->precision);
      int64_t per_ms = unit == 0 ? 1 : unit == 1 ? 1000 : 1000000;
      int64_t ms = floor_div(v, per_ms);
      int64_t nano = (v - ms * per_ms) * (unit == 1 ? 1000 : 1);
      if (ts_compact(t)) {
        set_slot(out, slot_at, (uint64_t)ms);
        return 0;
      }
      uint8_t buf[8];
      pm_store_le64(buf, (uint64_t)ms);
      PM_TRY(var_append(out, start, buf, 8, &off));
      set_slot(out, slot_at, (off << 32) | (uint64_t)nano);
      return 0;
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: {
      int32_t n;
      const uint8_t *p = pm_arr_bytes(a, i, &n);
      if (n < 0) return enc_fail(err, "negative string length");
      if (n <= 7) {
        s = out->data + slot_at;
        memset(s, 0, 8);
        memcpy(s, p, (size_t)n);
        s[7] = (uint8_t)(0x80 | n);
        return 0;
      }
      PM_TRY(var_append(out, start, p, (size_t)n, &off));
      set_slot(out, slot_at, (off << 32) | (uint32_t)n);
      return 0;
    }
    case PM_ROW: {
      off = out->len - start;
      size_t at = out->len;
      PM_TRY(encode_row(t, (const struct ArrowArray *const *)a->children, i + a->offset, out, err));
      set_slot(out, slot_at, (off << 32) | (uint64_t)(out->len - at));
      return 0;
    }
    case PM_ARRAY: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      off = out->len - start;
      size_t at = out->len;
      PM_TRY(encode_array(a->children[0], b, e, t->elem, out, err));
      set_slot(out, slot_at, (off << 32) | (uint64_t)(out->len - at));
      return 0;
    }
    case PM_MAP:
    case PM_MULTISET: {
      int64_t b, e;
      pm_arr_list_range(a, i, &b, &e);
      const struct ArrowArray *ent = a->children[0];
      pm_type int_nn = {0};
      const pm_type *vt = t->value;
      if (t->id == PM_MULTISET) {
        int_nn.id = PM_INT;
        vt = &int_nn;
      }
      off = out->len - start;
      size_t at = out->len;
      PM_TRY(pm_buf_resize(out, at + 4));
      PM_TRY(encode_array(ent->children[0], b + ent->offset, e + ent->offset, t->elem, out, err));
      pm_store_le32(out->data + at, (uint32_t)(out->len - at - 4));
      PM_TRY(encode_array(ent->children[1], b + ent->offset, e + ent->offset, vt, out, err));
      size_t size = out->len - at;
      PM_TRY(pm_buf_resize(out, at + ((size + 7) & ~(size_t)7))); /* pad (zero-filled) */
      set_slot(out, slot_at, (off << 32) | (uint64_t)size);
      return 0;
    }
    default:
      (void)width;
      return pm_fail(err, PAIMON_EUNSUPPORTED, "BinaryRow build: type %d is not supported",
                     (int)t->id);
  }
}

int pm_binrow_build(const pm_type *row_type, const struct ArrowArray *const *cols, int64_t row,
                    bool with_arity, pm_buf *out, paimon_error *err) {
  pm_buf_clear(out);
  if (row_type->id != PM_ROW) return enc_fail(err, "type is not a ROW");
  if (with_arity) {
    PM_TRY(pm_buf_resize(out, 4));
    pm_store_be32(out->data, (uint32_t)row_type->nfields);
  }
  int rc = encode_row(row_type, cols, row, out, err);
  if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "BinaryRow build: out of memory");
  return rc;
}

int32_t pm_bucket_of_row(const uint8_t *row, size_t len, int32_t num_buckets) {
  if (num_buckets <= 0) return 0;
  int32_t h = pm_murmur3_32(row, len, 42);
  int32_t m = h % num_buckets;
  return m < 0 ? -m : m;
}

/* ---- scalar accessors ----------------------------------------------------------- */

static const uint8_t *slot_of(const pm_binrow *r, int32_t i) {
  return r->row + null_bits_bytes(r->arity) + 8 * (int64_t)i;
}

int64_t pm_binrow_get_int(const pm_binrow *r, int32_t i, const pm_type *t) {
  const uint8_t *s = slot_of(r, i);
  switch (t->id) {
    case PM_BOOLEAN: return s[0] != 0;
    case PM_TINYINT: return (int8_t)s[0];
    case PM_SMALLINT: return (int16_t)pm_load_le16(s);
    case PM_INT:
    case PM_DATE:
    case PM_TIME: return (int32_t)pm_load_le32(s);
    default: return (int64_t)pm_load_le64(s);
  }
}

double pm_binrow_get_double(const pm_binrow *r, int32_t i, const pm_type *t) {
  const uint8_t *s = slot_of(r, i);
  if (t->id == PM_FLOAT) {
    float f;
    memcpy(&f, s, 4);
    return f;
  }
  double d;
  memcpy(&d, s, 8);
  return d;
}

int pm_binrow_get_bytes(const pm_binrow *r, int32_t i, const uint8_t **p, int32_t *n,
                        paimon_error *err) {
  int64_t len = 0;
  PM_TRY(var_ref(r->row, r->size, slot_of(r, i), true, p, &len, err));
  *n = (int32_t)len;
  return 0;
}

int pm_binrow_get_decimal(const pm_binrow *r, int32_t i, const pm_type *t, uint8_t out[16],
                          paimon_error *err) {
  const uint8_t *s = slot_of(r, i), *p;
  if (dec_compact(t)) {
    i64_to_dec128((int64_t)pm_load_le64(s), out);
    return 0;
  }
  int64_t n;
  PM_TRY(var_ref(r->row, r->size, s, false, &p, &n, err));
  if (n < 1 || n > 16) return corrupt(err, "decimal of more than 16 bytes");
  be_to_dec128(p, n, out);
  return 0;
}

int pm_binrow_get_timestamp(const pm_binrow *r, int32_t i, const pm_type *t, int64_t *millis,
                            int32_t *nano_of_milli, paimon_error *err) {
  const uint8_t *s = slot_of(r, i);
  if (ts_compact(t)) {
    *millis = (int64_t)pm_load_le64(s);
    *nano_of_milli = 0;
    return 0;
  }
  uint64_t v = pm_load_le64(s), off = v >> 32, nano = v & 0xffffffffu;
  if (off > (uint64_t)r->size || (uint64_t)r->size - off < 8)
    return corrupt(err, "timestamp millis outside the row");
  if (nano > 999999) return corrupt(err, "timestamp nano-of-millisecond above 999999");
  *millis = (int64_t)pm_load_le64(r->row + off);
  *nano_of_milli = (int32_t)nano;
  return 0;
}
