/* mergetree/agg_binary.h: aggregate functions over serialized VARBINARY values whose
 * byte form is owned by a Java library: rbm64 (RoaringBitmap's Roaring64Bitmap),
 * theta_sketch and hll_sketch (Apache DataSketches). Each union decodes both inputs with
 * full validation, merges, and writes the bytes Java Paimon's FieldXxxAgg would return,
 * so files we compact stay readable (and byte-identical) for Java. */
#ifndef PAIMON_MERGETREE_AGG_BINARY_H
#define PAIMON_MERGETREE_AGG_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* Union of two serialized values, as FieldRoaringBitmap64Agg / FieldThetaSketchAgg /
 * FieldHllSketchAgg agg(a, b) with both non-null. `out` is cleared first and may be
 * reused across calls. Invalid input: PAIMON_ECORRUPT with a message naming what is
 * wrong; `out` is then unspecified. */
int pm_agg_rbm64_union(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, pm_buf *out,
                       paimon_error *err);
int pm_agg_theta_union(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, pm_buf *out,
                       paimon_error *err);
int pm_agg_hll_union(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, pm_buf *out,
                     paimon_error *err);

/* Serialized value holding exactly the given items, as Java Paimon's test helpers
 * RoaringBitmap64.bitmapOf(long...).serialize(), ThetaSketch.sketchOf(int...) and
 * HllSketchUtil.sketchOf(int...) build them (the sketches hash each item as a Java long,
 * with DataSketches' default seed). Used by tests, fuzz seeds and tools. */
int pm_agg_rbm64_of(const int64_t *v, size_t n, pm_buf *out, paimon_error *err);
int pm_agg_theta_of(const int64_t *v, size_t n, pm_buf *out, paimon_error *err);
int pm_agg_hll_of(const int64_t *v, size_t n, pm_buf *out, paimon_error *err);

#endif
