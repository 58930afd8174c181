/* tests/oracle/write_samples.c: writes Parquet sample files with paimon-c's writer plus,
 * for each, the expected rows in a canonical JSON form, so that parquet_oracle.sh can
 * check that independent readers (DuckDB, hyparquet) see exactly these values.
 *
 * Usage: write_samples OUT_DIR
 * For every sample NAME: NAME.parquet, NAME.expected.jsonl (one object per row) and
 * NAME.types (one "column<TAB>paimon type" line per top-level field).
 * Canonical values: integers as JSON numbers, floats as numbers, DECIMAL as an exact
 * string, strings as strings, binary as {"hex": ...}, DATE as {"days": n}, TIME as
 * milliseconds, TIMESTAMP(_LTZ) as {"ts_ns": "n"}, ARRAY as array, MAP/MULTISET as an
 * object keyed by the key's text, ROW as object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "arrow/column.h"
#include "format/format.h"
#include "io/io.h"

static uint64_t g_rng = 0x243F6A8885A308D3ULL;
static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}
static int64_t rnd_range(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static void die(const char *what, const paimon_error *err) {
  fprintf(stderr, "write_samples: %s: %s\n", what, err ? err->message : "");
  exit(1);
}

/* 128-bit two's complement from a decimal digit string with sign. */
static void dec_from_digits(const char *digits, bool neg, uint8_t out[16]) {
  uint64_t lo = 0, hi = 0;
  for (const char *p = digits; *p; p++) {
    /* (hi,lo) = (hi,lo) * 10 + d */
    uint64_t d = (uint64_t)(*p - '0');
    uint64_t l_lo = (lo & 0xFFFFFFFFu) * 10 + d;
    uint64_t l_hi = (lo >> 32) * 10 + (l_lo >> 32);
    lo = (l_hi << 32) | (l_lo & 0xFFFFFFFFu);
    hi = hi * 10 + (l_hi >> 32);
  }
  if (neg) {
    lo = ~lo + 1;
    hi = ~hi + (lo == 0);
  }
  memcpy(out, &lo, 8);
  memcpy(out + 8, &hi, 8);
}

static void json_str(pm_buf *o, const uint8_t *p, size_t n) {
  pm_buf_append(o, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    if (c == '"' || c == '\\') pm_buf_printf(o, "\\%c", c);
    else if (c < 0x20) pm_buf_printf(o, "\\u%04x", c);
    else pm_buf_append(o, &c, 1);
  }
  pm_buf_append(o, "\"", 1);
}

/* DECIMAL(p, s): a digit string of up to p digits, canonical text with the point at s. */
static void gen_decimal(pm_col *c, const pm_type *t, pm_buf *o, int pick) {
  char digits[40];
  int nd = pick == 0 ? t->precision : (int)rnd_range(1, t->precision);
  for (int i = 0; i < nd; i++) digits[i] = (char)('0' + (pick == 0 ? 9 : (int)(rnd() % 10)));
  digits[nd] = 0;
  bool neg = rnd() & 1;
  uint8_t v[16];
  dec_from_digits(digits, neg, v);
  pm_col_append_dec128(c, v);
  /* canonical text: strip leading zeros, insert the point at `scale` */
  const char *d = digits;
  while (*d == '0' && d[1]) d++;
  char txt[64];
  int len = (int)strlen(d), s = t->scale, k = 0;
  bool zero = strspn(d, "0") == (size_t)len;
  if (neg && !zero) txt[k++] = '-';
  if (len <= s) {
    txt[k++] = '0';
    if (s > 0) txt[k++] = '.';
    for (int i = 0; i < s - len; i++) txt[k++] = '0';
    memcpy(txt + k, d, (size_t)len);
    k += len;
  } else {
    memcpy(txt + k, d, (size_t)(len - s));
    k += len - s;
    if (s > 0) {
      txt[k++] = '.';
      memcpy(txt + k, d + len - s, (size_t)s);
      k += s;
    }
  }
  txt[k] = 0;
  pm_buf_printf(o, "\"%s\"", txt);
}

/* CHAR/VARCHAR: ASCII with some two- and three-byte characters; "row<n>" repeats. */
static void gen_chars(pm_col *c, pm_buf *o, int pick, int row) {
  char s[64];
  int n = pick == 0 ? 0 : (int)rnd_range(1, 20), k = 0;
  for (int i = 0; i < n; i++) {
    if (rnd() % 10 == 0 && k < 58) { /* a two-byte or a three-byte character */
      bool two = rnd() & 1;
      memcpy(s + k, two ? "\xc3\xa9" : "\xe2\x82\xac", two ? 2 : 3);
      k += two ? 2 : 3;
    } else {
      s[k++] = (char)('a' + (int)(rnd() % (pick > 4 ? 3 : 26)));
    }
  }
  if (pick == 1) k = snprintf(s, sizeof s, "row%d", row % 5);
  pm_col_append_bytes(c, s, (size_t)k);
  json_str(o, (const uint8_t *)s, (size_t)k);
}

/* TIMESTAMP(_LTZ)(p): epoch nanoseconds truncated to the precision, stored in its unit. */
static void gen_timestamp(pm_col *c, const pm_type *t, pm_buf *o, int pick) {
  /* epoch nanos in [1700, 2250), truncated to the precision */
  int64_t ns = rnd_range(-8520336000LL, 8520336000LL) * 1000000000LL + rnd_range(0, 999999999);
  if (pick == 0) ns = -1;                          /* one nanosecond before the epoch */
  if (pick == 1) ns = -86400000000000LL + 1000000; /* 1969-12-31 00:00:00.001 */
  int64_t q = 1;
  for (int i = t->precision; i < 9; i++) q *= 10;
  ns = ns / q * q - (ns % q < 0 ? q : 0);
  int unit = pm_ts_unit(t->precision);
  int64_t v = unit == 0 ? ns / 1000000 : unit == 1 ? ns / 1000 : ns;
  if (unit != 2) { /* keep ns exactly representable in the unit */
    int64_t m = unit == 0 ? 1000000 : 1000;
    if (ns % m != 0) v -= ns < 0 ? 1 : 0;
    ns = v * m;
  }
  pm_col_append_int(c, v);
  pm_buf_printf(o, "{\"ts_ns\":\"%" PRId64 "\"}", ns);
}

static void gen(pm_col *c, const pm_type *t, pm_buf *o, int row);

/* MAP/MULTISET: up to three entries with distinct keys. */
static void gen_map(pm_col *c, const pm_type *t, pm_buf *o, int row) {
  int n = (int)rnd_range(0, 3);
  pm_col *ent = &c->children[0];
  pm_buf_append_str(o, "{");
  for (int i = 0; i < n; i++) {
    if (i) pm_buf_append_str(o, ",");
    /* distinct keys: the entry number plus a random suffix */
    char k[32];
    int kl = snprintf(k, sizeof k, "k%d_%d", i, (int)(rnd() % 100));
    if (t->elem->id == PM_INT) {
      int32_t kv = i * 1000 + (int32_t)(rnd() % 1000);
      pm_col_append_int(&ent->children[0], kv);
      pm_buf_printf(o, "\"%d\":", kv);
    } else {
      pm_col_append_bytes(&ent->children[0], k, (size_t)kl);
      json_str(o, (const uint8_t *)k, (size_t)kl);
      pm_buf_append_str(o, ":");
    }
    if (t->id == PM_MULTISET) {
      int32_t cnt = (int32_t)rnd_range(1, 9);
      pm_col_append_int(&ent->children[1], cnt);
      pm_buf_printf(o, "%d", cnt);
    } else {
      gen(&ent->children[1], t->value, o, row);
    }
    pm_col_append_struct(ent, true);
  }
  pm_buf_append_str(o, "}");
  pm_col_append_list_end(c);
}

/* Appends one random value of `t` to `c` and its canonical JSON to `o`. */
static void gen(pm_col *c, const pm_type *t, pm_buf *o, int row) {
  if (t->nullable && rnd() % 7 == 0) {
    pm_col_append_null(c);
    pm_buf_append_str(o, "null");
    return;
  }
  int pick = (int)(rnd() % 8);
  switch (t->id) {
    case PM_BOOLEAN: {
      bool v = rnd() & 1;
      pm_col_append_bool(c, v);
      pm_buf_append_str(o, v ? "true" : "false");
      break;
    }
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT: {
      int bits = t->id == PM_TINYINT ? 8 : t->id == PM_SMALLINT ? 16 : t->id == PM_INT ? 32 : 64;
      int64_t mx = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1, mn = -mx - 1;
      int64_t v = pick == 0 ? mn : pick == 1 ? mx : pick == 2 ? 0 : (int64_t)rnd();
      if (bits < 64) v = (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
      if (pick > 4) v = rnd_range(-5, 5); /* repeats, for the dictionary */
      pm_col_append_int(c, v);
      pm_buf_printf(o, "%" PRId64, v);
      break;
    }
    case PM_FLOAT: {
      float v = pick == 0   ? -3.4028235e38f
                : pick == 1 ? 1.1754944e-38f
                : pick == 2 ? -0.0f
                            : (float)((double)(int64_t)rnd() / 1e15);
      pm_col_append_f32(c, v);
      pm_buf_printf(o, "%.9g", (double)v);
      break;
    }
    case PM_DOUBLE: {
      double v = pick == 0   ? -1.7976931348623157e308
                 : pick == 1 ? 4.9e-324
                 : pick == 2 ? 0.0
                             : (double)(int64_t)rnd() / 1e9;
      pm_col_append_f64(c, v);
      pm_buf_printf(o, "%.17g", v);
      break;
    }
    case PM_DECIMAL: gen_decimal(c, t, o, pick); break;
    case PM_CHAR:
    case PM_VARCHAR: gen_chars(c, o, pick, row); break;
    case PM_BINARY:
    case PM_VARBINARY:
    case PM_BLOB: {
      uint8_t b[32] = {0};
      int n = pick == 0 ? 0 : (int)rnd_range(1, 16);
      for (int i = 0; i < n; i++) b[i] = (uint8_t)rnd();
      pm_col_append_bytes(c, b, (size_t)n);
      pm_buf_append_str(o, "{\"hex\":\"");
      for (int i = 0; i < n; i++) pm_buf_printf(o, "%02x", b[i]);
      pm_buf_append_str(o, "\"}");
      break;
    }
    case PM_DATE: {
      int32_t v = (int32_t)rnd_range(-100000, 100000);
      pm_col_append_int(c, v);
      pm_buf_printf(o, "{\"days\":%d}", v);
      break;
    }
    case PM_TIME: {
      int32_t v = (int32_t)rnd_range(0, 86399999);
      pm_col_append_int(c, v);
      pm_buf_printf(o, "%d", v);
      break;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: gen_timestamp(c, t, o, pick); break;
    case PM_ARRAY: {
      int n = (int)rnd_range(0, 4);
      pm_buf_append_str(o, "[");
      for (int i = 0; i < n; i++) {
        if (i) pm_buf_append_str(o, ",");
        gen(&c->children[0], t->elem, o, row);
      }
      pm_buf_append_str(o, "]");
      pm_col_append_list_end(c);
      break;
    }
    case PM_MAP:
    case PM_MULTISET: gen_map(c, t, o, row); break;
    case PM_ROW: {
      pm_buf_append_str(o, "{");
      for (int32_t i = 0; i < t->nfields; i++) {
        if (i) pm_buf_append_str(o, ",");
        json_str(o, (const uint8_t *)t->fields[i].name, strlen(t->fields[i].name));
        pm_buf_append_str(o, ":");
        gen(&c->children[i], t->fields[i].type, o, row);
      }
      pm_buf_append_str(o, "}");
      pm_col_append_struct(c, true);
      break;
    }
    default: fprintf(stderr, "write_samples: unsupported type %d\n", (int)t->id); exit(1);
  }
}

/* Paimon-style ids: top-level fields 0.., nested row fields continue the counter. */
static void assign_ids(pm_type *t, int32_t *next) {
  if (t->id == PM_ROW) {
    for (int32_t i = 0; i < t->nfields; i++) t->fields[i].id = (*next)++;
    for (int32_t i = 0; i < t->nfields; i++) assign_ids(t->fields[i].type, next);
  } else if (t->id == PM_ARRAY || t->id == PM_MULTISET) {
    assign_ids(t->elem, next);
  } else if (t->id == PM_MAP) {
    assign_ids(t->elem, next);
    assign_ids(t->value, next);
  }
}

static void sample(const char *dir, const char *name, const char *type_sql, int64_t rows,
                   int64_t batch, const char *codec, int64_t rg_bytes, int64_t page_bytes) {
  paimon_error err;
  pm_type *t = NULL;
  if (pm_type_parse(&t, type_sql, &err) != 0) die(type_sql, &err);
  int32_t next = 0;
  for (int32_t i = 0; i < t->nfields; i++) t->fields[i].id = next++;
  for (int32_t i = 0; i < t->nfields; i++) assign_ids(t->fields[i].type, &next);

  char path[4096];
  snprintf(path, sizeof path, "%s/%s.types", dir, name);
  FILE *ft = fopen(path, "w");
  if (!ft) die(path, NULL);
  for (int32_t i = 0; i < t->nfields; i++) {
    char *s = pm_type_to_string(t->fields[i].type);
    fprintf(ft, "%s\t%s\n", t->fields[i].name, s);
    pm_free(s);
  }
  fclose(ft);

  pm_format_write_opts o;
  pm_format_write_opts_default(&o);
  o.compression = codec;
  o.created_by = "paimon-c version 0.1.0";
  if (rg_bytes) o.row_group_bytes = rg_bytes;
  if (page_bytes) o.page_bytes = page_bytes;
  snprintf(path, sizeof path, "%s/%s.parquet", dir, name);
  pm_format_writer *w;
  if (pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, &o, &err) != 0)
    die(path, &err);

  snprintf(path, sizeof path, "%s/%s.expected.jsonl", dir, name);
  FILE *fe = fopen(path, "w");
  if (!fe) die(path, NULL);
  pm_col *cols = calloc((size_t)t->nfields, sizeof *cols);
  for (int32_t i = 0; i < t->nfields; i++) pm_col_init(&cols[i], t->fields[i].type);
  pm_buf line = PM_BUF_INIT;
  for (int64_t r0 = 0; r0 < rows; r0 += batch) {
    int64_t n = rows - r0 < batch ? rows - r0 : batch;
    for (int64_t r = 0; r < n; r++) {
      line.len = 0;
      pm_buf_append_str(&line, "{");
      for (int32_t i = 0; i < t->nfields; i++) {
        if (i) pm_buf_append_str(&line, ",");
        json_str(&line, (const uint8_t *)t->fields[i].name, strlen(t->fields[i].name));
        pm_buf_append_str(&line, ":");
        gen(&cols[i], t->fields[i].type, &line, (int)(r0 + r));
      }
      pm_buf_append_str(&line, "}\n");
      fwrite(line.data, 1, line.len, fe);
    }
    struct ArrowArray arr;
    if (pm_cols_export_struct(cols, t->nfields, n, &arr, &err) != 0) die("export", &err);
    if (w->ops->write(w, &arr, &err) != 0) die("write", &err);
    arr.release(&arr);
  }
  fclose(fe);
  int64_t size;
  if (w->ops->finish(w, &size, &err) != 0) die("finish", &err);
  printf("%s/%s.parquet %" PRId64 " rows %" PRId64 " bytes\n", dir, name, rows, size);
  pm_buf_free(&line);
  for (int32_t i = 0; i < t->nfields; i++) pm_col_free(&cols[i]);
  free(cols);
  pm_type_free(t);
}

/* One chunk mixing dictionary and plain pages: repeated values first (the dictionary is
 * kept), then distinct ones that push it past 1 MiB (parquet-mr falls back mid-chunk). */
static void sample_dict_overflow(const char *dir) {
  paimon_error err;
  pm_type *t = NULL;
  if (pm_type_parse(&t, "ROW<`mix` STRING NOT NULL, `n` BIGINT>", &err) != 0) die("type", &err);
  t->fields[0].id = 0;
  t->fields[1].id = 1;
  char path[4096];
  snprintf(path, sizeof path, "%s/dict_overflow.types", dir);
  FILE *ft = fopen(path, "w");
  if (!ft) die(path, NULL);
  fprintf(ft, "mix\tSTRING NOT NULL\nn\tBIGINT\n");
  fclose(ft);
  snprintf(path, sizeof path, "%s/dict_overflow.parquet", dir);
  pm_format_writer *w;
  if (pm_format_create(&w, PM_FORMAT_PARQUET, pm_fs_local_shared(), path, t, NULL, &err) != 0)
    die(path, &err);
  snprintf(path, sizeof path, "%s/dict_overflow.expected.jsonl", dir);
  FILE *fe = fopen(path, "w");
  if (!fe) die(path, NULL);
  pm_col cols[2];
  pm_col_init(&cols[0], t->fields[0].type);
  pm_col_init(&cols[1], t->fields[1].type);
  const int64_t rows = 80000;
  for (int64_t r = 0; r < rows; r++) {
    char s[64];
    int n = snprintf(s, sizeof s, "%048llu", (unsigned long long)(r < 30000 ? r % 50 : r));
    pm_col_append_bytes(&cols[0], s, (size_t)n);
    if (r % 5 == 0) pm_col_append_null(&cols[1]);
    else pm_col_append_int(&cols[1], r % 1000);
    if (r % 5 == 0) fprintf(fe, "{\"mix\":\"%s\",\"n\":null}\n", s);
    else fprintf(fe, "{\"mix\":\"%s\",\"n\":%d}\n", s, (int)(r % 1000));
  }
  fclose(fe);
  struct ArrowArray arr;
  if (pm_cols_export_struct(cols, 2, rows, &arr, &err) != 0) die("export", &err);
  if (w->ops->write(w, &arr, &err) != 0) die("write", &err);
  arr.release(&arr);
  int64_t size;
  if (w->ops->finish(w, &size, &err) != 0) die("finish", &err);
  printf("%s/dict_overflow.parquet %lld rows %lld bytes\n", dir, (long long)rows, (long long)size);
  pm_col_free(&cols[0]);
  pm_col_free(&cols[1]);
  pm_type_free(t);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: write_samples OUT_DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  const char *flat =
      "ROW<`b` BOOLEAN, `i8` TINYINT, `i16` SMALLINT, `i32` INT, `i64` BIGINT, `f32` FLOAT, "
      "`f64` DOUBLE, `s` STRING, `c` CHAR(5), `bin` BYTES, `d` DATE, `t` TIME(3), "
      "`dec1` DECIMAL(1, 0), `dec5` DECIMAL(5, 2), `dec9` DECIMAL(9, 9), `dec10` DECIMAL(10, 3), "
      "`dec18` DECIMAL(18, 4), `dec19` DECIMAL(19, 0), `dec23` DECIMAL(23, 5), "
      "`dec38` DECIMAL(38, 10), `ts0` TIMESTAMP(0), `ts3` TIMESTAMP(3), `ts6` TIMESTAMP(6), "
      "`ts9` TIMESTAMP(9), `ltz3` TIMESTAMP(3) WITH LOCAL TIME ZONE, "
      "`ltz6` TIMESTAMP(6) WITH LOCAL TIME ZONE, `ltz9` TIMESTAMP(9) WITH LOCAL TIME ZONE, "
      "`req` INT NOT NULL, `reqs` STRING NOT NULL>";
  sample(dir, "flat_zstd", flat, 3000, 1000, "zstd", 0, 0);
  sample(dir, "flat_snappy", flat, 500, 500, "snappy", 0, 0);
  sample(dir, "flat_gzip", flat, 500, 500, "gzip", 0, 0);
  sample(dir, "flat_lz4", flat, 500, 500, "lz4", 0, 0);
  sample(dir, "flat_none", flat, 500, 500, "none", 0, 0);
  sample(dir, "flat_multi_rg", flat, 20000, 3000, "zstd", 64 << 10, 4 << 10);
  const char *nested =
      "ROW<`id` INT NOT NULL, `a` ARRAY<INT>, `aa` ARRAY<ARRAY<STRING>>, "
      "`m` MAP<STRING, BIGINT>, `mi` MAP<INT, ARRAY<DOUBLE>>, "
      "`r` ROW<`x` INT, `y` ARRAY<ROW<`p` STRING, `q` BOOLEAN>>, `z` MAP<STRING, STRING>>, "
      "`ms` MULTISET<STRING>, `an` ARRAY<INT NOT NULL> NOT NULL>";
  sample(dir, "nested", nested, 2000, 700, "zstd", 0, 0);
  sample(dir, "nested_multi_rg", nested, 20000, 4000, "snappy", 96 << 10, 8 << 10);
  sample_dict_overflow(dir);
  return 0;
}
