/* format/parquet/parquet_read_thrift.c: a small Thrift compact-protocol decoder for the Parquet footer
 * (FileMetaData) and page headers. Unknown fields of every type are skipped; any
 * malformation sets t->bad and every later read fails, so parsers check once at the end
 * of a struct. */
#include "format/parquet/parquet_read_codec.h"

#define PQ_MAX_DEPTH 32

static uint64_t t_varint(pq_thrift *t) {
  uint64_t v = 0;
  if (t->bad || pm_varint_dec(&t->p, t->end, &v) != 0) {
    t->bad = true;
    return 0;
  }
  return v;
}

static int64_t t_zigzag(pq_thrift *t) { return pm_zigzag_dec(t_varint(t)); }

static int32_t t_i32(pq_thrift *t) {
  int64_t v = t_zigzag(t);
  if (v < INT32_MIN || v > INT32_MAX) {
    t->bad = true;
    return 0;
  }
  return (int32_t)v;
}

static uint8_t t_byte(pq_thrift *t) {
  if (t->bad || t->p >= t->end) {
    t->bad = true;
    return 0;
  }
  return *t->p++;
}

static pq_bin t_binary(pq_thrift *t) {
  pq_bin b = {NULL, 0};
  uint64_t n = t_varint(t);
  if (t->bad || n > (uint64_t)(t->end - t->p)) {
    t->bad = true;
    return b;
  }
  b.p = t->p;
  b.len = (uint32_t)n;
  t->p += n;
  return b;
}

/* List header: element type and a count bounded by the bytes left (every element takes
 * at least one byte), so callers may allocate count elements. */
static uint32_t t_list(pq_thrift *t, int *etype) {
  uint8_t h = t_byte(t);
  uint64_t n = h >> 4;
  *etype = h & 0x0f;
  if (n == 15) n = t_varint(t);
  if (t->bad || n > (uint64_t)(t->end - t->p)) {
    t->bad = true;
    return 0;
  }
  return (uint32_t)n;
}

static void t_skip(pq_thrift *t, int type);

static void t_skip_struct(pq_thrift *t) {
  if (++t->depth > PQ_MAX_DEPTH) {
    t->bad = true;
    return;
  }
  for (;;) {
    uint8_t h = t_byte(t);
    if (t->bad || h == 0) break;
    if ((h >> 4) == 0) (void)t_zigzag(t);
    t_skip(t, h & 0x0f);
  }
  t->depth--;
}

static void t_skip(pq_thrift *t, int type) {
  if (t->bad) return;
  switch (type) {
    case PQ_T_TRUE:
    case PQ_T_FALSE: break; /* value lives in the field header */
    case PQ_T_BYTE: (void)t_byte(t); break;
    case PQ_T_I16:
    case PQ_T_I32:
    case PQ_T_I64: (void)t_varint(t); break;
    case PQ_T_DOUBLE:
      if (t->end - t->p < 8) t->bad = true;
      else t->p += 8;
      break;
    case PQ_T_BINARY: (void)t_binary(t); break;
    case PQ_T_LIST:
    case PQ_T_SET: {
      int et;
      uint32_t n = t_list(t, &et);
      if (++t->depth > PQ_MAX_DEPTH) {
        t->bad = true;
        return;
      }
      for (uint32_t i = 0; i < n && !t->bad; i++) {
        if (et == PQ_T_TRUE || et == PQ_T_FALSE) (void)t_byte(t); /* one byte each */
        else t_skip(t, et);
      }
      t->depth--;
      break;
    }
    case PQ_T_MAP: {
      uint64_t n = t_varint(t);
      if (n == 0) break;
      uint8_t kv = t_byte(t);
      if (n > (uint64_t)(t->end - t->p)) {
        t->bad = true;
        return;
      }
      if (++t->depth > PQ_MAX_DEPTH) {
        t->bad = true;
        return;
      }
      for (uint64_t i = 0; i < n && !t->bad; i++) {
        t_skip(t, kv >> 4);
        t_skip(t, kv & 0x0f);
      }
      t->depth--;
      break;
    }
    case PQ_T_STRUCT: t_skip_struct(t); break;
    default: t->bad = true;
  }
}

/* Next field of a struct: false at STOP or error. `last` tracks the previous id. */
static bool t_field(pq_thrift *t, int *last, int *type, int *id) {
  uint8_t h = t_byte(t);
  if (t->bad || h == 0) return false;
  *type = h & 0x0f;
  int d = h >> 4;
  if (d) *id = *last + d;
  else *id = t_i32(t);
  *last = *id;
  return !t->bad;
}

static bool t_bool(int type) { return type == PQ_T_TRUE; }

/* Reads an integer field of any integer wire type (writers differ on widths). */
static int64_t t_int(pq_thrift *t, int type) {
  if (type == PQ_T_I16 || type == PQ_T_I32 || type == PQ_T_I64) return t_zigzag(t);
  if (type == PQ_T_BYTE) return (int8_t)t_byte(t);
  t->bad = true;
  return 0;
}

static int32_t t_int32(pq_thrift *t, int type) {
  int64_t v = t_int(t, type);
  if (v < INT32_MIN || v > INT32_MAX) t->bad = true;
  return (int32_t)v;
}

/* ---- LogicalType ---------------------------------------------------------------------- */

static void parse_time_unit(pq_thrift *t, int32_t *unit) {
  int last = 0, type, id;
  while (t_field(t, &last, &type, &id)) {
    if (type == PQ_T_STRUCT && id >= 1 && id <= 3) *unit = id;
    t_skip(t, type);
  }
}

static void parse_logical(pq_thrift *t, pq_selem *e) {
  int last = 0, type, id;
  while (t_field(t, &last, &type, &id)) {
    if (type != PQ_T_STRUCT) {
      t_skip(t, type);
      continue;
    }
    e->logical = id;
    int l2 = 0, ty2, id2;
    switch (id) {
      case PQ_LT_DECIMAL:
        while (t_field(t, &l2, &ty2, &id2)) {
          if (id2 == 1) e->lt_scale = t_int32(t, ty2);
          else if (id2 == 2) e->lt_precision = t_int32(t, ty2);
          else t_skip(t, ty2);
        }
        break;
      case PQ_LT_TIME:
      case PQ_LT_TIMESTAMP:
        while (t_field(t, &l2, &ty2, &id2)) {
          if (id2 == 2 && ty2 == PQ_T_STRUCT) parse_time_unit(t, &e->lt_unit);
          else if (id2 == 1 && (ty2 == PQ_T_TRUE || ty2 == PQ_T_FALSE)) e->lt_utc = t_bool(ty2);
          else t_skip(t, ty2);
        }
        break;
      case PQ_LT_INTEGER:
        while (t_field(t, &l2, &ty2, &id2)) {
          if (id2 == 1) e->lt_bits = t_int32(t, ty2);
          else if (id2 == 2 && (ty2 == PQ_T_TRUE || ty2 == PQ_T_FALSE)) e->lt_signed = t_bool(ty2);
          else t_skip(t, ty2);
        }
        break;
      default: t_skip_struct(t); break;
    }
  }
}

/* ---- SchemaElement --------------------------------------------------------------------- */

static void parse_selem(pq_thrift *t, pq_selem *e) {
  memset(e, 0, sizeof *e);
  e->type = -1;
  e->repetition = -1;
  e->converted = -1;
  e->lt_signed = true;
  int last = 0, type, id;
  while (t_field(t, &last, &type, &id)) {
    switch (id) {
      case 1: e->type = t_int32(t, type); break;
      case 2: e->type_length = t_int32(t, type); break;
      case 3: e->repetition = t_int32(t, type); break;
      case 4: {
        if (type != PQ_T_BINARY) {
          t->bad = true;
          break;
        }
        pq_bin b = t_binary(t);
        if (!t->bad && !e->name) {
          e->name = pm_strndup((const char *)b.p, b.len);
          if (!e->name) t->bad = t->oom = true;
        }
        break;
      }
      case 5: e->num_children = t_int32(t, type); break;
      case 6: e->converted = t_int32(t, type); break;
      case 7: e->scale = t_int32(t, type); break;
      case 8: e->precision = t_int32(t, type); break;
      case 9:
        e->field_id = t_int32(t, type);
        e->has_field_id = true;
        break;
      case 10:
        if (type == PQ_T_STRUCT) parse_logical(t, e);
        else t_skip(t, type);
        break;
      default: t_skip(t, type);
    }
  }
}

/* ---- Statistics / ColumnMetaData / ColumnChunk / RowGroup -------------------------------- */

static void parse_stats(pq_thrift *t, pq_stats *s) {
  int last = 0, type, id;
  while (t_field(t, &last, &type, &id)) {
    if (type == PQ_T_BINARY && (id == 1 || id == 2 || id == 5 || id == 6)) {
      pq_bin b = t_binary(t);
      if (id == 1) s->max = b;
      else if (id == 2) s->min = b;
      else if (id == 5) s->max_value = b;
      else s->min_value = b;
    } else if (id == 3 && type != PQ_T_BINARY) {
      s->null_count = t_int(t, type);
    } else {
      t_skip(t, type);
    }
  }
}

static void parse_colmeta(pq_thrift *t, pq_chunk *c) {
  int last = 0, type, id;
  c->has_meta = true;
  while (t_field(t, &last, &type, &id)) {
    switch (id) {
      case 1: c->type = t_int32(t, type); break;
      case 4: c->codec = t_int32(t, type); break;
      case 5: c->num_values = t_int(t, type); break;
      case 7: c->total_compressed = t_int(t, type); break;
      case 9: c->data_page_offset = t_int(t, type); break;
      case 11: c->dict_page_offset = t_int(t, type); break;
      case 12:
        if (type == PQ_T_STRUCT) parse_stats(t, &c->stats);
        else t_skip(t, type);
        break;
      default: t_skip(t, type);
    }
  }
}

static void parse_chunk(pq_thrift *t, pq_chunk *c) {
  memset(c, 0, sizeof *c);
  c->dict_page_offset = -1;
  c->stats.null_count = -1;
  int last = 0, type, id;
  while (t_field(t, &last, &type, &id)) {
    if (id == 3 && type == PQ_T_STRUCT) parse_colmeta(t, c);
    else t_skip(t, type);
  }
}

static void parse_rowgroup(pq_thrift *t, pq_rowgroup *rg) {
  int last = 0, type, id;
  while (t_field(t, &last, &type, &id)) {
    if (id == 1 && type == PQ_T_LIST && !rg->cols) {
      int et;
      uint32_t n = t_list(t, &et);
      if (t->bad) return;
      if (et != PQ_T_STRUCT) {
        t->bad = true;
        return;
      }
      rg->cols = pm_calloc(n ? n : 1, sizeof *rg->cols);
      if (!rg->cols) {
        t->bad = t->oom = true;
        return;
      }
      rg->ncols = (int32_t)n;
      for (uint32_t i = 0; i < n && !t->bad; i++) parse_chunk(t, &rg->cols[i]);
    } else if (id == 3) {
      rg->num_rows = t_int(t, type);
    } else {
      t_skip(t, type);
    }
  }
}

int pq_footer_parse(pq_footer *f, const uint8_t *p, size_t n, const char **why) {
  memset(f, 0, sizeof *f);
  pq_thrift t = {p, p + n, 0, false, false};
  int last = 0, type, id;
  bool has_rows = false;
  *why = "malformed thrift FileMetaData";
  while (t_field(&t, &last, &type, &id)) {
    if (id == 2 && type == PQ_T_LIST && !f->schema) {
      int et;
      uint32_t cnt = t_list(&t, &et);
      if (t.bad || et != PQ_T_STRUCT || cnt == 0) {
        t.bad = true;
        break;
      }
      f->schema = pm_calloc(cnt, sizeof *f->schema);
      if (!f->schema) {
        t.bad = t.oom = true;
        break;
      }
      f->nschema = (int32_t)cnt;
      for (uint32_t i = 0; i < cnt && !t.bad; i++) parse_selem(&t, &f->schema[i]);
    } else if (id == 3) {
      f->num_rows = t_int(&t, type);
      has_rows = true;
    } else if (id == 4 && type == PQ_T_LIST && !f->rgs) {
      int et;
      uint32_t cnt = t_list(&t, &et);
      if (t.bad || (cnt && et != PQ_T_STRUCT)) {
        t.bad = true;
        break;
      }
      f->rgs = pm_calloc(cnt ? cnt : 1, sizeof *f->rgs);
      if (!f->rgs) {
        t.bad = t.oom = true;
        break;
      }
      f->nrgs = (int32_t)cnt;
      for (uint32_t i = 0; i < cnt && !t.bad; i++) parse_rowgroup(&t, &f->rgs[i]);
    } else {
      t_skip(&t, type);
    }
  }
  if (t.oom) return PAIMON_ENOMEM;
  if (t.bad) return -1;
  if (!f->schema) {
    *why = "footer has no schema";
    return -1;
  }
  if (!has_rows || f->num_rows < 0) {
    *why = "footer has no valid num_rows";
    return -1;
  }
  return 0;
}

void pq_footer_free(pq_footer *f) {
  if (!f) return;
  for (int32_t i = 0; i < f->nschema; i++) pm_free(f->schema[i].name);
  pm_free(f->schema);
  for (int32_t i = 0; i < f->nrgs; i++) pm_free(f->rgs[i].cols);
  pm_free(f->rgs);
  memset(f, 0, sizeof *f);
}

/* ---- PageHeader ----------------------------------------------------------------------- */

int pq_page_header_parse(pq_page_header *h, const uint8_t *p, size_t n, size_t *used) {
  memset(h, 0, sizeof *h);
  h->type = -1;
  h->is_compressed = true;
  h->uncompressed_size = h->compressed_size = -1;
  pq_thrift t = {p, p + n, 0, false, false};
  int last = 0, type, id;
  while (t_field(&t, &last, &type, &id)) {
    switch (id) {
      case 1: h->type = t_int32(&t, type); break;
      case 2: h->uncompressed_size = t_int32(&t, type); break;
      case 3: h->compressed_size = t_int32(&t, type); break;
      case 4:
        h->crc = t_int32(&t, type);
        h->has_crc = true;
        break;
      case 5:
      case 7:
      case 8: {
        if (type != PQ_T_STRUCT) {
          t_skip(&t, type);
          break;
        }
        int l2 = 0, ty2, id2;
        if (id == 5) {
          h->has_data = true;
          while (t_field(&t, &l2, &ty2, &id2)) {
            if (id2 == 1) h->num_values = t_int32(&t, ty2);
            else if (id2 == 2) h->encoding = t_int32(&t, ty2);
            else if (id2 == 3) h->def_encoding = t_int32(&t, ty2);
            else if (id2 == 4) h->rep_encoding = t_int32(&t, ty2);
            else t_skip(&t, ty2);
          }
        } else if (id == 7) {
          h->has_dict = true;
          while (t_field(&t, &l2, &ty2, &id2)) {
            if (id2 == 1) h->num_values = t_int32(&t, ty2);
            else if (id2 == 2) h->encoding = t_int32(&t, ty2);
            else t_skip(&t, ty2);
          }
        } else {
          h->has_v2 = true;
          while (t_field(&t, &l2, &ty2, &id2)) {
            switch (id2) {
              case 1: h->num_values = t_int32(&t, ty2); break;
              case 2: h->num_nulls = t_int32(&t, ty2); break;
              case 3: h->num_rows = t_int32(&t, ty2); break;
              case 4: h->encoding = t_int32(&t, ty2); break;
              case 5: h->def_len = t_int32(&t, ty2); break;
              case 6: h->rep_len = t_int32(&t, ty2); break;
              case 7:
                if (ty2 == PQ_T_TRUE || ty2 == PQ_T_FALSE) h->is_compressed = t_bool(ty2);
                else t_skip(&t, ty2);
                break;
              default: t_skip(&t, ty2);
            }
          }
        }
        break;
      }
      default: t_skip(&t, type);
    }
  }
  if (t.bad) return -1;
  *used = (size_t)(t.p - p);
  if (h->compressed_size < 0 || h->uncompressed_size < 0 || h->num_values < 0) return -1;
  return 0;
}
