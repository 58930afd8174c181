/* table/scan_follow.c: following a table (paimon/stream.h, paimon_follow_*).
 *
 * Java Paimon 1.4.1 references: DataTableStreamScan runs a starting scanner once
 * (FullStartingScanner for latest-full, ContinuousLatestStartingScanner for latest,
 * ContinuousFromSnapshotStartingScanner / ContinuousFromSnapshotFullStartingScanner,
 * ContinuousFromTimestampStartingScanner, ContinuousCompactorStartingScanner-like
 * CompactedStartingScanner for compacted-full), then a follow-up scanner per snapshot:
 * DeltaFollowUpScanner (APPEND snapshots' delta files) or, with a changelog producer,
 * ChangelogFollowUpScanner (each snapshot's changelog files). Consumers are the files
 * consumer/consumer-<id> holding {"nextSnapshot" : N} (Consumer, ConsumerManager): the
 * snapshot the consumer reads next, which expiration keeps.
 *
 * A position is (snapshot, full-or-changes, split, row): the change splits of a snapshot
 * are planned deterministically (partition, then bucket; commit order inside), so a
 * restored stream re-plans the snapshot and skips what was delivered. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <paimon/options.h>
#include <paimon/stream.h>

#include "table/read_internal.h"
#include "table/stream_internal.h"

struct paimon_follow {
  paimon_table *t;
  bool pk, changelog;
  char *consumer_id;
  paimon_follow_position pos;
  struct ArrowArrayStream cur; /* the current snapshot's rows, when open */
};

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static char *consumer_path(const paimon_table *t, const char *id) {
  return pm_asprintf("%s/consumer/consumer-%s", t->meta_dir, id);
}

/* The consumer's nextSnapshot, 0 when it has no file. */
static int consumer_read(const paimon_table *t, const char *id, int64_t *out, paimon_error *err) {
  *out = 0;
  char *p = consumer_path(t, id);
  if (!p) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_buf b = PM_BUF_INIT;
  int rc = pm_fs_read_all(t->fs, p, 1 << 16, &b, err);
  if (rc == PAIMON_ENOTFOUND) {
    rc = 0;
  } else if (rc == 0) {
    /* {"nextSnapshot" : N}: the one field Consumer has */
    const char *s = NULL, *end = NULL;
    if (pm_buf_append(&b, "", 1) == 0) {
      s = strstr((const char *)b.data, "\"nextSnapshot\"");
      end = (const char *)b.data + b.len - 1;
    }
    long long v = -1;
    if (s) {
      s += 14;
      while (s < end && (*s == ' ' || *s == ':' || *s == '\n' || *s == '\t' || *s == '\r')) s++;
      if (s < end && *s >= '0' && *s <= '9') {
        v = 0;
        while (s < end && *s >= '0' && *s <= '9' && v < (long long)1e17) v = v * 10 + (*s++ - '0');
      }
    }
    if (v < 0) rc = pm_fail(err, PAIMON_ECORRUPT, "%s: no integer nextSnapshot", p);
    else *out = v;
  }
  pm_buf_free(&b);
  pm_free(p);
  return rc;
}

int paimon_follow_commit_consumer(paimon_follow *f, paimon_error *err) {
  if (!f->consumer_id) return 0;
  char *p = consumer_path(f->t, f->consumer_id);
  /* JsonSerdeUtil's pretty form, as Java writes it */
  char *json = pm_asprintf("{\n  \"nextSnapshot\" : %lld\n}", (long long)f->pos.snapshot_id);
  int rc = p && json ? pm_fs_write_all(f->t->fs, p, json, strlen(json), err)
                     : pm_fail(err, PAIMON_ENOMEM, "out of memory");
  pm_free(json);
  pm_free(p);
  return rc;
}

static const char *opt(const paimon_options *o, const char *k) {
  return o ? paimon_options_get(o, k) : NULL;
}

static int opt_i64(const paimon_options *o, const char *k, int64_t *out, bool *has,
                   paimon_error *err) {
  const char *v = opt(o, k);
  *has = v != NULL;
  if (!v) return 0;
  char *e = NULL;
  long long x = strtoll(v, &e, 10);
  if (!*v || *e) return pm_fail(err, PAIMON_EINVAL, "%s: '%s' is not an integer", k, v);
  *out = x;
  return 0;
}

/* The latest COMPACT snapshot, else the latest (CompactedStartingScanner). */
static int latest_compacted(paimon_table *t, int64_t earliest, int64_t latest, int64_t *out,
                            paimon_error *err) {
  *out = latest;
  for (int64_t id = latest; id >= earliest && id > 0; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_load(&s, t->fs, t->meta_dir, id, err);
    if (rc == PAIMON_ENOTFOUND) continue;
    PM_TRY(rc);
    bool hit = s->commit_kind && strcmp(s->commit_kind, "COMPACT") == 0;
    pm_snapshot_free(s);
    if (hit) {
      *out = id;
      break;
    }
  }
  return 0;
}

/* The start position of scan.mode (StartupMode). */
static int start_position(paimon_follow *f, const paimon_options *o, paimon_error *err) {
  paimon_table *t = f->t;
  int64_t earliest = 0, latest = 0;
  PM_TRY(pm_snapshot_earliest_id(t->fs, t->meta_dir, &earliest, err));
  PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &latest, err));
  const char *mode = opt(o, "scan.mode");
  int64_t sid = 0, ts = 0;
  bool has_sid, has_ts;
  PM_TRY(opt_i64(o, "scan.snapshot-id", &sid, &has_sid, err));
  PM_TRY(opt_i64(o, "scan.timestamp-millis", &ts, &has_ts, err));
  paimon_follow_position *p = &f->pos;
  memset(p, 0, sizeof *p);
  p->struct_size = sizeof *p;
  if (f->consumer_id && (!mode || strcasecmp(mode, "default") == 0)) {
    int64_t next = 0;
    PM_TRY(consumer_read(t, f->consumer_id, &next, err));
    if (next > 0) {
      p->snapshot_id = next; /* the consumer's progress wins (ConsumerManager) */
      return 0;
    }
  }
  if (!mode || strcasecmp(mode, "default") == 0)
    mode = has_sid ? "from-snapshot" : has_ts ? "from-timestamp" : "latest-full";
  if (strcasecmp(mode, "latest-full") == 0 || strcasecmp(mode, "full") == 0) {
    p->snapshot_id = latest ? latest : 1;
    p->full = latest ? 1 : 0;
  } else if (strcasecmp(mode, "latest") == 0) {
    p->snapshot_id = latest + 1;
  } else if (strcasecmp(mode, "compacted-full") == 0) {
    int64_t c = 0;
    PM_TRY(latest_compacted(t, earliest, latest, &c, err));
    p->snapshot_id = c ? c : 1;
    p->full = c ? 1 : 0;
  } else if (strcasecmp(mode, "from-snapshot") == 0 ||
             strcasecmp(mode, "from-snapshot-full") == 0) {
    if (!has_sid || sid <= 0)
      return pm_fail(err, PAIMON_EINVAL, "scan.mode %s needs a positive scan.snapshot-id", mode);
    bool full = strcasecmp(mode, "from-snapshot-full") == 0;
    if (full && (sid < earliest || sid > latest))
      return pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld does not exist", t->path,
                     (long long)sid);
    /* ContinuousFromSnapshotStartingScanner: no earlier than the earliest kept */
    p->snapshot_id = !full && earliest && sid < earliest ? earliest : sid;
    p->full = full ? 1 : 0;
  } else if (strcasecmp(mode, "from-timestamp") == 0) {
    if (!has_ts)
      return pm_fail(err, PAIMON_EINVAL, "scan.mode from-timestamp needs scan.timestamp-millis");
    /* ContinuousFromTimestampStartingScanner: after the last snapshot earlier than ts */
    int64_t before = 0;
    PM_TRY(pm_inc_snapshot_at_or_before(t, ts - 1, &before, err));
    p->snapshot_id = before ? before + 1 : (earliest ? earliest : 1);
  } else {
    return pm_fail(err, PAIMON_EINVAL,
                   "scan.mode: '%s' is not latest, latest-full, from-snapshot, "
                   "from-snapshot-full, from-timestamp, compacted-full or default",
                   mode);
  }
  return 0;
}

static int follow_new(paimon_follow **out, const paimon_table *t, const paimon_options *o,
                      paimon_error *err) {
  *out = NULL;
  paimon_follow *f = pm_calloc(1, sizeof *f);
  if (!f) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  f->t = (paimon_table *)t;
  pm_table_ref(f->t);
  f->pk = t->schema->nprimary_keys > 0;
  f->changelog = pm_inc_has_changelog(t);
  const char *cid = opt(o, "consumer-id");
  if (cid) {
    if (!*cid || !pm_path_component_ok(cid)) {
      paimon_follow_free(f);
      return pm_fail(err, PAIMON_EINVAL, "consumer-id: '%s' is not a file-name-safe id", cid);
    }
    f->consumer_id = pm_strdup(cid);
    if (!f->consumer_id) {
      paimon_follow_free(f);
      return pm_fail(err, PAIMON_ENOMEM, "out of memory");
    }
  }
  *out = f;
  return 0;
}

int paimon_follow_open(paimon_follow **out, const paimon_table *t, const paimon_options *opts,
                       paimon_error *err) {
  paimon_follow *f = NULL;
  PM_TRY(follow_new(&f, t, opts, err));
  int rc = start_position(f, opts, err);
  /* the consumer protects its start at once */
  if (rc == 0) rc = paimon_follow_commit_consumer(f, err);
  if (rc) {
    paimon_follow_free(f);
    return rc;
  }
  *out = f;
  return 0;
}

int paimon_follow_restore(paimon_follow **out, const paimon_table *t, const paimon_options *opts,
                          const paimon_follow_position *pos, paimon_error *err) {
  *out = NULL;
  paimon_follow_position p = PAIMON_FOLLOW_POSITION_INIT;
  if (!pos) return pm_fail(err, PAIMON_EINVAL, "paimon_follow_restore: NULL position");
  PM_TRY(pm_struct_in(&p, sizeof p, pos, "paimon_follow_position", "PAIMON_FOLLOW_POSITION_INIT",
                      err));
  pos = &p;
  if (pos->snapshot_id <= 0 || pos->split < 0 || pos->row < 0 || (pos->full != 0 && pos->full != 1))
    return pm_fail(err, PAIMON_EINVAL, "paimon_follow_restore: not a follow position");
  paimon_follow *f = NULL;
  PM_TRY(follow_new(&f, t, opts, err));
  f->pos = *pos;
  *out = f;
  return 0;
}

int paimon_follow_schema(struct ArrowSchema *out, const paimon_follow *f, paimon_error *err) {
  pm_split_vec none = {0};
  struct ArrowArrayStream st;
  PM_TRY(pm_inc_stream_units(&st, f->t, &none, NULL, f->pk, 0, 0, err));
  int e = st.get_schema(&st, out);
  int rc = e ? pm_fail(err, PAIMON_ENOMEM, "%s", st.get_last_error(&st)) : 0;
  st.release(&st);
  return rc;
}

int paimon_follow_checkpoint(paimon_follow_position *out, const paimon_follow *f) {
  paimon_follow_position full = f->pos;
  full.struct_size = sizeof full;
  return pm_struct_out(out, &full, sizeof full, "paimon_follow_position",
                       "PAIMON_FOLLOW_POSITION_INIT", NULL);
}

static void close_cur(paimon_follow *f) {
  if (f->cur.release) f->cur.release(&f->cur);
  memset(&f->cur, 0, sizeof f->cur);
}

/* Opens the stream of the position's snapshot; *wait when it has not landed yet. */
static int open_cur(paimon_follow *f, bool *wait, paimon_error *err) {
  paimon_table *t = f->t;
  paimon_follow_position *p = &f->pos;
  *wait = false;
  int64_t latest = 0;
  PM_TRY(pm_snapshot_latest_id(t->fs, t->meta_dir, &latest, err));
  if (p->snapshot_id > latest) {
    *wait = true;
    return 0;
  }
  if (p->full) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_load(&s, t->fs, t->meta_dir, p->snapshot_id, err);
    if (rc == PAIMON_ENOTFOUND)
      return pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld expired before it was read", t->path,
                     (long long)p->snapshot_id);
    PM_TRY(rc);
    paimon_plan *plan = NULL;
    rc = pm_scan_plan_snapshot(&plan, t, s, err);
    pm_snapshot_free(s);
    PM_TRY(rc);
    return pm_inc_stream_plan(&f->cur, t, plan, NULL, f->pk, (size_t)p->split, p->row, err);
  }
  pm_split_vec units;
  int rc = pm_inc_units(&units, t, p->snapshot_id - 1, p->snapshot_id,
                        f->changelog ? PM_INC_CHANGELOG : PM_INC_DELTA, err);
  if (rc == PAIMON_ENOTFOUND)
    return pm_fail(err, PAIMON_ENOTFOUND, "%s: snapshot %lld expired before it was read", t->path,
                   (long long)p->snapshot_id);
  PM_TRY(rc);
  return pm_inc_stream_units(&f->cur, t, &units, NULL, f->pk, (size_t)p->split, p->row, err);
}

int paimon_follow_next(struct ArrowArray *out, int64_t *snapshot_id, paimon_follow *f,
                       int64_t timeout_ms, paimon_error *err) {
  memset(out, 0, sizeof *out);
  int64_t deadline = timeout_ms < 0 ? INT64_MAX : mono_ms() + timeout_ms;
  for (;;) {
    if (!f->cur.release) {
      bool wait = false;
      PM_TRY(open_cur(f, &wait, err));
      if (wait) {
        int64_t now = mono_ms();
        if (now >= deadline) return PAIMON_ITEROVER;
        int64_t nap = deadline - now < 50 ? deadline - now : 50;
        sleep_ms(nap);
        continue;
      }
    }
    int e = f->cur.get_next(&f->cur, out);
    if (e) {
      const char *m = f->cur.get_last_error(&f->cur);
      int st = PAIMON_EIO;
      if (!pm_inc_stream_status(&f->cur, &st)) st = pm_stream_failure(&f->cur, e);
      int rc = pm_fail(err, st, "%s", m ? m : "read failed");
      close_cur(f); /* retried from the position */
      memset(out, 0, sizeof *out);
      return rc;
    }
    if (out->release) {
      size_t unit = 0;
      int64_t row = 0;
      if (pm_inc_stream_position(&f->cur, &unit, &row)) {
        f->pos.split = (int64_t)unit;
        f->pos.row = row;
      }
      if (snapshot_id) *snapshot_id = f->pos.snapshot_id;
      return 0;
    }
    close_cur(f);
    f->pos.snapshot_id++; /* a full read of N continues with N+1's changes */
    f->pos.full = 0;
    f->pos.split = 0;
    f->pos.row = 0;
  }
}

void paimon_follow_free(paimon_follow *f) {
  if (!f) return;
  close_cur(f);
  pm_free(f->consumer_id);
  paimon_table_close(f->t);
  pm_free(f);
}
