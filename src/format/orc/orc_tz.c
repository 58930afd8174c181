/* format/orc/orc_tz.c: time zones for ORC TIMESTAMP columns, read from the system tzdata
 * (TZif version 2+ files, RFC 8536) without touching the process time zone, so readers
 * on several threads never race on TZ. Instants after the last transition follow the
 * POSIX TZ rule in the file's footer. */
#include "format/orc/orc_read.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct tz_rule_date {
  int kind;     /* 'J' (1..365, no Feb 29), 'N' (0..365), 'M' */
  int a, b, c;  /* J/N: day; M: month, week, weekday */
  int32_t time; /* seconds after local midnight */
} tz_rule_date;

struct pm_orc_tz {
  int64_t *trans;
  uint8_t *trans_type;
  uint32_t ntrans;
  int32_t *type_off;
  uint32_t ntypes;
  bool has_rule, has_dst;
  int32_t std_off, dst_off; /* UTC offsets (east positive) */
  tz_rule_date start, end;
};

void pm_orc_tz_free(pm_orc_tz *tz) {
  if (!tz) return;
  pm_free(tz->trans);
  pm_free(tz->trans_type);
  pm_free(tz->type_off);
  pm_free(tz);
}

/* ---- civil calendar arithmetic ------------------------------------------------------ */

static int64_t year_of_days(int64_t z) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return yoe + era * 400 + (m <= 2);
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Epoch day of a rule date in year y. */
static int64_t rule_day(const tz_rule_date *r, int64_t y) {
  int64_t jan1 = pm_days_from_civil(y, 1, 1);
  if (r->kind == 'J') {
    int64_t d = r->a - 1;
    if (is_leap(y) && r->a >= 60) d++;
    return jan1 + d;
  }
  if (r->kind == 'N') return jan1 + r->a;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int m = r->a, w = r->b, wd = r->c;
  int64_t first = pm_days_from_civil(y, m, 1);
  int first_wd = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
  int day = 1 + (wd - first_wd + 7) % 7 + (w - 1) * 7;
  int dim = mdays[m - 1] + (m == 2 && is_leap(y));
  while (day > dim) day -= 7;
  return first + day - 1;
}

static int32_t rule_offset(const pm_orc_tz *tz, int64_t t) {
  if (!tz->has_dst) return tz->std_off;
  int64_t y = year_of_days(floor_div(t + tz->std_off, 86400));
  int64_t start = rule_day(&tz->start, y) * 86400 + tz->start.time - tz->std_off;
  int64_t end = rule_day(&tz->end, y) * 86400 + tz->end.time - tz->dst_off;
  bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
  return dst ? tz->dst_off : tz->std_off;
}

int32_t pm_orc_tz_offset(const pm_orc_tz *tz, int64_t t) {
  if (tz->ntrans == 0 || t >= tz->trans[tz->ntrans - 1]) {
    if (tz->has_rule) return rule_offset(tz, t);
    if (tz->ntrans == 0) return tz->ntypes ? tz->type_off[0] : 0;
    return tz->type_off[tz->trans_type[tz->ntrans - 1]];
  }
  if (t < tz->trans[0]) return tz->type_off[0]; /* RFC 8536: time type 0 before the first */
  uint32_t lo = 0, hi = tz->ntrans - 1;         /* trans[lo] <= t < trans[hi] */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tz->trans[mid] <= t) lo = mid;
    else hi = mid;
  }
  return tz->type_off[tz->trans_type[lo]];
}

int64_t pm_orc_tz_local_to_utc(const pm_orc_tz *tz, int64_t local) {
  int64_t guess = local - pm_orc_tz_offset(tz, local);
  return local - pm_orc_tz_offset(tz, guess);
}

/* ---- POSIX TZ strings ("CST-8", "EST5EDT,M3.2.0,M11.1.0", "<+0330>-3:30") ---------- */

static bool parse_name(const char **s) {
  const char *p = *s;
  if (*p == '<') {
    while (*p && *p != '>') p++;
    if (*p != '>') return false;
    *s = p + 1;
    return true;
  }
  int n = 0;
  while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) p++, n++;
  if (n < 3) return false;
  *s = p;
  return true;
}

static bool parse_num(const char **s, int lo, int hi, int *out) {
  const char *p = *s;
  int v = 0, n = 0;
  while (*p >= '0' && *p <= '9' && n < 4) v = v * 10 + (*p++ - '0'), n++;
  if (n == 0 || v < lo || v > hi) return false;
  *s = p;
  *out = v;
  return true;
}

/* [+-]hh[:mm[:ss]] in seconds. */
static bool parse_hms(const char **s, int max_h, int32_t *out) {
  int sign = 1, h, m = 0, sec = 0;
  if (**s == '+' || **s == '-') sign = *(*s)++ == '-' ? -1 : 1;
  if (!parse_num(s, 0, max_h, &h)) return false;
  if (**s == ':') {
    (*s)++;
    if (!parse_num(s, 0, 59, &m)) return false;
    if (**s == ':') {
      (*s)++;
      if (!parse_num(s, 0, 59, &sec)) return false;
    }
  }
  *out = sign * (h * 3600 + m * 60 + sec);
  return true;
}

static bool parse_rule_date(const char **s, tz_rule_date *r) {
  if (**s == 'J') {
    (*s)++;
    r->kind = 'J';
    if (!parse_num(s, 1, 365, &r->a)) return false;
  } else if (**s == 'M') {
    (*s)++;
    r->kind = 'M';
    if (!parse_num(s, 1, 12, &r->a) || *(*s)++ != '.' || !parse_num(s, 1, 5, &r->b) ||
        *(*s)++ != '.' || !parse_num(s, 0, 6, &r->c))
      return false;
  } else {
    r->kind = 'N';
    if (!parse_num(s, 0, 365, &r->a)) return false;
  }
  r->time = 7200;
  if (**s == '/') {
    (*s)++;
    if (!parse_hms(s, 167, &r->time)) return false;
  }
  return true;
}

static bool parse_posix(pm_orc_tz *tz, const char *s) {
  int32_t off;
  if (!parse_name(&s) || !parse_hms(&s, 24, &off)) return false;
  tz->std_off = -off; /* POSIX offsets are positive west of Greenwich */
  tz->has_rule = true;
  if (*s == 0) return true;
  if (!parse_name(&s)) return false;
  tz->dst_off = tz->std_off + 3600;
  if (*s != ',' && *s != 0) {
    if (!parse_hms(&s, 24, &off)) return false;
    tz->dst_off = -off;
  }
  if (*s != ',') return false; /* no default rule: treat as unusable */
  s++;
  if (!parse_rule_date(&s, &tz->start) || *s++ != ',' || !parse_rule_date(&s, &tz->end) || *s)
    return false;
  tz->has_dst = true;
  return true;
}

/* ---- TZif ---------------------------------------------------------------------------- */

static bool parse_tzif(pm_orc_tz *tz, const uint8_t *d, size_t n) {
  if (n < 44 || memcmp(d, "TZif", 4) != 0) return false;
  uint32_t c[6];
  for (int i = 0; i < 6; i++) c[i] = pm_load_be32(d + 20 + 4 * i);
  /* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
  const uint64_t MAXC = 1u << 20;
  for (int i = 0; i < 6; i++)
    if (c[i] > MAXC) return false;
  size_t pos = 44;
  bool v2 = d[4] >= '2';
  size_t tsize = 4;
  if (v2) { /* skip the v1 block and use the 64-bit one */
    size_t v1 = (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 8 + c[1] + c[0];
    if (n - pos < v1 + 44) return false;
    pos += v1;
    if (memcmp(d + pos, "TZif", 4) != 0) return false;
    for (int i = 0; i < 6; i++) c[i] = pm_load_be32(d + pos + 20 + 4 * i);
    for (int i = 0; i < 6; i++)
      if (c[i] > MAXC) return false;
    pos += 44;
    tsize = 8;
  }
  uint32_t timecnt = c[3], typecnt = c[4];
  if (typecnt == 0) return false;
  size_t body = (size_t)timecnt * (tsize + 1) + (size_t)typecnt * 6 + c[5] +
                (size_t)c[2] * (tsize + 4) + c[1] + c[0];
  if (n - pos < body) return false;
  tz->trans = pm_calloc(timecnt ? timecnt : 1, sizeof(int64_t));
  tz->trans_type = pm_calloc(timecnt ? timecnt : 1, 1);
  tz->type_off = pm_calloc(typecnt, sizeof(int32_t));
  if (!tz->trans || !tz->trans_type || !tz->type_off) return false;
  const uint8_t *p = d + pos;
  for (uint32_t i = 0; i < timecnt; i++, p += tsize)
    tz->trans[i] = tsize == 8 ? (int64_t)pm_load_be64(p) : (int64_t)(int32_t)pm_load_be32(p);
  for (uint32_t i = 0; i < timecnt; i++) {
    if (*p >= typecnt) return false;
    tz->trans_type[i] = *p++;
  }
  for (uint32_t i = 0; i < typecnt; i++, p += 6) {
    int32_t o = (int32_t)pm_load_be32(p);
    if (o < -25 * 3600 || o > 26 * 3600) return false;
    tz->type_off[i] = o;
  }
  for (uint32_t i = 1; i < timecnt; i++)
    if (tz->trans[i] <= tz->trans[i - 1]) return false;
  tz->ntrans = timecnt;
  tz->ntypes = typecnt;
  pos += body;
  if (v2 && pos < n && d[pos] == '\n') { /* footer: "\n<POSIX TZ>\n" */
    size_t e = pos + 1;
    while (e < n && d[e] != '\n') e++;
    if (e < n && e - pos - 1 > 0 && e - pos - 1 < 128) {
      char buf[128];
      memcpy(buf, d + pos + 1, e - pos - 1);
      buf[e - pos - 1] = 0;
      pm_orc_tz tmp = *tz;
      if (parse_posix(&tmp, buf)) *tz = tmp;
    }
  }
  return true;
}

/* Java custom ids "GMT+08:00", "UTC-5", "GMT+0830" (east positive, unlike Etc/GMT+8). */
static bool parse_custom(const char *name, int32_t *off) {
  if (strncmp(name, "GMT", 3) != 0 && strncmp(name, "UTC", 3) != 0) return false;
  const char *s = name + 3;
  if (*s != '+' && *s != '-') return false;
  int sign = *s++ == '-' ? -1 : 1;
  int h = 0, m = 0, n = 0;
  while (*s >= '0' && *s <= '9' && n < 4) h = h * 10 + (*s++ - '0'), n++;
  if (n == 0) return false;
  if (n == 4 && *s == 0) m = h % 100, h /= 100;
  else if (*s == ':') {
    s++;
    int k = 0;
    while (*s >= '0' && *s <= '9' && k < 2) m = m * 10 + (*s++ - '0'), k++;
    if (k != 2) return false;
  } else if (n > 2) return false;
  if (*s || h > 23 || m > 59) return false;
  *off = sign * (h * 3600 + m * 60);
  return true;
}

static bool name_ok(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 100 || name[0] == '/' || name[0] == '.') return false;
  for (size_t i = 0; i < n; i++) {
    char ch = name[i];
    if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
          ch == '/' || ch == '_' || ch == '+' || ch == '-'))
      return false;
  }
  return strstr(name, "..") == NULL;
}

int pm_orc_tz_load(const char *name, pm_orc_tz **out, paimon_error *err) {
  *out = NULL;
  pm_orc_tz *tz = pm_calloc(1, sizeof(*tz));
  if (!tz) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int32_t off;
  if (strcmp(name, "UTC") == 0 || strcmp(name, "GMT") == 0 || strcmp(name, "Z") == 0 ||
      strcmp(name, "Etc/UTC") == 0 || strcmp(name, "Etc/GMT") == 0) {
    tz->has_rule = true;
    *out = tz;
    return 0;
  }
  if (parse_custom(name, &off)) {
    tz->has_rule = true;
    tz->std_off = off;
    *out = tz;
    return 0;
  }
  if (!name_ok(name)) {
    pm_free(tz);
    return pm_fail(err, PAIMON_EUNSUPPORTED, "invalid time zone name '%.64s'", name);
  }
  const char *dir = getenv("TZDIR");
  if (!dir || !*dir) dir = "/usr/share/zoneinfo";
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb"); /* local-only: the system time-zone database */
  if (!f) {
    pm_free(tz);
    return pm_fail(err, PAIMON_EUNSUPPORTED, "unknown time zone '%s' (no %s)", name, path);
  }
  size_t cap = 1 << 20;
  uint8_t *buf = pm_malloc(cap);
  size_t n = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  bool ok = buf && parse_tzif(tz, buf, n);
  pm_free(buf);
  if (!ok) {
    pm_orc_tz_free(tz);
    return pm_fail(err, PAIMON_EUNSUPPORTED, "time zone file %s is not a readable TZif file", path);
  }
  *out = tz;
  return 0;
}
