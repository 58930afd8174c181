/* table/write_pk_internal.h: the state of the primary-key writer (pk_internal.h), shared
 * by its three files along the writer's own seams:
 *   write_pk.c         options and keys, buckets, buffering writes, prepare/compact calls;
 *   write_pk_flush.c   the rolling KeyValue file writer and level-0 flushes;
 *   write_pk_compact.c compaction tasks on the background thread and their results.
 * Thread safety: as pk_internal.h; only write_pk_compact.c's task code runs on the
 * compaction thread, and it touches a task, never the buckets or levels. */
#ifndef PM_TABLE_WRITE_PK_INTERNAL_H
#define PM_TABLE_WRITE_PK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "mergetree/compact.h"
#include "meta/kv_layout.h"
#include "table/pk_internal.h"
#include "table/read_internal.h"

/* ---- writer state --------------------------------------------------------------------- */

typedef struct pk_task pk_task;

typedef struct pk_bucket {
  uint8_t *part;
  size_t plen;
  char *part_path;
  int32_t bucket;
  /* write buffer: rows [0, nbuf) carry sequence numbers buf_base + i */
  pm_col *buf;
  pm_buf kinds;
  int64_t nbuf, buf_base;
  size_t buf_bytes;
  /* a buffer whose flush failed (retryable): kept until a flush succeeds */
  struct ArrowArray frozen;
  pm_buf frozen_kinds;
  int64_t frozen_n, frozen_base;
  size_t frozen_bytes;
  pm_mt_levels levels;
  pm_dfvec new_files, cbefore, cafter;
  pk_task *task;
  int compact_rc;
  char compact_msg[512];
} pk_bucket;

struct pm_pk_writer {
  paimon_table *t;
  char *commit_user;
  char uuid[37];
  atomic_llong counter;
  const pm_schema *schema;
  const pm_type *row;
  int32_t nf;
  pm_type *part_type;
  int32_t *part_idx;
  pm_type *bkey_type;
  int32_t *bkey_idx;
  pm_type *key_type; /* ROW of _KEY_<k> */
  int32_t nkeys;
  int32_t *key_idx; /* key field -> table column */
  const pm_type **key_types;
  pm_type *kv_type;
  pm_mt_keycmp kc;
  pm_mt_engine *engine;
  pm_core_options co; /* the table's options under the writer's (parsed once) */
  pm_format_write_opts wopts;
  int64_t min_file_size; /* files below it join compaction (target * small-file-ratio) */
  pm_mt_pick_opts pick;
  pk_bucket **bs;
  size_t nb, bs_cap;
  size_t total_buf;
  paimon_plan *plan;
  int64_t plan_snap;
  /* compaction thread */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thr;
  bool thr_started, stop;
  pk_task *qhead, *qtail;
  char *failed;
  pm_buf kindbuf, pbuf, kbuf;
  pm_mt_reducer *red;
};

struct pk_task {
  pk_task *next;
  pm_pk_writer *w;
  char *part_path;
  int32_t bucket;
  int32_t out_level;
  bool drop_delete;
  size_t ninputs;
  pm_data_file *inputs;
  pm_mt_plan plan;
  pm_dfvec before, after;
  char **written; /* paths of rewritten outputs (deleted when the task is dropped) */
  size_t nwritten, written_cap;
  int rc;
  paimon_error err;
  bool done;
  atomic_bool cancel;
};

/* A rolling KeyValue file writer: files of one partition-bucket and level, rolled at
 * target-file-size, with their key/value stats (write_pk_flush.c). */
typedef struct pm_pkw_kvw {
  pm_pk_writer *w;
  const char *part_path;
  int32_t bucket, level, source;
  pm_format_writer *fw;
  char *path, *name;
  int64_t rows, min_seq, max_seq, del_rows;
  pm_buf min_key, max_key;
  pm_col_acc *kacc, *vacc;
  pm_dfvec files;
  char **paths;
  size_t npaths, paths_cap;
} pm_pkw_kvw;

/* write_pk.c */
/* Records the writer as terminally failed (first reason kept); returns rc. */
int pm_pkw_fail_terminal(pm_pk_writer *w, int rc, paimon_error *err);
/* Deletes data file `f` of bucket `b` (errors ignored: cleanup). */
void pm_pkw_delete_file(pm_pk_writer *w, const pk_bucket *b, const pm_data_file *f);

/* write_pk_flush.c */
int pm_pkw_kvw_init(pm_pkw_kvw *o, pm_pk_writer *w, const char *part_path, int32_t bucket,
                    int32_t level, int32_t source, paimon_error *err);
/* Deletes everything written (current and finished files) and frees. */
void pm_pkw_kvw_abort(pm_pkw_kvw *o);
/* Frees after a successful close; the files stay (moved out by the caller). */
void pm_pkw_kvw_free(pm_pkw_kvw *o);
/* Finishes the open file into o->files (nothing open: no-op). */
int pm_pkw_kvw_finish(pm_pkw_kvw *o, paimon_error *err);
/* Writes `len` rows of KeyValue columns (nkeys keys, seq, kind, nf values). */
int pm_pkw_kvw_write(pm_pkw_kvw *o, struct ArrowArray **kv, int64_t len, paimon_error *err);
/* Java MergeTreeWriter.flushWriteBuffer(waitForLatestCompaction, forcedFullCompaction). */
int pm_pkw_flush_bucket(pm_pk_writer *w, pk_bucket *b, bool wait, bool full, paimon_error *err);

/* write_pk_compact.c */
void pm_pkw_task_free(pm_pk_writer *w, pk_task *tk, bool delete_outputs);
/* Stops and joins the compaction thread (cancelling running tasks). */
void pm_pkw_worker_stop(pm_pk_writer *w);
/* trySyncLatestCompaction: folds a finished task into the bucket (waiting when asked). */
int pm_pkw_sync_bucket(pm_pk_writer *w, pk_bucket *b, bool blocking, paimon_error *err);
/* Picks and submits a compaction of the bucket (full: everything into the max level). */
int pm_pkw_trigger(pm_pk_writer *w, pk_bucket *b, bool full, paimon_error *err);

#endif
