/* util/vec.h: growable arrays (the idea of libgit2's git_array_t).
 *
 * Two forms, one growth rule (geometric, so n pushes cost O(n) copies):
 * - PM_VEC(T): a typed { v, n, cap } for new code; pm_vec_push / pm_vec_reserve /
 *   pm_vec_free work on any struct with members named v, n and cap.
 * - pm_grow(): for arrays kept in existing struct fields (any count type): makes room for
 *   `need` elements, updating the capacity.
 * Both return 0 or PAIMON_ENOMEM and leave the array unchanged on failure. */
#ifndef PM_UTIL_VEC_H
#define PM_UTIL_VEC_H

#include "util/util.h"

/* Ensures *cap >= need for the array *pp of `elem` byte elements, growing to at least
 * double (first allocation: 8 elements). */
int pm_grow_(void **pp, size_t *cap, size_t need, size_t elem);

/* pm_grow(&s->files, &s->files_cap, s->nfiles + 1): the count stays the caller's. */
#define pm_grow(pp, capp, need) pm_grow_((void **)(pp), (capp), (size_t)(need), sizeof **(pp))

#define PM_VEC(T)  \
  struct {         \
    T *v;          \
    size_t n, cap; \
  }

#define pm_vec_reserve(vec, extra) pm_grow(&(vec)->v, &(vec)->cap, (vec)->n + (size_t)(extra))
/* Appends x; 0 or PAIMON_ENOMEM. */
#define pm_vec_push(vec, x) \
  (pm_vec_reserve((vec), 1) ? PAIMON_ENOMEM : ((vec)->v[(vec)->n++] = (x), PAIMON_OK))
/* Frees the storage (not what elements point to) and empties the vector. */
#define pm_vec_free(vec) \
  do {                   \
    pm_free((vec)->v);   \
    (vec)->v = NULL;     \
    (vec)->n = 0;        \
    (vec)->cap = 0;      \
  } while (0)

#endif
