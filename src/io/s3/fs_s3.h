/* io/s3/fs_s3.h: the built-in S3 file system (paimon_fs ABI version 2) and the choice of a
 * file system by a path's URL scheme. */
#ifndef PM_IO_S3_FS_S3_H
#define PM_IO_S3_FS_S3_H

#include <paimon/options.h>

#include "io/io.h"

/* True when `path` names an object (s3://, s3a://, s3n:// or oss://). */
bool pm_path_is_object_store(const char *path);

/* Creates an S3 file system for the bucket of `path` (any s3/s3a/s3n/oss URL). Options
 * (nullable `opts`, Java Paimon's names; never written to a schema): s3.endpoint,
 * s3.endpoint.region, s3.access-key, s3.secret-key, s3.session.token,
 * s3.path.style.access, s3.connection.ssl.enabled, s3.multipart.size (alias
 * s3.upload.part-size), s3.attempts.maximum, s3.connection.timeout (ms),
 * s3.request.timeout (ms); for oss:// also fs.oss.endpoint, fs.oss.accessKeyId,
 * fs.oss.accessKeySecret, fs.oss.securityToken. Unset options fall back to the
 * environment: AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION.
 * `*out` is freed with paimon_fs_free(). Thread-safe. */
int pm_fs_s3_new(paimon_fs **out, const char *path, const paimon_options *opts, paimon_error *err);

/* The file system for a table path or warehouse: the local one for a plain path or
 * file:, the S3 one for s3/s3a/s3n/oss, PAIMON_EUNSUPPORTED naming any other scheme.
 * `*out` is the caller's (paimon_fs_free()). */
int pm_fs_for_path(paimon_fs **out, const char *path, const paimon_options *opts,
                   paimon_error *err);

/* True for an option key that configures a file system (s3.*, fs.oss.*, fs.s3a.*): such
 * keys are connection settings, never table options written into a schema. */
bool pm_fs_option_key(const char *key);

/* Statistics of an S3 file system (requests sent, retries, body bytes); PAIMON_EINVAL
 * when `fs` is not one. For tests. */
int pm_fs_s3_stats(const paimon_fs *fs, int64_t *requests, int64_t *retries, int64_t *bytes_in);

#endif
