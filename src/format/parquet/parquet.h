/* format/parquet/parquet.h: Parquet-specific entry points besides pm_parquet_open
 * (declared in format/format.h). */
#ifndef PM_FORMAT_PARQUET_H
#define PM_FORMAT_PARQUET_H

#include "format/format.h"

/* The Paimon ROW type a Parquet file's schema maps to (field ids from field_id, -1 when
 * absent; LIST/MAP groups as ARRAY/MAP; INT96 as TIMESTAMP(9); TIMESTAMP(isAdjustedToUTC)
 * as TIMESTAMP_LTZ). Reads only the footer. The caller frees *out with pm_type_free. */
int pm_parquet_file_type(paimon_fs *fs, const char *path, pm_type **out, paimon_error *err);

#endif
