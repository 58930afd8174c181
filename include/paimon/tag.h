/**
 * @file
 * @brief Tags (named, retained snapshots) and rollback, following Java Paimon 1.4.1
 * (TagManager, Tag, TagTimeExpire, RollbackHelper, AbstractFileStoreTable.rollbackTo).
 *
 * A tag is the file tag/tag-NAME of the table's branch: the tagged snapshot's JSON, plus,
 * when the tag has a retention time, "tagCreateTime" (local date-time as Jackson writes a
 * LocalDateTime: [year, month, day, hour, minute, second, nanosecond], trailing zero
 * second and nanosecond dropped) and "tagTimeRetained" (seconds with nine decimals). A
 * tag keeps the files of its snapshot readable after snapshot expiration deleted the
 * snapshot file itself.
 *
 * Thread safety: every call reads the table's metadata afresh. Tag calls may run while
 * writers commit. A rollback must not run concurrently with commits, expiration or another
 * rollback of the same table (as in Java, nothing locks against them).
 */
#ifndef PAIMON_TAG_H
#define PAIMON_TAG_H

#include "scan.h"
#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What paimon_table_tag_info() reports of one tag. Versioned: the caller sets
 * `struct_size` (#PAIMON_TAG_INFO_INIT); fields past it are not written. */
typedef struct paimon_tag_info {
  size_t struct_size;           /**< sizeof(paimon_tag_info) as the caller compiled it */
  int64_t snapshot_id;          /**< id of the tagged snapshot */
  int64_t schema_id;            /**< schema the snapshot's data was written with */
  int64_t commit_time_millis;   /**< the snapshot's commit time, epoch milliseconds */
  int64_t total_record_count;   /**< rows of the snapshot, -1 when not recorded */
  int64_t time_retained_millis; /**< retention in milliseconds, -1 when none */
  int snapshot_exists;          /**< non-zero while snapshot/snapshot-N still exists */
  char create_time[40];         /**< "YYYY-MM-DDTHH:MM[:SS[.fffffffff]]" (local time, as
                                     LocalDateTime.toString), "" when the tag has no retention */
} paimon_tag_info;

/** Initializer of paimon_tag_info: struct_size set, everything else zero. */
#define PAIMON_TAG_INFO_INIT                         \
  {                                                  \
    sizeof(paimon_tag_info), 0, 0, 0, 0, 0, 0, { 0 } \
  }

/** Creates tag `name` of snapshot `snapshot_id` (or #PAIMON_SNAPSHOT_LATEST) as Java's
 * TagManager.createTag: the snapshot may also be one that only a tag still holds
 * (AbstractFileStoreTable.findSnapshot). The retention is `time_retained` when non-NULL
 * (a duration such as "1 h", "30 min", "7 d"; a bare number is milliseconds), else the
 * table option "tag.default-time-retained", else none (then the file is the snapshot JSON
 * alone, as Java writes it). The file is written atomically and never replaces an
 * existing tag.
 * @param snapshot_id_out nullable; receives the tagged snapshot's id.
 * @param t               the table (its branch, if opened on one).
 * @param name            tag name: non-blank, one path component (no '/'), at most 200 bytes.
 * @param snapshot_id     positive id or #PAIMON_SNAPSHOT_LATEST.
 * @param time_retained   nullable retention duration.
 * @param err             nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad name, id or duration), #PAIMON_ECONFLICT (the tag
 *         exists), #PAIMON_ENOTFOUND (no such snapshot, or an empty table), #PAIMON_EIO,
 *         #PAIMON_ECORRUPT. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_create_tag(int64_t *snapshot_id_out, const paimon_table *t,
                                       const char *name, int64_t snapshot_id,
                                       const char *time_retained, paimon_error *err);

/** Deletes tag `name` (its tag file only). Files that only the tag kept are left to
 * snapshot expiration (when its snapshot still exists) or orphan cleaning
 * (paimon_table_remove_orphan_files()), so a deletion never removes a file another
 * snapshot or tag still needs.
 * @param t    the table.
 * @param name tag name.
 * @param err  nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad name), #PAIMON_ENOTFOUND (no such tag),
 *         #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_delete_tag(const paimon_table *t, const char *name, paimon_error *err);

/** Names of every tag of the table's branch, ordered by snapshot id, then name.
 * @param names receives the array of names (NULL when there is none), freed with
 *              paimon_tag_names_free().
 * @param n     receives the number of tags.
 * @param t     the table.
 * @param err   nullable error details.
 * @return #PAIMON_OK, #PAIMON_EIO, #PAIMON_ECORRUPT (a malformed tag file, named),
 *         #PAIMON_ENOMEM. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_list_tags(char ***names, size_t *n, const paimon_table *t,
                                      paimon_error *err);

/** Frees the names of paimon_table_list_tags().
 * @param names the array, or NULL (ignored).
 * @param n     its length. */
PAIMON_API void paimon_tag_names_free(char **names, size_t n);

/** Describes tag `name`.
 * @param out  caller-initialized (#PAIMON_TAG_INFO_INIT); filled up to its struct_size.
 * @param t    the table.
 * @param name tag name.
 * @param err  nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad name, or struct_size too small),
 *         #PAIMON_ENOTFOUND (no such tag), #PAIMON_ECORRUPT, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_tag_info(paimon_tag_info *out, const paimon_table *t, const char *name,
                                     paimon_error *err);

/** Expires tags as Java's TagTimeExpire and TagAutoCreation do: a tag with a creation time
 * and a retention is deleted once now (local time) is after creation + retention; and
 * when the table option "tag.num-retained-max" is set, the oldest auto-created tags (names
 * in the form of "tag.creation-period" and "tag.period-formatter", e.g. "2024-05-01" for
 * daily tags) beyond that many are deleted. Other tags are never expired. Deletion is that
 * of paimon_table_delete_tag().
 * @param expired_out nullable; receives the number of tags deleted.
 * @param t           the table.
 * @param opts        nullable options overriding the table's ("tag.num-retained-max",
 *                    "tag.creation-period", "tag.period-formatter").
 * @param err         nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad option), #PAIMON_EIO, #PAIMON_ECORRUPT. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_expire_tags(int64_t *expired_out, const paimon_table *t,
                                        const paimon_options *opts, paimon_error *err);

/** Makes `s` read tag `name`'s snapshot with that snapshot's schema, also after snapshot
 * expiration deleted snapshot/snapshot-N (Java: scan.tag-name). The tag file is read
 * here; a later paimon_scan_set_snapshot() replaces the choice.
 * @param s    the scan.
 * @param name tag name.
 * @param err  nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL (bad name), #PAIMON_ENOTFOUND (no such tag),
 *         #PAIMON_ECORRUPT, #PAIMON_EIO. */
PAIMON_NODISCARD
PAIMON_API int paimon_scan_set_tag(paimon_scan *s, const char *name, paimon_error *err);

/** paimon_table_rollback_to_snapshot() / _to_tag() flag: roll back even though snapshots
 * to be removed carry real-time progress (committed offsets) beyond the target. */
#define PAIMON_ROLLBACK_FORCE 1

/** Rolls the table back to snapshot `snapshot_id` with Java 1.4.1's rules (RollbackHelper):
 * the LATEST hint is rewritten, every later snapshot is deleted from the newest down, then
 * the later long-lived changelogs and the tags of later snapshots. Data files, manifests
 * and offsets files are left to orphan cleaning (never deleted here), so whatever a
 * remaining snapshot or tag references stays. A snapshot that only a tag still holds is
 * rolled back to as that tag (paimon_table_rollback_to_tag()).
 *
 * Refused (#PAIMON_ESTATE) when a snapshot to be removed carries real-time offsets beyond
 * those committed as of the target (a real-time context would lose committed progress),
 * unless `flags` has #PAIMON_ROLLBACK_FORCE. Real-time contexts opened before a rollback
 * detect it and refuse to continue (PAIMON_ESTATE from paimon_realtime_refresh or
 * paimon_realtime_commit); build a new one.
 *
 * Crash safety: an interruption at any point leaves a readable table (the snapshots left
 * are a contiguous range with intact metadata) and calling again completes the rollback.
 * @param t           the table.
 * @param snapshot_id positive id.
 * @param flags       0 or #PAIMON_ROLLBACK_FORCE.
 * @param err         nullable error details.
 * @return #PAIMON_OK, #PAIMON_EINVAL, #PAIMON_ENOTFOUND (no such snapshot or tag),
 *         #PAIMON_ESTATE (see above), #PAIMON_EIO, #PAIMON_ECORRUPT. */
PAIMON_NODISCARD
PAIMON_API int paimon_table_rollback_to_snapshot(const paimon_table *t, int64_t snapshot_id,
                                                 int flags, paimon_error *err);

/** Rolls the table back to tag `name`'s snapshot as paimon_table_rollback_to_snapshot()
 * does; when snapshot expiration has deleted that snapshot's file, it is written back from
 * the tag (and the EARLIEST hint set to it), as Java's
 * RollbackHelper.createSnapshotFileIfNeeded. The tag itself stays.
 * @param t     the table.
 * @param name  tag name.
 * @param flags 0 or #PAIMON_ROLLBACK_FORCE.
 * @param err   nullable error details.
 * @return as paimon_table_rollback_to_snapshot(). */
PAIMON_NODISCARD
PAIMON_API int paimon_table_rollback_to_tag(const paimon_table *t, const char *name, int flags,
                                            paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
