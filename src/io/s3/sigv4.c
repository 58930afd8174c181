/* io/s3/sigv4.c: AWS Signature Version 4, written from the AWS documentation
 * ("Create a signed AWS API request", "Signature Calculations for the Authorization
 * Header" of the S3 API reference). */
#include "io/s3/sigv4.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#define SIGV4_MAX_HEADERS 32
#define SIGV4_MAX_QUERY 64

static const char HEX[] = "0123456789abcdef";

static void to_hex(char *out, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = HEX[p[i] >> 4];
    out[2 * i + 1] = HEX[p[i] & 15];
  }
  out[2 * n] = 0;
}

int pm_sha256_hex(char out[65], const void *data, size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(data, n, md, &len, EVP_sha256(), NULL) || len != 32) return PAIMON_EIO;
  to_hex(out, md, 32);
  return 0;
}

int pm_md5_base64(char out[25], const void *data, size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(data, n, md, &len, EVP_md5(), NULL) || len != 16) return PAIMON_EIO;
  if (EVP_EncodeBlock((unsigned char *)out, md, 16) != 24) return PAIMON_EIO;
  return 0;
}

void pm_sigv4_amz_date(char out[17], int64_t epoch_seconds) {
  time_t t = (time_t)epoch_seconds;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static int hmac(unsigned char out[32], const void *key, size_t klen, const void *msg, size_t n) {
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key, (int)klen, msg, n, out, &len) || len != 32) return PAIMON_EIO;
  return 0;
}

int pm_sigv4_uri_encode(pm_buf *out, const char *s, size_t n, bool keep_slash) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      PM_TRY(pm_buf_append(out, &c, 1));
    } else {
      char e[3] = {'%', "0123456789ABCDEF"[c >> 4], "0123456789ABCDEF"[c & 15]};
      PM_TRY(pm_buf_append(out, e, 3));
    }
  }
  return 0;
}

typedef struct hdr {
  char name[64];
  const char *value;
} hdr;

static int hdr_cmp(const void *a, const void *b) {
  return strcmp(((const hdr *)a)->name, ((const hdr *)b)->name);
}

/* A header value trimmed, with each run of inner spaces written as one. */
static int append_trimmed(pm_buf *b, const char *v) {
  while (*v == ' ' || *v == '\t') v++;
  size_t n = strlen(v);
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
  bool space = false;
  for (size_t i = 0; i < n; i++) {
    if (v[i] == ' ' || v[i] == '\t') {
      space = true;
      continue;
    }
    if (space) PM_TRY(pm_buf_append(b, " ", 1));
    space = false;
    PM_TRY(pm_buf_append(b, v + i, 1));
  }
  return 0;
}

typedef struct qpart {
  const char *k;
  size_t klen;
  const char *v;
  size_t vlen;
} qpart;

static int qpart_cmp(const void *a, const void *b) {
  const qpart *x = a, *y = b;
  size_t n = x->klen < y->klen ? x->klen : y->klen;
  int c = memcmp(x->k, y->k, n);
  if (c) return c;
  if (x->klen != y->klen) return x->klen < y->klen ? -1 : 1;
  n = x->vlen < y->vlen ? x->vlen : y->vlen;
  c = memcmp(x->v, y->v, n);
  if (c) return c;
  return x->vlen == y->vlen ? 0 : (x->vlen < y->vlen ? -1 : 1);
}

/* The canonical query: parameters sorted by name then value, "k=" for a bare name. */
static int canonical_query(pm_buf *b, const char *q, paimon_error *err) {
  if (!q || !*q) return 0;
  qpart parts[SIGV4_MAX_QUERY];
  size_t np = 0;
  for (const char *p = q; *p;) {
    const char *e = strchr(p, '&');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len) {
      if (np == SIGV4_MAX_QUERY)
        return pm_fail(err, PAIMON_EINVAL, "sigv4: more than %d query parameters", SIGV4_MAX_QUERY);
      const char *eq = memchr(p, '=', len);
      parts[np].k = p;
      parts[np].klen = eq ? (size_t)(eq - p) : len;
      parts[np].v = eq ? eq + 1 : p + len;
      parts[np].vlen = eq ? len - parts[np].klen - 1 : 0;
      np++;
    }
    p += len;
    if (*p == '&') p++;
  }
  qsort(parts, np, sizeof parts[0], qpart_cmp);
  for (size_t i = 0; i < np; i++) {
    if (i) PM_TRY(pm_buf_append(b, "&", 1));
    PM_TRY(pm_buf_append(b, parts[i].k, parts[i].klen));
    PM_TRY(pm_buf_append(b, "=", 1));
    PM_TRY(pm_buf_append(b, parts[i].v, parts[i].vlen));
  }
  return 0;
}

void pm_sigv4_result_free(pm_sigv4_result *r) {
  if (!r) return;
  pm_free(r->canonical_request);
  pm_free(r->string_to_sign);
  pm_free(r->authorization);
  r->canonical_request = r->string_to_sign = r->authorization = NULL;
}

static int sign_impl(pm_sigv4_result *out, const pm_sigv4_request *req,
                     const pm_sigv4_credentials *c, pm_buf *cr, pm_buf *sts, paimon_error *err) {
  if (!c->amz_date || strlen(c->amz_date) != 16 || c->amz_date[8] != 'T')
    return pm_fail(err, PAIMON_EINVAL, "sigv4: malformed x-amz-date '%s'",
                   c->amz_date ? c->amz_date : "");
  if (req->nheaders > SIGV4_MAX_HEADERS)
    return pm_fail(err, PAIMON_EINVAL, "sigv4: more than %d headers", SIGV4_MAX_HEADERS);
  hdr hs[SIGV4_MAX_HEADERS];
  for (size_t i = 0; i < req->nheaders; i++) {
    size_t n = strlen(req->headers[i].name);
    if (n >= sizeof hs[i].name) return pm_fail(err, PAIMON_EINVAL, "sigv4: header name too long");
    for (size_t j = 0; j <= n; j++)
      hs[i].name[j] = (char)tolower((unsigned char)req->headers[i].name[j]);
    hs[i].value = req->headers[i].value ? req->headers[i].value : "";
  }
  /* a stable sort keeps repeated headers in the order they were given */
  for (size_t i = 1; i < req->nheaders; i++)
    for (size_t j = i; j > 0 && hdr_cmp(&hs[j - 1], &hs[j]) > 0; j--) {
      hdr t = hs[j];
      hs[j] = hs[j - 1];
      hs[j - 1] = t;
    }
  /* 1. canonical request */
  PM_TRY(pm_buf_printf(cr, "%s\n%s\n", req->method, req->path && *req->path ? req->path : "/"));
  PM_TRY(canonical_query(cr, req->query, err));
  PM_TRY(pm_buf_append(cr, "\n", 1));
  size_t sh = 0;
  out->signed_headers[0] = 0;
  for (size_t i = 0; i < req->nheaders; i++) {
    bool repeat = i > 0 && strcmp(hs[i].name, hs[i - 1].name) == 0;
    if (repeat) {
      PM_TRY(pm_buf_append(cr, ",", 1));
    } else {
      if (i) PM_TRY(pm_buf_append(cr, "\n", 1));
      PM_TRY(pm_buf_printf(cr, "%s:", hs[i].name));
      int w = snprintf(out->signed_headers + sh, sizeof out->signed_headers - sh, "%s%s",
                       sh ? ";" : "", hs[i].name);
      if (w < 0 || (size_t)w >= sizeof out->signed_headers - sh)
        return pm_fail(err, PAIMON_EINVAL, "sigv4: signed header list too long");
      sh += (size_t)w;
    }
    PM_TRY(append_trimmed(cr, hs[i].value));
  }
  PM_TRY(pm_buf_printf(cr, "\n\n%s\n%s", out->signed_headers, req->payload_hash));
  /* 2. string to sign */
  char crhash[65];
  if (pm_sha256_hex(crhash, cr->data, cr->len))
    return pm_fail(err, PAIMON_EIO, "sigv4: SHA-256 failed");
  char date[9];
  memcpy(date, c->amz_date, 8);
  date[8] = 0;
  PM_TRY(pm_buf_printf(sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", c->amz_date, date,
                       c->region, c->service, crhash));
  /* 3. signing key, 4. signature */
  unsigned char k[32], k2[32];
  char *seed = pm_asprintf("AWS4%s", c->secret_key);
  if (!seed) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  int bad = hmac(k, seed, strlen(seed), date, 8);
  OPENSSL_cleanse(seed, strlen(seed));
  pm_free(seed);
  bad = bad || hmac(k2, k, 32, c->region, strlen(c->region));
  bad = bad || hmac(k, k2, 32, c->service, strlen(c->service));
  bad = bad || hmac(k2, k, 32, "aws4_request", 12);
  bad = bad || hmac(k, k2, 32, sts->data, sts->len);
  OPENSSL_cleanse(k2, sizeof k2);
  if (bad) return pm_fail(err, PAIMON_EIO, "sigv4: HMAC-SHA256 failed");
  to_hex(out->signature, k, 32);
  out->authorization = pm_asprintf(
      "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
      "Signature=%s",
      c->access_key, date, c->region, c->service, out->signed_headers, out->signature);
  if (!out->authorization) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  return 0;
}

int pm_sigv4_sign(pm_sigv4_result *out, const pm_sigv4_request *req,
                  const pm_sigv4_credentials *cred, paimon_error *err) {
  memset(out, 0, sizeof *out);
  pm_buf cr = {0}, sts = {0};
  int rc = sign_impl(out, req, cred, &cr, &sts, err);
  if (rc == 0) {
    out->canonical_request = pm_buf_detach(&cr);
    out->string_to_sign = pm_buf_detach(&sts);
    if (!out->canonical_request || !out->string_to_sign)
      rc = pm_fail(err, PAIMON_ENOMEM, "out of memory");
  }
  pm_buf_free(&cr);
  pm_buf_free(&sts);
  if (rc) pm_sigv4_result_free(out);
  return rc;
}
