/* tools/paimon/write.c: `paimon create`, `write`, `compact` and `expire`.
 *
 * `write` reads the `cat --format jsonl` encoding (or the `cat --format csv` one) from
 * standard input, parses it with paimon_jsonl_parse in batches, writes through one
 * writer and commits once at the end, so a failed run publishes nothing. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *const USAGE_CREATE =
    "usage: paimon create TABLE (--schema FILE.json | --like OTHER) [-o key=value]...\n"
    "\n"
    "Creates a new, empty table at TABLE (a directory that must not hold a table yet).\n"
    "\n"
    "  --schema FILE.json   a Paimon schema JSON document in the form of a schema/schema-N\n"
    "                       file: \"fields\" (id, name, type), \"partitionKeys\",\n"
    "                       \"primaryKeys\", \"options\" (\"id\", \"highestFieldId\", "
    "\"version\",\n"
    "                       \"timeMillis\" and field ids may be omitted); '-' reads stdin\n"
    "  --like OTHER         the fields, keys and options of OTHER's current schema\n"
    "  -o key=value         set a table option (repeatable); 'key=' removes it\n"
    "\n"
    "With --like, options this library cannot write yet are dropped with a note on\n"
    "stderr because rows read the same without them: row-tracking.enabled,\n"
    "data-evolution.enabled, file-index.*, deletion-vectors.enabled, blob options,\n"
    "manifest.format other than avro (manifests are written in Avro), bucket-function.type\n"
    "other than default, metadata.stats-mode other than truncate(N)/full,\n"
    "scan.fallback-branch (the new table has no branches) and path. An option given\n"
    "with -o is never dropped. Tables with BLOB columns are refused (those columns\n"
    "cannot be written yet). Other options (merge engines, sequence fields, ...) are kept\n"
    "as they are, so the new table means the same; `paimon write` refuses what it cannot\n"
    "write.\n";

const char *const USAGE_WRITE =
    "usage: paimon write TABLE [--format jsonl|csv] [--commit-user U] [-o key=value]...\n"
    "\n"
    "Reads rows from standard input and commits them as one snapshot at the end (nothing\n"
    "is published when anything fails).\n"
    "\n"
    "  --format jsonl   (default) exactly the encoding `paimon cat --format jsonl` prints,\n"
    "                   so `paimon cat A --format jsonl | paimon write B` copies a table;\n"
    "                   missing keys are nulls; blank lines are skipped. Primary-key\n"
    "                   tables accept a \"_VALUE_KIND\" key: 0..3 or \"+I\", \"-U\", \"+U\",\n"
    "                   \"-D\" (default +I).\n"
    "  --format csv     the `paimon cat --format csv` encoding: a header line naming the\n"
    "                   columns, an empty unquoted field is null, \"\" the empty string;\n"
    "                   invalid UTF-8 fails with the line and column, as in jsonl\n"
    "  --commit-user U  commit user (default: a random one); the commit identifier is\n"
    "                   1 + the newest one U committed\n"
    "  -o key=value     writer option overriding the table's (e.g. target-file-size);\n"
    "                   layout options (bucket, bucket-key, partition.*-name, merge-engine,\n"
    "                   ...) are refused unless equal to the table's\n"
    "\n"
    "Progress (rows, rate) goes to stderr every 2 seconds on long inputs; the last line on\n"
    "stderr names the snapshot committed.\n";

const char *const USAGE_COMPACT =
    "usage: paimon compact TABLE [--full] [--commit-user U]\n"
    "\n"
    "Compacts a table and commits a COMPACT snapshot; prints what was rewritten.\n"
    "Append tables: Java Paimon's picking rules for small files. With --full, a fixed\n"
    "bucket is rewritten when small files outnumber large ones and at least 3 files\n"
    "remain after its leading large ones (Java's BucketedAppendCompactManager), so two\n"
    "small files stay as they are; bucket-unaware tables pack every small file.\n"
    "Primary-key tables: universal compaction (Java's rules), or with --full every\n"
    "bucket's files merged into one sorted run at the highest level.\n";

const char *const USAGE_EXPIRE =
    "usage: paimon expire TABLE [-o key=value]...\n"
    "\n"
    "Expires old snapshots and deletes the files only they reference. The table's\n"
    "options decide, overridable with -o: snapshot.num-retained.min (10),\n"
    "snapshot.num-retained.max (unlimited), snapshot.time-retained (1 h),\n"
    "snapshot.expire.limit (50 per call).\n";

/* ---- small helpers shared with ingest --------------------------------------------------- */

/* Newest snapshots first: the next identifier of `user` (1 + its newest), and in
 * *found (nullable) the first snapshot holding identifier `ident` of `user`, or 0. */
static int64_t scan_user(const paimon_table *t, const char *user, int64_t ident, int64_t *found) {
  paimon_error err = {0, ""};
  int64_t *ids = NULL;
  size_t n = 0;
  int rc = paimon_table_snapshot_ids(&ids, &n, t, &err);
  if (rc != 0) die_err(&err, rc);
  int64_t next = 0;
  if (found) *found = 0;
  for (size_t i = n; i-- > 0;) {
    paimon_snapshot *s = NULL;
    rc = paimon_table_snapshot(&s, t, ids[i], &err);
    if (rc == PAIMON_ENOTFOUND) continue; /* expired meanwhile */
    if (rc != 0) die_err(&err, rc);
    const char *u = paimon_snapshot_commit_user(s);
    bool mine = u && strcmp(u, user) == 0;
    int64_t sident = mine ? paimon_snapshot_commit_identifier(s) : 0;
    paimon_snapshot_free(s);
    if (!mine) continue;
    if (!next) next = sident + 1;
    if (!found || sident < ident) break;
    if (sident == ident) *found = ids[i];
  }
  paimon_free(ids);
  return next ? next : 1;
}

int64_t cli_next_identifier(const paimon_table *t, const char *user) {
  return scan_user(t, user, 0, NULL);
}

/* Commits `msgs` and returns the snapshot id; exits 1 when nothing was committed. A
 * warning of a successful commit (its compaction was dropped) goes to stderr. After an
 * error the snapshots decide, by commit user and identifier, whether the commit landed
 * anyway; only when it did not are the messages aborted, and the abort itself keeps
 * every file a snapshot names. */
static int64_t cli_commit(paimon_table *t, const char *user, int64_t ident,
                          const paimon_commit_messages *msgs) {
  paimon_error err = {0, ""};
  int64_t sid = 0;
  int rc = paimon_table_commit(&sid, t, user, ident, msgs, NULL, &err);
  if (rc == 0) {
    if (err.message[0]) fprintf(stderr, "paimon: warning: %s\n", err.message);
    return sid;
  }
  scan_user(t, user, ident, &sid);
  if (sid > 0) {
    fprintf(stderr,
            "paimon: warning: %s; yet snapshot %lld holds identifier %lld of commit user "
            "%s: committed, nothing aborted\n",
            err.message, (long long)sid, (long long)ident, user);
    return sid;
  }
  paimon_error e2 = {0, ""};
  if (paimon_table_abort_commit(t, msgs, &e2) != 0)
    fprintf(stderr, "paimon: cleaning up: %s\n", e2.message);
  die_err(&err, rc);
  return 0;
}

/* "--name value" / "--name=value" at argv[*i]; advances *i past the value. */
static bool opt_val(int argc, char **argv, int *i, const char *name, const char *usage,
                    const char **val) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return false;
  if (a[n] == '=') {
    *val = a + n + 1;
    return true;
  }
  if (a[n]) return false;
  if (*i + 1 >= argc) usage_error(usage, "option '%s' needs a value", name);
  *val = argv[++*i];
  return true;
}

/* Collects "-o key=value" into `o`. */
static void add_kv(paimon_options *o, const char *kv, const char *usage) {
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv) usage_error(usage, "-o needs key=value, got '%s'", kv);
  char *k = strndup(kv, (size_t)(eq - kv));
  if (!k) die("out of memory%s", "");
  if (paimon_options_set(o, k, eq + 1, NULL) != 0) die("out of memory%s", "");
  free(k);
}

static paimon_table *open_path(const char *path) {
  paimon_error err = {0, ""};
  paimon_table *t = NULL;
  int rc = paimon_table_open(&t, path, NULL, &err);
  if (rc != 0) die_err(&err, rc);
  return t;
}

static char *read_all(FILE *f, const char *name) {
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) die("out of memory%s", "");
  for (;;) {
    if (cap - len < 4096) {
      if (cap > ((size_t)64 << 20)) die("%s: larger than 64 MiB", name);
      cap *= 2;
      char *nb = realloc(buf, cap);
      if (!nb) die("out of memory%s", "");
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
  }
  if (ferror(f)) die("cannot read %s", name);
  buf[len] = 0;
  return buf;
}

/* ---- create --------------------------------------------------------------------------- */

/* True when the schema JSON type `ty` (a string or a nested object) contains BLOB. */
static bool has_blob(const json_t *ty) {
  if (json_is_string(ty)) return strncmp(json_string_value(ty), "BLOB", 4) == 0;
  if (json_is_object(ty)) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)ty, k, v) {
      if (has_blob(v)) return true;
    }
  }
  if (json_is_array(ty)) {
    size_t i;
    json_t *v;
    json_array_foreach(ty, i, v) {
      if (has_blob(v)) return true;
    }
  }
  return false;
}

/* Why option k=v of another table cannot be carried into a table this library writes,
 * or NULL to keep it. */
static const char *drop_reason(const char *k, const char *v) {
  bool on = strcmp(v, "true") == 0;
  if (strcmp(k, "row-tracking.enabled") == 0 && on) return "row tracking is not written yet";
  if (strcmp(k, "data-evolution.enabled") == 0 && on) return "data evolution is not written yet";
  if (strncmp(k, "file-index.", 11) == 0)
    return "file indexes are not written yet (they only speed up reads)";
  if (strcmp(k, "deletion-vectors.enabled") == 0 && on)
    return "deletion vectors are not written yet (rows read the same without them)";
  if (strcmp(k, "blob-field") == 0 || strncmp(k, "blob.", 5) == 0 || strncmp(k, "blob-", 5) == 0)
    return "BLOB storage is not written yet";
  if (strcmp(k, "manifest.format") == 0 && strcmp(v, "avro") != 0)
    return "this library writes Avro manifests";
  if (strcmp(k, "bucket-function.type") == 0 && strcmp(v, "default") != 0)
    return "only the default bucket function is written";
  if (strcmp(k, "metadata.stats-mode") == 0 && strncmp(v, "truncate(", 9) != 0 &&
      strcmp(v, "full") != 0)
    return "only truncate(N) and full statistics are written";
  if (strcmp(k, "scan.fallback-branch") == 0) return "the new table has no branches";
  if (strcmp(k, "path") == 0) return "it names the other table's location";
  return NULL;
}

int cmd_create(int argc, char **argv) {
  const char *table = NULL, *schema_file = NULL, *like = NULL;
  paimon_options *over = NULL;
  if (paimon_options_new(&over, NULL) != 0) die("out of memory%s", "");
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_CREATE, stdout);
      exit(0);
    }
    if (opt_val(argc, argv, &i, "--schema", USAGE_CREATE, &v)) schema_file = v;
    else if (opt_val(argc, argv, &i, "--like", USAGE_CREATE, &v)) like = v;
    else if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) usage_error(USAGE_CREATE, "option '%s' needs a value", "-o");
      add_kv(over, argv[++i], USAGE_CREATE);
    } else if (a[0] == '-' && a[1]) usage_error(USAGE_CREATE, "unknown option '%s'", a);
    else if (table) usage_error(USAGE_CREATE, "unexpected argument '%s'", a);
    else table = a;
  }
  if (!table) usage_error(USAGE_CREATE, "missing TABLE%s", "");
  if (!!schema_file == !!like)
    usage_error(USAGE_CREATE, "give exactly one of --schema and --like%s", "");
  json_error_t je;
  json_t *doc = NULL;
  if (schema_file) {
    /* local-only: the CLI reads the user's schema file, not a table path */
    FILE *f = strcmp(schema_file, "-") == 0 ? stdin : fopen(schema_file, "rb");
    if (!f) {
      fprintf(stderr, "paimon: cannot open %s: %s\n", schema_file, strerror(errno));
      exit(1);
    }
    char *text = read_all(f, schema_file);
    if (f != stdin) fclose(f);
    doc = json_loads(text, 0, &je);
    free(text);
    if (!doc || !json_is_object(doc)) {
      fprintf(stderr, "paimon: %s: not a JSON object (line %d: %s)\n", schema_file, je.line,
              je.text);
      exit(1);
    }
  } else {
    paimon_table *o = open_path(like);
    const char *text = paimon_table_schema_json(o);
    doc = text ? json_loads(text, 0, &je) : NULL;
    if (!doc || !json_is_object(doc)) die("%s: cannot parse its schema JSON", like);
    json_t *fields = json_object_get(doc, "fields");
    size_t i;
    json_t *fv;
    json_array_foreach(fields, i, fv) {
      if (has_blob(json_object_get(fv, "type"))) {
        fprintf(stderr, "paimon: %s has BLOB column '%s': BLOB columns cannot be written yet\n",
                like,
                json_string_value(json_object_get(fv, "name"))
                    ? json_string_value(json_object_get(fv, "name"))
                    : "?");
        exit(1);
      }
    }
    json_object_del(doc, "id");
    json_object_del(doc, "version");
    json_object_del(doc, "timeMillis");
    json_t *opts = json_object_get(doc, "options");
    if (!json_is_object(opts)) {
      opts = json_object();
      json_object_set_new(doc, "options", opts);
    }
    /* defaults old schema versions implied (bucket=1 before v2, orc before v3) */
    static const char *const implied[] = {"bucket", "file.format"};
    for (size_t k = 0; k < 2; k++)
      if (!json_object_get(opts, implied[k]) && paimon_table_option(o, implied[k]))
        json_object_set_new(opts, implied[k], json_string(paimon_table_option(o, implied[k])));
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(opts, tmp, k, v) {
      const char *sv = json_is_string(v) ? json_string_value(v) : "";
      const char *why = paimon_options_get(over, k) ? NULL : drop_reason(k, sv);
      if (why) {
        fprintf(stderr, "paimon: note: dropped option %s=%s: %s\n", k, sv, why);
        json_object_del(opts, k);
      }
    }
    paimon_table_close(o);
  }
  /* -o overrides ('key=' removes) */
  json_t *opts = json_object_get(doc, "options");
  if (!json_is_object(opts)) {
    opts = json_object();
    json_object_set_new(doc, "options", opts);
  }
  for (size_t i = 0; i < paimon_options_count(over); i++) {
    const char *k, *v;
    if (paimon_options_entry(&k, &v, over, i) != 0) continue;
    if (!*v) json_object_del(opts, k);
    else json_object_set_new(opts, k, json_string(v));
  }
  char *json = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(doc);
  if (!json) die("out of memory%s", "");
  paimon_error err = {0, ""};
  paimon_table *t = NULL;
  int rc = paimon_table_create_json(&t, table, json, &err);
  free(json);
  if (rc != 0) die_err(&err, rc);
  printf("created %s (schema id %lld)\n", paimon_table_path(t),
         (long long)paimon_table_schema_id(t));
  paimon_table_close(t);
  paimon_options_free(over);
  return 0;
}

/* ---- CSV records -> JSON lines ---------------------------------------------------------- */

enum { CK_STRING, CK_RAW_NUM, CK_RAW_BOOL, CK_FLOAT, CK_QUOTED, CK_NESTED };

typedef struct csv_conv {
  size_t ncols;
  char **names; /* header names */
  int *kinds;
  fv_out cells; /* decoded cells of one record */
  size_t *cb, *ce;
  size_t *rb; /* where each cell starts in the raw record */
  bool *quoted;
  size_t cap;
  size_t bad_at; /* csv_split failed: the offending byte (0-based) and field */
  long bad_field;
  char msg[512]; /* the last record error */
} csv_conv;

/* Splits a CSV record into cells (RFC 4180). Returns the cell count, or -1 with the
 * offending byte and field in cv->bad_at and cv->bad_field. */
static long csv_split(csv_conv *cv, const char *p, size_t n) {
  cv->cells.len = 0;
  long nc = 0;
  size_t i = 0;
  for (;;) {
    if ((size_t)nc == cv->cap) {
      size_t c2 = cv->cap ? cv->cap * 2 : 64;
      size_t *b = realloc(cv->cb, c2 * sizeof *b), *e = b ? realloc(cv->ce, c2 * sizeof *e) : NULL;
      if (b) cv->cb = b;
      if (e) cv->ce = e;
      size_t *r = realloc(cv->rb, c2 * sizeof *r);
      if (r) cv->rb = r;
      bool *q = realloc(cv->quoted, c2 * sizeof *q);
      if (!b || !e || !r || !q) die("out of memory%s", "");
      cv->quoted = q;
      cv->cap = c2;
    }
    cv->cb[nc] = cv->cells.len;
    cv->rb[nc] = i;
    cv->quoted[nc] = false;
    if (i < n && p[i] == '"') {
      cv->quoted[nc] = true;
      i++;
      for (;;) {
        if (i >= n) { /* unterminated quote: points at its opening */
          cv->bad_at = cv->rb[nc];
          cv->bad_field = nc;
          return -1;
        }
        if (p[i] == '"') {
          if (i + 1 < n && p[i + 1] == '"') {
            if (fv_write(&cv->cells, "\"", 1)) die("out of memory%s", "");
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (fv_write(&cv->cells, p + i, 1)) die("out of memory%s", "");
        i++;
      }
      if (i < n && p[i] != ',') {
        cv->bad_at = i;
        cv->bad_field = nc;
        return -1;
      }
    } else {
      size_t b = i;
      while (i < n && p[i] != ',') i++;
      for (size_t k = b; k < i; k++)
        if (p[k] == '"') {
          cv->bad_at = k;
          cv->bad_field = nc;
          return -1;
        }
      if (fv_write(&cv->cells, p + b, i - b)) die("out of memory%s", "");
    }
    cv->ce[nc] = cv->cells.len;
    nc++;
    if (i >= n) break;
    i++; /* the comma */
  }
  return nc;
}

/* One JSON value made of a whole cell: balanced brackets outside strings, so a cell can
 * never add keys to the row. */
static bool one_json_value(const char *p, size_t n) {
  if (!n || (p[0] != '[' && p[0] != '{')) return false;
  int depth = 0;
  bool str = false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (str) {
      if (c == '\\') i++;
      else if (c == '"') str = false;
      continue;
    }
    if (c == '"') str = true;
    else if (c == '[' || c == '{') depth++;
    else if (c == ']' || c == '}') {
      if (--depth == 0) return i + 1 == n;
      if (depth < 0) return false;
    }
  }
  return false;
}

static bool num_chars(const char *p, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (!strchr("+-.eE0123456789", p[i])) return false;
  return true;
}

/* "column 'name' (field N)" for field `c` (0-based), or "field N" past the header. */
static void csv_field_name(const csv_conv *cv, long c, char *out, size_t cap) {
  const char *name = cv->names && c >= 0 && (size_t)c < cv->ncols ? cv->names[c] : NULL;
  if (name) snprintf(out, cap, "column '%.200s' (field %ld)", name, c + 1);
  else snprintf(out, cap, "field %ld", c + 1);
}

/* A malformed record: names the field and the byte where the quoting goes wrong. */
static const char *csv_split_error(csv_conv *cv, const char *p) {
  char field[300];
  csv_field_name(cv, cv->bad_field, field, sizeof field);
  snprintf(cv->msg, sizeof cv->msg,
           "%s: malformed CSV at byte %zu of the line (%s): quote a cell that holds '\"' "
           "or ',' and double the quotes inside it",
           field, cv->bad_at + 1,
           p[cv->bad_at] == '"' ? "unbalanced quote" : "text after a closing quote");
  return cv->msg;
}

/* A cell the column's type refuses: names the field, its position and a prefix of it. */
static const char *csv_cell_error(csv_conv *cv, size_t c, const char *v, size_t vl,
                                  const char *why) {
  char field[300];
  csv_field_name(cv, (long)c, field, sizeof field);
  snprintf(cv->msg, sizeof cv->msg, "%s at byte %zu of the line: '%.*s%s' %s", field, cv->rb[c] + 1,
           (int)(vl > 60 ? 60 : vl), v, vl > 60 ? "..." : "", why);
  return cv->msg;
}

/* Invalid UTF-8 in a raw record: NULL when valid, else a message naming the byte, the
 * field and its header name. JSON lines refuse invalid UTF-8 (paimon_jsonl_parse), so CSV
 * refuses it too rather than storing U+FFFD in place of the bytes. */
static const char *csv_utf8_error(csv_conv *cv, const char *p, size_t n, long nc) {
  size_t at = fv_utf8_invalid_at(p, n);
  if (at == n) return NULL;
  long c = 0;
  while (c + 1 < nc && cv->rb[c + 1] <= at) c++;
  char field[300];
  csv_field_name(cv, c, field, sizeof field);
  snprintf(cv->msg, sizeof cv->msg, "%s: invalid UTF-8 at byte %zu of the line (0x%02x)", field,
           at + 1, (unsigned)(unsigned char)p[at]);
  return cv->msg;
}

static void csv_header(csv_conv *cv, const paimon_table *t, const char *p, size_t n, int64_t line) {
  long nc = csv_split(cv, p, n);
  if (nc < 0) {
    fprintf(stderr, "paimon: standard input: line %lld: CSV header: %s\n", (long long)line,
            csv_split_error(cv, p));
    exit(1);
  }
  const char *bad = csv_utf8_error(cv, p, n, nc);
  if (bad) {
    fprintf(stderr, "paimon: standard input: line %lld: CSV header: %s\n", (long long)line, bad);
    exit(1);
  }
  struct ArrowSchema sch;
  paimon_error err = {0, ""};
  int rc = paimon_table_schema(&sch, t, &err);
  if (rc != 0) die_err(&err, rc);
  cv->ncols = (size_t)nc;
  cv->names = calloc((size_t)nc, sizeof *cv->names);
  cv->kinds = calloc((size_t)nc, sizeof *cv->kinds);
  if (!cv->names || !cv->kinds) die("out of memory%s", "");
  for (long c = 0; c < nc; c++) {
    cv->names[c] = strndup(cv->cells.data + cv->cb[c], cv->ce[c] - cv->cb[c]);
    if (!cv->names[c]) die("out of memory%s", "");
    int kind = CK_QUOTED; /* unknown columns fail in the JSON parser with their name */
    for (int64_t k = 0; k < sch.n_children; k++) {
      if (strcmp(sch.children[k]->name, cv->names[c]) != 0) continue;
      const char *f = sch.children[k]->format;
      if (f[0] == 'u' || f[0] == 'U') kind = CK_STRING;
      else if (strchr("csilCSIL", f[0]) && !f[1]) kind = CK_RAW_NUM;
      else if (f[0] == 'b') kind = CK_RAW_BOOL;
      else if ((f[0] == 'f' || f[0] == 'g') && !f[1]) kind = CK_FLOAT;
      else if (f[0] == '+') kind = CK_NESTED;
      else kind = CK_QUOTED;
    }
    cv->kinds[c] = kind;
  }
  sch.release(&sch);
}

/* Appends the JSON line of one CSV record to `o`. Returns NULL or an error message. */
static const char *csv_record_json(csv_conv *cv, const char *p, size_t n, fv_out *o) {
  long nc = csv_split(cv, p, n);
  if (nc < 0) return csv_split_error(cv, p);
  if ((size_t)nc != cv->ncols) {
    snprintf(cv->msg, sizeof cv->msg, "field count: the record has %ld fields, the header %zu", nc,
             cv->ncols);
    return cv->msg;
  }
  const char *bad = csv_utf8_error(cv, p, n, nc);
  if (bad) return bad;
  if (fv_write(o, "{", 1)) die("out of memory%s", "");
  for (size_t c = 0; c < cv->ncols; c++) {
    const char *v = cv->cells.data + cv->cb[c];
    size_t vl = cv->ce[c] - cv->cb[c];
    int rc = (c ? fv_write(o, ",", 1) : 0) || cli_json_str(o, cv->names[c], strlen(cv->names[c])) ||
             fv_write(o, ":", 1);
    if (!cv->quoted[c] && vl == 0) {
      rc = rc || fv_write(o, "null", 4);
    } else {
      switch (cv->kinds[c]) {
        case CK_RAW_NUM:
          if (!num_chars(v, vl)) return csv_cell_error(cv, c, v, vl, "is not an integer");
          rc = rc || fv_write(o, v, vl);
          break;
        case CK_RAW_BOOL:
          if (!((vl == 4 && !memcmp(v, "true", 4)) || (vl == 5 && !memcmp(v, "false", 5))))
            return csv_cell_error(cv, c, v, vl, "is not a BOOLEAN (true or false)");
          rc = rc || fv_write(o, v, vl);
          break;
        case CK_FLOAT:
          if (num_chars(v, vl)) rc = rc || fv_write(o, v, vl);
          else rc = rc || cli_json_str(o, v, vl); /* NaN, Infinity, -Infinity */
          break;
        case CK_NESTED:
          if (!one_json_value(v, vl))
            return csv_cell_error(cv, c, v, vl, "is not one JSON array or object (nested column)");
          rc = rc || fv_write(o, v, vl);
          break;
        default: rc = rc || cli_json_str(o, v, vl); break;
      }
    }
    if (rc) die("out of memory%s", "");
  }
  if (fv_write(o, "}", 1)) die("out of memory%s", "");
  return NULL;
}

static void csv_conv_free(csv_conv *cv) {
  for (size_t c = 0; c < cv->ncols; c++) free(cv->names[c]);
  free(cv->names);
  free(cv->kinds);
  free(cv->cb);
  free(cv->ce);
  free(cv->rb);
  free(cv->quoted);
  fv_out_free(&cv->cells);
}

/* ---- write ---------------------------------------------------------------------------- */

int cmd_write(int argc, char **argv) {
  const char *table = NULL, *format = "jsonl", *user = NULL;
  int64_t batch_rows = 4096;
  paimon_options *wopts = NULL;
  if (paimon_options_new(&wopts, NULL) != 0) die("out of memory%s", "");
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_WRITE, stdout);
      exit(0);
    }
    if (opt_val(argc, argv, &i, "--format", USAGE_WRITE, &v)) {
      if (strcmp(v, "jsonl") != 0 && strcmp(v, "csv") != 0)
        usage_error(USAGE_WRITE, "--format must be jsonl or csv, got '%s'", v);
      format = v;
    } else if (opt_val(argc, argv, &i, "--commit-user", USAGE_WRITE, &v)) {
      if (!*v) usage_error(USAGE_WRITE, "empty commit user%s", "");
      user = v;
    } else if (opt_val(argc, argv, &i, "--batch-rows", USAGE_WRITE, &v)) {
      if (!parse_i64(v, &batch_rows) || batch_rows <= 0 || batch_rows > 1000000)
        usage_error(USAGE_WRITE, "--batch-rows needs 1..1000000, got '%s'", v);
    } else if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) usage_error(USAGE_WRITE, "option '%s' needs a value", "-o");
      add_kv(wopts, argv[++i], USAGE_WRITE);
    } else if (a[0] == '-' && a[1]) usage_error(USAGE_WRITE, "unknown option '%s'", a);
    else if (table) usage_error(USAGE_WRITE, "unexpected argument '%s'", a);
    else table = a;
  }
  if (!table) usage_error(USAGE_WRITE, "missing TABLE%s", "");
  bool csv = strcmp(format, "csv") == 0;
  paimon_table *t = open_path(table);
  paimon_error err = {0, ""};
  paimon_writer *w = NULL;
  int rc = paimon_writer_new(&w, t, user, wopts, &err);
  if (rc != 0) die_err(&err, rc);
  const char *cuser = paimon_writer_commit_user(w);
  const char *const *pks;
  int flags = paimon_table_primary_keys(&pks, t) ? PAIMON_JSONL_VALUE_KIND : 0;
  cli_lines in;
  cli_lines_init(&in, 0, csv, "standard input");
  cli_batch b = {0};
  csv_conv cv;
  memset(&cv, 0, sizeof cv);
  fv_out jbuf = {0};
  size_t *joff = NULL, *jlen = NULL;
  const char **jptr = NULL;
  bool have_header = !csv;
  int64_t rows = 0, start = now_ms(), last_report = start;
  bool reported = false;
  for (;;) {
    int done = cli_lines_batch(&in, &b, (size_t)batch_rows, false, NULL);
    const char *const *lp = b.ptr;
    const size_t *ll = b.len;
    const int64_t *ln = b.no;
    size_t n = b.n;
    if (csv && n) {
      size_t first = 0;
      if (!have_header) {
        csv_header(&cv, t, b.ptr[0], b.len[0], b.no[0] + 1);
        have_header = true;
        first = 1;
      }
      free(joff);
      free(jlen);
      free(jptr);
      joff = calloc(n + 1, sizeof *joff);
      jlen = calloc(n + 1, sizeof *jlen);
      jptr = calloc(n + 1, sizeof *jptr);
      if (!joff || !jlen || !jptr) die("out of memory%s", "");
      jbuf.len = 0;
      for (size_t k = first; k < n; k++) {
        joff[k - first] = jbuf.len;
        const char *m = csv_record_json(&cv, b.ptr[k], b.len[k], &jbuf);
        if (m) {
          fprintf(stderr, "paimon: standard input: line %lld: %s\n", (long long)b.no[k] + 1, m);
          exit(1);
        }
        jlen[k - first] = jbuf.len - joff[k - first];
      }
      n -= first;
      for (size_t k = 0; k < n; k++) jptr[k] = jbuf.data + joff[k];
      lp = jptr;
      ll = jlen;
      ln = b.no + first;
    }
    if (n) {
      struct ArrowArray arr;
      struct ArrowSchema sch;
      rc = paimon_jsonl_parse(&arr, &sch, t, lp, ll, n, ln, flags, &err);
      if (rc != 0) {
        fprintf(stderr, "paimon: standard input: %s\n", err.message);
        exit(1);
      }
      rc = paimon_writer_write(w, &arr, &sch, &err);
      arr.release(&arr);
      sch.release(&sch);
      if (rc != 0) die_err(&err, rc);
      rows += (int64_t)n;
    }
    int64_t now = now_ms();
    if (now - last_report >= 2000) {
      double secs = (double)(now - start) / 1000.0;
      fprintf(stderr, "paimon: %lld rows written, %.0f rows/s\n", (long long)rows,
              secs > 0 ? (double)rows / secs : 0.0);
      last_report = now;
      reported = true;
    }
    if (done) break;
  }
  (void)reported;
  int64_t ident = cli_next_identifier(t, cuser);
  paimon_commit_messages *msgs = NULL;
  rc = paimon_writer_prepare_commit(&msgs, w, ident, &err);
  if (rc != 0) die_err(&err, rc);
  int64_t sid = 0;
  if (rows > 0) sid = cli_commit(t, cuser, ident, msgs);
  double secs = (double)(now_ms() - start) / 1000.0;
  if (sid > 0)
    fprintf(stderr,
            "paimon: committed %lld rows as snapshot %lld (commit user %s, identifier %lld) in "
            "%.1f s\n",
            (long long)rows, (long long)sid, cuser, (long long)ident, secs);
  else fprintf(stderr, "paimon: no rows on standard input; nothing committed\n");
  paimon_commit_messages_free(msgs);
  paimon_writer_close(w);
  paimon_table_close(t);
  paimon_options_free(wopts);
  cli_batch_free(&b);
  cli_lines_free(&in);
  csv_conv_free(&cv);
  fv_out_free(&jbuf);
  free(joff);
  free(jlen);
  free(jptr);
  return 0;
}

/* ---- compact / expire -------------------------------------------------------------------- */

int cmd_compact(int argc, char **argv) {
  const char *table = NULL, *user = "paimon-cli-compact";
  int full = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_COMPACT, stdout);
      exit(0);
    }
    if (strcmp(a, "--full") == 0) full = 1;
    else if (opt_val(argc, argv, &i, "--commit-user", USAGE_COMPACT, &v)) user = v;
    else if (a[0] == '-' && a[1]) usage_error(USAGE_COMPACT, "unknown option '%s'", a);
    else if (table) usage_error(USAGE_COMPACT, "unexpected argument '%s'", a);
    else table = a;
  }
  if (!table) usage_error(USAGE_COMPACT, "missing TABLE%s", "");
  paimon_table *t = open_path(table);
  paimon_error err = {0, ""};
  paimon_commit_messages *msgs = NULL;
  const char *const *pks = NULL;
  int rc;
  if (paimon_table_primary_keys(&pks, t) > 0) {
    /* primary-key tables compact through a writer (universal compaction, or full) */
    paimon_writer *w = NULL;
    rc = paimon_writer_new(&w, t, user, NULL, &err);
    if (rc == 0) rc = paimon_writer_compact(w, full, &err);
    if (rc == 0) rc = paimon_writer_prepare_commit(&msgs, w, cli_next_identifier(t, user), &err);
    paimon_writer_close(w);
  } else {
    rc = paimon_table_compact_append(&msgs, t, user, full, &err);
  }
  if (rc != 0) die_err(&err, rc);
  if (paimon_commit_messages_count(msgs) == 0) {
    printf("nothing to compact\n");
  } else {
    int64_t ident = cli_next_identifier(t, user);
    int64_t sid = cli_commit(t, user, ident, msgs);
    printf("compacted %zu bucket(s): snapshot %lld\n", paimon_commit_messages_count(msgs),
           (long long)sid);
  }
  paimon_commit_messages_free(msgs);
  paimon_table_close(t);
  return 0;
}

int cmd_expire(int argc, char **argv) {
  const char *table = NULL;
  paimon_options *o = NULL;
  if (paimon_options_new(&o, NULL) != 0) die("out of memory%s", "");
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(USAGE_EXPIRE, stdout);
      exit(0);
    }
    if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) usage_error(USAGE_EXPIRE, "option '%s' needs a value", "-o");
      add_kv(o, argv[++i], USAGE_EXPIRE);
    } else if (a[0] == '-' && a[1]) usage_error(USAGE_EXPIRE, "unknown option '%s'", a);
    else if (table) usage_error(USAGE_EXPIRE, "unexpected argument '%s'", a);
    else table = a;
  }
  if (!table) usage_error(USAGE_EXPIRE, "missing TABLE%s", "");
  paimon_table *t = open_path(table);
  paimon_error err = {0, ""};
  int64_t n = 0;
  int rc = paimon_table_expire_snapshots(&n, t, o, &err);
  if (rc != 0) die_err(&err, rc);
  printf("expired %lld snapshot(s)\n", (long long)n);
  paimon_table_close(t);
  paimon_options_free(o);
  return 0;
}
