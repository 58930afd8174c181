/* manage/alter_internal.h: shared by the ALTER TABLE files of the manage layer. */
#ifndef PM_MANAGE_ALTER_INTERNAL_H
#define PM_MANAGE_ALTER_INTERNAL_H

#include <stdbool.h>

#include "arrow/type.h"

/* DataTypeCasts.supportsCast(from, to, allow_explicit) of Java Paimon 1.4.1. */
bool pm_alter_supports_cast(const pm_type *from, const pm_type *to, bool allow_explicit);
/* CastExecutors.resolve(from, to) != null of Java Paimon 1.4.1. */
bool pm_alter_has_cast_executor(const pm_type *from, const pm_type *to);

#endif
