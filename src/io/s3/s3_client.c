/* io/s3/s3_client.c: S3 REST calls over libcurl (see s3_client.h). The request and
 * response shapes follow the Amazon S3 API reference (GetObject, PutObject,
 * CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload,
 * ListObjectsV2, DeleteObject, DeleteObjects); the retry policy follows the AWS SDKs'
 * "standard" mode (capped exponential backoff with full jitter, transient errors only). */
#include "io/s3/s3_client.h"

#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "io/s3/sigv4.h"

#define POOL_MAX 16
#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct pm_s3_client {
  char *scheme;   /* "http" or "https" */
  char *hostport; /* "host[:port]" */
  char *endpoint; /* scheme://hostport */
  char *region, *access_key, *secret_key, *session_token;
  bool path_style, verify_tls;
  long connect_timeout_ms, request_timeout_ms, retry_base_ms, retry_cap_ms;
  int max_retries;
  pthread_mutex_t mu;
  CURL *idle[POOL_MAX];
  int nidle;
  atomic_int_least64_t requests, retries, bytes_in;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ---- small parsers ----------------------------------------------------------------- */

static int64_t to_millis(int y, int mo, int d, int h, int mi, int s, int ms) {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
      s > 60)
    return INT64_MIN;
  int64_t days = pm_days_from_civil(y, mo, d);
  return ((days * 24 + h) * 60 + mi) * 60000 + (int64_t)s * 1000 + ms;
}

int64_t pm_s3_parse_http_date(const char *s) {
  static const char *months = "JanFebMarAprMayJunJulAugSepOctNovDec";
  char mon[4] = {0};
  int d, y, h, mi, sec;
  if (!s) return INT64_MIN;
  const char *comma = strchr(s, ',');
  if (comma) s = comma + 1;
  if (sscanf(s, " %d %3s %d %d:%d:%d", &d, mon, &y, &h, &mi, &sec) != 6) return INT64_MIN;
  const char *m = strstr(months, mon);
  if (!m || strlen(mon) != 3 || (m - months) % 3) return INT64_MIN;
  return to_millis(y, (int)((m - months) / 3) + 1, d, h, mi, sec, 0);
}

int64_t pm_s3_parse_iso8601(const char *s) {
  int y, mo, d, h, mi, sec, ms = 0;
  int n = 0;
  if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6) return INT64_MIN;
  if (s[n] == '.') {
    int scale = 100;
    for (const char *p = s + n + 1; isdigit((unsigned char)*p); p++) {
      ms += (*p - '0') * scale;
      scale /= 10;
    }
  }
  return to_millis(y, mo, d, h, mi, sec, ms);
}

int pm_s3_parse_content_range(const char *s, int64_t *a, int64_t *b, int64_t *t) {
  long long x, y, z;
  char star = 0;
  if (!s) return -1;
  while (*s == ' ') s++;
  if (strncmp(s, "bytes ", 6) != 0) return -1;
  s += 6;
  if (sscanf(s, "%lld-%lld/%lld", &x, &y, &z) == 3) {
    *t = z;
  } else if (sscanf(s, "%lld-%lld/%c", &x, &y, &star) == 3 && star == '*') {
    *t = -1;
  } else {
    return -1;
  }
  if (x < 0 || y < x) return -1;
  *a = x;
  *b = y;
  return 0;
}

/* The next <tag>value</tag> in s[*pos..n); 1 with the value's span, 0 when none. */
static int xml_next(const char *s, size_t n, size_t *pos, const char *tag, const char **v,
                    size_t *vlen) {
  char open[80], close[80];
  snprintf(open, sizeof open, "<%s>", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  size_t lo = strlen(open), lc = strlen(close);
  for (size_t i = *pos; i + lo <= n; i++) {
    if (memcmp(s + i, open, lo) != 0) continue;
    size_t st = i + lo;
    for (size_t j = st; j + lc <= n; j++) {
      if (memcmp(s + j, close, lc) == 0) {
        *v = s + st;
        *vlen = j - st;
        *pos = j + lc;
        return 1;
      }
    }
    return 0;
  }
  return 0;
}

/* XML text with the five predefined entities and numeric references decoded. */
static int xml_text(pm_buf *out, const char *v, size_t n) {
  pm_buf_clear(out);
  for (size_t i = 0; i < n; i++) {
    if (v[i] != '&') {
      PM_TRY(pm_buf_append(out, v + i, 1));
      continue;
    }
    const char *semi = memchr(v + i, ';', n - i);
    if (!semi) return PAIMON_ECORRUPT;
    size_t len = (size_t)(semi - (v + i)) + 1;
    static const char *ents[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
    bool done = false;
    for (size_t k = 0; k < 5 && !done; k++)
      if (len == strlen(ents[k][0]) && memcmp(v + i, ents[k][0], len) == 0) {
        PM_TRY(pm_buf_append(out, ents[k][1], 1));
        done = true;
      }
    if (!done) {
      if (len < 4 || v[i + 1] != '#') return PAIMON_ECORRUPT;
      unsigned long cp =
          v[i + 2] == 'x' ? strtoul(v + i + 3, NULL, 16) : strtoul(v + i + 2, NULL, 10);
      unsigned char u[4];
      size_t un;
      if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        un = 1;
      } else if (cp < 0x800) {
        u[0] = (unsigned char)(0xC0 | (cp >> 6));
        u[1] = (unsigned char)(0x80 | (cp & 0x3F));
        un = 2;
      } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (cp >> 12));
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F));
        un = 3;
      } else {
        u[0] = (unsigned char)(0xF0 | ((cp >> 18) & 0x07));
        u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (unsigned char)(0x80 | (cp & 0x3F));
        un = 4;
      }
      PM_TRY(pm_buf_append(out, u, un));
    }
    i += len - 1;
  }
  return pm_buf_append(out, "", 1) == 0 ? (out->len--, 0) : PAIMON_ENOMEM;
}

static int xml_escape(pm_buf *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '&': PM_TRY(pm_buf_append_str(out, "&amp;")); break;
      case '<': PM_TRY(pm_buf_append_str(out, "&lt;")); break;
      case '>': PM_TRY(pm_buf_append_str(out, "&gt;")); break;
      case '"': PM_TRY(pm_buf_append_str(out, "&quot;")); break;
      case '\'': PM_TRY(pm_buf_append_str(out, "&apos;")); break;
      default: PM_TRY(pm_buf_append(out, s, 1));
    }
  }
  return 0;
}

/* ---- the client -------------------------------------------------------------------- */

static bool host_is_ip_or_localhost(const char *hostport) {
  if (hostport[0] == '[') return true; /* IPv6 literal */
  size_t n = strcspn(hostport, ":");
  if (n == 9 && strncmp(hostport, "localhost", 9) == 0) return true;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)hostport[i]) && hostport[i] != '.') return false;
  return n > 0;
}

int pm_s3_client_new(pm_s3_client **out, const pm_s3_config *cfg, paimon_error *err) {
  *out = NULL;
  if (!cfg->access_key || !*cfg->access_key || !cfg->secret_key || !*cfg->secret_key)
    return pm_fail(err, PAIMON_EINVAL,
                   "S3 credentials missing: set s3.access-key and s3.secret-key (or "
                   "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
  pthread_once(&curl_once, curl_init_once);
  pm_s3_client *c = pm_calloc(1, sizeof *c);
  if (!c) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  const char *region = cfg->region && *cfg->region ? cfg->region : "us-east-1";
  char *ep = cfg->endpoint && *cfg->endpoint ? pm_strdup(cfg->endpoint)
                                             : pm_asprintf("https://s3.%s.amazonaws.com", region);
  int rc = 0;
  if (!ep) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  const char *hp = ep;
  const char *sep = strstr(ep, "://");
  if (sep) {
    c->scheme = pm_strndup(ep, (size_t)(sep - ep));
    hp = sep + 3;
  } else {
    c->scheme = pm_strdup("https");
  }
  size_t hl = strcspn(hp, "/?#");
  if (hl == 0 || !c->scheme ||
      (strcmp(c->scheme, "http") != 0 && strcmp(c->scheme, "https") != 0)) {
    rc = pm_fail(err, PAIMON_EINVAL, "S3 endpoint '%s': expected http(s)://host[:port]",
                 cfg->endpoint ? cfg->endpoint : ep);
    goto fail;
  }
  c->hostport = pm_strndup(hp, hl);
  c->endpoint = c->hostport ? pm_asprintf("%s://%s", c->scheme, c->hostport) : NULL;
  c->region = pm_strdup(region);
  c->access_key = pm_strdup(cfg->access_key);
  c->secret_key = pm_strdup(cfg->secret_key);
  c->session_token =
      cfg->session_token && *cfg->session_token ? pm_strdup(cfg->session_token) : NULL;
  if (!c->endpoint || !c->region || !c->access_key || !c->secret_key ||
      (cfg->session_token && *cfg->session_token && !c->session_token)) {
    rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    goto fail;
  }
  c->path_style = cfg->path_style < 0 ? host_is_ip_or_localhost(c->hostport) : cfg->path_style != 0;
  c->verify_tls = cfg->verify_tls;
  c->connect_timeout_ms = cfg->connect_timeout_ms > 0 ? cfg->connect_timeout_ms : 10000;
  c->request_timeout_ms = cfg->request_timeout_ms > 0 ? cfg->request_timeout_ms : 300000;
  c->max_retries = cfg->max_retries >= 0 ? cfg->max_retries : 6;
  c->retry_base_ms = cfg->retry_base_ms > 0 ? cfg->retry_base_ms : 100;
  c->retry_cap_ms = cfg->retry_cap_ms > 0 ? cfg->retry_cap_ms : 5000;
  pthread_mutex_init(&c->mu, NULL);
  pm_free(ep);
  *out = c;
  return 0;
fail:
  pm_free(ep);
  c->nidle = 0;
  pthread_mutex_init(&c->mu, NULL);
  pm_s3_client_free(c);
  return rc;
}

void pm_s3_client_free(pm_s3_client *c) {
  if (!c) return;
  for (int i = 0; i < c->nidle; i++) curl_easy_cleanup(c->idle[i]);
  pthread_mutex_destroy(&c->mu);
  pm_free(c->scheme);
  pm_free(c->hostport);
  pm_free(c->endpoint);
  pm_free(c->region);
  pm_free(c->access_key);
  if (c->secret_key) memset(c->secret_key, 0, strlen(c->secret_key));
  pm_free(c->secret_key);
  pm_free(c->session_token);
  pm_free(c);
}

const char *pm_s3_client_endpoint(const pm_s3_client *c) { return c->endpoint; }

void pm_s3_client_stats(const pm_s3_client *c, pm_s3_stats *out) {
  out->requests = atomic_load(&((pm_s3_client *)c)->requests);
  out->retries = atomic_load(&((pm_s3_client *)c)->retries);
  out->bytes_in = atomic_load(&((pm_s3_client *)c)->bytes_in);
}

static CURL *handle_get(pm_s3_client *c) {
  CURL *h = NULL;
  pthread_mutex_lock(&c->mu);
  if (c->nidle > 0) h = c->idle[--c->nidle];
  pthread_mutex_unlock(&c->mu);
  return h ? h : curl_easy_init();
}

/* Back to the pool: curl_easy_reset clears options but keeps the connection cache. A
 * handle whose transfer failed at the connection level is closed instead. */
static void handle_put(pm_s3_client *c, CURL *h, bool broken) {
  if (!h) return;
  if (!broken) {
    curl_easy_reset(h);
    pthread_mutex_lock(&c->mu);
    if (c->nidle < POOL_MAX) {
      c->idle[c->nidle++] = h;
      h = NULL;
    }
    pthread_mutex_unlock(&c->mu);
  }
  if (h) curl_easy_cleanup(h);
}

typedef struct req {
  const char *method;
  const char *bucket;
  const char *key;   /* raw, nullable */
  const char *query; /* encoded, nullable */
  pm_sigv4_header extra[4];
  size_t nextra;
  const void *body;
  size_t body_len;
  void *dst; /* nullable: a 2xx body goes here (at most dst_cap bytes) */
  size_t dst_cap;
} req;

typedef struct resp {
  long status;
  pm_buf body; /* the body unless dst took it */
  size_t dst_len;
  bool overflow;
  char content_range[128];
  char last_modified[64];
  char etag[256];
  int64_t content_length;
  int attempts; /* requests sent for this call */
  /* upload state */
  size_t up_off;
  const req *r;
  pm_s3_client *c;
} resp;

static size_t on_header(char *p, size_t size, size_t nitems, void *ud) {
  resp *rs = ud;
  size_t n = size * nitems;
  if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
    const char *sp = memchr(p, ' ', n);
    rs->status = sp ? strtol(sp + 1, NULL, 10) : 0;
    rs->content_range[0] = rs->last_modified[0] = rs->etag[0] = 0;
    rs->content_length = -1;
    return n;
  }
  const char *colon = memchr(p, ':', n);
  if (!colon) return n;
  size_t nl = (size_t)(colon - p);
  const char *v = colon + 1;
  size_t vl = n - nl - 1;
  while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
  while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) vl--;
  char *dst = NULL;
  size_t cap = 0;
  if (nl == 13 && strncasecmp(p, "content-range", 13) == 0) {
    dst = rs->content_range;
    cap = sizeof rs->content_range;
  } else if (nl == 13 && strncasecmp(p, "last-modified", 13) == 0) {
    dst = rs->last_modified;
    cap = sizeof rs->last_modified;
  } else if (nl == 4 && strncasecmp(p, "etag", 4) == 0) {
    dst = rs->etag;
    cap = sizeof rs->etag;
  } else if (nl == 14 && strncasecmp(p, "content-length", 14) == 0) {
    char tmp[32];
    size_t k = vl < sizeof tmp - 1 ? vl : sizeof tmp - 1;
    memcpy(tmp, v, k);
    tmp[k] = 0;
    rs->content_length = strtoll(tmp, NULL, 10);
  }
  if (dst) {
    size_t k = vl < cap - 1 ? vl : cap - 1;
    memcpy(dst, v, k);
    dst[k] = 0;
  }
  return n;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud) {
  resp *rs = ud;
  size_t n = size * nmemb;
  atomic_fetch_add(&rs->c->bytes_in, (int_least64_t)n);
  if (rs->r->dst && rs->status >= 200 && rs->status < 300) {
    if (rs->dst_len + n > rs->r->dst_cap) {
      rs->overflow = true;
      return 0;
    }
    memcpy((char *)rs->r->dst + rs->dst_len, p, n);
    rs->dst_len += n;
    return n;
  }
  if (rs->body.len + n > ((size_t)64 << 20)) { /* listings and errors are small */
    rs->overflow = true;
    return 0;
  }
  return pm_buf_append(&rs->body, p, n) == 0 ? n : 0;
}

static size_t on_read(char *p, size_t size, size_t nitems, void *ud) {
  resp *rs = ud;
  size_t n = size * nitems, left = rs->r->body_len - rs->up_off;
  if (n > left) n = left;
  if (n) memcpy(p, (const char *)rs->r->body + rs->up_off, n);
  rs->up_off += n;
  return n;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static long backoff_ms(const pm_s3_client *c, int attempt) {
  static _Atomic uint64_t seq;
  long cap = c->retry_base_ms;
  for (int i = 0; i < attempt && cap < c->retry_cap_ms; i++) cap *= 2;
  if (cap > c->retry_cap_ms) cap = c->retry_cap_ms;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t r = pm_mix64((uint64_t)ts.tv_nsec ^ (atomic_fetch_add(&seq, 1) << 32));
  return (long)(r % (uint64_t)(cap + 1)); /* full jitter */
}

static bool curl_transient(CURLcode cc) {
  switch (cc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return true;
    default: return false;
  }
}

static void describe(char *out, size_t cap, const req *r) {
  snprintf(out, cap, "s3://%s%s%s", r->bucket, r->key && *r->key ? "/" : "", r->key ? r->key : "");
}

/* The S3 error code and message from an XML error body (empty when none). */
static void error_code(const resp *rs, char *code, size_t ccap, char *msg, size_t mcap) {
  code[0] = msg[0] = 0;
  const char *v;
  size_t vl, pos = 0;
  const char *b = (const char *)rs->body.data;
  if (b && xml_next(b, rs->body.len, &pos, "Code", &v, &vl))
    snprintf(code, ccap, "%.*s", (int)vl, v);
  pos = 0;
  if (b && xml_next(b, rs->body.len, &pos, "Message", &v, &vl))
    snprintf(msg, mcap, "%.*s", (int)(vl > 200 ? 200 : vl), v);
}

static int status_error(pm_s3_client *c, const req *r, const resp *rs, paimon_error *err) {
  char what[600], code[64], msg[256];
  describe(what, sizeof what, r);
  error_code(rs, code, sizeof code, msg, sizeof msg);
  if (!code[0]) {
    const char *dflt = rs->status == 404   ? (r->key && *r->key ? "NoSuchKey" : "NoSuchBucket")
                       : rs->status == 412 ? "PreconditionFailed"
                       : rs->status == 403 ? "AccessDenied"
                                           : "";
    snprintf(code, sizeof code, "%s", dflt);
  }
  int st = PAIMON_EIO;
  if (rs->status == 404) st = PAIMON_ENOTFOUND;
  else if (rs->status == 412 ||
           (rs->status == 409 && strcmp(code, "ConditionalRequestConflict") == 0))
    st = PAIMON_ECONFLICT;
  else if (rs->status == 403) st = PAIMON_ESTORAGE;
  else if (rs->status == 501) st = PAIMON_EUNSUPPORTED;
  return pm_fail(err, st, "%s: %s failed: HTTP %ld%s%s%s%s%s (endpoint %s)", what, r->method,
                 rs->status, code[0] ? " " : "", code, msg[0] ? " (" : "", msg, msg[0] ? ")" : "",
                 c->endpoint);
}

/* Builds URL and canonical path; the key is encoded once with '/' kept. */
static int build_target(pm_s3_client *c, const req *r, pm_buf *url, pm_buf *path, char *host,
                        size_t hcap) {
  if (c->path_style) {
    snprintf(host, hcap, "%s", c->hostport);
    PM_TRY(pm_buf_append_str(path, "/"));
    PM_TRY(pm_sigv4_uri_encode(path, r->bucket, strlen(r->bucket), false));
    if (r->key && *r->key) {
      PM_TRY(pm_buf_append_str(path, "/"));
      PM_TRY(pm_sigv4_uri_encode(path, r->key, strlen(r->key), true));
    }
  } else {
    snprintf(host, hcap, "%s.%s", r->bucket, c->hostport);
    PM_TRY(pm_buf_append_str(path, "/"));
    if (r->key && *r->key) PM_TRY(pm_sigv4_uri_encode(path, r->key, strlen(r->key), true));
  }
  PM_TRY(pm_buf_append(path, "", 1));
  path->len--;
  PM_TRY(pm_buf_printf(url, "%s://%s%s%s%s", c->scheme, host, (char *)path->data,
                       r->query && *r->query ? "?" : "", r->query ? r->query : ""));
  return 0;
}

/* One signed transfer attempt. Returns the CURLcode; rs holds the response. */
static CURLcode perform_once(pm_s3_client *c, CURL *h, const req *r, const char *url,
                             const char *path, const char *host, const char *payload_hash, resp *rs,
                             paimon_error *err, int *rc) {
  char date[17];
  pm_sigv4_amz_date(date, (int64_t)time(NULL));
  pm_sigv4_header hs[8];
  size_t nh = 0;
  hs[nh++] = (pm_sigv4_header){"host", host};
  hs[nh++] = (pm_sigv4_header){"x-amz-content-sha256", payload_hash};
  hs[nh++] = (pm_sigv4_header){"x-amz-date", date};
  if (c->session_token) hs[nh++] = (pm_sigv4_header){"x-amz-security-token", c->session_token};
  for (size_t i = 0; i < r->nextra; i++) hs[nh++] = r->extra[i];
  pm_sigv4_credentials cred = {c->access_key, c->secret_key, c->region, "s3", date};
  pm_sigv4_request sq = {r->method, path, r->query, hs, nh, payload_hash};
  pm_sigv4_result sig;
  *rc = pm_sigv4_sign(&sig, &sq, &cred, err);
  if (*rc) return CURLE_OK;
  struct curl_slist *list = NULL;
  bool oom = false;
  for (size_t i = 0; i < nh && !oom; i++) {
    char *line = pm_asprintf("%s: %s", hs[i].name, hs[i].value);
    struct curl_slist *nl = line ? curl_slist_append(list, line) : NULL;
    pm_free(line);
    if (!nl) oom = true;
    else list = nl;
  }
  char *auth = pm_asprintf("Authorization: %s", sig.authorization);
  struct curl_slist *nl = auth ? curl_slist_append(list, auth) : NULL;
  pm_free(auth);
  if (nl) list = nl;
  else oom = true;
  nl = oom ? NULL : curl_slist_append(list, "Expect:");
  if (nl) list = nl;
  if (r->body && strcmp(r->method, "POST") == 0) {
    nl = curl_slist_append(list, "Content-Type: application/xml");
    if (nl) list = nl;
  }
  pm_sigv4_result_free(&sig);
  if (oom) {
    curl_slist_free_all(list);
    *rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    return CURLE_OK;
  }
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->request_timeout_ms);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->verify_tls ? 1L : 0L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->verify_tls ? 2L : 0L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, rs);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, rs);
  if (strcmp(r->method, "HEAD") == 0) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (strcmp(r->method, "PUT") == 0) {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, rs);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_len);
  } else if (strcmp(r->method, "POST") == 0) {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body ? (const char *)r->body : "");
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
  } else if (strcmp(r->method, "GET") != 0) {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
  }
  atomic_fetch_add(&c->requests, 1);
  CURLcode cc = curl_easy_perform(h);
  curl_slist_free_all(list);
  return cc;
}

/* Sends `r` with retries; on return rs->status is a 2xx or the call failed (err set). */
static int send_req(pm_s3_client *c, const req *r, resp *rs, paimon_error *err) {
  char host[512];
  pm_buf url = {0}, path = {0};
  int rc = build_target(c, r, &url, &path, host, sizeof host);
  if (rc) {
    pm_buf_free(&url);
    pm_buf_free(&path);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  char payload_hash[65];
  if (pm_sha256_hex(payload_hash, r->body ? r->body : "", r->body ? r->body_len : 0)) {
    pm_buf_free(&url);
    pm_buf_free(&path);
    return pm_fail(err, PAIMON_EIO, "SHA-256 failed");
  }
  char what[600];
  describe(what, sizeof what, r);
  for (int attempt = 0;; attempt++) {
    pm_buf_clear(&rs->body);
    rs->status = 0;
    rs->dst_len = 0;
    rs->up_off = 0;
    rs->overflow = false;
    rs->content_length = -1;
    rs->content_range[0] = rs->last_modified[0] = rs->etag[0] = 0;
    rs->r = r;
    rs->c = c;
    rs->attempts = attempt + 1;
    CURL *h = handle_get(c);
    if (!h) {
      rc = pm_fail(err, PAIMON_ENOMEM, "curl_easy_init failed");
      break;
    }
    rc = 0;
    CURLcode cc = perform_once(c, h, r, (char *)url.data, (char *)path.data, host, payload_hash, rs,
                               err, &rc);
    bool transient = false;
    if (rc) {
      handle_put(c, h, true);
      break;
    }
    if (cc == CURLE_WRITE_ERROR && rs->overflow) {
      handle_put(c, h, true);
      rc = pm_fail(err, PAIMON_EIO, "%s: %s: the store answered more bytes than asked (HTTP %ld)",
                   what, r->method, rs->status);
      break;
    }
    if (cc != CURLE_OK) {
      handle_put(c, h, true);
      transient = curl_transient(cc);
      if (!transient || attempt >= c->max_retries) {
        rc = pm_fail(err, PAIMON_EIO, "%s: %s failed after %d attempt%s: %s (endpoint %s)", what,
                     r->method, attempt + 1, attempt ? "s" : "", curl_easy_strerror(cc),
                     c->endpoint);
        break;
      }
    } else {
      handle_put(c, h, false);
      if (rs->status >= 200 && rs->status < 300) break;
      transient = rs->status >= 500 || rs->status == 429;
      if (!transient || attempt >= c->max_retries) {
        rc = status_error(c, r, rs, err);
        if (attempt) pm_fail_ctx(err, rc, "after %d attempts", attempt + 1);
        break;
      }
    }
    atomic_fetch_add(&c->retries, 1);
    sleep_ms(backoff_ms(c, attempt));
  }
  pm_buf_free(&url);
  pm_buf_free(&path);
  return rc;
}

static void resp_free(resp *rs) { pm_buf_free(&rs->body); }

/* ---- operations -------------------------------------------------------------------- */

int pm_s3_head(pm_s3_client *c, const char *bucket, const char *key, int64_t *size,
               int64_t *mtime_ms, paimon_error *err) {
  req r = {.method = "HEAD", .bucket = bucket, .key = key};
  resp rs = {0};
  int rc = send_req(c, &r, &rs, err);
  if (rc == 0) {
    if (size) *size = rs.content_length;
    if (mtime_ms) {
      int64_t t = pm_s3_parse_http_date(rs.last_modified);
      *mtime_ms = t;
    }
  }
  resp_free(&rs);
  return rc;
}

int pm_s3_get_range(pm_s3_client *c, const char *bucket, const char *key, int64_t off, size_t n,
                    void *buf, size_t *got, int64_t *total, paimon_error *err) {
  *got = 0;
  if (n == 0) return 0;
  char range[64];
  snprintf(range, sizeof range, "bytes=%" PRId64 "-%" PRId64, off, off + (int64_t)n - 1);
  req r = {.method = "GET", .bucket = bucket, .key = key, .dst = buf, .dst_cap = n};
  r.extra[r.nextra++] = (pm_sigv4_header){"range", range};
  resp rs = {0};
  paimon_error e2 = {0, ""};
  int rc = send_req(c, &r, &rs, &e2);
  char what[600];
  describe(what, sizeof what, &r);
  if (rc) {
    if (rs.status == 416) { /* offset at or past the end */
      int64_t t = -1;
      if (total && sscanf(rs.content_range, "bytes */%" SCNd64, &t) != 1) t = -1;
      if (total) *total = t;
      resp_free(&rs);
      return 0;
    }
    if (err) *err = e2;
    resp_free(&rs);
    return rc;
  }
  int64_t a, b, t;
  if (rs.status == 206 && pm_s3_parse_content_range(rs.content_range, &a, &b, &t) == 0) {
    if (a != off || b > off + (int64_t)n - 1 || (size_t)(b - a + 1) != rs.dst_len ||
        (t >= 0 && b >= t) || (b < off + (int64_t)n - 1 && t >= 0 && b != t - 1)) {
      rc = pm_fail(err, PAIMON_EIO,
                   "%s: asked for %s, the store answered 'Content-Range: %s' with %zu bytes", what,
                   range, rs.content_range, rs.dst_len);
    } else {
      *got = rs.dst_len;
      if (total) *total = t;
    }
  } else if (rs.status == 200 && off == 0 && rs.dst_len <= n) {
    /* the whole object (a store may answer a range covering it with 200) */
    *got = rs.dst_len;
    if (total) *total = (int64_t)rs.dst_len;
  } else {
    rc = pm_fail(err, PAIMON_EIO,
                 "%s: asked for %s, the store answered HTTP %ld without a "
                 "matching Content-Range ('%s')",
                 what, range, rs.status, rs.content_range);
  }
  resp_free(&rs);
  return rc;
}

int pm_s3_get_suffix(pm_s3_client *c, const char *bucket, const char *key, size_t n, void *buf,
                     size_t *got, int64_t *total, paimon_error *err) {
  *got = 0;
  char range[64];
  snprintf(range, sizeof range, "bytes=-%zu", n);
  req r = {.method = "GET", .bucket = bucket, .key = key, .dst = buf, .dst_cap = n};
  r.extra[r.nextra++] = (pm_sigv4_header){"range", range};
  resp rs = {0};
  int rc = send_req(c, &r, &rs, err);
  char what[600];
  describe(what, sizeof what, &r);
  if (rc) {
    if (rs.status == 416 && rs.content_range[0]) { /* an empty object */
      int64_t t = -1;
      if (sscanf(rs.content_range, "bytes */%" SCNd64, &t) == 1 && t == 0) {
        *total = 0;
        rc = 0;
      }
    }
    resp_free(&rs);
    return rc;
  }
  int64_t a, b, t;
  if (rs.status == 206 && pm_s3_parse_content_range(rs.content_range, &a, &b, &t) == 0 && t >= 0 &&
      b == t - 1 && a == (t > (int64_t)n ? t - (int64_t)n : 0) &&
      (size_t)(b - a + 1) == rs.dst_len) {
    *got = rs.dst_len;
    *total = t;
  } else if (rs.status == 200 && rs.dst_len <= n &&
             (rs.content_length < 0 || rs.content_length == (int64_t)rs.dst_len)) {
    *got = rs.dst_len; /* the whole object, smaller than n */
    *total = (int64_t)rs.dst_len;
  } else {
    rc = pm_fail(err, PAIMON_EUNSUPPORTED,
                 "%s: asked for the suffix %s, the store answered HTTP %ld 'Content-Range: %s'",
                 what, range, rs.status, rs.content_range);
  }
  resp_free(&rs);
  return rc;
}

int pm_s3_put(pm_s3_client *c, const char *bucket, const char *key, const void *data, size_t n,
              bool if_none_match, paimon_error *err) {
  req r = {.method = "PUT", .bucket = bucket, .key = key, .body = data ? data : "", .body_len = n};
  if (if_none_match) r.extra[r.nextra++] = (pm_sigv4_header){"if-none-match", "*"};
  resp rs = {0};
  int rc = send_req(c, &r, &rs, err);
  if (rc == PAIMON_ECONFLICT && rs.attempts > 1) {
    /* A retried conditional PUT answered 412: an earlier attempt may have created the
     * object and lost only its answer. Ours when it holds exactly our bytes (a snapshot
     * names its commit user and time); else another writer's; unknown when unreadable. */
    uint8_t *back = pm_malloc(n + 1);
    size_t got = 0;
    paimon_error e2 = {0, ""};
    int g = back ? pm_s3_get_range(c, bucket, key, 0, n + 1, back, &got, NULL, &e2) : PAIMON_ENOMEM;
    if (g == 0 && got == n && (n == 0 || memcmp(back, data, n) == 0)) rc = 0;
    else if (g != 0)
      rc = pm_fail(err, PAIMON_EIO,
                   "s3://%s/%s: conditional PUT retried and refused; whether an earlier attempt "
                   "created it is unknown (reading it back failed: %s)",
                   bucket, key, e2.message);
    pm_free(back);
  }
  resp_free(&rs);
  return rc;
}

int pm_s3_mpu_create(pm_s3_client *c, const char *bucket, const char *key, char **upload_id,
                     paimon_error *err) {
  *upload_id = NULL;
  req r = {.method = "POST",
           .bucket = bucket,
           .key = key,
           .query = "uploads",
           .body = "",
           .body_len = 0};
  resp rs = {0};
  int rc = send_req(c, &r, &rs, err);
  if (rc == 0) {
    const char *v;
    size_t vl, pos = 0;
    if (rs.body.data && xml_next((char *)rs.body.data, rs.body.len, &pos, "UploadId", &v, &vl)) {
      *upload_id = pm_strndup(v, vl);
      if (!*upload_id) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
    } else {
      rc = pm_fail(err, PAIMON_EIO, "s3://%s/%s: CreateMultipartUpload answered no UploadId",
                   bucket, key);
    }
  }
  resp_free(&rs);
  return rc;
}

static int encode_query_value(pm_buf *q, const char *v) {
  return pm_sigv4_uri_encode(q, v, strlen(v), false);
}

int pm_s3_mpu_upload_part(pm_s3_client *c, const char *bucket, const char *key,
                          const char *upload_id, int part, const void *data, size_t n, char **etag,
                          paimon_error *err) {
  *etag = NULL;
  pm_buf q = {0};
  int rc = pm_buf_printf(&q, "partNumber=%d&uploadId=", part);
  if (rc == 0) rc = encode_query_value(&q, upload_id);
  if (rc == 0) rc = pm_buf_append(&q, "", 1);
  if (rc) {
    pm_buf_free(&q);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  req r = {.method = "PUT",
           .bucket = bucket,
           .key = key,
           .query = (char *)q.data,
           .body = data,
           .body_len = n};
  resp rs = {0};
  rc = send_req(c, &r, &rs, err);
  if (rc == 0) {
    if (!rs.etag[0])
      rc =
          pm_fail(err, PAIMON_EIO, "s3://%s/%s: UploadPart %d answered no ETag", bucket, key, part);
    else if (!(*etag = pm_strdup(rs.etag))) rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  resp_free(&rs);
  pm_buf_free(&q);
  return rc;
}

int pm_s3_mpu_complete(pm_s3_client *c, const char *bucket, const char *key, const char *upload_id,
                       char *const *etags, int nparts, paimon_error *err) {
  pm_buf q = {0}, body = {0};
  int rc = pm_buf_append_str(&q, "uploadId=");
  if (rc == 0) rc = encode_query_value(&q, upload_id);
  if (rc == 0) rc = pm_buf_append(&q, "", 1);
  if (rc == 0) rc = pm_buf_append_str(&body, "<CompleteMultipartUpload>");
  for (int i = 0; rc == 0 && i < nparts; i++) {
    rc = pm_buf_printf(&body, "<Part><PartNumber>%d</PartNumber><ETag>", i + 1);
    if (rc == 0) rc = xml_escape(&body, etags[i]);
    if (rc == 0) rc = pm_buf_append_str(&body, "</ETag></Part>");
  }
  if (rc == 0) rc = pm_buf_append_str(&body, "</CompleteMultipartUpload>");
  if (rc) {
    pm_buf_free(&q);
    pm_buf_free(&body);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  req r = {.method = "POST",
           .bucket = bucket,
           .key = key,
           .query = (char *)q.data,
           .body = body.data,
           .body_len = body.len};
  resp rs = {0};
  rc = send_req(c, &r, &rs, err);
  /* CompleteMultipartUpload may fail after answering 200: the error is in the body */
  if (rc == 0 && rs.body.data && rs.body.len >= 7) {
    const char *v;
    size_t vl, pos = 0;
    if (xml_next((char *)rs.body.data, rs.body.len, &pos, "Error", &v, &vl)) {
      rs.status = 500;
      rc = status_error(c, &r, &rs, err);
    }
  }
  resp_free(&rs);
  pm_buf_free(&q);
  pm_buf_free(&body);
  return rc;
}

int pm_s3_mpu_abort(pm_s3_client *c, const char *bucket, const char *key, const char *upload_id,
                    paimon_error *err) {
  pm_buf q = {0};
  int rc = pm_buf_append_str(&q, "uploadId=");
  if (rc == 0) rc = encode_query_value(&q, upload_id);
  if (rc == 0) rc = pm_buf_append(&q, "", 1);
  if (rc) {
    pm_buf_free(&q);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  req r = {.method = "DELETE", .bucket = bucket, .key = key, .query = (char *)q.data};
  resp rs = {0};
  rc = send_req(c, &r, &rs, err);
  resp_free(&rs);
  pm_buf_free(&q);
  return rc;
}

int pm_s3_list(pm_s3_client *c, const char *bucket, const char *prefix, const char *delimiter,
               int max_keys, pm_s3_list_cb cb, void *payload, paimon_error *err) {
  pm_buf q = {0}, token = {0}, text = {0}, text2 = {0};
  int rc = 0;
  for (bool more = true; more && rc == 0;) {
    pm_buf_clear(&q);
    /* parameters in canonical (sorted) order; sigv4 sorts anyway */
    rc = pm_buf_append_str(&q, "");
    if (rc == 0 && token.len) {
      rc = pm_buf_append_str(&q, "continuation-token=");
      if (rc == 0) rc = pm_sigv4_uri_encode(&q, (char *)token.data, token.len, false);
      if (rc == 0) rc = pm_buf_append_str(&q, "&");
    }
    if (rc == 0 && delimiter && *delimiter) {
      rc = pm_buf_append_str(&q, "delimiter=");
      if (rc == 0) rc = encode_query_value(&q, delimiter);
      if (rc == 0) rc = pm_buf_append_str(&q, "&");
    }
    if (rc == 0) rc = pm_buf_append_str(&q, "list-type=2");
    if (rc == 0 && max_keys > 0) rc = pm_buf_printf(&q, "&max-keys=%d", max_keys);
    if (rc == 0 && prefix && *prefix) {
      rc = pm_buf_append_str(&q, "&prefix=");
      if (rc == 0) rc = encode_query_value(&q, prefix);
    }
    if (rc == 0) rc = pm_buf_append(&q, "", 1);
    if (rc) {
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
      break;
    }
    req r = {.method = "GET", .bucket = bucket, .key = NULL, .query = (char *)q.data};
    resp rs = {0};
    rc = send_req(c, &r, &rs, err);
    if (rc) {
      if (rc == PAIMON_ENOTFOUND && err)
        pm_fail_ctx(err, rc, "listing prefix '%s'", prefix ? prefix : "");
      resp_free(&rs);
      break;
    }
    const char *b = rs.body.data ? (char *)rs.body.data : "";
    size_t bn = rs.body.len, pos = 0;
    const char *v, *kv;
    size_t vl, kl;
    int stop = 0;
    /* objects */
    while (rc == 0 && !stop && xml_next(b, bn, &pos, "Contents", &v, &vl)) {
      size_t p2 = 0;
      if (!xml_next(v, vl, &p2, "Key", &kv, &kl)) continue;
      rc = xml_text(&text, kv, kl);
      int64_t size = -1, mt = INT64_MIN;
      p2 = 0;
      if (xml_next(v, vl, &p2, "Size", &kv, &kl)) size = strtoll(kv, NULL, 10);
      p2 = 0;
      if (xml_next(v, vl, &p2, "LastModified", &kv, &kl) && rc == 0) {
        rc = xml_text(&text2, kv, kl);
        if (rc == 0) mt = pm_s3_parse_iso8601((char *)text2.data);
      }
      if (rc == 0) stop = cb((char *)text.data, 0, size, mt, payload);
    }
    pos = 0;
    while (rc == 0 && !stop && xml_next(b, bn, &pos, "CommonPrefixes", &v, &vl)) {
      size_t p2 = 0;
      if (!xml_next(v, vl, &p2, "Prefix", &kv, &kl)) continue;
      rc = xml_text(&text, kv, kl);
      if (rc == 0) stop = cb((char *)text.data, 1, 0, INT64_MIN, payload);
    }
    if (rc)
      rc = pm_fail(err, rc == PAIMON_ENOMEM ? rc : PAIMON_ECORRUPT,
                   "s3://%s: malformed ListObjectsV2 answer", bucket);
    pos = 0;
    more = !stop && rc == 0 && xml_next(b, bn, &pos, "IsTruncated", &v, &vl) && vl == 4 &&
           memcmp(v, "true", 4) == 0;
    if (more) {
      pos = 0;
      if (!xml_next(b, bn, &pos, "NextContinuationToken", &v, &vl) || vl == 0) {
        rc =
            pm_fail(err, PAIMON_ECORRUPT,
                    "s3://%s: ListObjectsV2 is truncated but has no NextContinuationToken", bucket);
      } else {
        rc = xml_text(&token, v, vl);
      }
    }
    resp_free(&rs);
  }
  pm_buf_free(&q);
  pm_buf_free(&token);
  pm_buf_free(&text);
  pm_buf_free(&text2);
  return rc;
}

int pm_s3_delete(pm_s3_client *c, const char *bucket, const char *key, paimon_error *err) {
  req r = {.method = "DELETE", .bucket = bucket, .key = key};
  resp rs = {0};
  int rc = send_req(c, &r, &rs, err);
  resp_free(&rs);
  return rc;
}

static int delete_batch(pm_s3_client *c, const char *bucket, const char *const *keys, size_t n,
                        int *results, paimon_error *err) {
  pm_buf body = {0}, text = {0};
  int rc = pm_buf_append_str(&body, "<Delete><Quiet>true</Quiet>");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    rc = pm_buf_append_str(&body, "<Object><Key>");
    if (rc == 0) rc = xml_escape(&body, keys[i]);
    if (rc == 0) rc = pm_buf_append_str(&body, "</Key></Object>");
  }
  if (rc == 0) rc = pm_buf_append_str(&body, "</Delete>");
  char md5[25];
  if (rc || pm_md5_base64(md5, body.data, body.len)) {
    pm_buf_free(&body);
    return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  req r = {.method = "POST",
           .bucket = bucket,
           .query = "delete",
           .body = body.data,
           .body_len = body.len};
  r.extra[r.nextra++] = (pm_sigv4_header){"content-md5", md5};
  resp rs = {0};
  rc = send_req(c, &r, &rs, err);
  for (size_t i = 0; i < n; i++) results[i] = rc;
  if (rc == 0 && rs.body.data) {
    const char *b = (char *)rs.body.data, *v, *kv;
    size_t bn = rs.body.len, pos = 0, vl, kl;
    int first = 0;
    while (xml_next(b, bn, &pos, "Error", &v, &vl)) {
      size_t p2 = 0;
      if (!xml_next(v, vl, &p2, "Key", &kv, &kl) || xml_text(&text, kv, kl)) continue;
      char code[64] = "";
      p2 = 0;
      if (xml_next(v, vl, &p2, "Code", &kv, &kl)) snprintf(code, sizeof code, "%.*s", (int)kl, kv);
      int st = strcmp(code, "AccessDenied") == 0 ? PAIMON_ESTORAGE : PAIMON_EIO;
      for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], (char *)text.data) == 0 && results[i] == 0) {
          results[i] = st;
          if (!first) {
            first = st;
            pm_fail(err, st, "s3://%s/%s: DeleteObjects failed for this key: %s", bucket, keys[i],
                    code[0] ? code : "unknown error");
          }
          break;
        }
    }
    rc = first;
  }
  resp_free(&rs);
  pm_buf_free(&body);
  pm_buf_free(&text);
  return rc;
}

int pm_s3_delete_many(pm_s3_client *c, const char *bucket, const char *const *keys, size_t n,
                      int *results, paimon_error *err) {
  int first = 0;
  for (size_t i = 0; i < n; i += 1000) {
    size_t m = n - i < 1000 ? n - i : 1000;
    paimon_error e2 = {0, ""};
    int rc = delete_batch(c, bucket, keys + i, m, results + i, &e2);
    if (rc && !first) {
      first = rc;
      if (err) *err = e2;
    }
  }
  return first;
}
