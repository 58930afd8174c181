/* tools/paimon/ingest.c: `paimon ingest`, the real-time main job.
 *
 * Reads a JSON-lines source in batches; the 0-based line number of each line is its
 * real-time offset. Rows are written through a real-time writer (queryable as soon as
 * the write returns) and committed with their offset progress every interval. The
 * writer runs in replay mode (realtime.write.skip-committed), so after a crash the job
 * simply re-reads the source from line 0: rows at or below their bucket's committed end
 * are dropped, the rest are written once. Every N commits it compacts (append tables)
 * and expires snapshots. With --serve, an HTTP server thread answers union-read
 * queries while the main thread ingests (the real-time context is thread-safe). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ingest_source.h"
#if PAIMON_HTTP /* the CMake option: without libmicrohttpd, --serve fails clearly */
#include <microhttpd.h>

#include "serve.h"
#endif

const char *const USAGE_INGEST =
    "usage: paimon ingest TABLE --source FILE.jsonl [options]\n"
    "\n"
    "Ingests a JSON-lines file (the `paimon cat --format jsonl` encoding; blank lines are\n"
    "skipped) into a table with realtime.enabled=true and fixed buckets. Rows are queryable\n"
    "through --serve the moment they are written; every interval they are committed as a\n"
    "snapshot that records, per partition-bucket, the source line up to which rows are in\n"
    "the table, and the source's fingerprint: the line count, byte length and a 64-bit hash\n"
    "of the committed prefix of the file. After a crash, run the same command again: the\n"
    "file must begin with that prefix (a different file, or one edited, truncated or\n"
    "replaced at the same path, is refused with exit 1 and never taken for the committed\n"
    "lines); reading goes on after it, and rows already committed are skipped, so every\n"
    "line lands exactly once.\n"
    "\n"
    "options:\n"
    "  --source FILE          the source; a line's 0-based number is its offset\n"
    "  --source-id NAME       track FILE as source NAME ([A-Za-z0-9_.-], 1..64 chars) with\n"
    "                         its own progress and fingerprint, so several sources feed one\n"
    "                         table, each exactly once (default: the table's default source)\n"
    "  --follow               keep tailing FILE for new lines (stop with SIGINT/SIGTERM,\n"
    "                         which commits what was read and exits)\n"
    "  --bad-lines fail|skip  a line that does not parse: fail (default) commits every line\n"
    "                         before it and exits 1 naming its line and column (fix it and\n"
    "                         run again to go on from there); skip writes it to the rejects\n"
    "                         file and goes on (the count is in /status and on the commit\n"
    "                         lines; a line committed past is never examined again)\n"
    "  --rejects FILE         with skip: where bad lines go, one JSON object per line:\n"
    "                         {\"line\": N (1-based), \"error\": \"...\", \"raw\": \"...\"} "
    "(invalid\n"
    "                         UTF-8 as U+FFFD). Default: FILE.rejects next to the source\n"
    "                         (FILE.NAME.rejects with --source-id NAME); give each table its\n"
    "                         own. A rerun cuts entries past the committed line and writes\n"
    "                         them again, so the file ends up the same\n"
    "  --commit-interval D    commit every D (default 2s; 500ms, 1m, ... also work)\n"
    "  --commit-user U        commit user (default paimon-ingest, or paimon-ingest-NAME with\n"
    "                         --source-id NAME); identifiers continue from U's newest commit\n"
    "  --maintain-every N     every N commits compact (append tables) and expire snapshots\n"
    "                         per the table's snapshot.* options (default 10; 0 = never)\n"
    "  --batch-rows N         lines per write (default 4096)\n"
    "  --serve ADDR:PORT      HTTP on a loopback address (PORT 1..65535, or 0 to pick one; the\n"
    "                         address is printed on stderr):\n"
    "                           GET /query?select=c1,c2&where=EXPR&format=jsonl|csv&limit=N\n"
    "                             committed rows plus rows still in memory (union read)\n"
    "                           GET /status  JSON: committed offsets and source fingerprint,\n"
    "                             skipped lines, memory, snapshots, HTTP limits\n"
    "                         Every request gets a status: a bad one a JSON {\"error\": ...}\n"
    "                         (400: not UTF-8, unknown or repeated parameter, more than 64\n"
    "                         arguments; 414: target over 8 KiB; 431: headers too large;\n"
    "                         503: connection limit reached). One request per connection;\n"
    "                         the open files limit is raised to its hard limit\n"
    "  --serve-max-connections N\n"
    "                         open HTTP connections at most, idle ones included (default\n"
    "                         4096; lowered to fit the open files limit, with a note)\n"
    "  --serve-timeout D      close an HTTP connection idle for D (default 30s)\n"
    "  -o key=value           writer and store option, overriding the table's (e.g.\n"
    "                         realtime.store.max-memory=64mb: each partition-bucket's\n"
    "                         budget of uncommitted rows; realtime.store.max-pinned-memory:\n"
    "                         committed rows open queries may keep alive, default the\n"
    "                         budget); layout options (bucket, bucket-key,\n"
    "                         partition.*-name, ...) are refused unless equal to the table's\n"
    "\n"
    "Without --follow the job commits at end of file and exits. One status line per\n"
    "commit goes to stderr.\n";

#define MAX_RESPONSE ((size_t)256 << 20)

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

typedef struct ingest {
  paimon_table *t;
  paimon_realtime_context *ctx;
  const char *table_path, *source, *user;
  const char *source_id;    /* "" for the default source */
  const char *rejects_path; /* --bad-lines skip only */
  char offsets_key[96];     /* the snapshot property of this source's offsets */
  bool pk, skip_bad;
  pthread_mutex_t lock; /* guards the counters below (the server thread reads them) */
  int64_t lines_read;   /* next source line number */
  int64_t rows_written; /* rows handed to the writer (replayed rows included) */
  int64_t commits, last_snapshot, last_ident, started;
  int64_t skipped;  /* bad lines written to the rejects file, committed or not */
  src_fp committed; /* the committed prefix (valid when have_committed) */
  bool have_committed;
  bool eof;
#if PAIMON_HTTP
  http_info http; /* with --serve: the limits in force (set before the server starts) */
#endif
} ingest;

/* ---- HTTP endpoints (the server is serve.c) ------------------------------------------ */
#if PAIMON_HTTP

/* Committed offsets as recorded by the snapshot the context adopted: the "offsets" array of
 * its realtime offsets file (partition values, bucket, end offset). */
static json_t *committed_offsets(ingest *g, int64_t sid) {
  if (sid <= 0) return json_array();
  paimon_error err = {0, ""};
  paimon_snapshot *s = NULL;
  if (paimon_table_snapshot(&s, g->t, sid, &err) != 0) return json_string(err.message);
  const char *rel = paimon_snapshot_property(s, g->offsets_key);
  json_t *out = NULL;
  if (!rel || strstr(rel, "..")) {
    out = json_string("snapshot carries no realtime offsets");
  } else {
    char path[4096];
    if (rel[0] == '/') snprintf(path, sizeof path, "%s", rel);
    else snprintf(path, sizeof path, "%s/%s", g->table_path, rel);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    json_t *arr = doc ? json_object_get(doc, "offsets") : NULL;
    out = json_is_array(arr) ? json_incref(arr) : json_string("cannot read the offsets file");
    json_decref(doc);
  }
  paimon_snapshot_free(s);
  return out;
}

static enum MHD_Result serve_status(ingest *g, struct MHD_Connection *c) {
  pthread_mutex_lock(&g->lock);
  int64_t lines = g->lines_read, rows = g->rows_written, commits = g->commits,
          ident = g->last_ident;
  int64_t skipped = g->skipped;
  bool eof = g->eof;
  json_t *fp = json_null();
  if (g->have_committed) {
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)g->committed.hash);
    fp = json_pack("{s:I,s:I,s:s,s:I}", "lines", (json_int_t)g->committed.lines, "bytes",
                   (json_int_t)g->committed.bytes, "hash", hex, "rejected",
                   (json_int_t)g->committed.rejected);
  }
  pthread_mutex_unlock(&g->lock);
  int64_t csid = paimon_realtime_snapshot_id(g->ctx);
  paimon_error err = {0, ""};
  paimon_snapshot *latest = NULL;
  json_t *latest_j = json_null();
  if (paimon_table_snapshot(&latest, g->t, PAIMON_SNAPSHOT_LATEST, &err) == 0) {
    latest_j = json_pack("{s:I,s:s,s:I,s:I}", "id", (json_int_t)paimon_snapshot_id(latest),
                         "commit_kind", paimon_snapshot_commit_kind(latest), "total_records",
                         (json_int_t)paimon_snapshot_total_record_count(latest), "time_millis",
                         (json_int_t)paimon_snapshot_time_millis(latest));
    paimon_snapshot_free(latest);
  }
  json_t *j = json_pack("{s:s,s:s,s:s,s:I,s:b,s:I,s:I,s:I,s:I,s:o,s:o,s:I}", "table", g->table_path,
                        "source", g->source, "commit_user", g->user, "source_lines_read",
                        (json_int_t)lines, "source_at_end", eof, "rows_written", (json_int_t)rows,
                        "commits", (json_int_t)commits, "last_commit_identifier", (json_int_t)ident,
                        "context_snapshot", (json_int_t)csid, "committed_offsets",
                        committed_offsets(g, csid), "latest_snapshot", latest_j, "memory_bytes",
                        (json_int_t)paimon_realtime_memory_usage(g->ctx));
  if (j) {
    /* memory_bytes: rows the stores hold, the figure realtime.store.max-memory bounds per
     * store; pinned: committed rows only open queries still keep alive, bounded apart */
    json_object_set_new(j, "pinned_memory_bytes",
                        json_integer((json_int_t)paimon_realtime_pinned_memory(g->ctx)));
    /* the source's identity: the fingerprint of its committed prefix (the source state) */
    json_object_set_new(j, "source_id", json_string(g->source_id));
    json_object_set_new(j, "source_fingerprint", fp ? fp : json_null());
    json_object_set_new(j, "bad_lines", json_string(g->skip_bad ? "skip" : "fail"));
    json_object_set_new(j, "skipped_lines", json_integer((json_int_t)skipped));
    json_object_set_new(j, "rejects_file",
                        g->rejects_path ? json_string(g->rejects_path) : json_null());
    json_object_set_new(
        j, "http",
        json_pack("{s:I,s:I,s:I}", "max_connections", (json_int_t)g->http.max_connections,
                  "connection_timeout_s", (json_int_t)g->http.timeout_s, "open_files_limit",
                  (json_int_t)g->http.open_files));
  } else {
    json_decref(fp);
  }
  if (!j) return http_reply_error(c, 500, "cannot build the status");
  return http_reply_json(c, 200, j);
}

static enum MHD_Result serve_query(ingest *g, struct MHD_Connection *c) {
  const char *select = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "select");
  const char *where = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "where");
  const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
  const char *limit_s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
  int mode = RENDER_JSONL;
  if (format && strcmp(format, "csv") == 0) mode = RENDER_CSV;
  else if (format && *format && strcmp(format, "jsonl") != 0)
    return http_reply_error(c, 400, "format must be jsonl or csv");
  int64_t limit = -1;
  if (limit_s && *limit_s && (!parse_i64(limit_s, &limit) || limit < 0))
    return http_reply_error(c, 400, "limit must be a non-negative integer");
  char msg[700];
  paimon_error err = {0, ""};
  paimon_predicate *pred = NULL;
  if (where && *where && paimon_predicate_parse(&pred, where, &err) != 0) {
    snprintf(msg, sizeof msg, "where: %s", err.message);
    return http_reply_error(c, 400, msg);
  }
  /* select list -> NULL-terminated names */
  char *sel_copy = NULL;
  const char **cols = NULL;
  if (select && *select) {
    sel_copy = strdup(select);
    size_t n = 2;
    for (const char *p = select; *p; p++) n += *p == ',';
    cols = calloc(n, sizeof *cols);
    if (!sel_copy || !cols) {
      free(sel_copy);
      free(cols);
      paimon_predicate_free(pred);
      return http_reply_error(c, 500, "out of memory");
    }
    size_t k = 0;
    for (char *tok = strtok(sel_copy, ","); tok; tok = strtok(NULL, ",")) {
      while (*tok == ' ') tok++;
      char *e = tok + strlen(tok);
      while (e > tok && e[-1] == ' ') *--e = 0;
      if (*tok) cols[k++] = tok;
    }
  }
  unsigned code = 200;
  fv_out body = {0};
  paimon_scan *s = NULL;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  struct ArrowSchema sch;
  memset(&sch, 0, sizeof sch);
  cli_render rr;
  memset(&rr, 0, sizeof rr);
  int rc = paimon_scan_new(&s, g->t, &err);
  if (rc == 0 && pred) rc = paimon_scan_set_filter(s, pred, &err);
  if (rc == 0) rc = paimon_scan_set_realtime(s, g->ctx, &err);
  if (rc == 0) rc = paimon_read_scan(&st, s, cols, NULL, &err);
  if (rc != 0) {
    code = rc == PAIMON_EINVAL || rc == PAIMON_ENOTFOUND ? 400 : 500;
    snprintf(msg, sizeof msg, "%s", err.message[0] ? err.message : paimon_strerror(rc));
    goto done;
  }
  if (st.get_schema(&st, &sch) != 0 || cli_render_init(&rr, &sch, mode, msg, sizeof msg) != 0) {
    code = 500;
    if (!sch.release) snprintf(msg, sizeof msg, "cannot get the result schema");
    goto done;
  }
  if (cli_render_header(&rr, &body)) goto nomem;
  int64_t emitted = 0;
  while (limit < 0 || emitted < limit) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (st.get_next(&st, &b) != 0) {
      const char *m = st.get_last_error(&st);
      code = 500;
      snprintf(msg, sizeof msg, "%s", m && *m ? m : "read failed");
      goto done;
    }
    if (!b.release) break;
    if (cli_render_check(&rr, &b, msg, sizeof msg) != 0) {
      b.release(&b);
      code = 500;
      goto done;
    }
    for (int64_t i = 0; i < b.length && (limit < 0 || emitted < limit); i++, emitted++)
      if (cli_render_row(&rr, &b, i, &body)) {
        b.release(&b);
        goto nomem;
      }
    b.release(&b);
    if (body.len > MAX_RESPONSE) {
      code = 413;
      snprintf(msg, sizeof msg, "result larger than %d MiB: narrow it with where, select or limit",
               (int)(MAX_RESPONSE >> 20));
      goto done;
    }
  }
  goto done;
nomem:
  code = 500;
  snprintf(msg, sizeof msg, "out of memory");
done:
  cli_render_free(&rr);
  if (sch.release) sch.release(&sch);
  if (st.release) st.release(&st);
  paimon_scan_free(s);
  paimon_predicate_free(pred);
  free(cols);
  free(sel_copy);
  if (code != 200) {
    fv_out_free(&body);
    return http_reply_error(c, code, msg);
  }
  if (!body.data && fv_reserve(&body, 1)) return MHD_NO;
  return http_reply(c, 200, mode == RENDER_CSV ? "text/csv; charset=utf-8" : "application/x-ndjson",
                    body.data, body.len);
}

/* /query takes these parameters only: a misspelt one would silently widen the answer */
static const char *const QUERY_PARAMS[] = {"select", "where", "format", "limit", NULL};

typedef struct param_check {
  struct MHD_Connection *c;
  char msg[200];
} param_check;

static enum MHD_Result check_param(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
  (void)kind;
  (void)value;
  param_check *pc = cls;
  for (const char *const *q = QUERY_PARAMS; *q; q++)
    if (strcmp(key, *q) == 0) {
      if (MHD_lookup_connection_value(pc->c, MHD_GET_ARGUMENT_KIND, key) != value) {
        snprintf(pc->msg, sizeof pc->msg, "query parameter '%s' given more than once", key);
        return MHD_NO;
      }
      return MHD_YES;
    }
  snprintf(pc->msg, sizeof pc->msg,
           "unknown query parameter '%.64s' (use select, where, format, limit)", key);
  return MHD_NO;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url) {
  ingest *g = cls;
  if (strcmp(url, "/query") == 0) {
    param_check pc = {c, ""};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param, &pc);
    if (pc.msg[0]) return http_reply_error(c, 400, pc.msg);
    return serve_query(g, c);
  }
  if (strcmp(url, "/status") == 0) return serve_status(g, c);
  return http_reply_error(c, 404, "unknown path: use /query or /status");
}
#endif /* PAIMON_HTTP */

/* ---- ingestion ------------------------------------------------------------------------ */

typedef struct job {
  ingest *g;
  paimon_writer *w;
  const char *compact_user;
  int64_t compact_ident;
  int64_t maintain_every;
  bool compact_off; /* compaction unsupported for this table: noted once */
  bool tidy;        /* maintenance ran after the latest commit */
  int64_t lines_at_commit, lines_at_start, last_commit_ms, started_ms;
  /* the source prefix a commit covers: lines whose rows were handed to the writer, blank
   * lines and rejected lines; it ends at byte `wpos` of the reader's buffer */
  src_fp written;
  src_hash wh;
  size_t wpos;
  src_rejects rej;
} job;

static void fmt_bytes(int64_t b, char *buf, size_t n) {
  if (b >= (1 << 20)) snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
  else if (b >= 1024) snprintf(buf, n, "%.1f KiB", (double)b / 1024);
  else snprintf(buf, n, "%lld B", (long long)b);
}

static void stamp(char *buf, size_t n) {
  time_t now = time(NULL);
  struct tm tmv;
  localtime_r(&now, &tmv);
  strftime(buf, n, "%H:%M:%S", &tmv);
}

static void maintain(job *j) {
  ingest *g = j->g;
  j->tidy = true;
  paimon_error err = {0, ""};
  char ts[16];
  stamp(ts, sizeof ts);
  const char *const *pks = NULL;
  if (paimon_table_primary_keys(&pks, g->t) > 0) j->compact_off = true; /* the writer compacts */
  if (!j->compact_off) {
    paimon_commit_messages *msgs = NULL;
    int rc = paimon_table_compact_append(&msgs, g->t, j->compact_user, 0, &err);
    if (rc == PAIMON_EUNSUPPORTED) {
      fprintf(stderr, "[%s] maintenance: no compaction: %s\n", ts, err.message);
      j->compact_off = true;
    } else if (rc != 0) {
      die_err(&err, rc);
    } else if (paimon_commit_messages_count(msgs) > 0) {
      int64_t sid = 0;
      rc = paimon_table_commit(&sid, g->t, j->compact_user, j->compact_ident, msgs, NULL, &err);
      if (rc != 0) {
        paimon_error e2 = {0, ""};
        if (paimon_table_abort_commit(g->t, msgs, &e2) != 0)
          fprintf(stderr, "paimon: could not delete the compaction's files: %s\n", e2.message);
        die_err(&err, rc);
      }
      j->compact_ident++;
      rc = paimon_realtime_refresh(g->ctx, sid, &err);
      if (rc != 0) die_err(&err, rc);
      fprintf(stderr, "[%s] maintenance: compacted %zu bucket(s) -> snapshot %lld\n", ts,
              paimon_commit_messages_count(msgs), (long long)sid);
    }
    paimon_commit_messages_free(msgs);
  }
  int64_t expired = 0;
  int rc = paimon_table_expire_snapshots(&expired, g->t, NULL, &err);
  if (rc != 0) die_err(&err, rc);
  if (expired)
    fprintf(stderr, "[%s] maintenance: expired %lld snapshot(s)\n", ts, (long long)expired);
}

static bool fp_equal(const src_fp *a, const src_fp *b) {
  return a->lines == b->lines && a->bytes == b->bytes && a->hash == b->hash &&
         a->rejected == b->rejected;
}

/* Prepare + commit with progress and the source state (the fingerprint of the prefix the
 * commit covers, atomically with the offsets) + refresh. A commit without new rows still
 * advances the source state when the prefix grew (blank or rejected lines only). */
static void commit_cycle(job *j) {
  ingest *g = j->g;
  paimon_error err = {0, ""};
  int64_t ident = g->last_ident + 1;
  paimon_realtime_progress *p = NULL;
  int rc = paimon_realtime_prepare_commit(&p, j->w, ident, &err);
  if (rc != 0) die_err(&err, rc);
  j->last_commit_ms = now_ms();
  j->written.hash = src_hash_value(&j->wh);
  /* nothing new; a source's first run commits its state even so (registering the source,
   * whose progress every later commit then carries forward) */
  if (!p && g->have_committed && fp_equal(&j->written, &g->committed)) return;
  char state[SRC_FP_MAX];
  src_fp_format(&j->written, state, sizeof state);
  src_rejects_sync(&j->rej); /* the rejects of the prefix are on disk before it is committed */
  int64_t sid = 0;
  for (int attempt = 0;; attempt++) {
    const paimon_realtime_progress *pp[1] = {p};
    rc = paimon_realtime_commit_source(&sid, g->ctx, g->user, p ? pp : NULL, p ? 1 : 0, ident,
                                       state, &err);
    if (rc != PAIMON_ECONFLICT || attempt == 5) break;
    struct timespec d = {0, 50000000L * (attempt + 1)};
    nanosleep(&d, NULL);
  }
  paimon_realtime_progress_free(p);
  if (rc != 0) die_err(&err, rc);
  rc = paimon_realtime_refresh(g->ctx, sid, &err);
  if (rc != 0) die_err(&err, rc);
  j->tidy = false;
  pthread_mutex_lock(&g->lock);
  g->commits++;
  g->last_ident = ident;
  g->last_snapshot = sid;
  g->committed = j->written;
  g->have_committed = true;
  int64_t lines = j->written.lines, commits = g->commits;
  pthread_mutex_unlock(&g->lock);
  char ts[16], mem[32], skipped[48] = "";
  stamp(ts, sizeof ts);
  fmt_bytes(paimon_realtime_memory_usage(g->ctx), mem, sizeof mem);
  if (g->skip_bad)
    snprintf(skipped, sizeof skipped, ", %lld bad line(s) skipped", (long long)j->written.rejected);
  double secs = (double)(now_ms() - j->started_ms) / 1000.0;
  char range[64] = "no new source lines";
  if (lines > j->lines_at_commit)
    snprintf(range, sizeof range, "source lines %lld..%lld", (long long)j->lines_at_commit,
             (long long)lines - 1);
  fprintf(stderr, "[%s] commit %lld -> snapshot %lld: %s%s, %.0f lines/s, memory %s\n", ts,
          (long long)ident, (long long)sid, range, skipped,
          secs > 0 ? (double)(lines - j->lines_at_start) / secs : 0.0, mem);
  j->lines_at_commit = lines;
  if (j->maintain_every > 0 && commits % j->maintain_every == 0) maintain(j);
}

/* Moves the written prefix to the start of line k of the batch (k == b->n: its end). */
static void advance_to(job *j, const cli_lines *in, const cli_batch *b, size_t k) {
  size_t target = k < b->n ? b->off[k] : in->pos;
  src_hash_update(&j->wh, in->buf + j->wpos, target - j->wpos);
  j->written.bytes += (int64_t)(target - j->wpos);
  j->written.lines = k < b->n ? b->no[k] : in->next_no;
  j->wpos = target;
}

/* Writes the parsed rows; a store at its budget is committed and the write retried once
 * (replay mode skips whatever part of the batch did land). */
static void write_rows(job *j, struct ArrowArray *arr, struct ArrowSchema *sch) {
  paimon_error err = {0, ""};
  int rc = paimon_writer_write(j->w, arr, sch, &err);
  if (rc == PAIMON_EFULL) {
    commit_cycle(j);
    rc = paimon_writer_write(j->w, arr, sch, &err);
  }
  arr->release(arr);
  sch->release(sch);
  if (rc != 0) die_err(&err, rc);
}

/* The index (>= from) of the line a parse error names ("line N, ..." with N 1-based, as
 * paimon/jsonl.h documents), else of the first line that fails alone; b->n when none does. */
static size_t bad_line_index(const ingest *g, const cli_batch *b, size_t from, const char *msg,
                             int flags) {
  long long l1 = 0;
  if (sscanf(msg, "line %lld", &l1) == 1)
    for (size_t k = from; k < b->n; k++)
      if (b->no[k] == l1 - 1) return k;
  for (size_t k = from; k < b->n; k++) {
    struct ArrowArray arr;
    struct ArrowSchema sch;
    if (paimon_jsonl_parse(&arr, &sch, g->t, b->ptr + k, b->len + k, 1, b->no + k, flags, NULL) !=
        0)
      return k;
    arr.release(&arr);
    sch.release(&sch);
  }
  return b->n;
}

/* Handles one batch: good lines are written; a malformed line is rejected (skip) or ends
 * the job after committing everything before it (fail). */
static void ingest_batch(job *j, const cli_lines *in, const cli_batch *b, int flags) {
  ingest *g = j->g;
  size_t from = 0;
  while (from < b->n) {
    struct ArrowArray arr;
    struct ArrowSchema sch;
    paimon_error err = {0, ""};
    int rc = paimon_jsonl_parse(&arr, &sch, g->t, b->ptr + from, b->len + from, b->n - from,
                                b->no + from, flags, &err);
    if (rc == 0) {
      write_rows(j, &arr, &sch);
      break;
    }
    size_t k = rc == PAIMON_EINVAL ? bad_line_index(g, b, from, err.message, flags) : b->n;
    if (k >= b->n) {
      fprintf(stderr, "paimon: %s: %s\n", g->source, err.message);
      exit(1);
    }
    if (k > from) { /* the good lines before it */
      paimon_error e2 = {0, ""};
      rc = paimon_jsonl_parse(&arr, &sch, g->t, b->ptr + from, b->len + from, k - from,
                              b->no + from, flags, &e2);
      if (rc != 0) die_err(&e2, rc);
      write_rows(j, &arr, &sch);
    }
    advance_to(j, in, b, k);
    if (!g->skip_bad) {
      commit_cycle(j); /* what precedes the bad line, exactly once */
      fprintf(stderr,
              "paimon: %s: %s\n"
              "paimon: stopped at line %lld (--bad-lines fail); the %lld line(s) before it are "
              "committed "
              "(snapshot %lld). Fix line %lld and run the same command again to continue from it, "
              "or rerun "
              "with --bad-lines skip to write bad lines to a rejects file and go on\n",
              g->source, err.message, (long long)b->no[k] + 1, (long long)j->written.lines,
              (long long)paimon_realtime_snapshot_id(g->ctx), (long long)b->no[k] + 1);
      exit(1);
    }
    /* the first reject of a source follows a committed state of it, so a rejects file
     * with entries and no committed state is known not to be ours (src_rejects_open) */
    if (!g->have_committed) commit_cycle(j);
    const char *e = err.message;
    long long l1;
    int n = 0;
    if (sscanf(e, "line %lld, %n", &l1, &n) == 1 && n > 0) e += n;
    src_rejects_add(&j->rej, b->no[k], e, b->ptr[k], b->len[k]);
    j->written.rejected++;
    pthread_mutex_lock(&g->lock);
    g->skipped = j->written.rejected;
    pthread_mutex_unlock(&g->lock);
    advance_to(j, in, b, k + 1);
    from = k + 1;
  }
  advance_to(j, in, b, b->n);
}

/* Refuses a source that does not begin with the committed prefix (exit 1). */
_Noreturn static void refuse_source(const ingest *g, const src_fp *c, const char *why) {
  char d[SRC_FP_MAX];
  src_fp_describe(c, d, sizeof d);
  const char *base = strrchr(g->source, '/');
  base = base ? base + 1 : g->source;
  char suggest[72];
  size_t k = 0;
  for (const char *p = base; *p && *p != '.' && k + 1 < sizeof suggest && k < 64; p++)
    suggest[k++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'
                       ? *p
                       : '_';
  suggest[k] = 0;
  if (!k) snprintf(suggest, sizeof suggest, "other");
  fprintf(stderr,
          "paimon: %s is not the source %s committed as %s%s%s: refusing to ingest it\n"
          "  committed source: %s (snapshot %lld)\n"
          "  this file:        %s\n"
          "Its lines are never taken for the committed ones, and nothing was written. To ingest it "
          "as a separate "
          "source with its own progress, run again with --source-id NAME (e.g. --source-id %s); to "
          "continue the "
          "committed source, pass the file it was read from, unchanged in its first %lld bytes.\n",
          g->source, g->table_path, *g->source_id ? "source id '" : "its default source",
          *g->source_id ? g->source_id : "", *g->source_id ? "'" : "", d,
          (long long)paimon_realtime_snapshot_id(g->ctx), why, suggest, (long long)c->bytes);
  exit(1);
}

/* True when the context's snapshot carries this source's offsets property. */
static bool has_offsets(const ingest *g) {
  int64_t sid = paimon_realtime_snapshot_id(g->ctx);
  if (sid <= 0) return false;
  paimon_snapshot *s = NULL;
  if (paimon_table_snapshot(&s, g->t, sid, NULL) != 0) return false;
  bool has = paimon_snapshot_property(s, g->offsets_key) != NULL;
  paimon_snapshot_free(s);
  return has;
}

/* ---- the command: arguments, source setup, the ingest loop, shutdown ------------------- */

typedef struct ingest_args {
  const char *table, *source, *user, *serve, *source_id, *rejects;
  bool follow, skip_bad;
  int64_t interval, maintain_every, batch_rows;
  unsigned serve_max_connections, serve_timeout_s; /* 0: the server's default */
  paimon_options *wopts;                           /* -o options, for every writer */
  char *user_buf, *rejects_buf;                    /* owned defaults of user, rejects */
} ingest_args;

/* Parses one option (or TABLE) at argv[*i]; advances *i past a separate value. */
static void parse_arg(ingest_args *a, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
    fputs(USAGE_INGEST, stdout);
    exit(0);
  }
  const char *eq = strchr(arg, '=');
  size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
  const char *v = NULL;
#define IS(name) (strlen(name) == nl && strncmp(arg, name, nl) == 0)
#define VAL()                                                         \
  do {                                                                \
    if (eq) v = eq + 1;                                               \
    else if (*i + 1 < argc) v = argv[++*i];                           \
    else usage_error(USAGE_INGEST, "option '%s' needs a value", arg); \
  } while (0)
  int64_t n;
  if (IS("--follow") && !eq) a->follow = true;
  else if (IS("--source")) {
    VAL();
    a->source = v;
  } else if (IS("--source-id")) {
    VAL();
    if (!*v)
      usage_error(USAGE_INGEST, "empty --source-id (leave it out for the default source)%s", "");
    a->source_id = v; /* its characters are checked by paimon_realtime_context_open */
  } else if (IS("--bad-lines")) {
    VAL();
    if (strcmp(v, "skip") == 0) a->skip_bad = true;
    else if (strcmp(v, "fail") == 0) a->skip_bad = false;
    else usage_error(USAGE_INGEST, "--bad-lines needs fail or skip, got '%s'", v);
  } else if (IS("--rejects")) {
    VAL();
    if (!*v) usage_error(USAGE_INGEST, "empty --rejects file%s", "");
    a->rejects = v;
  } else if (IS("--commit-user")) {
    VAL();
    if (!*v) usage_error(USAGE_INGEST, "empty commit user%s", "");
    a->user = v;
  } else if (IS("--serve")) {
    VAL();
    a->serve = v;
  } else if (IS("--serve-max-connections")) {
    VAL();
    if (!parse_i64(v, &n) || n < 1 || n > 1000000)
      usage_error(USAGE_INGEST, "--serve-max-connections needs 1..1000000, got '%s'", v);
    a->serve_max_connections = (unsigned)n;
  } else if (IS("--serve-timeout")) {
    VAL();
    if (!parse_duration_ms(v, &n) || n < 1000 || n > 86400000)
      usage_error(USAGE_INGEST,
                  "--serve-timeout needs a duration from 1s to 24h such as 30s, got '%s'", v);
    a->serve_timeout_s = (unsigned)(n / 1000);
  } else if (IS("--commit-interval")) {
    VAL();
    if (!parse_duration_ms(v, &a->interval) || a->interval < 1)
      usage_error(USAGE_INGEST, "--commit-interval needs a duration such as 2s or 500ms, got '%s'",
                  v);
  } else if (IS("--maintain-every")) {
    VAL();
    if (!parse_i64(v, &a->maintain_every) || a->maintain_every < 0)
      usage_error(USAGE_INGEST, "--maintain-every needs a number >= 0, got '%s'", v);
  } else if (IS("--batch-rows")) {
    VAL();
    if (!parse_i64(v, &a->batch_rows) || a->batch_rows < 1 || a->batch_rows > 1000000)
      usage_error(USAGE_INGEST, "--batch-rows needs 1..1000000, got '%s'", v);
  } else if (strcmp(arg, "-o") == 0) {
    if (*i + 1 >= argc) usage_error(USAGE_INGEST, "option '%s' needs a value", "-o");
    const char *kv = argv[++*i];
    const char *e = strchr(kv, '=');
    if (!e || e == kv) usage_error(USAGE_INGEST, "-o needs key=value, got '%s'", kv);
    char *k = strndup(kv, (size_t)(e - kv));
    if (!k) die("out of memory%s", "");
    if (paimon_options_set(a->wopts, k, e + 1, NULL) != 0) die("out of memory%s", "");
    free(k);
  } else if (arg[0] == '-' && arg[1]) usage_error(USAGE_INGEST, "unknown option '%s'", arg);
  else if (a->table) usage_error(USAGE_INGEST, "unexpected argument '%s'", arg);
  else a->table = arg;
#undef IS
#undef VAL
}

/* The command line, checked as a whole before any work; fills in the defaults. */
static void parse_args(ingest_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  a->source_id = "";
  a->interval = 2000;
  a->maintain_every = 10;
  a->batch_rows = 4096;
  if (paimon_options_new(&a->wopts, NULL) != 0) die("out of memory%s", "");
  for (int i = 2; i < argc; i++) parse_arg(a, argc, argv, &i);
  if (!a->table) usage_error(USAGE_INGEST, "missing TABLE%s", "");
  if (!a->source) usage_error(USAGE_INGEST, "missing --source FILE%s", "");
  if (a->rejects && !a->skip_bad)
    usage_error(USAGE_INGEST, "--rejects FILE goes with --bad-lines skip%s", "");
  if (!a->serve && (a->serve_max_connections || a->serve_timeout_s))
    usage_error(USAGE_INGEST, "--serve-max-connections and --serve-timeout go with --serve%s", "");
  if (paimon_options_set(a->wopts, "realtime.write.skip-committed", "true", NULL) != 0)
    die("out of memory%s", "");
  /* a named source commits under its own user by default, so its commit identifiers
   * never interleave with another source's ingest running at the same time */
  if (!a->user) {
    if (*a->source_id) {
      size_t n = strlen(a->source_id) + sizeof "paimon-ingest-";
      a->user_buf = malloc(n);
      if (!a->user_buf) die("out of memory%s", "");
      snprintf(a->user_buf, n, "paimon-ingest-%s", a->source_id);
      a->user = a->user_buf;
    } else {
      a->user = "paimon-ingest";
    }
  }
  if (a->skip_bad && !a->rejects) { /* next to the source, one file per source id */
    size_t n = strlen(a->source) + strlen(a->source_id) + 16;
    a->rejects_buf = malloc(n);
    if (!a->rejects_buf) die("out of memory%s", "");
    snprintf(a->rejects_buf, n, "%s%s%s.rejects", a->source, *a->source_id ? "." : "",
             a->source_id);
    a->rejects = a->rejects_buf;
  }
}

#if PAIMON_HTTP
typedef struct serve_addr {
  struct sockaddr_in sa;
  char host[64];
} serve_addr;

/* Checks --serve ADDR:PORT (before any work). */
static void check_serve(const ingest_args *a, serve_addr *sv) {
  char why[300];
  if (!http_parse_addr(a->serve, &sv->sa, sv->host, sizeof sv->host, why, sizeof why))
    usage_error(USAGE_INGEST, "%s", why);
}

/* Starts the HTTP server of --serve, exiting when it cannot. */
static http_server *start_server(ingest *g, const ingest_args *a, const serve_addr *sv) {
  http_limits lim = {HTTP_DEFAULT_MAX_CONNECTIONS, HTTP_DEFAULT_TIMEOUT_S};
  if (a->serve_max_connections) lim.max_connections = a->serve_max_connections;
  if (a->serve_timeout_s) lim.timeout_s = a->serve_timeout_s;
  char why[300];
  http_server *http = http_start(&sv->sa, &lim, handle, g, &g->http, why, sizeof why);
  if (!http) {
    fprintf(stderr, "paimon: cannot start the HTTP server on %s: %s\n", a->serve, why);
    exit(1);
  }
  if (g->http.lowered)
    fprintf(stderr,
            "paimon: note: at most %u HTTP connections: the open files limit (RLIMIT_NOFILE) is "
            "%lld\n",
            g->http.max_connections, g->http.open_files);
  fprintf(stderr,
          "paimon: serving http://%s:%u (GET /query, GET /status; up to %u connections, idle "
          "timeout %u s, "
          "open files limit %lld)\n",
          sv->host, g->http.port, g->http.max_connections, g->http.timeout_s, g->http.open_files);
  return http;
}
#else
typedef struct serve_addr {
  char unused;
} serve_addr;
typedef struct http_server http_server;
static void check_serve(const ingest_args *a, serve_addr *sv) {
  (void)a;
  (void)sv;
  fprintf(stderr, "paimon: built without libmicrohttpd: --serve unavailable\n");
  exit(2);
}
static http_server *start_server(ingest *g, const ingest_args *a, const serve_addr *sv) {
  (void)g;
  (void)a;
  (void)sv;
  return NULL; /* not reached: check_serve exits first */
}
static void http_stop(http_server *s) { (void)s; }
#endif

/* The source's identity: the committed prefix must be this file's first bytes. On a
 * match, `j` resumes after it; exits when the file is not the committed source. */
static void verify_source(ingest *g, job *j, int fd) {
  paimon_error err = {0, ""};
  char *state = NULL;
  int rc = paimon_realtime_committed_source(&state, g->ctx, &err);
  if (rc != 0) die_err(&err, rc);
  if (state) {
    src_fp c;
    if (!src_fp_parse(state, &c)) {
      fprintf(stderr,
              "paimon: %s: the committed source state of %s%s%s is not paimon ingest's "
              "(\"%.200s\"): another "
              "writer feeds it; ingest this file as its own source with --source-id NAME\n",
              g->table_path, *g->source_id ? "source id '" : "the default source", g->source_id,
              *g->source_id ? "'" : "", state);
      exit(1);
    }
    char why[512];
    int64_t extra = 0;
    if (!src_verify_prefix(fd, g->source, &c, &j->wh, &extra, why, sizeof why))
      refuse_source(g, &c, why);
    g->committed = j->written = c;
    j->written.bytes += extra;
    g->have_committed = true;
    g->skipped = c.rejected;
    paimon_free(state);
  } else if (has_offsets(g)) {
    fprintf(stderr,
            "paimon: note: the committed progress of %s carries no source fingerprint (committed "
            "by an older "
            "paimon ingest, or reset by an OVERWRITE): %s cannot be checked against it; it is read "
            "from line 1 "
            "and lines at or below each bucket's committed offset are skipped\n",
            *g->source_id ? g->source_id : "the default source", g->source);
  }
}

/* Where a restart resumes: the verified committed prefix is not read again; rows past it
 * that a commit still covers (a batch split by a full store) are skipped per bucket. */
static void report_resume(const ingest *g) {
  if (g->have_committed) {
    char d[SRC_FP_MAX];
    src_fp_describe(&g->committed, d, sizeof d);
    fprintf(stderr,
            "paimon: resuming at snapshot %lld: %s begins with the committed %s; reading on from "
            "line %lld\n",
            (long long)paimon_realtime_snapshot_id(g->ctx), g->source, d,
            (long long)g->committed.lines + 1);
  }
  const char *const *parts;
  const char *nb = paimon_table_option(g->t, "bucket");
  int64_t nbuckets = 0;
  if (paimon_table_partition_keys(&parts, g->t) == 0 && nb && parse_i64(nb, &nbuckets) &&
      nbuckets > 0 && nbuckets <= 64) {
    bool any = false;
    for (int64_t b = 0; b < nbuckets; b++)
      any |= paimon_realtime_committed_offset(g->ctx, "", (int32_t)b) >= 0;
    if (any) {
      fprintf(stderr,
              "paimon: resuming at snapshot %lld: lines already committed per bucket are skipped:",
              (long long)paimon_realtime_snapshot_id(g->ctx));
      for (int64_t b = 0; b < nbuckets; b++)
        fprintf(stderr, " bucket %lld < line %lld%s", (long long)b,
                (long long)paimon_realtime_committed_offset(g->ctx, "", (int32_t)b),
                b + 1 < nbuckets ? "," : "\n");
    }
  }
}

/* Opens the table, its real-time context and writer for `a`, verifies the source (open
 * as `fd`) against the committed state and prepares `j` to resume after it. */
static void open_job(ingest *g, job *j, const ingest_args *a, int fd) {
  memset(g, 0, sizeof *g);
  pthread_mutex_init(&g->lock, NULL);
  g->source = a->source;
  g->user = a->user;
  g->source_id = a->source_id;
  g->skip_bad = a->skip_bad;
  g->rejects_path = a->rejects;
  snprintf(g->offsets_key, sizeof g->offsets_key, "realtime.offsets%s%s", *a->source_id ? "." : "",
           a->source_id);
  paimon_error err = {0, ""};
  /* reads of --serve (/query) decode on every CPU (issue 23) */
  paimon_options *o = NULL;
  char th[24];
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  snprintf(th, sizeof th, "%ld", ncpu < 1 ? 1 : ncpu > 256 ? 256 : ncpu);
  if (paimon_options_new(&o, NULL) != 0 || paimon_options_set(o, "read.threads", th, NULL) != 0)
    die("out of memory%s", "");
  int rc = paimon_table_open(&g->t, a->table, o, &err);
  paimon_options_free(o);
  if (rc != 0) die_err(&err, rc);
  g->table_path = paimon_table_path(g->t);
  const char *const *pks;
  g->pk = paimon_table_primary_keys(&pks, g->t) > 0;
  paimon_realtime_context_opts copts = PAIMON_REALTIME_CONTEXT_OPTS_INIT;
  copts.source_id = a->source_id;
  copts.options = a->wopts; /* -o store options (realtime.store.*) reach every store */
  rc = paimon_realtime_context_open(&g->ctx, g->t, NULL, &copts, &err);
  if (rc != 0) die_err(&err, rc);
  memset(j, 0, sizeof *j);
  j->g = g;
  j->maintain_every = a->maintain_every;
  j->rej.fd = -1;
  src_hash_init(&j->wh);
  verify_source(g, j, fd);
  if (a->skip_bad) src_rejects_open(&j->rej, a->rejects, g->have_committed ? &g->committed : NULL);

  rc = paimon_realtime_writer_new(&j->w, g->ctx, a->user, a->wopts, &err);
  if (rc != 0) die_err(&err, rc);
  g->last_ident = cli_next_identifier(g->t, a->user) - 1;
  size_t ulen = strlen(a->user);
  char *cuser = malloc(ulen + 9);
  if (!cuser) die("out of memory%s", "");
  memcpy(cuser, a->user, ulen);
  memcpy(cuser + ulen, "-compact", 9);
  j->compact_user = cuser;
  j->compact_ident = cli_next_identifier(g->t, cuser);
  report_resume(g);
}

/* Reads, writes and commits batches until the source ends (or, following, a signal). */
static void ingest_loop(job *j, const ingest_args *a, cli_lines *in, cli_batch *b) {
  ingest *g = j->g;
  int flags = PAIMON_JSONL_REALTIME_OFFSET | PAIMON_JSONL_VALUE_KIND;
  j->started_ms = j->last_commit_ms = now_ms();
  while (!g_stop) {
    int done = cli_lines_batch(in, b, (size_t)a->batch_rows, a->follow, NULL);
    j->wpos = 0; /* the previous batch's bytes are gone from the buffer */
    int64_t rejected = j->written.rejected;
    ingest_batch(j, in, b, flags);
    pthread_mutex_lock(&g->lock);
    g->lines_read = in->next_no;
    g->rows_written += (int64_t)b->n - (j->written.rejected - rejected);
    g->eof = in->eof && in->pos == in->len;
    pthread_mutex_unlock(&g->lock);
    if (now_ms() - j->last_commit_ms >= a->interval) commit_cycle(j);
    if (done) break;
    if (b->n == 0) { /* following and nothing new: wait a little */
      struct timespec ds = {0, 20000000L};
      nanosleep(&ds, NULL);
    }
  }
}

/* The last commit and maintenance, the summary line, and every resource released. */
static void finish_job(job *j, ingest_args *a, http_server *http, cli_lines *in, cli_batch *b) {
  ingest *g = j->g;
  commit_cycle(j);
  if (j->maintain_every > 0 && !j->tidy) maintain(j); /* leave the table tidy */
  http_stop(http);
  char skipped[4200] = "";
  if (a->skip_bad)
    snprintf(skipped, sizeof skipped, ", %lld bad line(s) in %s", (long long)j->written.rejected,
             a->rejects);
  fprintf(stderr, "paimon: %s: %lld lines read%s, %lld commits, latest snapshot %lld\n",
          g_stop ? "stopped" : "done", (long long)in->next_no, skipped, (long long)g->commits,
          (long long)paimon_realtime_snapshot_id(g->ctx));
  cli_batch_free(b);
  cli_lines_free(in);
  src_rejects_close(&j->rej);
  paimon_writer_close(j->w);
  paimon_realtime_context_free(g->ctx);
  paimon_table_close(g->t);
  paimon_options_free(a->wopts);
  free((char *)j->compact_user);
  free(a->user_buf);
  free(a->rejects_buf);
  pthread_mutex_destroy(&g->lock);
}

int cmd_ingest(int argc, char **argv) {
  ingest_args a;
  parse_args(&a, argc, argv);
  serve_addr sv;
  if (a.serve) check_serve(&a, &sv); /* validate before any work */
  int fd = open(a.source, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "paimon: cannot open %s: %s\n", a.source, strerror(errno));
    return 1;
  }
  ingest g;
  job j;
  open_job(&g, &j, &a, fd);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  http_server *http = a.serve ? start_server(&g, &a, &sv) : NULL;

  cli_lines in;
  cli_lines_init(&in, fd, false, a.source);
  in.next_no = j.written.lines;
  g.lines_read = in.next_no;
  j.lines_at_commit = j.lines_at_start = in.next_no;
  cli_batch b = {0};
  ingest_loop(&j, &a, &in, &b);
  finish_job(&j, &a, http, &in, &b);
  close(fd);
  return 0;
}
