/* manage/manage_internal.h: what tag.c and rollback.c share (tag files and their
 * fields). Java Paimon 1.4.1: org.apache.paimon.tag.Tag, utils.TagManager. */
#ifndef PM_MANAGE_INTERNAL_H
#define PM_MANAGE_INTERNAL_H

#include <paimon/tag.h>

#include "table/refs_internal.h"

#define PM_TAG_NAME_MAX 200

/* A Java LocalDateTime: wall-clock fields without a zone. */
typedef struct pm_local_time {
  int32_t year, month, day, hour, minute, second, nano;
} pm_local_time;

/* One tag file, parsed. */
typedef struct pm_tag {
  char *name;        /* without "tag-" */
  pm_snapshot *snap; /* the snapshot fields (the JSON kept in snap->json) */
  bool has_create_time;
  pm_local_time create_time;
  bool has_retained;
  int64_t retained_sec; /* Duration seconds and nanos (nanos in [0, 1e9)) */
  int32_t retained_nano;
} pm_tag;

/* EINVAL unless `name` is a usable tag name (non-blank, one safe path component,
 * at most PM_TAG_NAME_MAX bytes, no control characters). */
int pm_tag_check_name(const char *name, paimon_error *err);
/* Path of tag/tag-<name> of the table's branch (owned). */
int pm_tag_path(char **out, const paimon_table *t, const char *name, paimon_error *err);
/* Reads tag `name`: PAIMON_ENOTFOUND naming it when absent, ECORRUPT for a bad file. */
int pm_tag_load(pm_tag *out, const paimon_table *t, const char *name, paimon_error *err);
/* Parses a tag file's text (Tag.fromJson: the snapshot plus the optional tag fields). */
int pm_tag_parse(pm_tag *out, const char *name, const char *json, size_t len, paimon_error *err);
void pm_tag_reset(pm_tag *tag);
/* Every tag of the table's branch, sorted by snapshot id then name; a file removed while
 * listing is skipped (TagManager.tags). pm_tags_free the result. */
int pm_tag_list(pm_tag **out, size_t *n, const paimon_table *t, paimon_error *err);
void pm_tags_free(pm_tag *v, size_t n);
/* Deletes the tag file; PAIMON_ENOTFOUND when absent. */
int pm_tag_remove(const paimon_table *t, const char *name, paimon_error *err);

/* The tag file's text as Java 1.4.1 writes it (TagManager.createOrReplaceTag): the
 * snapshot in Snapshot's key set and order, plus tagCreateTime and tagTimeRetained when
 * `tag` has a retention (Tag.fromSnapshotAndTagTtl), else the snapshot alone. Also the
 * snapshot file a rollback writes back (Tag.trimToSnapshot().toJson()) when `tag` is
 * NULL. pm_free the result; NULL when out of memory. */
char *pm_tag_to_json(const pm_snapshot *snap, const pm_tag *tag);

#endif
