#!/bin/bash
# The main job, for now: inspect and read real Paimon tables written by Java Paimon.
# (The real-time ingest + union-query demo arrives with the real-time work, issue 7.)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
paimon="$here/build/paimon"
shared="${PAIMON_SHARED_DIR:-$here/../shared}"
table="$shared/compat/tables/parquet/append_complex_data.db/append_complex_data"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. What is in this table? (schema, options, latest snapshot)"
"$paimon" info "$table"
step "2. Its snapshot history"
"$paimon" snapshots "$table"
step "3. The data files the latest snapshot references (found through manifests only)"
"$paimon" files "$table"
step "4. All rows of the latest snapshot, as a table"
"$paimon" cat "$table" --format table
step "5. Time travel to snapshot 1, filtered and projected, as JSON lines"
"$paimon" cat "$table" --snapshot 1 --select f1,f2,f4,f5 --where "f1 = 10" --format jsonl
