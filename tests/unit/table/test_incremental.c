/* Incremental reads (paimon/stream.h): delta with row kinds, COMPACT snapshots skipped,
 * diff of merged states (primary-key kinds, append multisets), tags, times, Java's option
 * keys, the refused ranges; and following a table: scan.mode starts, changes in commit
 * order, the wait, checkpoints restored without gap or duplicate, consumer files, and
 * expiration keeping what a consumer needs. */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/column.h"

static paimon_table *make_table(const char *name, bool pk, char *path, size_t cap) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"fields\":[{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":1,\"name\":\"v\",\"type\":\"STRING\"}],\"partitionKeys\":[],"
           "\"primaryKeys\":[%s],\"options\":{\"bucket\":\"%s\"}}",
           pk ? "\"k\"" : "", pk ? "2" : "-1");
  snprintf(path, cap, "%s/%s", pm_test_tmpdir(), name);
  paimon_error err = {0};
  paimon_table *t = NULL;
  PM_ASSERT_OK(paimon_table_create_json(&t, path, json, &err), &err);
  return t;
}

/* Writes JSON lines as one commit (compacting fully first when `compact`). */
static void write_lines(paimon_table *t, int64_t ident, const char *const *lines, size_t n,
                        bool compact) {
  paimon_error err = {0};
  struct ArrowArray a;
  struct ArrowSchema s;
  const char *const *pks = NULL;
  int flags = paimon_table_primary_keys(&pks, t) ? PAIMON_JSONL_VALUE_KIND : 0;
  PM_ASSERT_OK(paimon_jsonl_parse(&a, &s, t, lines, NULL, n, NULL, flags, &err), &err);
  paimon_writer *w;
  PM_ASSERT_OK(paimon_writer_new(&w, t, "u", NULL, &err), &err);
  PM_ASSERT_OK(paimon_writer_write(w, &a, &s, &err), &err);
  if (compact) PM_ASSERT_OK(paimon_writer_compact(w, 1, &err), &err);
  paimon_commit_messages *m;
  PM_ASSERT_OK(paimon_writer_prepare_commit(&m, w, ident, &err), &err);
  int64_t id = 0;
  PM_ASSERT_OK(paimon_table_commit(&id, t, "u", ident, m, NULL, &err), &err);
  paimon_commit_messages_free(m);
  paimon_writer_close(w);
  a.release(&a);
  s.release(&s);
}

/* "k|v|kind" lines of a batch (kind "" when the batch has no _VALUE_KIND). */
static void batch_lines(const struct ArrowArray *b, char *out, size_t cap) {
  for (int64_t i = 0; i < b->length; i++) {
    int32_t k = PM_ARR_FIXED(b->children[0], int32_t, i);
    int32_t vl = 0, kl = 0;
    const uint8_t *v = pm_arr_is_valid(b->children[1], i) ? pm_arr_bytes(b->children[1], i, &vl)
                                                          : (const uint8_t *)"null";
    if (!pm_arr_is_valid(b->children[1], i)) vl = 4;
    const uint8_t *kd = b->n_children > 2 ? pm_arr_bytes(b->children[2], i, &kl) : NULL;
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "%d|%.*s|%.*s\n", k, (int)vl, (const char *)v, (int)kl,
             kd ? (const char *)kd : "");
  }
}

/* Every row of a stream as lines, in stream order. */
static char *stream_lines(struct ArrowArrayStream *st) {
  char *out = calloc(1, 1 << 16);
  assert_non_null(out);
  for (;;) {
    struct ArrowArray b;
    int e = st->get_next(st, &b);
    if (e) fail_msg("get_next: %s", st->get_last_error(st));
    if (!b.release) break;
    batch_lines(&b, out, 1 << 16);
    b.release(&b);
  }
  st->release(st);
  return out;
}

static char *incremental(paimon_table *t, int64_t a, int64_t b, paimon_incremental_mode mode) {
  paimon_error err = {0};
  paimon_incremental *inc;
  PM_ASSERT_OK(paimon_incremental_new(&inc, t, &err), &err);
  PM_ASSERT_OK(paimon_incremental_set_snapshots(inc, a, b, &err), &err);
  PM_ASSERT_OK(paimon_incremental_set_mode(inc, mode, &err), &err);
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_incremental_read(&st, inc, NULL, &err), &err);
  paimon_incremental_free(inc);
  return stream_lines(&st);
}

/* Sorted copy of newline-separated lines (diff output has no set order). */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}
static char *sorted(char *s) {
  char *v[256];
  size_t n = 0;
  for (char *p = strtok(s, "\n"); p && n < 256; p = strtok(NULL, "\n")) v[n++] = p;
  qsort(v, n, sizeof *v, cmp_str);
  char *out = calloc(1, 1 << 16);
  for (size_t i = 0; i < n; i++) {
    strcat(out, v[i]);
    strcat(out, "\n");
  }
  free(s);
  return out;
}

static void test_pk_delta_and_diff(void **state) {
  (void)state;
  char path[4096];
  paimon_table *t = make_table("pk", true, path, sizeof path);
  const char *c1[] = {"{\"k\":1,\"v\":\"a\"}", "{\"k\":2,\"v\":\"b\"}", "{\"k\":3,\"v\":\"c\"}"};
  write_lines(t, 1, c1, 3, false); /* snapshot 1 */
  const char *c2[] = {"{\"k\":2,\"v\":\"B\",\"_VALUE_KIND\":\"+U\"}",
                      "{\"k\":3,\"_VALUE_KIND\":\"-D\"}", "{\"k\":4,\"v\":\"d\"}"};
  write_lines(t, 2, c2, 3, true); /* snapshot 2 APPEND, 3 COMPACT */
  const char *c3[] = {"{\"k\":1,\"v\":\"a\"}", "{\"k\":5,\"v\":\"e\"}"};
  write_lines(t, 3, c3, 2, false); /* snapshot 4 */
  paimon_table_close(t);
  t = pm_test_table_open(path, NULL);

  /* delta keeps every record with its kind, per bucket in commit order */
  char *d = sorted(incremental(t, 1, 2, PAIMON_INCREMENTAL_DELTA));
  assert_string_equal(d, "2|B|+U\n3|null|-D\n4|d|+I\n");
  free(d);
  d = incremental(t, 2, 3, PAIMON_INCREMENTAL_DELTA); /* COMPACT: nothing */
  assert_string_equal(d, "");
  free(d);
  d = sorted(incremental(t, 0, 4, PAIMON_INCREMENTAL_AUTO)); /* auto = delta here */
  assert_string_equal(d, "1|a|+I\n1|a|+I\n2|B|+U\n2|b|+I\n3|c|+I\n3|null|-D\n4|d|+I\n5|e|+I\n");
  free(d);
  d = incremental(t, 0, 4, PAIMON_INCREMENTAL_CHANGELOG); /* no producer: no changelog */
  assert_string_equal(d, "");
  free(d);

  /* diff: each changed key once; an unchanged rewrite (k=1) is no change */
  d = sorted(incremental(t, 1, 4, PAIMON_INCREMENTAL_DIFF));
  assert_string_equal(d, "2|B|+U\n3|c|-D\n4|d|+I\n5|e|+I\n");
  free(d);
  d = incremental(t, 3, 3, PAIMON_INCREMENTAL_DIFF);
  assert_string_equal(d, "");
  free(d);
  d = sorted(incremental(t, 0, 1, PAIMON_INCREMENTAL_DIFF));
  assert_string_equal(d, "1|a|+I\n2|b|+I\n3|c|+I\n");
  free(d);

  /* projection keeps _VALUE_KIND last */
  paimon_error err = {0};
  paimon_incremental *inc;
  PM_ASSERT_OK(paimon_incremental_new(&inc, t, &err), &err);
  PM_ASSERT_OK(paimon_incremental_set_option(inc, "incremental-between", "1,2", &err), &err);
  PM_ASSERT_OK(paimon_incremental_set_option(inc, "incremental-between-scan-mode", "DELTA", &err),
               &err);
  const char *cols[] = {"v", NULL};
  struct ArrowArrayStream st;
  PM_ASSERT_OK(paimon_incremental_read(&st, inc, cols, &err), &err);
  struct ArrowSchema sch;
  assert_int_equal(st.get_schema(&st, &sch), 0);
  assert_int_equal(sch.n_children, 2);
  assert_string_equal(sch.children[0]->name, "v");
  assert_string_equal(sch.children[1]->name, "_VALUE_KIND");
  sch.release(&sch);
  st.release(&st);

  /* refused: bad options, ranges outside the snapshots, unknown columns, no range */
  assert_int_equal(paimon_incremental_set_option(inc, "incremental-between", "5", &err),
                   PAIMON_EINVAL);
  assert_int_equal(paimon_incremental_set_option(inc, "incremental-between-scan-mode", "x", &err),
                   PAIMON_EINVAL);
  assert_int_equal(paimon_incremental_set_option(inc, "incremental-foo", "1,2", &err),
                   PAIMON_EINVAL);
  assert_int_equal(paimon_incremental_set_snapshots(inc, 3, 2, &err), PAIMON_EINVAL);
  PM_ASSERT_OK(paimon_incremental_set_snapshots(inc, 1, 9, &err), &err);
  assert_int_equal(paimon_incremental_read(&st, inc, NULL, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "outside the kept snapshots"));
  PM_ASSERT_OK(paimon_incremental_set_snapshots(inc, 1, 2, &err), &err);
  const char *nocol[] = {"nope", NULL};
  assert_int_equal(paimon_incremental_read(&st, inc, nocol, &err), PAIMON_EINVAL);
  assert_null(st.release);
  paimon_incremental_free(inc);
  PM_ASSERT_OK(paimon_incremental_new(&inc, t, &err), &err);
  assert_int_equal(paimon_incremental_read(&st, inc, NULL, &err), PAIMON_EINVAL);

  /* tags (tag files are snapshot-shaped: a copy of the snapshot file) and times */
  char src[4200], dst[4200], cmd[32768];
  snprintf(src, sizeof src, "%s/snapshot/snapshot-1", path);
  snprintf(dst, sizeof dst, "%s/tag", path);
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && cp '%s' '%s/tag-t1' && cp '%s/snapshot/snapshot-4' "
           "'%s/tag-t4'",
           dst, src, dst, path, dst);
  assert_int_equal(system(cmd), 0);
  PM_ASSERT_OK(paimon_incremental_set_option(inc, "incremental-between", "t1,t4", &err), &err);
  PM_ASSERT_OK(paimon_incremental_read(&st, inc, NULL, &err), &err); /* auto: diff */
  d = sorted(stream_lines(&st));
  assert_string_equal(d, "2|B|+U\n3|c|-D\n4|d|+I\n5|e|+I\n");
  free(d);
  PM_ASSERT_OK(paimon_incremental_set_option(inc, "incremental-between", "t1,nosuch", &err), &err);
  assert_int_equal(paimon_incremental_read(&st, inc, NULL, &err), PAIMON_ENOTFOUND);
  assert_non_null(strstr(err.message, "nosuch"));
  PM_ASSERT_OK(paimon_incremental_set_option(inc, "incremental-between-timestamp",
                                             "0,9223372036854775807", &err),
               &err);
  PM_ASSERT_OK(paimon_incremental_set_mode(inc, PAIMON_INCREMENTAL_DELTA, &err), &err);
  PM_ASSERT_OK(paimon_incremental_read(&st, inc, NULL, &err), &err); /* every snapshot */
  d = stream_lines(&st);
  size_t lines = 0;
  for (char *p = d; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 8);
  free(d);
  paimon_incremental_free(inc);
  paimon_table_close(t);
}

static void test_append_delta_and_diff(void **state) {
  (void)state;
  char path[4096];
  paimon_table *t = make_table("ap", false, path, sizeof path);
  const char *c1[] = {"{\"k\":1,\"v\":\"a\"}", "{\"k\":1,\"v\":\"a\"}", "{\"k\":2,\"v\":\"b\"}"};
  write_lines(t, 1, c1, 3, false);
  const char *c2[] = {"{\"k\":1,\"v\":\"a\"}", "{\"k\":3,\"v\":\"c\"}"};
  write_lines(t, 2, c2, 2, false);
  /* append deltas are inserts in the table's plain shape (no _VALUE_KIND) */
  char *d = sorted(incremental(t, 1, 2, PAIMON_INCREMENTAL_DELTA));
  assert_string_equal(d, "1|a|\n3|c|\n");
  free(d);
  d = sorted(incremental(t, 1, 2, PAIMON_INCREMENTAL_DIFF)); /* multiset: one more 1|a */
  assert_string_equal(d, "1|a|+I\n3|c|+I\n");
  free(d);
  d = sorted(incremental(t, 0, 2, PAIMON_INCREMENTAL_DIFF));
  assert_string_equal(d, "1|a|+I\n1|a|+I\n1|a|+I\n2|b|+I\n3|c|+I\n");
  free(d);
  paimon_table_close(t);
}

/* ---- following ------------------------------------------------------------------- */

static char *follow_all(paimon_follow *f, int64_t timeout_ms) {
  char *out = calloc(1, 1 << 16);
  paimon_error err = {0};
  for (;;) {
    struct ArrowArray b;
    int rc = paimon_follow_next(&b, NULL, f, timeout_ms, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    assert_true(b.length > 0);
    batch_lines(&b, out, 1 << 16);
    b.release(&b);
  }
  return out;
}

static paimon_follow *open_follow(paimon_table *t, const char *const *kv) {
  paimon_error err = {0};
  paimon_options *o;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  for (size_t i = 0; kv && kv[i]; i += 2)
    PM_ASSERT_OK(paimon_options_set(o, kv[i], kv[i + 1], &err), &err);
  paimon_follow *f = NULL;
  PM_ASSERT_OK(paimon_follow_open(&f, t, o, &err), &err);
  paimon_options_free(o);
  return f;
}

static void test_follow_modes(void **state) {
  (void)state;
  paimon_error err = {0};
  char path[4096];
  paimon_table *t = make_table("fo", true, path, sizeof path);
  const char *c1[] = {"{\"k\":1,\"v\":\"a\"}"};
  write_lines(t, 1, c1, 1, false); /* 1 */
  const char *c2[] = {"{\"k\":1,\"v\":\"A\",\"_VALUE_KIND\":\"+U\"}"};
  write_lines(t, 2, c2, 1, true); /* 2 APPEND, 3 COMPACT */
  paimon_table_close(t);
  t = pm_test_table_open(path, NULL);

  paimon_follow *f = open_follow(t, NULL); /* latest-full: snapshot 3 in full */
  char *s = follow_all(f, 0);
  assert_string_equal(s, "1|A|+I\n");
  free(s);
  paimon_follow_position p = PAIMON_FOLLOW_POSITION_INIT;
  PM_ASSERT_OK(paimon_follow_checkpoint(&p, f), &err);
  assert_int_equal(p.snapshot_id, 4);
  assert_int_equal(p.full, 0);
  paimon_follow_free(f);

  const char *from1[] = {"scan.mode", "from-snapshot", "scan.snapshot-id", "1", NULL};
  f = open_follow(t, from1);
  s = follow_all(f, 0);
  assert_string_equal(s, "1|a|+I\n1|A|+U\n");
  free(s);
  paimon_follow_free(f);
  const char *full1[] = {"scan.mode", "from-snapshot-full", "scan.snapshot-id", "2", NULL};
  f = open_follow(t, full1);
  s = follow_all(f, 0);
  assert_string_equal(s, "1|A|+I\n"); /* 2 in full, then 3 (COMPACT) adds no change */
  free(s);
  paimon_follow_free(f);
  const char *latest[] = {"scan.mode", "latest", NULL};
  f = open_follow(t, latest);
  s = follow_all(f, 0);
  assert_string_equal(s, "");
  free(s);
  /* the wait: a new snapshot shows up on the next call */
  const char *c3[] = {"{\"k\":2,\"v\":\"b\"}", "{\"k\":1,\"_VALUE_KIND\":\"-D\"}"};
  write_lines(t, 3, c3, 2, false); /* 4 */
  s = follow_all(f, 100);
  assert_string_equal(s, "1|null|-D\n2|b|+I\n");
  free(s);
  paimon_follow_free(f);
  const char *ts[] = {"scan.mode", "from-timestamp", "scan.timestamp-millis", "0", NULL};
  f = open_follow(t, ts);
  s = follow_all(f, 0);
  assert_string_equal(s, "1|a|+I\n1|A|+U\n1|null|-D\n2|b|+I\n");
  free(s);
  paimon_follow_free(f);
  const char *cf[] = {"scan.mode", "compacted-full", NULL};
  f = open_follow(t, cf);
  s = follow_all(f, 0);
  assert_string_equal(s, "1|A|+I\n1|null|-D\n2|b|+I\n");
  free(s);
  paimon_follow_free(f);

  paimon_options *o;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "scan.mode", "sideways", &err), &err);
  assert_int_equal(paimon_follow_open(&f, t, o, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "sideways"));
  PM_ASSERT_OK(paimon_options_set(o, "scan.mode", "from-snapshot", &err), &err);
  assert_int_equal(paimon_follow_open(&f, t, o, &err), PAIMON_EINVAL);
  paimon_options_free(o);
  paimon_table_close(t);
}

/* A stream cut at every batch and restored from its checkpoint delivers exactly the rows
 * of an uncut stream, across snapshots and splits (one-row batches). */
static void test_follow_checkpoint(void **state) {
  (void)state;
  char path[4096];
  paimon_table *t = make_table("ck", true, path, sizeof path);
  char lines[40][48];
  const char *lp[40];
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < 10; i++) {
      snprintf(lines[i], sizeof lines[i], "{\"k\":%d,\"v\":\"c%d\"}", i * 7 % 13, c);
      lp[i] = lines[i];
    }
    write_lines(t, c + 1, lp, 10, c == 2);
  }
  paimon_table_close(t);
  const char *kv[] = {"read.batch-size", "1", NULL};
  t = pm_test_table_open(path, kv);
  const char *from1[] = {"scan.mode", "from-snapshot", "scan.snapshot-id", "1", NULL};
  paimon_follow *f = open_follow(t, from1);
  char *whole = follow_all(f, 0);
  paimon_follow_free(f);
  assert_true(strlen(whole) > 40);

  char *cut = calloc(1, 1 << 16);
  paimon_follow_position pos = PAIMON_FOLLOW_POSITION_INIT;
  f = open_follow(t, from1);
  paimon_error err = {0};
  int restores = 0;
  for (;;) {
    struct ArrowArray b;
    int rc = paimon_follow_next(&b, NULL, f, 0, &err);
    if (rc == PAIMON_ITEROVER) break;
    PM_ASSERT_OK(rc, &err);
    batch_lines(&b, cut, 1 << 16);
    b.release(&b);
    PM_ASSERT_OK(paimon_follow_checkpoint(&pos, f), &err);
    paimon_follow_free(f);
    PM_ASSERT_OK(paimon_follow_restore(&f, t, NULL, &pos, &err), &err);
    restores++;
  }
  paimon_follow_free(f);
  assert_true(restores >= 40);
  assert_string_equal(cut, whole);
  free(cut);
  free(whole);
  pos.split = -1;
  assert_int_equal(paimon_follow_restore(&f, t, NULL, &pos, &err), PAIMON_EINVAL);
  pos.split = 0;
  pos.struct_size = 0;
  assert_int_equal(paimon_follow_restore(&f, t, NULL, &pos, &err), PAIMON_EINVAL);
  paimon_table_close(t);
}

static void test_consumer_and_expire(void **state) {
  (void)state;
  char path[4096];
  paimon_table *t = make_table("co", true, path, sizeof path);
  const char *c1[] = {"{\"k\":1,\"v\":\"a\"}"};
  for (int i = 1; i <= 6; i++) write_lines(t, i, c1, 1, false);
  const char *kv[] = {"consumer-id",      "job1", "scan.mode", "from-snapshot",
                      "scan.snapshot-id", "3",    NULL};
  paimon_follow *f = open_follow(t, kv);
  char cpath[4200];
  snprintf(cpath, sizeof cpath, "%s/consumer/consumer-job1", path);
  FILE *fp = fopen(cpath, "r");
  assert_non_null(fp);
  char buf[128] = {0};
  assert_true(fread(buf, 1, sizeof buf - 1, fp) > 0);
  fclose(fp);
  assert_string_equal(buf, "{\n  \"nextSnapshot\" : 3\n}"); /* Java's Consumer JSON */

  /* expiration keeps snapshot 3 and later for the consumer */
  paimon_error err = {0};
  paimon_options *o;
  PM_ASSERT_OK(paimon_options_new(&o, &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.min", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.num-retained.max", "1", &err), &err);
  PM_ASSERT_OK(paimon_options_set(o, "snapshot.time-retained", "1ms", &err), &err);
  int64_t n = 0;
  PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
  assert_int_equal(n, 2);
  char *s = follow_all(f, 0);
  assert_string_equal(s, "1|a|+I\n1|a|+I\n1|a|+I\n1|a|+I\n");
  free(s);
  PM_ASSERT_OK(paimon_follow_commit_consumer(f, &err), &err);
  paimon_follow_free(f);
  /* progress recorded: a new stream of the consumer resumes after snapshot 6 */
  const char *again[] = {"consumer-id", "job1", NULL};
  f = open_follow(t, again);
  paimon_follow_position p = PAIMON_FOLLOW_POSITION_INIT;
  PM_ASSERT_OK(paimon_follow_checkpoint(&p, f), &err);
  assert_int_equal(p.snapshot_id, 7);
  paimon_follow_free(f);
  PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
  assert_int_equal(n, 3); /* 3, 4, 5 */

  /* consumer.expiration-time: a consumer not updated for that long is dropped */
  write_lines(t, 7, c1, 1, false);
  PM_ASSERT_OK(paimon_options_set(o, "consumer.expiration-time", "1ms", &err), &err);
  struct timespec ts = {0, 20 * 1000000L};
  nanosleep(&ts, NULL);
  PM_ASSERT_OK(paimon_table_expire_snapshots(&n, t, o, &err), &err);
  assert_int_equal(n, 1);
  assert_null(fopen(cpath, "r"));
  paimon_options_free(o);
  paimon_table_close(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pk_delta_and_diff),   cmocka_unit_test(test_append_delta_and_diff),
      cmocka_unit_test(test_follow_modes),        cmocka_unit_test(test_follow_checkpoint),
      cmocka_unit_test(test_consumer_and_expire),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
