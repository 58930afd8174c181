/**
 * @file
 * @brief The real-time store plugin ABI (for implementers).
 *
 * A real-time store keeps the rows of ONE partition-bucket that were written but not yet
 * committed to disk, so that queries can union them with committed files. The library
 * owns one store per partition-bucket inside a real-time context; the built-in store
 * (columnar Arrow segments in memory) implements this same ABI and serves as the model
 * for custom stores.
 *
 * Batch layout. Every batch the library writes, and every batch a store returns, is a
 * struct ArrowArray whose children are, in order:
 *   _REALTIME_OFFSET  int64, non-null: the external, strictly increasing offset
 *   _SEQUENCE_NUMBER  int64, non-null       (primary-key mode only)
 *   _VALUE_KIND       int8: 0 +I, 1 -U, 2 +U, 3 -D (primary-key mode only)
 *   the table's columns (write schema) or, for query readers, the requested ones.
 * In primary-key mode every written batch is already sorted by the key columns, then
 * by _SEQUENCE_NUMBER; sequence numbers are unique and above everything on disk.
 *
 * Thread-safety contract (what the library guarantees / what the store must provide):
 * - write, seal_for_commit, advance_committed_offset: called by one thread at a time for
 *   a given store (the writer), but they may overlap with acquire_read_view,
 *   create_query_readers, memory_usage and view/segment/stream calls from other threads.
 * - acquire_read_view must not block behind a long operation and must return an
 *   immutable view: a snapshot of every row written so far (sealed and building).
 * - views, segments and the streams created from them stay valid after the store moves
 *   on (seal, advance, release of the store itself) until their own release.
 * - memory_usage may be called from any thread at any time.
 * - reserve and cancel_reservation (version 2) are writer-side calls like write.
 * - create_lookup_readers (version 3) is a reader-side call like create_query_readers:
 *   from any thread, concurrently with the writer and other readers.
 *
 * Versions. Every plugin struct declares the ABI version it was written against: the
 * factory and the store in their `version` field (1 up to PAIMON_REALTIME_STORE_VERSION
 * accepted; 0 or a future version is refused with PAIMON_EINVAL naming both, the factory
 * when the context is created, the store when `create` returns). Segments and views are
 * filled by the store into memory the library owns and zero-initialises; from version 3
 * they end with a `version` the store sets (normally its own version; a wrapper may pass
 * on its inner store's). The library accepts 1..PAIMON_REALTIME_STORE_VERSION there, and
 * 0 only from a store older than version 3 (which does not know the field); it refuses 0
 * from a newer store or an unknown value with PAIMON_EINVAL after releasing the segment
 * or view, so nothing leaks. Version 1 stores
 * end at `private_data`: the library never reads the later slots. Version 2 adds
 * `reserve` and `cancel_reservation` (both set, or both NULL for a store that cannot
 * reserve). A batch whose rows go to several partition-buckets is written all-or-nothing
 * only when every store involved can reserve; see paimon_realtime_writer_new() for what a
 * store that cannot reserve weakens. Version 3 adds the segment and view `version` and
 * `create_lookup_readers` (nullable): the library emulates a missing one with
 * `create_query_readers` and an exact key filter, so every store serves lookups. The
 * request handed to `create` carries the factory's declared version (capped at the
 * library's), so a factory written against version 1 sees 1. Plugin authors start from
 * paimon_realtime_store_factory_init() and paimon_realtime_store_init(), which zero the
 * struct up to the given version's layout and set `version`.
 *
 * A custom store is installed by passing a factory to paimon_realtime_context_new();
 * wrapping the built-in store (paimon_realtime_default_store_factory()) is the easiest
 * start (see examples/custom_store.c).
 */
#ifndef PAIMON_SYS_REALTIME_STORE_H
#define PAIMON_SYS_REALTIME_STORE_H

#include "../arrow.h"
#include "../error.h"
#include "../options.h"
#include "../predicate.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the real-time store ABI these headers describe. */
#define PAIMON_REALTIME_STORE_VERSION 3

/** Store modes (paimon_realtime_store_request.mode). */
enum {
  PAIMON_REALTIME_APPEND = 0,     /**< append table: rows kept in write order */
  PAIMON_REALTIME_PRIMARY_KEY = 1 /**< primary-key table: batches sorted by key, merged */
};

/** Half-open offset range [begin, end). */
typedef struct paimon_offset_range {
  int64_t begin; /**< first offset in the range */
  int64_t end;   /**< one past the last offset */
} paimon_offset_range;

/** Rows sealed for a commit (immutable). `release` is NULL when there was nothing to
 * seal. The library zero-initialises the struct before `seal_for_commit`. */
typedef struct paimon_realtime_segment {
  int64_t row_count;         /**< rows sealed */
  paimon_offset_range range; /**< from the first row's offset to the last one's + 1 */
  /** Frees the segment once the library has written it; NULL when empty. */
  void (*release)(struct paimon_realtime_segment *seg);
  void *private_data; /**< the store's state */
  /* ---- version 3 ---------------------------------------------------------------- */
  /** The ABI version the store filled the segment under, 1..PAIMON_REALTIME_STORE_VERSION:
   * set by stores of version 3 or later; left 0 by older ones. Checked on every
   * non-empty segment (an empty one, `release` NULL, needs nothing). */
  uint32_t version;
} paimon_realtime_segment;

/** An immutable view of every row the store held when it was acquired. The library
 * zero-initialises the struct before `acquire_read_view` and may copy it (by value)
 * while it is pinned. */
typedef struct paimon_realtime_view {
  int64_t row_count;  /**< rows visible in the view */
  int64_t end_offset; /**< last row's offset + 1; 0 when empty */
  /** Unpins the view (streams created from it keep their data alive). */
  void (*release)(struct paimon_realtime_view *view);
  void *private_data; /**< the store's state */
  /* ---- version 3 ---------------------------------------------------------------- */
  /** As paimon_realtime_segment.version: set by stores of version 3 or later, 0 from
   * older ones. Checked on every view. */
  uint32_t version;
} paimon_realtime_view;

/** Receives one stream from a store (moved in: the library releases it). Returns a
 * PAIMON_* status; on failure the store stops and returns that status. */
typedef int (*paimon_stream_sink)(void *payload, struct ArrowArrayStream *stream);

/** Parameters a store is created with. Pointers are valid during `create` only. */
typedef struct paimon_realtime_store_request {
  uint32_t version; /**< the factory's version, at most PAIMON_REALTIME_STORE_VERSION */
  int mode;         /**< PAIMON_REALTIME_APPEND or PAIMON_REALTIME_PRIMARY_KEY */
  const struct ArrowSchema *write_schema; /**< batch layout above (system columns first) */
  int32_t nkeys;                          /**< primary-key mode: number of key columns */
  const int32_t *key_columns;    /**< primary-key mode: key columns (indices into children) */
  const paimon_options *options; /**< table options overridden by the context's
                                      (e.g. realtime.store.max-memory) */
  const char *partition;         /**< "k=v/..." for messages */
  int32_t bucket;                /**< the store's bucket */
} paimon_realtime_store_request;

/** A store for the rows of one partition-bucket: fill every slot (see the file
 * description for the threading contract). Each function returns a PAIMON_* status and
 * fills `err` (nullable) on failure. */
typedef struct paimon_realtime_store {
  uint32_t version; /**< ABI version the store implements, 1..PAIMON_REALTIME_STORE_VERSION */
  /** Stores a batch (moved in: the store releases it) covering offsets `range`.
   * PAIMON_EFULL (retryable after prepare + commit) when at the memory budget; then
   * the batch is left untouched (still owned by the caller), as on any other failure.
   * A write that follows a successful `reserve` of the same batch consumes the
   * reservation (whatever its result) and must not fail with PAIMON_EFULL. */
  int (*write)(struct paimon_realtime_store *s, struct ArrowArray *batch, paimon_offset_range range,
               paimon_error *err);
  /** Seals everything written so far into `*out` and starts a new building segment.
   * Nothing to seal is not an error: out->release is then NULL. */
  int (*seal_for_commit)(struct paimon_realtime_store *s, paimon_realtime_segment *out,
                         paimon_error *err);
  /** Streams over every row of `seg` exactly once, in the batch layout. Append mode:
   * one stream in write order. Primary-key mode: one or more streams, each sorted by
   * key then sequence (sorted runs the library merges). Each stream goes to `sink`. */
  int (*create_commit_readers)(struct paimon_realtime_store *s, const paimon_realtime_segment *seg,
                               paimon_stream_sink sink, void *payload, paimon_error *err);
  /** Pins an immutable view of all rows currently held. */
  int (*acquire_read_view)(struct paimon_realtime_store *s, paimon_realtime_view *out,
                           paimon_error *err);
  /** Streams over the view's rows with offsets in [from_offset, view end), restricted to
   * `columns` (NULL-terminated names of table columns; system columns always come
   * first). `filter` (nullable) may be used to skip whole batches; the library filters
   * rows exactly afterwards. In primary-key mode the library passes only key
   * predicates, and each returned stream must be a sorted run. Streams keep the view's
   * data alive until released. Each stream goes to `sink`. */
  int (*create_query_readers)(struct paimon_realtime_store *s, const paimon_realtime_view *view,
                              int64_t from_offset, const char *const *columns,
                              const paimon_predicate *filter, paimon_stream_sink sink,
                              void *payload, paimon_error *err);
  /** Everything below `end` is durable on disk: reclaim it. Monotonic and idempotent
   * (a smaller or equal `end` is a no-op). Existing views keep their data alive. */
  int (*advance_committed_offset)(struct paimon_realtime_store *s, int64_t end, paimon_error *err);
  /** Bytes the store holds and has not reclaimed: the figure its budget bounds (the
   * built-in store excludes data that only views keep alive after reclaim). */
  int64_t (*memory_usage)(struct paimon_realtime_store *s);
  /** Called once, after the last call into the store. */
  void (*release)(struct paimon_realtime_store *s);
  void *private_data; /**< the store's state */
  /* ---- version 2 ---------------------------------------------------------------- */
  /** Reserves the capacity `batch` needs (borrowed: neither moved nor released; the
   * same batch and `range` the next `write` gets), so that a batch spanning several
   * partition-buckets is refused before any of its stores holds a row. Returns
   * PAIMON_OK, PAIMON_EFULL when the batch does not fit now (nothing reserved), or
   * another status for a batch the store would refuse anyway. After PAIMON_OK the
   * library makes exactly one of these calls next on this store: `write` of that batch
   * (which consumes the reservation) or `cancel_reservation`. At most one reservation
   * is outstanding per store. A store that keeps a budget shared with other stores must
   * count reserved capacity as used until it is written or cancelled. */
  int (*reserve)(struct paimon_realtime_store *s, const struct ArrowArray *batch,
                 paimon_offset_range range, paimon_error *err);
  /** Gives back the outstanding reservation (the batch will not be written). */
  void (*cancel_reservation)(struct paimon_realtime_store *s);
  /* ---- version 3 ---------------------------------------------------------------- */
  /** Primary-key mode: streams every row version of the given keys that `view` holds
   * with an offset in [from_offset, view end), for point lookups. `keys` (borrowed for
   * the call only: copy what the streams need later) is a struct array whose children
   * are the key columns, in the order of paimon_realtime_store_request.key_columns and of
   * the same types, with `keys->length` rows sorted ascending (by the order the store
   * sorts runs with) and unique, none null. Each stream goes to `sink`, in the batch
   * layout (system columns first, then `columns`: NULL-terminated names of table
   * columns, or NULL for all), and must be a sorted run by key then _SEQUENCE_NUMBER
   * as from create_query_readers(); together the streams hold exactly the matching rows
   * (each once) and nothing else. No matching row: no stream, or empty ones. Streams
   * keep the view's data alive until released. Returns PAIMON_EUNSUPPORTED in append
   * mode. Nullable: when NULL (and in every store older than version 3) the library
   * calls create_query_readers() with a key predicate and filters the rows exactly. */
  int (*create_lookup_readers)(struct paimon_realtime_store *s, const paimon_realtime_view *view,
                               int64_t from_offset, const struct ArrowArray *keys,
                               const char *const *columns, paimon_stream_sink sink, void *payload,
                               paimon_error *err);
} paimon_realtime_store;

/** Creates the stores of a real-time context, one per partition-bucket. The library
 * copies the struct; `create` may be called from several threads at once. */
typedef struct paimon_realtime_store_factory {
  uint32_t version; /**< ABI version the factory was written against,
                         1..PAIMON_REALTIME_STORE_VERSION */
  /** Fills `*out` with a new store for `req` (whose pointers are valid during the call
   * only); returns a PAIMON_* status. */
  int (*create)(struct paimon_realtime_store_factory *f, const paimon_realtime_store_request *req,
                paimon_realtime_store *out, paimon_error *err);
  /** Called once when the last context using the factory is gone. */
  void (*release)(struct paimon_realtime_store_factory *f);
  void *private_data; /**< the factory's state */
} paimon_realtime_store_factory;

/** Prepares a store struct for a plugin's `create`: zeroes it up to the layout of
 * `version` (a plugin compiled against an older header passes its own, smaller struct
 * and its own version, so nothing past that layout is touched) and sets `version`.
 * @param s       the store to fill (the `out` of `create`).
 * @param version the ABI version the plugin implements, 1..PAIMON_REALTIME_STORE_VERSION
 *                (usually PAIMON_REALTIME_STORE_VERSION as the plugin was compiled).
 * @param err     nullable error details.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `s` is NULL or `version` is unsupported
 *         (then `s` is left untouched).
 * Thread safety: touches only `s`; call it from any thread. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_store_init(paimon_realtime_store *s, uint32_t version,
                                          paimon_error *err);

/** Prepares a factory struct: zeroes it and sets `version` (the factory layout is the
 * same in every version so far).
 * @param f       the factory to fill (caller-owned; the library copies it later).
 * @param version 1..PAIMON_REALTIME_STORE_VERSION.
 * @param err     nullable error details.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `f` is NULL or `version` is unsupported
 *         (then `f` is left untouched).
 * Thread safety: touches only `f`; call it from any thread. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_store_factory_init(paimon_realtime_store_factory *f,
                                                  uint32_t version, paimon_error *err);

/** The built-in store factory (columnar in-memory segments).
 * @param out receives the factory (plain data; its release does nothing, but call it
 *            when a context did not take the factory over).
 * @param err nullable error details.
 * @return #PAIMON_OK, or #PAIMON_EINVAL when `out` is NULL. */
PAIMON_NODISCARD
PAIMON_API int paimon_realtime_default_store_factory(paimon_realtime_store_factory *out,
                                                     paimon_error *err);

#ifdef __cplusplus
}
#endif
#endif
