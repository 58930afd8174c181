/* format/orc/orc_read_proto.c: a small protobuf decoder for ORC's PostScript, Footer,
 * Metadata and StripeFooter messages (field numbers from ORC's orc_proto.proto), and the
 * ORC compression chunk framing. */
#include "format/orc/orc_read.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int pm_pb_next(pm_pb *m, pm_pb_field *f) {
  if (m->p >= m->end) return 0;
  uint64_t key;
  if (pm_varint_dec(&m->p, m->end, &key) != 0) return -1;
  if ((key >> 3) == 0 || (key >> 3) > UINT32_MAX) return -1;
  f->num = (uint32_t)(key >> 3);
  f->wire = (int)(key & 7);
  f->v = 0;
  f->ptr = NULL;
  f->len = 0;
  switch (f->wire) {
    case 0:
      if (pm_varint_dec(&m->p, m->end, &f->v) != 0) return -1;
      return 1;
    case 1:
      if (m->end - m->p < 8) return -1;
      f->v = pm_load_le64(m->p);
      m->p += 8;
      return 1;
    case 5:
      if (m->end - m->p < 4) return -1;
      f->v = pm_load_le32(m->p);
      m->p += 4;
      return 1;
    case 2: {
      uint64_t n;
      if (pm_varint_dec(&m->p, m->end, &n) != 0) return -1;
      if (n > (uint64_t)(m->end - m->p)) return -1;
      f->ptr = m->p;
      f->len = (size_t)n;
      m->p += n;
      return 1;
    }
    default: return -1; /* groups (3, 4) are not used by ORC */
  }
}

static pm_pb pb_of(const uint8_t *p, size_t n) {
  pm_pb m = {p, p + n};
  return m;
}

static int corrupt(paimon_error *err, const char *path, const char *what) {
  return pm_fail(err, PAIMON_ECORRUPT, "%s: malformed ORC %s", path, what);
}

/* Counts the values of a repeated uint field (packed or not). */
static int count_packed(const pm_pb_field *f, uint32_t *n) {
  if (f->wire == 0) {
    (*n)++;
    return 0;
  }
  if (f->wire != 2) return -1;
  pm_pb m = pb_of(f->ptr, f->len);
  uint64_t v;
  while (m.p < m.end) {
    if (pm_varint_dec(&m.p, m.end, &v) != 0) return -1;
    (*n)++;
  }
  return 0;
}

static int read_packed(const pm_pb_field *f, uint32_t *out, uint32_t *i, uint32_t cap) {
  if (f->wire == 0) {
    if (*i >= cap || f->v > UINT32_MAX) return -1;
    out[(*i)++] = (uint32_t)f->v;
    return 0;
  }
  pm_pb m = pb_of(f->ptr, f->len);
  uint64_t v;
  while (m.p < m.end) {
    if (pm_varint_dec(&m.p, m.end, &v) != 0 || *i >= cap || v > UINT32_MAX) return -1;
    out[(*i)++] = (uint32_t)v;
  }
  return 0;
}

/* ---- PostScript ------------------------------------------------------------------- */

int pm_orc_parse_postscript(const uint8_t *ps, size_t n, pm_orc_tail *t, const char *path,
                            paimon_error *err) {
  pm_pb m = pb_of(ps, n);
  pm_pb_field f;
  int r;
  bool magic = false;
  t->block_size = 256 * 1024;
  t->compression = 0;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    switch (f.num) {
      case 1: t->footer_len = f.v; break;
      case 2: t->compression = f.v > 100 ? 100 : (int)f.v; break;
      case 3: t->block_size = f.v; break;
      case 5: t->metadata_len = f.v; break;
      case 8000: magic = f.wire == 2 && f.len == 3 && memcmp(f.ptr, "ORC", 3) == 0; break;
      default: break;
    }
  }
  if (r < 0) return corrupt(err, path, "postscript");
  if (!magic) return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC postscript lacks the ORC magic", path);
  if (t->compression != 0 && (t->block_size == 0 || t->block_size > ((uint64_t)1 << 24)))
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC compression block size %llu out of range", path,
                   (unsigned long long)t->block_size);
  return 0;
}

/* ---- Footer ----------------------------------------------------------------------- */

static int parse_type(const uint8_t *p, size_t n, pm_orc_ftype *ty) {
  pm_pb m = pb_of(p, n);
  pm_pb_field f;
  int r;
  uint32_t nsub = 0, nnames = 0;
  ty->kind = -1;
  ty->paimon_id = -1;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.num == 2) {
      if (count_packed(&f, &nsub) != 0) return -1;
    } else if (f.num == 3) {
      if (f.wire != 2) return -1;
      nnames++;
    }
  }
  if (r < 0) return -1;
  if (nsub > 0) {
    ty->sub = pm_calloc(nsub, sizeof(uint32_t));
    if (!ty->sub) return PAIMON_ENOMEM;
  }
  if (nnames > 0) {
    ty->names = pm_calloc(nnames, sizeof(char *));
    if (!ty->names) return PAIMON_ENOMEM;
  }
  uint32_t si = 0, ni = 0;
  m = pb_of(p, n);
  while ((r = pm_pb_next(&m, &f)) > 0) {
    switch (f.num) {
      case 1: ty->kind = f.v < PM_ORC_KIND_MAX ? (int)f.v : -1; break;
      case 2:
        if (read_packed(&f, ty->sub, &si, nsub) != 0) return -1;
        break;
      case 3:
        ty->names[ni] = pm_strndup((const char *)f.ptr, f.len);
        if (!ty->names[ni]) return PAIMON_ENOMEM;
        ty->nnames = ++ni;
        break;
      case 4: ty->max_len = f.v > UINT32_MAX ? UINT32_MAX : (uint32_t)f.v; break;
      case 5: ty->precision = f.v > 1000 ? 1000 : (uint32_t)f.v; break;
      case 6: ty->scale = f.v > 1000 ? 1000 : (uint32_t)f.v; break;
      case 7: {
        if (f.wire != 2) return -1;
        pm_pb a = pb_of(f.ptr, f.len);
        pm_pb_field g;
        const uint8_t *k = NULL, *v = NULL;
        size_t kl = 0, vl = 0;
        int ra;
        while ((ra = pm_pb_next(&a, &g)) > 0) {
          if (g.num == 1 && g.wire == 2) k = g.ptr, kl = g.len;
          if (g.num == 2 && g.wire == 2) v = g.ptr, vl = g.len;
        }
        if (ra < 0) return -1;
        if (k && v && kl == 9 && memcmp(k, "paimon.id", 9) == 0 && vl > 0 && vl < 12) {
          char tmp[16];
          memcpy(tmp, v, vl);
          tmp[vl] = 0;
          char *e;
          long long id = strtoll(tmp, &e, 10);
          if (*e == 0 && id >= 0 && id <= INT32_MAX) ty->paimon_id = id;
        }
        break;
      }
      default: break;
    }
  }
  if (r < 0 || ty->kind < 0) return -1;
  ty->nsub = nsub;
  if (ty->kind == PM_ORC_STRUCT && ni != nsub) return -1;
  return 0;
}

static int parse_stripe_info(const uint8_t *p, size_t n, pm_orc_stripe_info *s) {
  pm_pb m = pb_of(p, n);
  pm_pb_field f;
  int r;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    switch (f.num) {
      case 1: s->offset = f.v; break;
      case 2: s->index_len = f.v; break;
      case 3: s->data_len = f.v; break;
      case 4: s->footer_len = f.v; break;
      case 5: s->rows = f.v; break;
      default: break;
    }
  }
  return r < 0 ? -1 : 0;
}

int pm_orc_parse_footer(pm_orc_tail *t, uint64_t file_size, const char *path, paimon_error *err) {
  pm_pb m = pb_of(t->footer.data, t->footer.len);
  pm_pb_field f;
  int r;
  uint32_t nstripes = 0, ntypes = 0;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.num == 3 && f.wire == 2) nstripes++;
    if (f.num == 4 && f.wire == 2) ntypes++;
  }
  if (r < 0) return corrupt(err, path, "footer");
  if (ntypes == 0) return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC footer has no types", path);
  t->stripes = pm_calloc(nstripes ? nstripes : 1, sizeof(*t->stripes));
  t->types = pm_calloc(ntypes, sizeof(*t->types));
  if (!t->stripes || !t->types) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  t->ntypes = ntypes;
  for (uint32_t i = 0; i < ntypes; i++) t->types[i].parent = -1;
  m = pb_of(t->footer.data, t->footer.len);
  uint32_t si = 0, ti = 0;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.num == 3 && f.wire == 2) {
      if (parse_stripe_info(f.ptr, f.len, &t->stripes[si++]) != 0)
        return corrupt(err, path, "stripe information");
    } else if (f.num == 4 && f.wire == 2) {
      int rc = parse_type(f.ptr, f.len, &t->types[ti++]);
      if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "%s: out of memory", path);
      if (rc != 0) return corrupt(err, path, "type");
    } else if (f.num == 6 && f.wire == 0) {
      t->rows = f.v;
    }
  }
  t->nstripes = nstripes;
  /* Types must form a tree in pre-order: each child id is greater than its parent and
   * has exactly one parent; the root is a struct. */
  if (t->types[0].kind != PM_ORC_STRUCT)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC root type is not a struct", path);
  for (uint32_t i = 0; i < ntypes; i++) {
    pm_orc_ftype *ty = &t->types[i];
    uint32_t need = ty->kind == PM_ORC_LIST ? 1 : ty->kind == PM_ORC_MAP ? 2 : ty->nsub;
    if ((ty->kind == PM_ORC_LIST || ty->kind == PM_ORC_MAP) && ty->nsub != need)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC type %u has %u children", path, i, ty->nsub);
    if (ty->kind != PM_ORC_LIST && ty->kind != PM_ORC_MAP && ty->kind != PM_ORC_STRUCT &&
        ty->kind != PM_ORC_UNION && ty->nsub != 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC primitive type %u has children", path, i);
    for (uint32_t k = 0; k < ty->nsub; k++) {
      uint32_t c = ty->sub[k];
      if (c <= i || c >= ntypes || t->types[c].parent >= 0)
        return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC type tree is malformed at type %u", path, i);
      t->types[c].parent = (int32_t)i;
    }
  }
  for (uint32_t i = 1; i < ntypes; i++)
    if (t->types[i].parent < 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC type %u has no parent", path, i);
  uint64_t rows = 0;
  for (uint32_t i = 0; i < nstripes; i++) {
    const pm_orc_stripe_info *s = &t->stripes[i];
    uint64_t end = s->offset;
    if (s->index_len > file_size || s->data_len > file_size || s->footer_len > file_size ||
        (end += s->index_len + s->data_len + s->footer_len) > file_size || end < s->offset ||
        s->offset < 3 || s->footer_len == 0)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC stripe %u exceeds the file (size %llu)", path,
                     i, (unsigned long long)file_size);
    if (s->rows > (uint64_t)INT64_MAX - rows)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC stripe row counts overflow", path);
    rows += s->rows;
  }
  if (nstripes > 0 && rows != t->rows)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC stripes hold %llu rows but the footer says %llu",
                   path, (unsigned long long)rows, (unsigned long long)t->rows);
  if (t->rows > (uint64_t)INT64_MAX)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC row count out of range", path);
  return 0;
}

int pm_orc_parse_metadata(pm_orc_tail *t, const char *path, paimon_error *err) {
  pm_pb m = pb_of(t->meta.data, t->meta.len);
  pm_pb_field f;
  int r;
  uint32_t n = 0;
  while ((r = pm_pb_next(&m, &f)) > 0)
    if (f.num == 1 && f.wire == 2) n++;
  if (r < 0) return corrupt(err, path, "metadata");
  if (n == 0) return 0;
  t->ss_ptr = pm_calloc(n, sizeof(*t->ss_ptr));
  t->ss_len = pm_calloc(n, sizeof(*t->ss_len));
  if (!t->ss_ptr || !t->ss_len) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  m = pb_of(t->meta.data, t->meta.len);
  uint32_t i = 0;
  while (pm_pb_next(&m, &f) > 0)
    if (f.num == 1 && f.wire == 2) {
      t->ss_ptr[i] = f.ptr;
      t->ss_len[i] = f.len;
      i++;
    }
  t->nstripe_stats = n;
  return 0;
}

static int parse_int_pair(const uint8_t *p, size_t n, int64_t *mn, int64_t *mx, bool zig,
                          bool *has) {
  pm_pb m = pb_of(p, n);
  pm_pb_field f;
  int r;
  bool a = false, b = false;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.wire != 0) continue;
    int64_t v = zig ? pm_zigzag_dec(f.v) : (int64_t)f.v;
    if (f.num == 1) *mn = v, a = true;
    if (f.num == 2) *mx = v, b = true;
  }
  *has = a && b;
  return r < 0 ? -1 : 0;
}

static int parse_col_stats(const uint8_t *p, size_t n, pm_orc_stats *st) {
  pm_pb m = pb_of(p, n);
  pm_pb_field f;
  int r;
  memset(st, 0, sizeof(*st));
  st->present = true;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    switch (f.num) {
      case 1:
        if (f.wire == 0) st->values = f.v, st->has_values_count = true;
        break;
      case 2:
        if (f.wire == 2 && parse_int_pair(f.ptr, f.len, &st->imin, &st->imax, true, &st->has_int))
          return -1;
        break;
      case 3: {
        if (f.wire != 2) break;
        pm_pb d = pb_of(f.ptr, f.len);
        pm_pb_field g;
        int rd;
        bool a = false, b = false;
        while ((rd = pm_pb_next(&d, &g)) > 0) {
          if (g.wire != 1) continue;
          double v;
          memcpy(&v, &g.v, 8);
          if (g.num == 1) st->dmin = v, a = true;
          if (g.num == 2) st->dmax = v, b = true;
        }
        if (rd < 0) return -1;
        st->has_dbl = a && b;
        break;
      }
      case 4:
      case 6: {
        if (f.wire != 2) break;
        pm_pb d = pb_of(f.ptr, f.len);
        pm_pb_field g;
        int rd;
        const uint8_t *a = NULL, *b = NULL;
        size_t al = 0, bl = 0;
        while ((rd = pm_pb_next(&d, &g)) > 0) {
          if (g.wire != 2) continue;
          if (g.num == 1) a = g.ptr, al = g.len;
          if (g.num == 2) b = g.ptr, bl = g.len;
        }
        if (rd < 0) return -1;
        if (a && b) {
          if (f.num == 4) {
            st->has_str = true;
            st->smin = a, st->sminlen = al, st->smax = b, st->smaxlen = bl;
          } else {
            st->has_dec = true;
            st->decmin = a, st->decminlen = al, st->decmax = b, st->decmaxlen = bl;
          }
        }
        break;
      }
      case 5: {
        if (f.wire != 2) break;
        pm_pb d = pb_of(f.ptr, f.len);
        pm_pb_field g;
        int rd;
        while ((rd = pm_pb_next(&d, &g)) > 0) {
          if (g.num != 1) continue;
          if (g.wire == 0) {
            st->trues = g.v, st->has_bucket = true;
          } else if (g.wire == 2) {
            pm_pb q = pb_of(g.ptr, g.len);
            uint64_t v;
            if (pm_varint_dec(&q.p, q.end, &v) == 0) st->trues = v, st->has_bucket = true;
          }
        }
        if (rd < 0) return -1;
        break;
      }
      case 7: {
        int64_t a = 0, b = 0;
        bool has = false;
        if (f.wire == 2 && parse_int_pair(f.ptr, f.len, &a, &b, true, &has)) return -1;
        if (has && a >= INT32_MIN && a <= INT32_MAX && b >= INT32_MIN && b <= INT32_MAX) {
          st->has_date = true;
          st->dtmin = (int32_t)a, st->dtmax = (int32_t)b;
        }
        break;
      }
      case 10:
        if (f.wire == 0) st->has_null_flag = true, st->has_null = f.v != 0;
        break;
      default: break;
    }
  }
  return r < 0 ? -1 : 0;
}

int pm_orc_stripe_col_stats(const pm_orc_tail *t, uint32_t s, uint32_t col, pm_orc_stats *st,
                            const char *path, paimon_error *err) {
  memset(st, 0, sizeof(*st));
  if (s >= t->nstripe_stats) return 0;
  pm_pb m = pb_of(t->ss_ptr[s], t->ss_len[s]);
  pm_pb_field f;
  int r;
  uint32_t i = 0;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.num != 1 || f.wire != 2) continue;
    if (i++ == col) {
      if (parse_col_stats(f.ptr, f.len, st) != 0) return corrupt(err, path, "column statistics");
      return 0;
    }
  }
  if (r < 0) return corrupt(err, path, "stripe statistics");
  return 0;
}

void pm_orc_tail_free(pm_orc_tail *t) {
  if (!t) return;
  for (uint32_t i = 0; i < t->ntypes; i++) {
    pm_orc_ftype *ty = &t->types[i];
    if (ty->names)
      for (uint32_t k = 0; k < ty->nnames; k++) pm_free(ty->names[k]);
    pm_free(ty->names);
    pm_free(ty->sub);
  }
  pm_free(t->types);
  pm_free(t->stripes);
  pm_free(t->ss_ptr);
  pm_free(t->ss_len);
  pm_buf_free(&t->footer);
  pm_buf_free(&t->meta);
  memset(t, 0, sizeof(*t));
}

/* ---- StripeFooter ------------------------------------------------------------------ */

void pm_orc_stripe_footer_free(pm_orc_stripe_footer *sf) {
  if (!sf) return;
  pm_free(sf->streams);
  pm_free(sf->enc);
  pm_free(sf->dict_size);
  pm_free(sf->tz);
  memset(sf, 0, sizeof(*sf));
}

int pm_orc_parse_stripe_footer(const uint8_t *p, size_t n, const pm_orc_stripe_info *si,
                               pm_orc_stripe_footer *sf, const char *path, paimon_error *err) {
  pm_orc_stripe_footer_free(sf);
  pm_pb m = pb_of(p, n);
  pm_pb_field f;
  int r;
  uint32_t ns = 0, nc = 0;
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.num == 1 && f.wire == 2) ns++;
    if (f.num == 2 && f.wire == 2) nc++;
  }
  if (r < 0) return corrupt(err, path, "stripe footer");
  sf->streams = pm_calloc(ns ? ns : 1, sizeof(*sf->streams));
  sf->enc = pm_calloc(nc ? nc : 1, sizeof(int));
  sf->dict_size = pm_calloc(nc ? nc : 1, sizeof(uint32_t));
  if (!sf->streams || !sf->enc || !sf->dict_size)
    return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  uint64_t pos = si->offset, limit = si->offset + si->index_len + si->data_len;
  m = pb_of(p, n);
  while ((r = pm_pb_next(&m, &f)) > 0) {
    if (f.num == 1 && f.wire == 2) {
      pm_pb s = pb_of(f.ptr, f.len);
      pm_pb_field g;
      int rs;
      pm_orc_stream_loc *loc = &sf->streams[sf->nstreams++];
      loc->kind = -1;
      while ((rs = pm_pb_next(&s, &g)) > 0) {
        if (g.wire != 0) continue;
        if (g.num == 1) loc->kind = g.v > 1000 ? 1000 : (int)g.v;
        if (g.num == 2) loc->column = g.v > UINT32_MAX ? UINT32_MAX : (uint32_t)g.v;
        if (g.num == 3) loc->len = g.v;
      }
      if (rs < 0) return corrupt(err, path, "stream");
      loc->offset = pos;
      if (loc->len > limit - pos)
        return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC stream of column %u exceeds its stripe", path,
                       loc->column);
      pos += loc->len;
    } else if (f.num == 2 && f.wire == 2) {
      pm_pb s = pb_of(f.ptr, f.len);
      pm_pb_field g;
      int rs;
      uint32_t c = sf->ncols++;
      while ((rs = pm_pb_next(&s, &g)) > 0) {
        if (g.wire != 0) continue;
        if (g.num == 1) sf->enc[c] = g.v > 3 ? -1 : (int)g.v;
        if (g.num == 2) sf->dict_size[c] = g.v > UINT32_MAX ? UINT32_MAX : (uint32_t)g.v;
      }
      if (rs < 0) return corrupt(err, path, "column encoding");
    } else if (f.num == 3 && f.wire == 2 && f.len > 0 && f.len < 256) {
      pm_free(sf->tz);
      sf->tz = pm_strndup((const char *)f.ptr, f.len);
      if (!sf->tz) return pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    }
  }
  return 0;
}

/* ---- compression framing ----------------------------------------------------------- */

static int codec_of(int compression, pm_codec *c) {
  switch (compression) {
    case 1: *c = PM_CODEC_DEFLATE_RAW; return 0;
    case 2: *c = PM_CODEC_SNAPPY; return 0;
    case 4: *c = PM_CODEC_LZ4_RAW; return 0;
    case 5: *c = PM_CODEC_ZSTD; return 0;
    default: return -1;
  }
}

int pm_orc_decompress(int compression, uint64_t block_size, const uint8_t *src, size_t n,
                      pm_buf *out, pm_buf *scratch, const char *path, paimon_error *err) {
  pm_buf_clear(out);
  if (compression == 0)
    return pm_buf_append(out, src, n) == 0 ? 0
                                           : pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
  pm_codec codec;
  if (codec_of(compression, &codec) != 0)
    return pm_fail(err, PAIMON_EUNSUPPORTED, "%s: ORC compression kind %d is not supported", path,
                   compression);
  size_t pos = 0;
  while (pos < n) {
    if (n - pos < 3)
      return pm_fail(err, PAIMON_ECORRUPT, "%s: truncated ORC compression chunk header", path);
    uint32_t h =
        (uint32_t)src[pos] | ((uint32_t)src[pos + 1] << 8) | ((uint32_t)src[pos + 2] << 16);
    pos += 3;
    size_t len = h >> 1;
    if (len > n - pos)
      return pm_fail(err, PAIMON_ECORRUPT,
                     "%s: ORC compression chunk of %zu bytes exceeds its stream", path, len);
    if (h & 1) { /* stored uncompressed */
      if (len > block_size)
        return pm_fail(err, PAIMON_ECORRUPT, "%s: ORC chunk larger than the block size", path);
      if (out->len + len > PM_MAX_ALLOC || pm_buf_append(out, src + pos, len) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "%s: ORC stream too large", path);
    } else {
      int rc = pm_decompress(codec, src + pos, len, -1, scratch, err);
      if (rc != 0) return pm_fail_ctx(err, PAIMON_ECORRUPT, "%s", path);
      if (scratch->len > block_size)
        return pm_fail(err, PAIMON_ECORRUPT,
                       "%s: ORC chunk decompresses to %zu bytes, above the block size %llu", path,
                       scratch->len, (unsigned long long)block_size);
      if (out->len + scratch->len > PM_MAX_ALLOC ||
          pm_buf_append(out, scratch->data, scratch->len) != 0)
        return pm_fail(err, PAIMON_ENOMEM, "%s: ORC stream too large", path);
    }
    pos += len;
  }
  return 0;
}
