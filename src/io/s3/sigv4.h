/* io/s3/sigv4.h: AWS Signature Version 4 (header signing) over OpenSSL libcrypto, and
 * the hashes the S3 client needs (SHA-256 hex, MD5 base64).
 *
 * The algorithm: docs.aws.amazon.com "Create a signed AWS API request" (canonical request,
 * string to sign, signing key, signature); S3's variant encodes the path once (no double
 * encoding) and signs x-amz-content-sha256. Every function here is pure and thread-safe. */
#ifndef PM_IO_S3_SIGV4_H
#define PM_IO_S3_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* One request header as sent; names in any case, values untrimmed. */
typedef struct pm_sigv4_header {
  const char *name;
  const char *value;
} pm_sigv4_header;

typedef struct pm_sigv4_request {
  const char *method;             /* "GET", "PUT", ... */
  const char *path;               /* URI-encoded absolute path as sent, e.g. "/bucket/a%20b" */
  const char *query;              /* encoded query as sent without '?', "k=v&k2" (nullable) */
  const pm_sigv4_header *headers; /* the headers to sign (host and x-amz-date included) */
  size_t nheaders;
  const char *payload_hash; /* hex SHA-256 of the body, or "UNSIGNED-PAYLOAD" */
} pm_sigv4_request;

typedef struct pm_sigv4_credentials {
  const char *access_key;
  const char *secret_key;
  const char *region;   /* "us-east-1" */
  const char *service;  /* "s3" */
  const char *amz_date; /* "YYYYMMDDTHHMMSSZ" */
} pm_sigv4_credentials;

/* Every intermediate of one signature, so tests can compare each step. */
typedef struct pm_sigv4_result {
  char *canonical_request; /* pm_malloc'd */
  char *string_to_sign;    /* pm_malloc'd */
  char *authorization;     /* pm_malloc'd: the Authorization header value */
  char signed_headers[512];
  char signature[65]; /* hex */
} pm_sigv4_result;

/* Signs `req`. `out` is filled on success and must be released with pm_sigv4_result_free
 * (also safe after a failure). PAIMON_EINVAL for a malformed date or too many headers,
 * PAIMON_ENOMEM, PAIMON_EIO when libcrypto fails. */
int pm_sigv4_sign(pm_sigv4_result *out, const pm_sigv4_request *req,
                  const pm_sigv4_credentials *cred, paimon_error *err);
void pm_sigv4_result_free(pm_sigv4_result *r);

/* Appends `s[0..n)` percent-encoded as S3 wants: every byte but A-Z a-z 0-9 - _ . ~ (and
 * '/' when keep_slash) becomes %XX with upper-case hex. */
int pm_sigv4_uri_encode(pm_buf *out, const char *s, size_t n, bool keep_slash);

/* Hex SHA-256 of data (65 bytes with the NUL). 0 or PAIMON_EIO. */
int pm_sha256_hex(char out[65], const void *data, size_t n);
/* Base64 of the MD5 of data (25 bytes with the NUL), for Content-MD5. 0 or PAIMON_EIO. */
int pm_md5_base64(char out[25], const void *data, size_t n);
/* Formats epoch seconds as "YYYYMMDDTHHMMSSZ" (17 bytes with the NUL). */
void pm_sigv4_amz_date(char out[17], int64_t epoch_seconds);

#endif
