/* table/read_pk.c: primary-key splits (merge-on-read). */
#include "table/read_internal.h"

struct pm_pk_reader {
  int unused;
};

int pm_pk_reader_open(pm_pk_reader **out, pm_read_state *st, const paimon_split *sp,
                      paimon_error *err) {
  (void)st;
  *out = NULL;
  return pm_fail(err, PAIMON_EUNSUPPORTED,
                 "primary-key table (partition '%s', bucket %d): merge-on-read is not "
                 "supported yet",
                 sp->partition_str, (int)sp->bucket);
}

int pm_pk_reader_next(pm_pk_reader *r, struct ArrowArray *work, paimon_error *err) {
  (void)r;
  (void)work;
  return pm_fail(err, PAIMON_ESTATE, "primary-key reader is not open");
}

void pm_pk_reader_free(pm_pk_reader *r) { pm_free(r); }
