/* io/s3/s3_client.h: a small S3 REST client over libcurl, signed with io/s3/sigv4.
 *
 * Thread-safe: one client serves any number of threads; curl easy handles are kept in a
 * small pool so connections are reused. Every call retries with capped exponential
 * backoff and full jitter on connection errors, HTTP 5xx (503 SlowDown included) and 429,
 * never on other 4xx. Errors name the bucket, key, method, HTTP status and the S3 error
 * code from the XML body: PAIMON_ENOTFOUND for 404, PAIMON_ECONFLICT for 412 (a
 * conditional write that lost), PAIMON_ESTORAGE for 403 (AccessDenied,
 * SignatureDoesNotMatch, ...), PAIMON_EUNSUPPORTED for 501, else PAIMON_EIO. */
#ifndef PM_IO_S3_CLIENT_H
#define PM_IO_S3_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

typedef struct pm_s3_config {
  const char *endpoint; /* "http(s)://host[:port]"; NULL: https://s3.<region>.amazonaws.com */
  const char *region;   /* NULL: us-east-1 */
  const char *access_key;
  const char *secret_key;
  const char *session_token; /* nullable */
  int path_style;            /* 1 path-style, 0 virtual-host, -1 auto (path for IP/localhost) */
  bool verify_tls;           /* HTTPS certificate and host checks */
  long connect_timeout_ms;   /* 0: 10 s */
  long request_timeout_ms;   /* 0: 300 s for the whole request */
  int max_retries;           /* < 0: 6 */
  long retry_base_ms;        /* 0: 100 */
  long retry_cap_ms;         /* 0: 5000 */
} pm_s3_config;

typedef struct pm_s3_client pm_s3_client;

/* Copies `cfg`. PAIMON_EINVAL for a malformed endpoint or missing credentials. */
int pm_s3_client_new(pm_s3_client **out, const pm_s3_config *cfg, paimon_error *err);
void pm_s3_client_free(pm_s3_client *c);
/* "scheme://host[:port]" the client talks to (borrowed). */
const char *pm_s3_client_endpoint(const pm_s3_client *c);

/* Request counters (for tests and diagnostics). */
typedef struct pm_s3_stats {
  int64_t requests; /* HTTP requests sent, retries included */
  int64_t retries;
  int64_t bytes_in; /* response body bytes */
} pm_s3_stats;
void pm_s3_client_stats(const pm_s3_client *c, pm_s3_stats *out);

/* HEAD: size and Last-Modified (epoch millis), both nullable. */
int pm_s3_head(pm_s3_client *c, const char *bucket, const char *key, int64_t *size,
               int64_t *mtime_ms, paimon_error *err);

/* GET Range bytes=off-(off+n-1) into buf (n > 0). The response's Content-Range must start
 * at `off` and end inside what was asked (PAIMON_EIO otherwise: a store answering another
 * range is never trusted). *got < n only at the end of the object; an offset at or past
 * the end gives *got = 0. `total` (nullable) receives the object size when known. */
int pm_s3_get_range(pm_s3_client *c, const char *bucket, const char *key, int64_t off, size_t n,
                    void *buf, size_t *got, int64_t *total, paimon_error *err);

/* GET Range bytes=-n: the last min(n, size) bytes and the object size. PAIMON_EUNSUPPORTED
 * when the store answered another range (it does not support suffix ranges). */
int pm_s3_get_suffix(pm_s3_client *c, const char *bucket, const char *key, size_t n, void *buf,
                     size_t *got, int64_t *total, paimon_error *err);

/* PUT; with if_none_match, "If-None-Match: *" (PAIMON_ECONFLICT when the key exists). */
int pm_s3_put(pm_s3_client *c, const char *bucket, const char *key, const void *data, size_t n,
              bool if_none_match, paimon_error *err);

/* Multipart upload. upload_id and etag are pm_malloc'd. Parts are numbered from 1. */
int pm_s3_mpu_create(pm_s3_client *c, const char *bucket, const char *key, char **upload_id,
                     paimon_error *err);
int pm_s3_mpu_upload_part(pm_s3_client *c, const char *bucket, const char *key,
                          const char *upload_id, int part, const void *data, size_t n, char **etag,
                          paimon_error *err);
int pm_s3_mpu_complete(pm_s3_client *c, const char *bucket, const char *key, const char *upload_id,
                       char *const *etags, int nparts, paimon_error *err);
int pm_s3_mpu_abort(pm_s3_client *c, const char *bucket, const char *key, const char *upload_id,
                    paimon_error *err);

/* One ListObjectsV2 entry: an object (is_prefix 0, with size and LastModified millis) or a
 * common prefix (is_prefix 1, ending in the delimiter). Non-zero stops the listing. */
typedef int (*pm_s3_list_cb)(const char *key, int is_prefix, int64_t size, int64_t mtime_ms,
                             void *payload);

/* ListObjectsV2 of `prefix` (nullable) with `delimiter` (nullable), every page followed
 * through continuation tokens. `max_keys` 0: the store's default page size. */
int pm_s3_list(pm_s3_client *c, const char *bucket, const char *prefix, const char *delimiter,
               int max_keys, pm_s3_list_cb cb, void *payload, paimon_error *err);

/* DELETE one key (S3 answers success for an absent key). */
int pm_s3_delete(pm_s3_client *c, const char *bucket, const char *key, paimon_error *err);

/* DeleteObjects (POST ?delete with Content-MD5), 1000 keys per request. results[i]
 * receives PAIMON_OK (removed or absent) or the failure; returns the first failure. */
int pm_s3_delete_many(pm_s3_client *c, const char *bucket, const char *const *keys, size_t n,
                      int *results, paimon_error *err);

/* Parsing helpers, exposed for the unit tests. */
int64_t pm_s3_parse_http_date(const char *s); /* RFC 7231 date; INT64_MIN when malformed */
int64_t pm_s3_parse_iso8601(const char *s);   /* "2024-01-02T03:04:05.678Z"; INT64_MIN */
/* "bytes A-B/T": 0 and the numbers (T -1 for "*"), else -1. */
int pm_s3_parse_content_range(const char *s, int64_t *a, int64_t *b, int64_t *t);

#endif
