/* tools/paimon/main.c: the `paimon` command-line tool (public API only).
 *
 *   paimon info TABLE            schema, keys, options, latest snapshot
 *   paimon snapshots TABLE       one line per snapshot
 *   paimon files TABLE           planned splits and their data files
 *   paimon cat TABLE             rows as jsonl, csv or an aligned table
 *   paimon create TABLE          new table from schema JSON or like another table (write.c)
 *   paimon write TABLE           rows from stdin, committed once (write.c)
 *   paimon compact TABLE         append-table compaction (write.c)
 *   paimon expire TABLE          snapshot expiration (write.c)
 *   paimon ingest TABLE          the real-time main job (ingest.c)
 *   paimon tag ... TABLE         create, delete, list and expire tags (tag.c)
 *   paimon rollback TABLE        roll back to a snapshot or a tag (tag.c)
 *   paimon alter TABLE CHANGE    schema changes (alter.c)
 *   paimon ls WAREHOUSE[/DB.db]  databases and tables of a warehouse (catalog.c)
 *
 * Errors print "paimon: <message>" on stderr and exit 1; usage errors exit 2. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <paimon/paimon.h>

#include "cli.h"

static const char *USAGE =
    "usage: paimon <command> [options] TABLE\n"
    "\n"
    "Reads and writes Apache Paimon tables.\n"
    "\n"
    "commands:\n"
    "  info TABLE       schema fields (ids, types), partition and primary keys, options,\n"
    "                   latest snapshot\n"
    "  snapshots TABLE  one line per snapshot: id, schema, kind, time, records, commit\n"
    "  files TABLE      planned splits: partition, bucket, level, rows, size, path\n"
    "  cat TABLE        rows of the table (jsonl, csv or table)\n"
    "  create TABLE     new empty table from a schema JSON file or like another table\n"
    "  write TABLE      rows from standard input (jsonl or csv), committed once\n"
    "  compact TABLE    compact small files of an append table\n"
    "  expire TABLE     expire old snapshots and the files only they reference\n"
    "  ingest TABLE     real-time ingestion of a JSON-lines file, queryable before commit,\n"
    "                   exactly once across crashes, with an optional HTTP query server\n"
    "  tag SUB TABLE    tags: create TABLE NAME [--snapshot N], delete TABLE NAME,\n"
    "                   list TABLE, expire TABLE\n"
    "  rollback TABLE   roll back to --to-snapshot N or --to-tag NAME\n"
    "  alter TABLE CHANGE  add, rename, drop a column, change its type, set or unset options\n"
    "  ls WAREHOUSE[/DB.db]  databases of a warehouse, or the tables of a database\n"
    "  drop WAREHOUSE/DB.db[/TABLE]  drop a table or a database of a warehouse\n"
    "\n"
    "common options:\n"
    "  --branch B              read branch B\n"
    "  --warehouse W           TABLE is DB.TABLE of warehouse W (info, snapshots, files,\n"
    "                          cat, alter)\n"
    "  --remap-path FROM=TO    read data files stored under FROM from TO (repeatable)\n"
    "  -h, --help              show help (also after a command)\n"
    "  --version               print the library version\n"
    "\n"
    "Errors print \"paimon: <message>\" to stderr and exit 1; usage errors exit 2.\n";

static const char *USAGE_INFO =
    "usage: paimon info [--branch B] [--remap-path FROM=TO]... TABLE\n"
    "\n"
    "Prints the table's current schema (field ids, names, Paimon types), partition keys,\n"
    "primary keys, table options and a summary of the latest snapshot.\n";

static const char *USAGE_SNAPSHOTS =
    "usage: paimon snapshots [--branch B] TABLE\n"
    "\n"
    "Prints one line per snapshot, oldest first, after a header line:\n"
    "  id  schema  kind  time (UTC)  total records  delta records  commit user  identifier\n"
    "Unknown record counts print as '-'.\n";

static const char *USAGE_FILES =
    "usage: paimon files [--snapshot N] [--branch B] [--where EXPR] [--remap-path FROM=TO]... "
    "TABLE\n"
    "\n"
    "Plans a scan (of the latest snapshot or snapshot N, pruned with EXPR when given) and\n"
    "prints one line per data file after a header line:\n"
    "  partition  bucket  level  rows  size  path\n";

static const char *USAGE_CAT =
    "usage: paimon cat [options] TABLE\n"
    "\n"
    "options:\n"
    "  --snapshot N           read snapshot N (its own schema) instead of the latest\n"
    "  --tag NAME             read tag NAME's snapshot (its own schema), also after\n"
    "                         snapshot expiration\n"
    "  --branch B             read branch B\n"
    "  --select c1,c2         only these columns, in this order\n"
    "  --where EXPR           filter rows, e.g. \"f1 = 10 AND f3 IS NOT NULL\"\n"
    "                         (= <> != < <= > >=, IS [NOT] NULL, [NOT] IN (...), BETWEEN,\n"
    "                         AND, OR, NOT, parentheses; strings in single quotes)\n"
    "  --format F             jsonl (default), csv or table\n"
    "  --limit N              stop after N rows\n"
    "  --threads N            decode on N threads (default: the number of CPUs); rows keep\n"
    "                         the one-thread order\n"
    "  --remap-path FROM=TO   read data files stored under FROM from TO (repeatable)\n"
    "  --incremental A,B      only the changes after snapshot A up to and including B\n"
    "  --incremental-tags T1,T2  the changes between two tags\n"
    "  --incremental-time MS1,MS2  the changes between two times (epoch milliseconds)\n"
    "  --incremental-mode M   auto (default), delta, changelog or diff\n"
    "  --follow               print each new snapshot's changes as it lands, until SIGINT\n"
    "  --from-snapshot N      with --follow: start with snapshot N's changes\n"
    "  --consumer-id ID       with --follow: resume from and record progress in consumer ID\n"
    "\n"
    "Changes of primary-key tables (and diffs of append tables) carry a \"_VALUE_KIND\"\n"
    "column (+I, -U, +U, -D) that `paimon write` reads back.\n"
    "jsonl: one JSON object per row, keys in schema order. Integers are numbers; FLOAT and\n"
    "DOUBLE use the shortest round-trip form (NaN, Infinity, -Infinity as strings);\n"
    "DECIMAL(p,s) is a string with s fraction digits; BINARY is base64; DATE is\n"
    "\"YYYY-MM-DD\"; TIME(p) \"HH:MM:SS[.f]\"; TIMESTAMP(p) \"YYYY-MM-DDTHH:MM:SS[.f]\" with p\n"
    "fraction digits, TIMESTAMP_LTZ the same in UTC with \"Z\"; ARRAY is an array, MAP an\n"
    "array of [key, value] pairs, ROW an object.\n"
    "csv: RFC 4180 with a header line; null is an empty field, the empty string \"\".\n"
    "table: aligned columns for reading.\n";

/* ---- small helpers -------------------------------------------------------------------- */

_Noreturn void die(const char *fmt, ...) {
  fprintf(stderr, "paimon: ");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

_Noreturn void usage_error(const char *cmd_usage, const char *fmt, ...) {
  fprintf(stderr, "paimon: ");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  /* first line of the command's usage, then where to find more */
  const char *nl = strchr(cmd_usage, '\n');
  fprintf(stderr, "%.*s\nRun 'paimon --help' or 'paimon <command> --help' for details.\n",
          (int)(nl ? nl - cmd_usage : (ptrdiff_t)strlen(cmd_usage)), cmd_usage);
  exit(EXIT_USAGE);
}

_Noreturn void die_err(const paimon_error *err, int rc) {
  const char *m = err->message[0] ? err->message : paimon_strerror(rc);
  fprintf(stderr, "paimon: %s\n", m);
  exit(1);
}

bool parse_i64(const char *s, int64_t *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || end == s) return false;
  *out = v;
  return true;
}

bool parse_duration_ms(const char *s, int64_t *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || !(v >= 0) || isinf(v)) return false;
  while (*end == ' ') end++;
  double mul;
  if (!*end || strcmp(end, "s") == 0 || strcmp(end, "sec") == 0) mul = 1000;
  else if (strcmp(end, "ms") == 0) mul = 1;
  else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0) mul = 60000;
  else if (strcmp(end, "h") == 0) mul = 3600000;
  else return false;
  if (v * mul > 1e15) return false;
  *out = (int64_t)(v * mul);
  return true;
}

int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Output buffer flushed to stdout in large writes. */
fv_out g_out;

void out_flush(void) {
  if (g_out.len && fwrite(g_out.data, 1, g_out.len, stdout) != g_out.len) {
    fprintf(stderr, "paimon: write error on standard output\n");
    exit(1);
  }
  g_out.len = 0;
}

void out_check(int rc) {
  if (rc != 0) {
    fprintf(stderr, "paimon: out of memory\n");
    exit(1);
  }
  if (g_out.len >= (1 << 16)) out_flush();
}

/* ---- command line ----------------------------------------------------------------------- */

typedef struct args {
  const char *cmd;
  const char *usage;
  const char *table;
  const char *branch;
  const char *warehouse; /* --warehouse: TABLE is DB.TABLE under it */
  const char *select;
  const char *where;
  const char *format;
  const char *tag;
  bool has_snapshot;
  int64_t snapshot;
  bool has_limit;
  int64_t limit;
  char **remaps;
  size_t nremaps;
  int64_t threads; /* cat: read.threads; 0 = not given */
  /* cat: incremental reads and following (paimon/stream.h) */
  const char *incremental, *incremental_mode, *incremental_tags, *incremental_time;
  bool follow;
  const char *from_snapshot, *consumer_id;
} args;

enum {
  OPT_SNAPSHOT = 1,
  OPT_SELECT = 2,
  OPT_WHERE = 4,
  OPT_FORMAT = 8,
  OPT_LIMIT = 16,
  OPT_TAG = 32,
  OPT_THREADS = 64,
  OPT_CHANGES = 128
};

static void parse_args(args *a, int argc, char **argv, int allowed) {
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      fputs(a->usage, stdout);
      exit(0);
    }
    if (strncmp(arg, "--", 2) != 0 || strcmp(arg, "--") == 0) {
      if (strcmp(arg, "--") == 0 && i + 1 < argc) arg = argv[++i];
      if (a->table) usage_error(a->usage, "unexpected argument '%s'", arg);
      a->table = arg;
      continue;
    }
    /* --name=value or --name value */
    char name[64];
    const char *eq = strchr(arg, '=');
    size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
    if (nl >= sizeof name) usage_error(a->usage, "unknown option '%s'", arg);
    memcpy(name, arg, nl);
    name[nl] = 0;
    int bit = 0;
    if (strcmp(name, "--branch") == 0) bit = 0;
    else if (strcmp(name, "--remap-path") == 0) bit = 0;
    else if (strcmp(name, "--warehouse") == 0) bit = 0;
    else if (strcmp(name, "--snapshot") == 0) bit = OPT_SNAPSHOT;
    else if (strcmp(name, "--select") == 0) bit = OPT_SELECT;
    else if (strcmp(name, "--where") == 0) bit = OPT_WHERE;
    else if (strcmp(name, "--format") == 0) bit = OPT_FORMAT;
    else if (strcmp(name, "--limit") == 0) bit = OPT_LIMIT;
    else if (strcmp(name, "--tag") == 0) bit = OPT_TAG;
    else if (strcmp(name, "--threads") == 0) bit = OPT_THREADS;
    else if (strncmp(name, "--incremental", 13) == 0 || strcmp(name, "--follow") == 0 ||
             strcmp(name, "--from-snapshot") == 0 || strcmp(name, "--consumer-id") == 0)
      bit = OPT_CHANGES;
    else usage_error(a->usage, "unknown option '%s'", name);
    if (bit && !(allowed & bit)) usage_error(a->usage, "option '%s' does not apply here", name);
    if (strcmp(name, "--follow") == 0) {
      if (eq) usage_error(a->usage, "--follow takes no value%s", "");
      a->follow = true;
      continue;
    }
    const char *val;
    if (eq) {
      val = eq + 1;
    } else {
      if (i + 1 >= argc) usage_error(a->usage, "option '%s' needs a value", name);
      val = argv[++i];
    }
    if (strcmp(name, "--branch") == 0) {
      if (!*val) usage_error(a->usage, "empty branch name%s", "");
      a->branch = val;
    } else if (strcmp(name, "--warehouse") == 0) {
      a->warehouse = val;
    } else if (strcmp(name, "--remap-path") == 0) {
      const char *e = strchr(val, '=');
      if (!e || e == val || !e[1] || strchr(val, '\n'))
        usage_error(a->usage, "--remap-path needs FROM=TO, got '%s'", val);
      char **nr = realloc(a->remaps, (a->nremaps + 1) * sizeof *nr);
      if (!nr) die("out of memory%s", "");
      a->remaps = nr;
      a->remaps[a->nremaps++] = (char *)val;
    } else if (bit == OPT_SNAPSHOT) {
      if (!parse_i64(val, &a->snapshot) || a->snapshot <= 0)
        usage_error(a->usage, "--snapshot needs a positive snapshot id, got '%s'", val);
      a->has_snapshot = true;
    } else if (bit == OPT_LIMIT) {
      if (!parse_i64(val, &a->limit) || a->limit < 0)
        usage_error(a->usage, "--limit needs a non-negative number, got '%s'", val);
      a->has_limit = true;
    } else if (bit == OPT_TAG) {
      if (!*val) usage_error(a->usage, "empty tag name%s", "");
      a->tag = val;
    } else if (bit == OPT_THREADS) {
      if (!parse_i64(val, &a->threads) || a->threads < 1 || a->threads > 256)
        usage_error(a->usage, "--threads needs a number 1..256, got '%s'", val);
    } else if (bit == OPT_CHANGES) {
      if (strcmp(name, "--incremental") == 0) a->incremental = val;
      else if (strcmp(name, "--incremental-mode") == 0) a->incremental_mode = val;
      else if (strcmp(name, "--incremental-tags") == 0) a->incremental_tags = val;
      else if (strcmp(name, "--incremental-time") == 0) a->incremental_time = val;
      else if (strcmp(name, "--from-snapshot") == 0) a->from_snapshot = val;
      else if (strcmp(name, "--consumer-id") == 0) a->consumer_id = val;
      else usage_error(a->usage, "unknown option '%s'", name);
    } else if (bit == OPT_SELECT) {
      a->select = val;
    } else if (bit == OPT_WHERE) {
      a->where = val;
    } else {
      if (strcmp(val, "jsonl") != 0 && strcmp(val, "csv") != 0 && strcmp(val, "table") != 0)
        usage_error(a->usage, "--format must be jsonl, csv or table, got '%s'", val);
      a->format = val;
    }
  }
  if (!a->table) usage_error(a->usage, "missing TABLE%s", "");
  if (a->tag && a->has_snapshot) usage_error(a->usage, "give --snapshot or --tag, not both%s", "");
}

static paimon_table *open_table(const args *a) {
  paimon_options *o = NULL;
  paimon_error err = {0, ""};
  if (paimon_options_new(&o, NULL) != 0) die("out of memory%s", "");
  if (a->branch && paimon_options_set(o, "branch", a->branch, NULL) != 0)
    die("out of memory%s", "");
  if (a->nremaps) {
    size_t len = 1;
    for (size_t i = 0; i < a->nremaps; i++) len += strlen(a->remaps[i]) + 1;
    char *joined = calloc(1, len);
    if (!joined) die("out of memory%s", "");
    for (size_t i = 0; i < a->nremaps; i++) {
      if (i) strcat(joined, "\n");
      strcat(joined, a->remaps[i]);
    }
    if (paimon_options_set(o, "read.remap-path", joined, NULL) != 0) die("out of memory%s", "");
    free(joined);
  }
  if (strcmp(a->cmd, "cat") == 0) {
    /* cat decodes on every CPU by default, in the one-thread order (issue 23) */
    long n = a->threads ? (long)a->threads : sysconf(_SC_NPROCESSORS_ONLN);
    char th[24];
    snprintf(th, sizeof th, "%ld", n < 1 ? 1 : n > 256 ? 256 : n);
    if (paimon_options_set(o, "read.threads", th, NULL) != 0 ||
        paimon_options_set(o, "read.ordered", "true", NULL) != 0)
      die("out of memory%s", "");
  }
  paimon_table *t = NULL;
  char *path = a->warehouse ? cli_warehouse_table(a->warehouse, a->table) : NULL;
  int rc = paimon_table_open(&t, path ? path : a->table, o, &err);
  free(path);
  paimon_options_free(o);
  if (rc != 0) die_err(&err, rc);
  return t;
}

static paimon_predicate *parse_where(const args *a) {
  if (!a->where) return NULL;
  paimon_error err = {0, ""};
  paimon_predicate *p = NULL;
  int rc = paimon_predicate_parse(&p, a->where, &err);
  if (rc != 0) {
    fprintf(stderr, "paimon: --where: %s\n", err.message);
    exit(EXIT_USAGE);
  }
  return p;
}

static paimon_scan *new_scan(paimon_table *t, const args *a, const paimon_predicate *filter) {
  paimon_error err = {0, ""};
  paimon_scan *s = NULL;
  int rc = paimon_scan_new(&s, t, &err);
  if (rc == 0 && a->has_snapshot) rc = paimon_scan_set_snapshot(s, a->snapshot, &err);
  if (rc == 0 && a->tag) rc = paimon_scan_set_tag(s, a->tag, &err);
  if (rc == 0 && filter) rc = paimon_scan_set_filter(s, filter, &err);
  if (rc != 0) die_err(&err, rc);
  return s;
}

/* ---- minimal JSON reading (the schema file's "options" object) ------------------------- */

typedef struct jcur {
  const char *p;
} jcur;

static void jws(jcur *c) {
  while (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t') c->p++;
}

/* Reads a JSON string into out (decoded; \u escapes of the BMP as UTF-8). */
static bool jstr(jcur *c, fv_out *out) {
  jws(c);
  if (*c->p != '"') return false;
  c->p++;
  out->len = 0;
  while (*c->p && *c->p != '"') {
    char ch = *c->p++;
    if (ch != '\\') {
      if (fv_write(out, &ch, 1)) return false;
      continue;
    }
    ch = *c->p++;
    switch (ch) {
      case 'n': ch = '\n'; break;
      case 't': ch = '\t'; break;
      case 'r': ch = '\r'; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'u': {
        unsigned v = 0;
        for (int k = 0; k < 4; k++) {
          char h = *c->p++;
          v <<= 4;
          if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
          else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
          else return false;
        }
        char u[3];
        size_t n;
        if (v < 0x80) u[0] = (char)v, n = 1;
        else if (v < 0x800) u[0] = (char)(0xc0 | (v >> 6)), u[1] = (char)(0x80 | (v & 63)), n = 2;
        else
          u[0] = (char)(0xe0 | (v >> 12)), u[1] = (char)(0x80 | ((v >> 6) & 63)),
          u[2] = (char)(0x80 | (v & 63)), n = 3;
        if (fv_write(out, u, n)) return false;
        continue;
      }
      case '\0': return false;
      default: break; /* \" \\ \/ */
    }
    if (fv_write(out, &ch, 1)) return false;
  }
  if (*c->p != '"') return false;
  c->p++;
  return fv_write(out, "", 1) == 0 && (out->len--, true);
}

/* Skips one JSON value (depth-limited). */
static bool jskip(jcur *c, int depth) {
  jws(c);
  if (depth > 64) return false;
  char ch = *c->p;
  if (ch == '"') {
    fv_out tmp = {0};
    bool ok = jstr(c, &tmp);
    fv_out_free(&tmp);
    return ok;
  }
  if (ch == '{' || ch == '[') {
    char close = ch == '{' ? '}' : ']';
    c->p++;
    jws(c);
    if (*c->p == close) {
      c->p++;
      return true;
    }
    for (;;) {
      if (ch == '{') {
        fv_out tmp = {0};
        bool ok = jstr(c, &tmp);
        fv_out_free(&tmp);
        jws(c);
        if (!ok || *c->p++ != ':') return false;
      }
      if (!jskip(c, depth + 1)) return false;
      jws(c);
      if (*c->p == ',') {
        c->p++;
        continue;
      }
      if (*c->p++ != close) return false;
      return true;
    }
  }
  if (!ch) return false;
  while (*c->p && !strchr(",}] \n\r\t", *c->p)) c->p++;
  return true;
}

/* Prints "  key = value" for each entry of the top-level "options" object. */
static void print_options_from_json(const char *json) {
  jcur c = {json};
  fv_out k = {0}, v = {0};
  jws(&c);
  if (*c.p != '{') goto done;
  c.p++;
  for (;;) {
    if (!jstr(&c, &k)) break;
    jws(&c);
    if (*c.p++ != ':') break;
    jws(&c);
    if (strcmp(k.data, "options") == 0 && *c.p == '{') {
      c.p++;
      jws(&c);
      if (*c.p == '}') break;
      for (;;) {
        if (!jstr(&c, &k)) goto done;
        jws(&c);
        if (*c.p++ != ':') goto done;
        jws(&c);
        if (*c.p == '"') {
          if (!jstr(&c, &v)) goto done;
          printf("  %s = %s\n", k.data, v.data);
        } else {
          const char *s = c.p;
          if (!jskip(&c, 0)) goto done;
          printf("  %s = %.*s\n", k.data, (int)(c.p - s), s);
        }
        jws(&c);
        if (*c.p == ',') {
          c.p++;
          continue;
        }
        goto done;
      }
    }
    if (!jskip(&c, 0)) break;
    jws(&c);
    if (*c.p != ',') break;
    c.p++;
  }
done:
  fv_out_free(&k);
  fv_out_free(&v);
}

/* ---- info / snapshots / files -------------------------------------------------------- */

static const char *meta_value(const char *md, const char *key, char *buf, size_t n) {
  buf[0] = 0;
  if (!md) return buf;
  int32_t cnt;
  memcpy(&cnt, md, 4);
  const char *p = md + 4;
  for (int32_t i = 0; i < cnt && i < 4096; i++) {
    int32_t l1, l2;
    memcpy(&l1, p, 4);
    const char *kk = p + 4;
    p = kk + l1;
    memcpy(&l2, p, 4);
    const char *vv = p + 4;
    p = vv + l2;
    if ((size_t)l1 == strlen(key) && memcmp(kk, key, (size_t)l1) == 0) {
      snprintf(buf, n, "%.*s", (int)l2, vv);
      break;
    }
  }
  return buf;
}

static void print_count(int64_t v) {
  if (v < 0) printf("-");
  else printf("%lld", (long long)v);
}

static int cmd_info(int argc, char **argv) {
  args a = {.cmd = "info", .usage = USAGE_INFO};
  parse_args(&a, argc, argv, 0);
  paimon_table *t = open_table(&a);
  paimon_error err = {0, ""};
  struct ArrowSchema schema;
  int rc = paimon_table_schema(&schema, t, &err);
  if (rc != 0) die_err(&err, rc);
  printf("table: %s\n", paimon_table_path(t));
  if (a.branch) printf("branch: %s\n", a.branch);
  printf("schema id: %lld\n", (long long)paimon_table_schema_id(t));
  printf("fields:\n");
  size_t wname = 4;
  for (int64_t i = 0; i < schema.n_children; i++) {
    size_t l = strlen(schema.children[i]->name ? schema.children[i]->name : "");
    if (l > wname) wname = l;
  }
  printf("  %-4s %-*s %s\n", "id", (int)wname, "name", "type");
  for (int64_t i = 0; i < schema.n_children; i++) {
    const struct ArrowSchema *c = schema.children[i];
    char id[32], ty[1024];
    meta_value(c->metadata, "paimon.id", id, sizeof id);
    meta_value(c->metadata, "paimon.type", ty, sizeof ty);
    printf("  %-4s %-*s %s\n", id[0] ? id : "-", (int)wname, c->name ? c->name : "",
           ty[0] ? ty : c->format);
  }
  schema.release(&schema);
  const char *const *keys;
  size_t n = paimon_table_partition_keys(&keys, t);
  printf("partition keys:");
  for (size_t i = 0; i < n; i++) printf("%s %s", i ? "," : "", keys[i]);
  printf("%s\n", n ? "" : " (none)");
  n = paimon_table_primary_keys(&keys, t);
  printf("primary keys:");
  for (size_t i = 0; i < n; i++) printf("%s %s", i ? "," : "", keys[i]);
  printf("%s\n", n ? "" : " (none)");
  printf("options:\n");
  const char *json = paimon_table_schema_json(t);
  if (json) print_options_from_json(json);
  paimon_snapshot *s = NULL;
  rc = paimon_table_snapshot(&s, t, PAIMON_SNAPSHOT_LATEST, &err);
  if (rc == PAIMON_ENOTFOUND) {
    printf("latest snapshot: none\n");
  } else if (rc != 0) {
    die_err(&err, rc);
  } else {
    char tbuf[64];
    fv_millis_text(paimon_snapshot_time_millis(s), tbuf, sizeof tbuf);
    printf("latest snapshot: %lld\n", (long long)paimon_snapshot_id(s));
    printf("  schema id: %lld\n", (long long)paimon_snapshot_schema_id(s));
    printf("  commit kind: %s\n", paimon_snapshot_commit_kind(s));
    printf("  time: %s UTC\n", tbuf);
    printf("  total records: ");
    print_count(paimon_snapshot_total_record_count(s));
    printf("\n  delta records: ");
    {
      int64_t d = paimon_snapshot_delta_record_count(s);
      if (d == INT64_MIN) printf("-");
      else printf("%lld", (long long)d);
    }
    printf("\n  commit user: %s\n",
           paimon_snapshot_commit_user(s) ? paimon_snapshot_commit_user(s) : "");
    printf("  commit identifier: %lld\n", (long long)paimon_snapshot_commit_identifier(s));
    paimon_snapshot_free(s);
  }
  paimon_table_close(t);
  free(a.remaps);
  return 0;
}

static int cmd_snapshots(int argc, char **argv) {
  args a = {.cmd = "snapshots", .usage = USAGE_SNAPSHOTS};
  parse_args(&a, argc, argv, 0);
  paimon_table *t = open_table(&a);
  paimon_error err = {0, ""};
  int64_t *ids = NULL;
  size_t n = 0;
  int rc = paimon_table_snapshot_ids(&ids, &n, t, &err);
  if (rc != 0) die_err(&err, rc);
  printf("%-6s %-6s %-9s %-23s %10s %10s  %-36s %s\n", "id", "schema", "kind", "time", "total",
         "delta", "user", "identifier");
  for (size_t i = 0; i < n; i++) {
    paimon_snapshot *s = NULL;
    rc = paimon_table_snapshot(&s, t, ids[i], &err);
    if (rc != 0) die_err(&err, rc);
    char tbuf[64], tot[24], del[24];
    fv_millis_text(paimon_snapshot_time_millis(s), tbuf, sizeof tbuf);
    int64_t tv = paimon_snapshot_total_record_count(s), dv = paimon_snapshot_delta_record_count(s);
    if (tv < 0) snprintf(tot, sizeof tot, "-");
    else snprintf(tot, sizeof tot, "%lld", (long long)tv);
    if (dv == INT64_MIN) snprintf(del, sizeof del, "-");
    else snprintf(del, sizeof del, "%lld", (long long)dv);
    const char *user = paimon_snapshot_commit_user(s);
    printf("%-6lld %-6lld %-9s %-23s %10s %10s  %-36s %lld\n", (long long)paimon_snapshot_id(s),
           (long long)paimon_snapshot_schema_id(s), paimon_snapshot_commit_kind(s), tbuf, tot, del,
           user && *user ? user : "-", (long long)paimon_snapshot_commit_identifier(s));
    paimon_snapshot_free(s);
  }
  paimon_free(ids);
  paimon_table_close(t);
  free(a.remaps);
  return 0;
}

static int cmd_files(int argc, char **argv) {
  args a = {.cmd = "files", .usage = USAGE_FILES};
  parse_args(&a, argc, argv, OPT_SNAPSHOT | OPT_WHERE);
  paimon_predicate *filter = parse_where(&a);
  paimon_table *t = open_table(&a);
  paimon_scan *s = new_scan(t, &a, filter);
  paimon_error err = {0, ""};
  paimon_plan *plan = NULL;
  int rc = paimon_scan_plan(&plan, s, &err);
  if (rc != 0) die_err(&err, rc);
  printf("%-24s %6s %5s %10s %12s  %s\n", "partition", "bucket", "level", "rows", "size", "path");
  for (size_t i = 0; i < paimon_plan_split_count(plan); i++) {
    const paimon_split *sp = paimon_plan_split(plan, i);
    const char *part = paimon_split_partition(sp);
    for (size_t k = 0; k < paimon_split_file_count(sp); k++) {
      paimon_file_info fi = PAIMON_FILE_INFO_INIT;
      rc = paimon_split_file(&fi, sp, k);
      if (rc != 0) die("cannot describe a data file of a split%s", "");
      printf("%-24s %6d %5d %10lld %12lld  %s\n", part && *part ? part : "-",
             (int)paimon_split_bucket(sp), (int)fi.level, (long long)fi.row_count,
             (long long)fi.file_size, fi.path ? fi.path : fi.file_name);
    }
  }
  paimon_plan_free(plan);
  paimon_scan_free(s);
  paimon_predicate_free(filter);
  paimon_table_close(t);
  free(a.remaps);
  return 0;
}

/* ---- cat ---------------------------------------------------------------------------- */

/* Display width of UTF-8 text (code points). */
static size_t text_width(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xc0) != 0x80) w++;
  return w;
}

typedef struct cells {
  char **v;
  size_t n, cap;
} cells;

static void cells_add(cells *c, char *s) {
  if (c->n == c->cap) {
    size_t nc = c->cap ? c->cap * 2 : 256;
    char **nv = realloc(c->v, nc * sizeof *nv);
    if (!nv) die("out of memory%s", "");
    c->v = nv;
    c->cap = nc;
  }
  c->v[c->n++] = s;
}

/* A table cell: control characters escaped so rows stay on one line. */
static char *cell_text(const fv_out *o, bool is_null) {
  if (is_null) return strdup("NULL");
  char *s = malloc(o->len * 4 + 1);
  if (!s) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < o->len; i++) {
    unsigned char ch = (unsigned char)o->data[i];
    if (ch == '\n') s[k++] = '\\', s[k++] = 'n';
    else if (ch == '\t') s[k++] = '\\', s[k++] = 't';
    else if (ch == '\r') s[k++] = '\\', s[k++] = 'r';
    else if (ch < 0x20) k += (size_t)sprintf(s + k, "\\x%02x", ch);
    else s[k++] = (char)ch;
  }
  s[k] = 0;
  return s;
}

static void print_table(const fv_field *cols, int ncols, const cells *c) {
  if (ncols == 0) return;
  size_t *w = calloc((size_t)ncols + 1, sizeof *w);
  if (!w) die("out of memory%s", "");
  for (int j = 0; j < ncols; j++) w[j] = text_width(cols[j].name);
  for (size_t i = 0; i < c->n; i++) {
    size_t tw = text_width(c->v[i]);
    if (tw > w[i % (size_t)ncols]) w[i % (size_t)ncols] = tw;
  }
  for (int j = 0; j < ncols; j++) {
    out_check(fv_puts(&g_out, j ? " | " : ""));
    out_check(fv_puts(&g_out, cols[j].name));
    for (size_t k = text_width(cols[j].name); k < w[j] && j + 1 < ncols; k++)
      out_check(fv_write(&g_out, " ", 1));
  }
  out_check(fv_write(&g_out, "\n", 1));
  for (int j = 0; j < ncols; j++) {
    out_check(fv_puts(&g_out, j ? "-+-" : ""));
    for (size_t k = 0; k < w[j]; k++) out_check(fv_write(&g_out, "-", 1));
  }
  out_check(fv_write(&g_out, "\n", 1));
  for (size_t i = 0; i < c->n; i++) {
    int j = (int)(i % (size_t)ncols);
    out_check(fv_puts(&g_out, j ? " | " : ""));
    out_check(fv_puts(&g_out, c->v[i]));
    if (j + 1 < ncols)
      for (size_t k = text_width(c->v[i]); k < w[j]; k++) out_check(fv_write(&g_out, " ", 1));
    else out_check(fv_write(&g_out, "\n", 1));
  }
  free(w);
}

static char **split_columns(const char *s) {
  size_t n = 1;
  for (const char *p = s; *p; p++) n += *p == ',';
  char **cols = calloc(n + 1, sizeof *cols);
  if (!cols) die("out of memory%s", "");
  size_t k = 0;
  const char *p = s;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && (*p == ' ' || *p == '\t')) p++, len--;
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    if (!len) usage_error(USAGE_CAT, "empty column name in --select '%s'", s);
    cols[k] = strndup(p, len);
    if (!cols[k]) die("out of memory%s", "");
    k++;
    if (!e) break;
    p = e + 1;
  }
  return cols;
}

static int cmd_cat(int argc, char **argv) {
  args a = {.cmd = "cat", .usage = USAGE_CAT, .format = "jsonl"};
  parse_args(&a, argc, argv,
             OPT_SNAPSHOT | OPT_TAG | OPT_SELECT | OPT_WHERE | OPT_FORMAT | OPT_LIMIT |
                 OPT_THREADS | OPT_CHANGES);
  bool changes = a.incremental || a.incremental_tags || a.incremental_time;
  if ((changes || a.follow) && (a.where || a.has_snapshot || a.tag))
    usage_error(a.usage, "--where, --snapshot and --tag do not apply to changes%s", "");
  if (changes && a.follow) usage_error(a.usage, "--follow excludes --incremental*%s", "");
  if (!changes && !a.follow && (a.incremental_mode || a.from_snapshot || a.consumer_id))
    usage_error(a.usage,
                "--incremental-mode needs --incremental*, --from-snapshot and "
                "--consumer-id need --follow%s",
                "");
  if (a.follow && strcmp(a.format, "table") == 0)
    usage_error(a.usage, "--follow prints jsonl or csv%s", "");
  paimon_predicate *filter = parse_where(&a);
  char **columns = a.select ? split_columns(a.select) : NULL;
  paimon_table *t = open_table(&a);
  if (a.follow) {
    int frc = cli_cat_follow(t, (const char *const *)columns,
                             strcmp(a.format, "csv") == 0 ? RENDER_CSV : RENDER_JSONL,
                             a.from_snapshot, a.consumer_id, a.has_limit ? a.limit : -1);
    paimon_table_close(t);
    return frc;
  }
  paimon_scan *s = changes ? NULL : new_scan(t, &a, filter);
  paimon_error err = {0, ""};
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  int rc = changes
               ? cli_incremental_read(&st, t, a.incremental, a.incremental_tags, a.incremental_time,
                                      a.incremental_mode, (const char *const *)columns, &err)
               : paimon_read_scan(&st, s, (const char *const *)columns, NULL, &err);
  if (rc != 0) die_err(&err, rc);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  rc = st.get_schema(&st, &schema);
  if (rc != 0) {
    const char *m = st.get_last_error(&st);
    die("%s", m && *m ? m : "cannot get the stream's schema");
  }
  char emsg[512];
  int mode = strcmp(a.format, "jsonl") == 0 ? RENDER_JSONL
             : strcmp(a.format, "csv") == 0 ? RENDER_CSV
                                            : 2;
  cli_render rr;
  if (cli_render_init(&rr, &schema, mode == 2 ? RENDER_CSV : mode, emsg, sizeof emsg) != 0)
    die("unsupported result schema: %s", emsg);
  const fv_field *root = &rr.root;
  int ncols = root->nchildren;
  if (mode != 2) out_check(cli_render_header(&rr, &g_out));
  cells tab = {0};
  fv_out cell = {0};
  int64_t emitted = 0;
  bool done = a.has_limit && a.limit == 0;
  while (!done) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = st.get_next(&st, &batch);
    if (rc != 0) {
      const char *m = st.get_last_error(&st);
      out_flush();
      die("%s", m && *m ? m : "read failed");
    }
    if (!batch.release) break;
    if (cli_render_check(&rr, &batch, emsg, sizeof emsg) != 0)
      die("bad batch from the reader: %s", emsg);
    for (int64_t i = 0; i < batch.length && !done; i++) {
      if (mode != 2) {
        out_check(cli_render_row(&rr, &batch, i, &g_out));
      } else {
        int64_t r = batch.offset + i; /* struct children are indexed past the parent's offset */
        for (int j = 0; j < ncols; j++) {
          bool isnull = root->children[j].kind == FV_NA || fv_is_null(batch.children[j], r);
          cell.len = 0;
          if (!isnull) out_check(fv_text(&cell, &root->children[j], batch.children[j], r));
          char *ct = cell_text(&cell, isnull);
          if (!ct) die("out of memory%s", "");
          cells_add(&tab, ct);
        }
      }
      emitted++;
      if (a.has_limit && emitted >= a.limit) done = true;
    }
    batch.release(&batch);
  }
  if (mode == 2) {
    print_table(root->children, ncols, &tab);
    for (size_t i = 0; i < tab.n; i++) free(tab.v[i]);
    free(tab.v);
  }
  out_flush();
  fv_out_free(&cell);
  cli_render_free(&rr);
  schema.release(&schema);
  st.release(&st);
  paimon_scan_free(s);
  paimon_predicate_free(filter);
  paimon_table_close(t);
  if (columns) {
    for (char **c = columns; *c; c++) free(*c);
    free(columns);
  }
  free(a.remaps);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "paimon: write error on standard output\n");
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(USAGE, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    if (strcmp(cmd, "help") == 0 && argc > 2) {
      const char *c = argv[2];
      if (strcmp(c, "info") == 0) fputs(USAGE_INFO, stdout);
      else if (strcmp(c, "snapshots") == 0) fputs(USAGE_SNAPSHOTS, stdout);
      else if (strcmp(c, "files") == 0) fputs(USAGE_FILES, stdout);
      else if (strcmp(c, "cat") == 0) fputs(USAGE_CAT, stdout);
      else if (strcmp(c, "create") == 0) fputs(USAGE_CREATE, stdout);
      else if (strcmp(c, "write") == 0) fputs(USAGE_WRITE, stdout);
      else if (strcmp(c, "compact") == 0) fputs(USAGE_COMPACT, stdout);
      else if (strcmp(c, "expire") == 0) fputs(USAGE_EXPIRE, stdout);
      else if (strcmp(c, "ingest") == 0) fputs(USAGE_INGEST, stdout);
      else if (strcmp(c, "tag") == 0) fputs(USAGE_TAG, stdout);
      else if (strcmp(c, "rollback") == 0) fputs(USAGE_ROLLBACK, stdout);
      else if (strcmp(c, "alter") == 0) fputs(USAGE_ALTER, stdout);
      else if (strcmp(c, "ls") == 0) fputs(USAGE_LS, stdout);
      else if (strcmp(c, "drop") == 0) fputs(USAGE_DROP, stdout);
      else usage_error(USAGE, "unknown command '%s'", c);
      return 0;
    }
    fputs(USAGE, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("paimon %s\n", paimon_version());
    return 0;
  }
  if (strcmp(cmd, "info") == 0) return cmd_info(argc, argv);
  if (strcmp(cmd, "snapshots") == 0) return cmd_snapshots(argc, argv);
  if (strcmp(cmd, "files") == 0) return cmd_files(argc, argv);
  if (strcmp(cmd, "cat") == 0) return cmd_cat(argc, argv);
  if (strcmp(cmd, "create") == 0) return cmd_create(argc, argv);
  if (strcmp(cmd, "write") == 0) return cmd_write(argc, argv);
  if (strcmp(cmd, "compact") == 0) return cmd_compact(argc, argv);
  if (strcmp(cmd, "expire") == 0) return cmd_expire(argc, argv);
  if (strcmp(cmd, "ingest") == 0) return cmd_ingest(argc, argv);
  if (strcmp(cmd, "tag") == 0) return cmd_tag(argc, argv);
  if (strcmp(cmd, "rollback") == 0) return cmd_rollback(argc, argv);
  if (strcmp(cmd, "alter") == 0) return cmd_alter(argc, argv);
  if (strcmp(cmd, "ls") == 0) return cmd_ls(argc, argv);
  if (strcmp(cmd, "drop") == 0) return cmd_drop(argc, argv);
  usage_error(USAGE, "unknown command '%s'", cmd);
  return EXIT_USAGE;
}
