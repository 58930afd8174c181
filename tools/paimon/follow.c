/* tools/paimon/follow.c: `paimon cat --incremental*` and `paimon cat --follow`
 * (paimon/stream.h). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_incremental_read(struct ArrowArrayStream *out, paimon_table *t, const char *snapshots,
                         const char *tags, const char *times, const char *mode,
                         const char *const *columns, paimon_error *err) {
  int given = (snapshots != NULL) + (tags != NULL) + (times != NULL);
  if (given != 1)
    usage_error("usage: paimon cat [options] TABLE\n",
                "give one of --incremental, --incremental-tags, --incremental-time%s", "");
  paimon_incremental *inc = NULL;
  int rc = paimon_incremental_new(&inc, t, err);
  if (rc) return rc;
  if (snapshots) {
    int64_t a, b;
    const char *c = strchr(snapshots, ',');
    char first[32];
    size_t n = c ? (size_t)(c - snapshots) : 0;
    if (!c || n == 0 || n >= sizeof first)
      usage_error("usage: paimon cat [options] TABLE\n", "--incremental needs A,B, got '%s'",
                  snapshots);
    memcpy(first, snapshots, n);
    first[n] = 0;
    if (!parse_i64(first, &a) || !parse_i64(c + 1, &b) || a < 0 || b < 0)
      usage_error("usage: paimon cat [options] TABLE\n",
                  "--incremental needs two snapshot ids A,B, got '%s'", snapshots);
    rc = paimon_incremental_set_snapshots(inc, a, b, err);
  } else {
    rc = paimon_incremental_set_option(
        inc, tags ? "incremental-between" : "incremental-between-timestamp", tags ? tags : times,
        err);
    if (rc == 0 && tags && !strchr(tags, ',')) rc = PAIMON_EINVAL;
  }
  if (rc == 0 && mode)
    rc = paimon_incremental_set_option(inc, "incremental-between-scan-mode", mode, err);
  if (rc == 0) rc = paimon_incremental_read(out, inc, columns, err);
  paimon_incremental_free(inc);
  return rc;
}

static volatile sig_atomic_t g_stop;

static void on_sigint(int sig) {
  (void)sig;
  g_stop = 1;
}

int cli_cat_follow(paimon_table *t, const char *const *columns, int mode, const char *from_snapshot,
                   const char *consumer_id, int64_t limit) {
  paimon_error err = {0, ""};
  paimon_options *o = NULL;
  if (paimon_options_new(&o, NULL) != 0) die("out of memory%s", "");
  int rc = 0;
  if (from_snapshot) {
    int64_t id;
    if (!parse_i64(from_snapshot, &id) || id <= 0)
      usage_error("usage: paimon cat [options] TABLE\n",
                  "--from-snapshot needs a positive snapshot id, got '%s'", from_snapshot);
    rc = paimon_options_set(o, "scan.mode", "from-snapshot", &err);
    if (rc == 0) rc = paimon_options_set(o, "scan.snapshot-id", from_snapshot, &err);
  }
  if (rc == 0 && consumer_id) rc = paimon_options_set(o, "consumer-id", consumer_id, &err);
  paimon_follow *f = NULL;
  if (rc == 0) rc = paimon_follow_open(&f, t, o, &err);
  paimon_options_free(o);
  if (rc) die_err(&err, rc);
  (void)columns; /* the follow stream has the table's full shape */
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  rc = paimon_follow_schema(&schema, f, &err);
  if (rc) die_err(&err, rc);
  char emsg[512];
  cli_render rr;
  if (cli_render_init(&rr, &schema, mode, emsg, sizeof emsg) != 0)
    die("unsupported result schema: %s", emsg);
  out_check(cli_render_header(&rr, &g_out));
  out_flush();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  int64_t emitted = 0;
  int status = 0;
  while (!g_stop && (limit < 0 || emitted < limit)) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = paimon_follow_next(&batch, NULL, f, 200, &err);
    if (rc == PAIMON_ITEROVER) {
      /* caught up: what was printed is done, so the consumer may move on */
      rc = paimon_follow_commit_consumer(f, &err);
      if (rc) break;
      continue;
    }
    if (rc) break;
    if (cli_render_check(&rr, &batch, emsg, sizeof emsg) != 0)
      die("bad batch from the reader: %s", emsg);
    for (int64_t i = 0; i < batch.length && (limit < 0 || emitted < limit); i++) {
      out_check(cli_render_row(&rr, &batch, i, &g_out));
      emitted++;
    }
    batch.release(&batch);
    out_flush();
    if (fflush(stdout) != 0) {
      status = 1;
      break;
    }
  }
  if (rc && rc != PAIMON_ITEROVER) {
    out_flush();
    fprintf(stderr, "paimon: %s\n", err.message[0] ? err.message : paimon_strerror(rc));
    status = 1;
  } else if (paimon_follow_commit_consumer(f, &err) != 0) {
    /* stopped (SIGINT or --limit): the consumer names the snapshot still being printed */
    status = 1;
  }
  out_flush();
  cli_render_free(&rr);
  schema.release(&schema);
  paimon_follow_free(f);
  if (fflush(stdout) != 0) status = 1;
  return status;
}
