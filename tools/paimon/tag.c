/* tools/paimon/tag.c: `paimon tag create|delete|list|expire` and `paimon rollback`
 * (public API only: paimon/tag.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

const char *const USAGE_TAG =
    "usage: paimon tag create TABLE NAME [--snapshot N] [--time-retained D] [--branch B]\n"
    "       paimon tag delete TABLE NAME [--branch B]\n"
    "       paimon tag list TABLE [--branch B]\n"
    "       paimon tag expire TABLE [--branch B] [-o key=value]...\n"
    "\n"
    "Tags name a snapshot and keep its files readable after snapshot expiration\n"
    "(tag/tag-NAME, as Java Paimon writes it).\n"
    "  create  tags the latest snapshot, or snapshot N (also one only a tag still holds);\n"
    "          --time-retained D (e.g. \"7 d\", \"12 h\") or the table option\n"
    "          tag.default-time-retained gives the tag a retention time\n"
    "  delete  deletes the tag file (files only it kept are left to orphan cleaning)\n"
    "  list    one line per tag after a header: name, snapshot, schema, commit time (UTC),\n"
    "          records, create time (local), retained, whether snapshot-N still exists\n"
    "  expire  deletes tags past their retention, and the oldest auto-created tags beyond\n"
    "          tag.num-retained-max (options overridable with -o)\n"
    "Read a tag with 'paimon cat TABLE --tag NAME'.\n";

const char *const USAGE_ROLLBACK =
    "usage: paimon rollback TABLE (--to-snapshot N | --to-tag NAME) [--force] [--branch B]\n"
    "\n"
    "Rolls the table back as Java Paimon does: snapshots, long-lived changelogs and tags\n"
    "newer than the target are removed and the LATEST hint rewritten; data files are left\n"
    "to orphan cleaning. A tag whose snapshot has expired is written back as that\n"
    "snapshot. Refused when a snapshot to be removed holds committed real-time progress\n"
    "(offsets) beyond the target, unless --force is given.\n";

typedef struct targs {
  const char *pos[3];
  int npos;
  const char *branch;
  bool has_snapshot;
  int64_t snapshot;
  const char *time_retained;
  const char *to_tag;
  bool has_to_snapshot;
  int64_t to_snapshot;
  bool force;
  paimon_options *o; /* -o key=value */
} targs;

/* --name value or --name=value; returns the value and advances *i. */
static const char *opt_value(const char *usage, int argc, char **argv, int *i, const char *name) {
  const char *a = argv[*i];
  size_t nl = strlen(name);
  if (a[nl] == '=') return a + nl + 1;
  if (*i + 1 >= argc) usage_error(usage, "option '%s' needs a value", name);
  return argv[++*i];
}

static bool is_opt(const char *a, const char *name) {
  size_t nl = strlen(name);
  return strncmp(a, name, nl) == 0 && (a[nl] == 0 || a[nl] == '=');
}

static void parse(targs *t, const char *usage, int argc, char **argv, int first, int maxpos) {
  memset(t, 0, sizeof *t);
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage, stdout);
      exit(0);
    }
    if (is_opt(a, "--branch")) {
      t->branch = opt_value(usage, argc, argv, &i, "--branch");
      if (!*t->branch) usage_error(usage, "empty branch name%s", "");
    } else if (is_opt(a, "--snapshot") || is_opt(a, "--to-snapshot")) {
      bool to = is_opt(a, "--to-snapshot");
      const char *name = to ? "--to-snapshot" : "--snapshot";
      const char *v = opt_value(usage, argc, argv, &i, name);
      int64_t id;
      if (!parse_i64(v, &id) || id <= 0)
        usage_error(usage, "%s needs a positive snapshot id, got '%s'", name, v);
      if (to) {
        t->has_to_snapshot = true;
        t->to_snapshot = id;
      } else {
        t->has_snapshot = true;
        t->snapshot = id;
      }
    } else if (is_opt(a, "--time-retained")) {
      t->time_retained = opt_value(usage, argc, argv, &i, "--time-retained");
    } else if (is_opt(a, "--to-tag")) {
      t->to_tag = opt_value(usage, argc, argv, &i, "--to-tag");
    } else if (strcmp(a, "--force") == 0) {
      t->force = true;
    } else if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) usage_error(usage, "option '%s' needs a value", "-o");
      const char *kv = argv[++i];
      const char *eq = strchr(kv, '=');
      if (!eq || eq == kv) usage_error(usage, "-o needs key=value, got '%s'", kv);
      if (!t->o && paimon_options_new(&t->o, NULL) != 0) die("out of memory%s", "");
      char *k = strndup(kv, (size_t)(eq - kv));
      if (!k || paimon_options_set(t->o, k, eq + 1, NULL) != 0) die("out of memory%s", "");
      free(k);
    } else if (a[0] == '-' && a[1] && strcmp(a, "--") != 0) {
      usage_error(usage, "unknown option '%s'", a);
    } else {
      if (strcmp(a, "--") == 0) {
        if (i + 1 >= argc) break;
        a = argv[++i];
      }
      if (t->npos >= maxpos) usage_error(usage, "unexpected argument '%s'", a);
      t->pos[t->npos++] = a;
    }
  }
}

static paimon_table *open_tbl(const char *path, const char *branch) {
  paimon_options *o = NULL;
  paimon_error err = {0, ""};
  if (paimon_options_new(&o, NULL) != 0) die("out of memory%s", "");
  if (branch && paimon_options_set(o, "branch", branch, NULL) != 0) die("out of memory%s", "");
  paimon_table *t = NULL;
  int rc = paimon_table_open(&t, path, o, &err);
  paimon_options_free(o);
  if (rc != 0) die_err(&err, rc);
  return t;
}

static void utc_text(char *buf, size_t n, int64_t ms) {
  time_t s = (time_t)(ms / 1000);
  struct tm tm;
  if (!gmtime_r(&s, &tm) || strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm) == 0)
    snprintf(buf, n, "%lld", (long long)ms);
}

static int tag_list(const targs *a) {
  paimon_table *t = open_tbl(a->pos[0], a->branch);
  paimon_error err = {0, ""};
  char **names = NULL;
  size_t n = 0;
  int rc = paimon_table_list_tags(&names, &n, t, &err);
  if (rc != 0) die_err(&err, rc);
  printf("name\tsnapshot\tschema\tcommit_time\trecords\tcreate_time\tretained\tsnapshot_file\n");
  for (size_t i = 0; i < n; i++) {
    paimon_tag_info ti = PAIMON_TAG_INFO_INIT;
    rc = paimon_table_tag_info(&ti, t, names[i], &err);
    if (rc == PAIMON_ENOTFOUND) continue; /* deleted meanwhile */
    if (rc != 0) die_err(&err, rc);
    char when[32], rec[32], ret[32];
    utc_text(when, sizeof when, ti.commit_time_millis);
    if (ti.total_record_count < 0) snprintf(rec, sizeof rec, "-");
    else snprintf(rec, sizeof rec, "%lld", (long long)ti.total_record_count);
    if (ti.time_retained_millis < 0) snprintf(ret, sizeof ret, "-");
    else snprintf(ret, sizeof ret, "%lld ms", (long long)ti.time_retained_millis);
    printf("%s\t%lld\t%lld\t%s\t%s\t%s\t%s\t%s\n", names[i], (long long)ti.snapshot_id,
           (long long)ti.schema_id, when, rec, ti.create_time[0] ? ti.create_time : "-", ret,
           ti.snapshot_exists ? "present" : "expired");
  }
  paimon_tag_names_free(names, n);
  paimon_table_close(t);
  return 0;
}

int cmd_tag(int argc, char **argv) {
  if (argc < 3) usage_error(USAGE_TAG, "missing sub-command (create, delete, list, expire)%s", "");
  const char *sub = argv[2];
  if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
    fputs(USAGE_TAG, stdout);
    return 0;
  }
  bool create = strcmp(sub, "create") == 0, del = strcmp(sub, "delete") == 0;
  bool list = strcmp(sub, "list") == 0, expire = strcmp(sub, "expire") == 0;
  if (!create && !del && !list && !expire)
    usage_error(USAGE_TAG, "unknown tag sub-command '%s'", sub);
  targs a;
  parse(&a, USAGE_TAG, argc, argv, 3, create || del ? 2 : 1);
  if (a.npos < 1) usage_error(USAGE_TAG, "missing TABLE%s", "");
  if ((create || del) && a.npos < 2) usage_error(USAGE_TAG, "missing tag NAME%s", "");
  if (!create && (a.has_snapshot || a.time_retained))
    usage_error(USAGE_TAG, "--snapshot and --time-retained apply to 'tag create' only%s", "");
  if (a.has_to_snapshot || a.to_tag || a.force)
    usage_error(USAGE_TAG, "--to-snapshot, --to-tag and --force apply to 'rollback'%s", "");
  if (a.o && !expire) usage_error(USAGE_TAG, "-o applies to 'tag expire' only%s", "");
  if (list) return tag_list(&a);
  paimon_table *t = open_tbl(a.pos[0], a.branch);
  paimon_error err = {0, ""};
  int rc;
  if (create) {
    int64_t id = 0;
    rc = paimon_table_create_tag(&id, t, a.pos[1], a.has_snapshot ? a.snapshot : -1,
                                 a.time_retained, &err);
    if (rc != 0) die_err(&err, rc);
    printf("created tag '%s' of snapshot %lld\n", a.pos[1], (long long)id);
  } else if (del) {
    rc = paimon_table_delete_tag(t, a.pos[1], &err);
    if (rc != 0) die_err(&err, rc);
    printf("deleted tag '%s'\n", a.pos[1]);
  } else {
    int64_t n = 0;
    rc = paimon_table_expire_tags(&n, t, a.o, &err);
    if (rc != 0) die_err(&err, rc);
    printf("expired %lld tag(s)\n", (long long)n);
  }
  paimon_options_free(a.o);
  paimon_table_close(t);
  return 0;
}

int cmd_rollback(int argc, char **argv) {
  targs a;
  parse(&a, USAGE_ROLLBACK, argc, argv, 2, 1);
  if (a.npos < 1) usage_error(USAGE_ROLLBACK, "missing TABLE%s", "");
  if (a.has_to_snapshot == (a.to_tag != NULL))
    usage_error(USAGE_ROLLBACK, "give exactly one of --to-snapshot N and --to-tag NAME%s", "");
  if (a.has_snapshot || a.time_retained || a.o)
    usage_error(USAGE_ROLLBACK, "--snapshot, --time-retained and -o do not apply here%s", "");
  paimon_table *t = open_tbl(a.pos[0], a.branch);
  paimon_error err = {0, ""};
  int flags = a.force ? PAIMON_ROLLBACK_FORCE : 0;
  int rc = a.to_tag ? paimon_table_rollback_to_tag(t, a.to_tag, flags, &err)
                    : paimon_table_rollback_to_snapshot(t, a.to_snapshot, flags, &err);
  if (rc != 0) die_err(&err, rc);
  if (a.to_tag) printf("rolled back to tag '%s'\n", a.to_tag);
  else printf("rolled back to snapshot %lld\n", (long long)a.to_snapshot);
  paimon_table_close(t);
  return 0;
}
