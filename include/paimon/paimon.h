/* paimon/paimon.h: umbrella header for libpaimon, a C11 library that reads and writes
 * Apache Paimon tables. See docs/conventions.md for naming, ownership and threading. */
#ifndef PAIMON_PAIMON_H
#define PAIMON_PAIMON_H

#include "common.h"
#include "error.h"
#include "alloc.h"
#include "arrow.h"
#include "options.h"
#include "fs.h"
#include "table.h"
#include "predicate.h"
#include "scan.h"
#include "read.h"
#include "write.h"
#include "commit.h"
#include "realtime.h"
#include "maintain.h"
#include "jsonl.h"

#endif
