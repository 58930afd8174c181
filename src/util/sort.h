/* util/sort.h: one stable merge sort, instantiated per element type and comparator so
 * the comparison inlines (hot in the merge tree and the ORC dictionary writer).
 *
 *   PM_STABLE_SORT_DEFINE(sort_ids, uint32_t, const ocol, key_less)
 *
 * defines `static void sort_ids(const ocol *ctx, uint32_t *v, uint32_t *tmp, size_t n)`
 * which sorts v[0..n) using the scratch tmp[0..n). `less(ctx, a, b)` must be a strict
 * "a sorts before b"; equal elements keep their input order (Java's List.sort and
 * Arrays.sort on objects are stable, and several Paimon orders depend on it). */
#ifndef PM_UTIL_SORT_H
#define PM_UTIL_SORT_H

#include <stddef.h>
#include <string.h>

#define PM_STABLE_SORT_DEFINE(name, T, CTX, less)                                      \
  static void name(CTX *ctx, T *v, T *tmp, size_t n) {                                 \
    if (n < 2) return;                                                                 \
    if (n <= 16) { /* insertion sort: stable, fast on short runs */                    \
      for (size_t a_ = 1; a_ < n; a_++) {                                              \
        T x_ = v[a_];                                                                  \
        size_t b_ = a_;                                                                \
        while (b_ > 0 && less(ctx, x_, v[b_ - 1])) {                                   \
          v[b_] = v[b_ - 1];                                                           \
          b_--;                                                                        \
        }                                                                              \
        v[b_] = x_;                                                                    \
      }                                                                                \
      return;                                                                          \
    }                                                                                  \
    size_t h_ = n / 2;                                                                 \
    name(ctx, v, tmp, h_);                                                             \
    name(ctx, v + h_, tmp + h_, n - h_);                                               \
    if (!less(ctx, v[h_], v[h_ - 1])) return; /* already in order */                   \
    size_t i_ = 0, j_ = h_, k_ = 0;                                                    \
    while (i_ < h_ && j_ < n) tmp[k_++] = less(ctx, v[j_], v[i_]) ? v[j_++] : v[i_++]; \
    while (i_ < h_) tmp[k_++] = v[i_++];                                               \
    while (j_ < n) tmp[k_++] = v[j_++];                                                \
    memcpy(v, tmp, n * sizeof *v);                                                     \
  }

#endif
