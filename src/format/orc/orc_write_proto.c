/* format/orc/orc_write_proto.c: protobuf wire encoding for the ORC writer's metadata
 * (PostScript, Footer, StripeFooter, RowIndex, statistics). Fields are appended in the
 * order the caller writes them; ORC readers accept any order, and the writer emits
 * them by increasing field number as protobuf-java does. */
#include "format/orc/orc_write.h"

static inline void put_raw(pm_pbw *w, const void *p, size_t n) {
  if (w->rc == 0 && pm_buf_append(w->b, p, n) != 0) w->rc = PAIMON_ENOMEM;
}

static inline void put_varint(pm_pbw *w, uint64_t v) {
  uint8_t tmp[10];
  put_raw(w, tmp, pm_varint_enc(tmp, v));
}

static inline void put_tag(pm_pbw *w, uint32_t field, int wire) {
  put_varint(w, ((uint64_t)field << 3) | (uint64_t)wire);
}

void pm_pbw_varint(pm_pbw *w, uint32_t field, uint64_t v) {
  put_tag(w, field, 0);
  put_varint(w, v);
}

void pm_pbw_sint(pm_pbw *w, uint32_t field, int64_t v) {
  pm_pbw_varint(w, field, pm_zigzag_enc(v));
}

void pm_pbw_double(pm_pbw *w, uint32_t field, double v) {
  uint8_t tmp[8];
  uint64_t bits;
  memcpy(&bits, &v, 8);
  pm_store_le64(tmp, bits);
  put_tag(w, field, 1);
  put_raw(w, tmp, 8);
}

void pm_pbw_bytes(pm_pbw *w, uint32_t field, const void *p, size_t n) {
  put_tag(w, field, 2);
  put_varint(w, n);
  if (n) put_raw(w, p, n);
}

void pm_pbw_str(pm_pbw *w, uint32_t field, const char *s) { pm_pbw_bytes(w, field, s, strlen(s)); }

void pm_pbw_packed(pm_pbw *w, uint32_t field, const uint64_t *v, size_t n) {
  if (n == 0) return; /* an empty packed field is simply absent */
  size_t len = 0;
  uint8_t tmp[10];
  for (size_t i = 0; i < n; i++) len += pm_varint_enc(tmp, v[i]);
  put_tag(w, field, 2);
  put_varint(w, len);
  if (w->rc == 0 && pm_buf_reserve(w->b, len) != 0) w->rc = PAIMON_ENOMEM;
  if (w->rc != 0) return;
  for (size_t i = 0; i < n; i++) w->b->len += pm_varint_enc(w->b->data + w->b->len, v[i]);
}

size_t pm_pbw_begin(pm_pbw *w, uint32_t field) {
  put_tag(w, field, 2);
  static const uint8_t zero[5] = {0, 0, 0, 0, 0};
  put_raw(w, zero, 5);
  return w->b->len; /* body starts here; the 5 reserved bytes precede it */
}

void pm_pbw_end(pm_pbw *w, size_t mark) {
  if (w->rc != 0) return;
  size_t body = w->b->len - mark;
  uint8_t tmp[10];
  size_t k = pm_varint_enc(tmp, body);
  uint8_t *start = w->b->data + mark - 5;
  memcpy(start, tmp, k);
  if (k < 5) memmove(start + k, w->b->data + mark, body);
  w->b->len -= 5 - k;
}
