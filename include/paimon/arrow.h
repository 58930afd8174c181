/**
 * @file
 * @brief The Arrow C Data Interface and C Stream Interface.
 *
 * These are the ABI-stable structs specified by Apache Arrow; the guards let other Arrow
 * headers (nanoarrow, Arrow C++) coexist with this one. Ownership: the consumer calls
 * `release` exactly once; moving a struct means copying it and setting the source's
 * `release` to NULL. A struct whose `release` is NULL is released (empty).
 */
#ifndef PAIMON_ARROW_H
#define PAIMON_ARROW_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
/** Guard shared with other copies of the Arrow C Data Interface. */
#define ARROW_C_DATA_INTERFACE

/** ArrowSchema.flags: the dictionary's order is meaningful. */
#define ARROW_FLAG_DICTIONARY_ORDERED 1
/** ArrowSchema.flags: the field may contain nulls. */
#define ARROW_FLAG_NULLABLE 2
/** ArrowSchema.flags: the keys of each map entry are sorted. */
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/** Type description of a column or of a struct of columns (Arrow C Data Interface). */
struct ArrowSchema {
  const char *format;   /**< type format string, e.g. "l" (int64), "u" (utf8), "+s" (struct) */
  const char *name;     /**< field name (nullable) */
  const char *metadata; /**< binary-encoded key/value metadata (nullable) */
  int64_t flags;        /**< ARROW_FLAG_* bits */
  int64_t n_children;   /**< number of children */
  struct ArrowSchema **children;         /**< child types (struct fields, list element, ...) */
  struct ArrowSchema *dictionary;        /**< value type of a dictionary-encoded column, or NULL */
  void (*release)(struct ArrowSchema *); /**< frees the schema; NULL once released */
  void *private_data;                    /**< producer's private data */
};

/** Column data (Arrow C Data Interface); the layout is given by a matching ArrowSchema. */
struct ArrowArray {
  int64_t length;               /**< number of logical values */
  int64_t null_count;           /**< number of nulls, or -1 when not computed */
  int64_t offset;               /**< logical offset into the buffers */
  int64_t n_buffers;            /**< number of buffers (depends on the type) */
  int64_t n_children;           /**< number of children */
  const void **buffers;         /**< validity bitmap first (may be NULL), then the type's buffers */
  struct ArrowArray **children; /**< child arrays */
  struct ArrowArray *dictionary;        /**< dictionary values, or NULL */
  void (*release)(struct ArrowArray *); /**< frees the array; NULL once released */
  void *private_data;                   /**< producer's private data */
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
/** Guard shared with other copies of the Arrow C Stream Interface. */
#define ARROW_C_STREAM_INTERFACE

/** A stream of arrays sharing one schema (Arrow C Stream Interface). Used by one thread
 * at a time. */
struct ArrowArrayStream {
  /** Fills `out` with the stream's schema (the caller releases it); returns 0 or an
   * errno-style code. */
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  /** Fills `out` with the next array (the caller releases it); at the end of the stream
   * `out->release` is NULL. Returns 0 or an errno-style code (see get_last_error). */
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  /** Message of the last failure, valid until the next call on the stream; may be NULL. */
  const char *(*get_last_error)(struct ArrowArrayStream *);
  /** Frees the stream; NULL once released. */
  void (*release)(struct ArrowArrayStream *);
  void *private_data; /**< producer's private data */
};

#endif /* ARROW_C_STREAM_INTERFACE */

#ifdef __cplusplus
}
#endif
#endif
