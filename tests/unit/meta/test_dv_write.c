/* Deletion-vector index files and index manifests we write (meta/dv_write.c,
 * meta/index_manifest_write.c): round trips through our reader (meta/dv.c,
 * pm_index_manifest_read), the independent oracles (dv_index_dump.py, python3-avro), and
 * Java's bytes from the corpus. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "meta/meta_write.h"
#include "test_support.h"

#define PY "/usr/bin/python3"

static paimon_fs *FS(void) { return pm_fs_local_shared(); }

typedef struct {
  int64_t *v;
  size_t n, cap;
} i64s;

static void push(i64s *a, int64_t x) {
  if (a->n == a->cap) {
    a->cap = a->cap ? a->cap * 2 : 64;
    a->v = realloc(a->v, a->cap * sizeof *a->v);
    assert_non_null(a->v);
  }
  a->v[a->n++] = x;
}

/* Position sets covering every container kind: empty, one value, an array container, a
 * bitmap container (> 4096 values under one high key), long runs, several keys, the
 * 32-bit maximum; and for 64-bit vectors high keys beyond 0 with gaps. */
static i64s make_set(int which, bool b64) {
  i64s a = {0};
  switch (which) {
    case 0: break;
    case 1: push(&a, 0); break;
    case 2:
      for (int64_t i = 0; i < 300; i++) push(&a, i * 7 + 3);
      break;
    case 3:
      for (int64_t i = 0; i < 5000; i++) push(&a, i * 3);
      for (int64_t i = 70000; i < 70010; i++) push(&a, i);
      break;
    case 4:
      for (int64_t i = 100; i < 20100; i++) push(&a, i); /* runs */
      push(&a, 1 << 20);
      push(&a, INT32_MAX);
      break;
    default:
      push(&a, 5);
      if (b64) {
        push(&a, (1LL << 32) | 9);
        for (int64_t i = 0; i < 6000; i++) push(&a, (3LL << 32) | (i * 2));
        for (int64_t i = 0; i < 9000; i++) push(&a, (3LL << 32) | (200000 + i));
      } else {
        push(&a, 65535);
        push(&a, 65536);
        push(&a, 1LL << 31);
      }
      break;
  }
  if (!b64 && which == 5) a.n--; /* 2^31 does not fit a 32-bit vector */
  return a;
}

#define NSETS 6

/* dv_index_dump.py on `path`: every entry's kind, CRC check and positions. */
typedef struct {
  long long offset, size;
  bool b64;
  i64s pos;
} dump_entry;

static size_t dump(const char *path, dump_entry *out, size_t max) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, PY " '%s' '%s'", pm_test_shared("tools/inspect/dv_index_dump.py"),
           path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  static char line[1 << 22];
  size_t n = 0;
  while (fgets(line, sizeof line, f)) {
    long long off, size;
    if (sscanf(line, "  entry @offset=%lld size=%lld", &off, &size) != 2) continue;
    if (!strstr(line, "crc_ok=True")) fail_msg("oracle: bad CRC in %s: %.200s", path, line);
    assert_true(n < max);
    dump_entry *e = &out[n++];
    memset(e, 0, sizeof *e);
    e->offset = off;
    e->size = size;
    e->b64 = strstr(line, " bitmap64 ") != NULL;
    char *p = strstr(line, "deleted_positions=[");
    assert_non_null(p);
    p += strlen("deleted_positions=[");
    while (*p && *p != ']') {
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p) break;
      push(&e->pos, v);
      p = end;
      while (*p == ',' || *p == ' ') p++;
    }
  }
  if (pclose(f) != 0) fail_msg("dv_index_dump.py failed on %s", path);
  return n;
}

static char *tmp_dir(const char *name) {
  char *d = pm_asprintf("%s/%s", pm_test_tmpdir(), name);
  assert_non_null(d);
  paimon_error err = {0};
  PM_ASSERT_OK(FS()->mkdirs(FS(), d, &err), &err);
  return d;
}

/* Every set, 32- and 64-bit: encode -> our decoder, one index file -> pm_dv_read at the
 * recorded range and dv_index_dump.py, and the file size and cardinalities recorded. */
static void test_roundtrip(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = tmp_dir("dv_roundtrip");
  for (int b = 0; b < 2; b++) {
    bool b64 = b == 1;
    i64s sets[NSETS];
    pm_dv_named named[NSETS];
    char names[NSETS][32];
    for (int s = 0; s < NSETS; s++) {
      sets[s] = make_set(s, b64);
      /* a single block decodes to the same positions */
      pm_buf blk = PM_BUF_INIT;
      int32_t mlen = 0;
      PM_ASSERT_OK(pm_dv_encode(sets[s].v, (int64_t)sets[s].n, b64, &blk, &mlen, &err), &err);
      uint32_t size = pm_load_be32(blk.data);
      assert_int_equal(blk.len, (size_t)size + 8);
      assert_int_equal(mlen, b64 ? (int32_t)size + 8 : (int32_t)size);
      pm_dv dv;
      PM_ASSERT_OK(pm_dv_decode(blk.data, blk.len, &dv, &err), &err);
      assert_int_equal(dv.count, (int64_t)sets[s].n);
      if (dv.count) assert_memory_equal(dv.positions, sets[s].v, sets[s].n * sizeof(int64_t));
      pm_dv_clear(&dv);
      pm_buf_free(&blk);
      snprintf(names[s], sizeof names[s], "data-%d.parquet", s);
      named[s].data_file = names[s];
      named[s].dv.count = (int64_t)sets[s].n;
      named[s].dv.positions = sets[s].v;
    }
    char uuid[37];
    pm_uuid(uuid);
    int64_t counter = 0;
    pm_index_entry *es = NULL;
    size_t ne = 0;
    PM_ASSERT_OK(
        pm_dv_index_write(FS(), dir, uuid, &counter, named, NSETS, b64, -1, &es, &ne, &err), &err);
    assert_int_equal(ne, 1);
    assert_int_equal(counter, 1);
    assert_string_equal(es[0].index_type, "DELETION_VECTORS");
    char want[64];
    snprintf(want, sizeof want, "index-%s-0", uuid);
    assert_string_equal(es[0].file_name, want);
    assert_int_equal(es[0].row_count, NSETS);
    assert_int_equal(es[0].ndv_ranges, NSETS);
    char *path = pm_asprintf("%s/%s", dir, es[0].file_name);
    int64_t fsize = -1;
    PM_ASSERT_OK(FS()->stat(FS(), path, &fsize, NULL, NULL), &err);
    assert_int_equal(fsize, es[0].file_size);
    static dump_entry de[NSETS + 1];
    size_t nd = dump(path, de, NSETS + 1);
    assert_int_equal(nd, NSETS);
    for (int s = 0; s < NSETS; s++) {
      const pm_dv_range *r = &es[0].dv_ranges[s];
      assert_string_equal(r->data_file, names[s]);
      assert_int_equal(r->cardinality, (int64_t)sets[s].n);
      pm_dv dv;
      PM_ASSERT_OK(pm_dv_read(FS(), path, r->offset, r->length, &dv, &err), &err);
      assert_int_equal(dv.count, (int64_t)sets[s].n);
      if (dv.count) assert_memory_equal(dv.positions, sets[s].v, sets[s].n * sizeof(int64_t));
      pm_dv_clear(&dv);
      /* the oracle agrees on place, kind and content */
      assert_int_equal(de[s].offset, r->offset);
      assert_int_equal(de[s].b64, b64);
      assert_int_equal(de[s].pos.n, sets[s].n);
      if (sets[s].n) assert_memory_equal(de[s].pos.v, sets[s].v, sets[s].n * sizeof(int64_t));
      free(de[s].pos.v);
      free(sets[s].v);
    }
    free(path);
    pm_index_entries_free(es, ne);
  }
  /* a 32-bit vector refuses a position past INT32_MAX, naming the option */
  int64_t big = 1LL << 31;
  pm_buf blk = PM_BUF_INIT;
  assert_int_equal(pm_dv_encode(&big, 1, false, &blk, NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "deletion-vectors.bitmap64"));
  int64_t unsorted[2] = {5, 3};
  assert_int_equal(pm_dv_encode(unsorted, 2, true, &blk, NULL, &err), PAIMON_EINVAL);
  pm_buf_free(&blk);
  pm_free(dir);
}

/* The 32-bit files Java 1.4.1 wrote in the corpus are reproduced byte for byte. */
static void test_java_bytes(void **state) {
  (void)state;
  const char *tdir =
      "compat/tables/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/index/";
  const char *files[2] = {"index-62372b7b-d1cf-4dde-a162-c9d9d35006b4-0",
                          "index-62372b7b-d1cf-4dde-a162-c9d9d35006b4-1"};
  paimon_error err = {0};
  char *dir = tmp_dir("dv_java");
  for (int i = 0; i < 2; i++) {
    char rel[512];
    snprintf(rel, sizeof rel, "%s%s", tdir, files[i]);
    const char *jp = pm_test_shared(rel);
    static dump_entry de[4];
    size_t nd = dump(jp, de, 4);
    assert_int_equal(nd, 1);
    pm_dv_named d = {"data.parquet", {(int64_t)de[0].pos.n, de[0].pos.v}};
    int64_t counter = 0;
    pm_index_entry *es = NULL;
    size_t ne = 0;
    PM_ASSERT_OK(pm_dv_index_write(FS(), dir, "u", &counter, &d, 1, false, -1, &es, &ne, &err),
                 &err);
    char *ours = pm_asprintf("%s/%s", dir, es[0].file_name);
    pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
    PM_ASSERT_OK(pm_fs_read_all(FS(), ours, 1 << 20, &a, &err), &err);
    PM_ASSERT_OK(pm_fs_read_all(FS(), jp, 1 << 20, &b, &err), &err);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(es[0].dv_ranges[0].offset, 1);
    assert_int_equal(es[0].dv_ranges[0].length, (int32_t)pm_load_be32(b.data + 1));
    pm_buf_free(&a);
    pm_buf_free(&b);
    free(ours);
    free(de[0].pos.v);
    pm_index_entries_free(es, ne);
  }
  pm_free(dir);
}

/* writeWithRolling: a file is closed once it passes the target size; every vector lands
 * in exactly one file, in order. */
static void test_rolling(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = tmp_dir("dv_rolling");
  enum { N = 40 };
  pm_dv_named d[N];
  char names[N][32];
  int64_t pos[N][3];
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "f%d", i);
    pos[i][0] = i;
    pos[i][1] = i + 100;
    pos[i][2] = i + 1000;
    d[i].data_file = names[i];
    d[i].dv.count = 3;
    d[i].dv.positions = pos[i];
  }
  int64_t counter = 7;
  pm_index_entry *es = NULL;
  size_t ne = 0;
  PM_ASSERT_OK(pm_dv_index_write(FS(), dir, "roll", &counter, d, N, false, 100, &es, &ne, &err),
               &err);
  assert_true(ne > 3);
  assert_int_equal(counter, 7 + (int64_t)ne);
  int k = 0;
  for (size_t f = 0; f < ne; f++) {
    assert_true(es[f].ndv_ranges > 0);
    /* closed right after passing the target: all but the last vector fit under it */
    const pm_dv_range *last = &es[f].dv_ranges[es[f].ndv_ranges - 1];
    assert_true(last->offset <= 100);
    if (f + 1 < ne) assert_true(es[f].file_size > 100);
    char *p = pm_asprintf("%s/%s", dir, es[f].file_name);
    for (int32_t r = 0; r < es[f].ndv_ranges; r++, k++) {
      assert_string_equal(es[f].dv_ranges[r].data_file, names[k]);
      pm_dv dv;
      PM_ASSERT_OK(
          pm_dv_read(FS(), p, es[f].dv_ranges[r].offset, es[f].dv_ranges[r].length, &dv, &err),
          &err);
      assert_int_equal(dv.count, 3);
      assert_int_equal(dv.positions[2], k + 1000);
      pm_dv_clear(&dv);
    }
    free(p);
  }
  assert_int_equal(k, N);
  pm_index_entries_free(es, ne);
  /* an empty single file is the version byte alone (Java's writeSingleFile of nothing) */
  PM_ASSERT_OK(pm_dv_index_write(FS(), dir, "empty", &counter, NULL, 0, false, -1, &es, &ne, &err),
               &err);
  assert_int_equal(ne, 1);
  assert_int_equal(es[0].file_size, 1);
  assert_int_equal(es[0].row_count, 0);
  assert_int_equal(es[0].ndv_ranges, 0);
  pm_index_entries_free(es, ne);
  PM_ASSERT_OK(pm_dv_index_write(FS(), dir, "none", &counter, NULL, 0, false, 100, &es, &ne, &err),
               &err);
  assert_int_equal(ne, 0);
  pm_free(dir);
}

/* The maintainer: load a bucket's files, mark, drop, write; the next write deletes what
 * the previous one wrote. */
static void test_maintainer(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = tmp_dir("dv_maint");
  const uint8_t part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int b = 0; b < 2; b++) {
    bool b64 = b == 1;
    pm_dv_maintainer *m = NULL;
    PM_ASSERT_OK(pm_dv_maintainer_new(&m, part, sizeof part, 3, b64, &err), &err);
    assert_false(pm_dv_maintainer_modified(m));
    bool added = false;
    PM_ASSERT_OK(pm_dv_maintainer_delete(m, "a", 10, &added, &err), &err);
    assert_true(added);
    PM_ASSERT_OK(pm_dv_maintainer_delete(m, "a", 10, &added, &err), &err);
    assert_false(added);
    PM_ASSERT_OK(pm_dv_maintainer_delete(m, "a", 2, NULL, &err), &err);
    PM_ASSERT_OK(pm_dv_maintainer_delete(m, "b", 7, NULL, &err), &err);
    PM_ASSERT_OK(pm_dv_maintainer_delete(m, "c", 1, NULL, &err), &err);
    if (b64) PM_ASSERT_OK(pm_dv_maintainer_delete(m, "c", 5LL << 32, NULL, &err), &err);
    else assert_int_equal(pm_dv_maintainer_delete(m, "c", 5LL << 32, NULL, &err), PAIMON_EINVAL);
    assert_true(pm_dv_maintainer_is_deleted(m, "a", 2));
    assert_false(pm_dv_maintainer_is_deleted(m, "a", 3));
    const int64_t *pos = NULL;
    assert_int_equal(pm_dv_maintainer_get(m, "a", &pos), 2);
    assert_int_equal(pos[0], 2);
    assert_int_equal(pos[1], 10);
    int64_t counter = 0;
    pm_index_entry *add = NULL, *del = NULL;
    size_t na = 0, nd = 0;
    PM_ASSERT_OK(pm_dv_maintainer_write(m, FS(), dir, b64 ? "m64" : "m32", &counter, -1, &add, &na,
                                        &del, &nd, &err),
                 &err);
    assert_int_equal(na, 1);
    assert_int_equal(nd, 0);
    assert_int_equal(add[0].bucket, 3);
    assert_int_equal(add[0].partition_len, sizeof part);
    assert_int_equal(add[0].ndv_ranges, 3);
    assert_false(pm_dv_maintainer_modified(m));
    pm_dv_maintainer_free(m);

    /* a second maintainer loads the file; dropping "b" and marking "a" rewrites the bucket
     * and deletes the loaded file */
    PM_ASSERT_OK(pm_dv_maintainer_new(&m, part, sizeof part, 3, b64, &err), &err);
    char *p = pm_asprintf("%s/%s", dir, add[0].file_name);
    PM_ASSERT_OK(pm_dv_maintainer_load(m, FS(), p, &add[0], &err), &err);
    assert_true(pm_dv_maintainer_is_deleted(m, "b", 7));
    assert_int_equal(pm_dv_maintainer_get(m, "c", &pos), b64 ? 2 : 1);
    assert_false(pm_dv_maintainer_modified(m));
    /* loading the same vectors twice is a corrupt bucket */
    assert_int_equal(pm_dv_maintainer_load(m, FS(), p, &add[0], &err), PAIMON_ECORRUPT);
    pm_dv_maintainer_remove(m, "b");
    PM_ASSERT_OK(pm_dv_maintainer_delete(m, "a", 0, NULL, &err), &err);
    pm_index_entry *add2 = NULL, *del2 = NULL;
    size_t na2 = 0, nd2 = 0;
    PM_ASSERT_OK(pm_dv_maintainer_write(m, FS(), dir, b64 ? "m64" : "m32", &counter, -1, &add2,
                                        &na2, &del2, &nd2, &err),
                 &err);
    assert_int_equal(na2, 1);
    assert_int_equal(nd2, 1); /* the file loaded */
    assert_int_equal(del2[0].kind, PM_ENTRY_DELETE);
    assert_string_equal(del2[0].file_name, add[0].file_name);
    assert_int_equal(add2[0].ndv_ranges, 2);
    char *p2 = pm_asprintf("%s/%s", dir, add2[0].file_name);
    for (int32_t r = 0; r < add2[0].ndv_ranges; r++) {
      const pm_dv_range *rg = &add2[0].dv_ranges[r];
      assert_string_not_equal(rg->data_file, "b");
      pm_dv dv;
      PM_ASSERT_OK(pm_dv_read(FS(), p2, rg->offset, rg->length, &dv, &err), &err);
      assert_int_equal(dv.count, rg->cardinality);
      if (strcmp(rg->data_file, "a") == 0) {
        assert_int_equal(dv.count, 3);
        assert_int_equal(dv.positions[0], 0);
      }
      pm_dv_clear(&dv);
    }
    /* everything dropped: no new file, the previous one deleted */
    pm_dv_maintainer_remove(m, "a");
    pm_dv_maintainer_remove(m, "c");
    pm_index_entry *add3 = NULL, *del3 = NULL;
    size_t na3 = 0, nd3 = 0;
    PM_ASSERT_OK(
        pm_dv_maintainer_write(m, FS(), dir, "m", &counter, -1, &add3, &na3, &del3, &nd3, &err),
        &err);
    assert_int_equal(na3, 0);
    assert_int_equal(nd3, 1);
    assert_string_equal(del3[0].file_name, add2[0].file_name);
    pm_index_entries_free(add3, na3);
    pm_index_entries_free(del3, nd3);
    free(p);
    free(p2);
    pm_index_entries_free(add, na);
    pm_index_entries_free(del, nd);
    pm_index_entries_free(add2, na2);
    pm_index_entries_free(del2, nd2);
    pm_dv_maintainer_free(m);
  }
  pm_free(dir);
}

/* ---- index manifests ------------------------------------------------------------------ */

static pm_index_entry entry(int32_t kind, uint8_t part, int32_t bucket, const char *type,
                            const char *name, const char *data_file) {
  pm_index_entry e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.partition = pm_malloc(8);
  memset(e.partition, 0, 8);
  e.partition[7] = part;
  e.partition_len = 8;
  e.bucket = bucket;
  e.index_type = pm_strdup(type);
  e.file_name = pm_strdup(name);
  e.file_size = 31;
  e.row_count = data_file ? 1 : 0;
  e.ndv_ranges = data_file ? 1 : -1;
  if (data_file) {
    e.dv_ranges = pm_calloc(1, sizeof *e.dv_ranges);
    e.dv_ranges[0].data_file = pm_strdup(data_file);
    e.dv_ranges[0].offset = 1;
    e.dv_ranges[0].length = 22;
    e.dv_ranges[0].cardinality = 1;
  }
  return e;
}

static bool has(const pm_index_entry *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].file_name, name) == 0) return true;
  return false;
}

/* IndexManifestFileHandler's combiners. */
static void test_combine(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_index_entry prev[3] = {entry(0, 1, 0, "DELETION_VECTORS", "i0", "d0"),
                            entry(0, 1, 1, "DELETION_VECTORS", "i1", "d1"),
                            entry(0, 2, 0, "HASH", "h0", NULL)};
  /* bucketed: an ADD replaces its bucket's entry even without a DELETE; a DELETE removes */
  pm_index_entry delta[3] = {entry(0, 1, 0, "DELETION_VECTORS", "i2", "d0"),
                             entry(1, 1, 1, "DELETION_VECTORS", "i1", "d1"),
                             entry(0, 2, 0, "HASH", "h1", NULL)};
  pm_index_entry *out = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_index_manifest_combine(prev, 3, delta, 3, false, &out, &n, &err), &err);
  assert_int_equal(n, 2);
  assert_true(has(out, n, "i2") && has(out, n, "h1"));
  for (size_t i = 0; i < n; i++) assert_int_equal(out[i].kind, PM_ENTRY_ADD);
  pm_index_entries_free(out, n);
  /* a DELETE and an ADD of one bucket in one commit: the ADD stays */
  pm_index_entry d2[2] = {entry(0, 1, 0, "DELETION_VECTORS", "i3", "d0"),
                          entry(1, 1, 0, "DELETION_VECTORS", "i0", "d0")};
  PM_ASSERT_OK(pm_index_manifest_combine(prev, 3, d2, 2, false, &out, &n, &err), &err);
  assert_int_equal(n, 3);
  assert_true(has(out, n, "i3") && !has(out, n, "i0"));
  pm_index_entries_free(out, n);
  /* bucket-unaware (GlobalCombiner): by file name, and one vector per data file */
  pm_index_entry u1[1] = {entry(0, 1, -1, "DELETION_VECTORS", "i9", "d0")};
  assert_int_equal(pm_index_manifest_combine(prev, 3, u1, 1, true, &out, &n, &err),
                   PAIMON_ECONFLICT);
  assert_non_null(strstr(err.message, "d0"));
  pm_index_entry u2[2] = {entry(1, 1, -1, "DELETION_VECTORS", "i0", "d0"),
                          entry(0, 1, -1, "DELETION_VECTORS", "i9", "d0")};
  PM_ASSERT_OK(pm_index_manifest_combine(prev, 3, u2, 2, true, &out, &n, &err), &err);
  assert_int_equal(n, 3);
  assert_true(has(out, n, "i9") && has(out, n, "i1") && !has(out, n, "i0"));
  pm_index_entries_free(out, n);
  pm_index_entry u3[1] = {entry(1, 1, -1, "DELETION_VECTORS", "nope", "dx")};
  assert_int_equal(pm_index_manifest_combine(prev, 3, u3, 1, true, &out, &n, &err),
                   PAIMON_ECONFLICT);
  /* a previous manifest holding a DELETE is corrupt */
  prev[0].kind = PM_ENTRY_DELETE;
  assert_int_equal(pm_index_manifest_combine(prev, 3, u3, 1, false, &out, &n, &err),
                   PAIMON_ECORRUPT);
  for (int i = 0; i < 3; i++) {
    pm_index_entry_clear(&prev[i]);
    pm_index_entry_clear(&delta[i]);
  }
  for (int i = 0; i < 2; i++) {
    pm_index_entry_clear(&d2[i]);
    pm_index_entry_clear(&u2[i]);
  }
  pm_index_entry_clear(&u1[0]);
  pm_index_entry_clear(&u3[0]);
}

/* An index manifest we write reads back through our reader and python3-avro, in Java
 * 1.4.1's shape (_GLOBAL_INDEX present and null), as the corpus's index manifests. */
static void test_index_manifest(void **state) {
  (void)state;
  paimon_error err = {0};
  char *dir = tmp_dir("dv_im");
  pm_index_entry es[2] = {entry(0, 10, 1, "DELETION_VECTORS", "index-x-0", "data-a.parquet"),
                          entry(1, 10, 0, "DELETION_VECTORS", "index-x-1", NULL)};
  es[1].ndv_ranges = 0;
  es[1].dv_ranges = pm_calloc(1, sizeof(pm_dv_range));
  es[0].dv_ranges[0].cardinality = PM_NULL_I64;
  char *p = pm_asprintf("%s/index-manifest-t-0", dir);
  PM_ASSERT_OK(pm_index_manifest_write(FS(), p, es, 2, "zstd", &err), &err);
  pm_index_entry *rd = NULL;
  size_t n = 0;
  PM_ASSERT_OK(pm_index_manifest_read(FS(), p, &rd, &n, &err), &err);
  assert_int_equal(n, 2);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(rd[i].kind, es[i].kind);
    assert_int_equal(rd[i].bucket, es[i].bucket);
    assert_int_equal(rd[i].partition_len, 8);
    assert_memory_equal(rd[i].partition, es[i].partition, 8);
    assert_string_equal(rd[i].file_name, es[i].file_name);
    assert_int_equal(rd[i].ndv_ranges, es[i].ndv_ranges);
    assert_null(rd[i].external_path);
  }
  assert_string_equal(rd[0].dv_ranges[0].data_file, "data-a.parquet");
  assert_int_equal(rd[0].dv_ranges[0].cardinality, PM_NULL_I64);
  pm_index_entries_free(rd, n);

  char cmd[4400];
  snprintf(cmd, sizeof cmd, PY " '%s' '%s' --schema", pm_test_shared("tools/oracle/avro_dump.py"),
           p);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  static char line[1 << 16];
  json_t *rows[4];
  size_t nr = 0;
  json_t *schema = NULL;
  while (fgets(line, sizeof line, f)) {
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    if (!j) fail_msg("oracle output is not JSON: %s", je.text);
    if (!schema) schema = j;
    else if (nr < 4) rows[nr++] = j;
    else json_decref(j);
  }
  if (pclose(f) != 0) fail_msg("avro_dump.py failed on %s (python3-avro installed?)", p);
  assert_non_null(schema);
  assert_string_equal(json_string_value(json_object_get(schema, "codec")), "zstandard");
  char *st = json_dumps(json_object_get(schema, "schema"), JSON_COMPACT);
  assert_non_null(strstr(st, "\"name\":\"_GLOBAL_INDEX\""));
  assert_non_null(strstr(st, "\"name\":\"_CARDINALITY\""));
  assert_non_null(strstr(st, "org.apache.paimon.avro.generated"));
  free(st);
  assert_int_equal(nr, 2);
  assert_int_equal(json_integer_value(json_object_get(rows[0], "_VERSION")), 1);
  assert_int_equal(json_integer_value(json_object_get(rows[1], "_KIND")), 1);
  assert_string_equal(json_string_value(json_object_get(rows[0], "_INDEX_TYPE")),
                      "DELETION_VECTORS");
  assert_true(json_is_null(json_object_get(rows[0], "_GLOBAL_INDEX")));
  json_t *r0 = json_array_get(json_object_get(rows[0], "_DELETIONS_VECTORS_RANGES"), 0);
  assert_string_equal(json_string_value(json_object_get(r0, "f0")), "data-a.parquet");
  assert_int_equal(json_integer_value(json_object_get(r0, "f1")), 1);
  assert_int_equal(json_integer_value(json_object_get(r0, "f2")), 22);
  assert_true(json_is_null(json_object_get(r0, "_CARDINALITY")));
  assert_int_equal(json_array_size(json_object_get(rows[1], "_DELETIONS_VECTORS_RANGES")), 0);
  for (size_t i = 0; i < nr; i++) json_decref(rows[i]);
  json_decref(schema);
  pm_index_entry_clear(&es[0]);
  pm_index_entry_clear(&es[1]);
  pm_free(p);
  pm_free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_java_bytes),
      cmocka_unit_test(test_rolling),   cmocka_unit_test(test_maintainer),
      cmocka_unit_test(test_combine),   cmocka_unit_test(test_index_manifest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
