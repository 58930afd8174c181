/* table/table_internal.h: the table object, plans and splits shared by the table layer. */
#ifndef PM_TABLE_INTERNAL_H
#define PM_TABLE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <paimon/scan.h>
#include <paimon/table.h>

#include "io/io.h"
#include "meta/meta.h"

struct paimon_table {
  atomic_int refs;
  paimon_fs *fs;
  bool own_fs;
  char *path;        /* table root as given */
  char *root;        /* table root, scheme stripped for the local fs */
  char *branch;      /* NULL for main */
  char *meta_dir;    /* root, or root/branch/branch-<b>, holding schema/ and snapshot/ */
  pm_schema *schema; /* latest schema of meta_dir */
  int32_t nremaps;
  size_t remap_from_cap, remap_to_cap;
  char **remap_from;
  char **remap_to;
  int64_t batch_size;
  int read_threads;            /* read.threads: workers decoding a stream's splits (1 = none) */
  bool read_ordered;           /* read.ordered: parallel streams keep the serial order */
  char *fallback_branch;       /* scan.fallback-branch, when followed */
  pthread_mutex_t schema_lock; /* guards the parsed-schema cache below */
  size_t nschemas, schemas_cap;
  pm_schema **schemas;   /* parsed schemas of meta_dir, shared (pm_schema_ref) */
  const char **pk_names; /* borrowed from schema */
  const char **part_names;
};

void pm_table_ref(paimon_table *t);
/* Option from the table schema, or `def`. */
const char *pm_table_opt(const paimon_table *t, const char *key, const char *def);
int64_t pm_table_opt_i64(const paimon_table *t, const char *key, int64_t def);
/* A boolean option as Java reads it (any case; pm_core_schema_bool): `def` when absent
 * or not a boolean. */
bool pm_table_opt_bool(const paimon_table *t, const char *key, bool def);
/* Loads schema `id` of the table's meta dir (or of `branch` when non-NULL). */
int pm_table_load_schema(const paimon_table *t, const char *branch, int64_t id, pm_schema **out,
                         paimon_error *err);
/* Resolves where data file `f` of partition path `part_path` and `bucket` lives,
 * applying remaps and refusing paths outside the table root and the remap targets. */
int pm_table_data_path(const paimon_table *t, const char *part_path, int32_t bucket,
                       const char *file_name, const char *external_path, char **out,
                       paimon_error *err);
/* Partition path ("k=v/..." with the table's partition.default-name and
 * partition.legacy-name) of a serialized partition row; `ptype` is
 * pm_schema_partition_type(t->schema). pm_free *out. */
int pm_table_partition_path(const paimon_table *t, const pm_type *ptype, const uint8_t *part,
                            size_t plen, char **out, paimon_error *err);
/* EINVAL naming the column when a directory name of `part_path` (from pm_partition_path
 * over `ptype`) exceeds the 255-byte file-name limit (NAME_MAX on Linux, HDFS's default
 * max-component-length), so a writer refuses the row before touching the path. */
int pm_partition_path_check(const pm_type *ptype, const char *part_path, paimon_error *err);
/* The checks of table creation (Java's SchemaValidation.validateTableSchema, the subset
 * this library enforces) on a complete schema: also run on every ALTER TABLE result
 * (create.c). PAIMON_EINVAL naming the column or option. */
int pm_schema_validate_table(const pm_schema *s, paimon_error *err);
/* Directory of the metadata of `branch` (NULL = the table's own). pm_free the result. */
char *pm_table_branch_dir(const paimon_table *t, const char *branch);

/* Deletion vector reference for one data file. */
typedef struct pm_dv_ref {
  char *index_path; /* NULL when the file has none */
  int64_t offset;
  int64_t length;
  int64_t cardinality;
} pm_dv_ref;

struct paimon_split {
  int64_t snapshot_id;
  int64_t schema_id;  /* schema of the snapshot (result schema) */
  char *branch;       /* branch whose schemas the files use; NULL = table's own */
  uint8_t *partition; /* serialized BinaryRow */
  size_t partition_len;
  char *partition_str;
  int32_t bucket;
  int32_t total_buckets;
  bool primary_key;
  bool raw_convertible; /* primary key: one sorted run without retracts; read without merging */
  size_t nfiles, files_cap;
  pm_data_file *files;
  char **paths;            /* resolved path per file */
  pm_dv_ref *dvs;          /* per file */
  struct pm_mem_part *mem; /* pinned real-time memory rows; NULL for disk-only splits */
};

struct paimon_plan {
  paimon_table *table;
  int64_t snapshot_id;
  pm_schema *schema; /* schema of the snapshot */
  size_t nsplits, splits_cap;
  paimon_split **splits;
};

void pm_split_free(paimon_split *s);

/* Identifier of a file entry, as Java's FileEntry.Identifier: partition (hex), bucket,
 * level, file name and external path joined by '|'. An ADD and the DELETE that removes
 * it share it. Owned; NULL when out of memory. */
char *pm_entry_identifier(const pm_manifest_entry *e);

#endif
