#!/usr/bin/env bash
# The filesystem catalog through the CLI (issue 24): `paimon create WAREHOUSE/db.db/t`
# creates the database directory as needed, `paimon ls` lists databases and tables,
# --warehouse opens DB.TABLE, `paimon drop` removes a table or a database (only what is
# inside it), and the corpus's Java-layout warehouses list their tables.
# Usage: test_cli_catalog.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
SHARED=${2:?shared dir}
P="$BUILD/paimon"
T="$SHARED/compat/tables"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/lib_check.sh"
lines() { tr '\n' ' ' <"$TMP/out" | sed 's/ $//'; }

[ -x "$P" ] || { echo "FAIL: $P not built"; exit 1; }

expect 0 "$P" ls --help && grep -q "usage: paimon ls" "$TMP/out" && ok || bad "ls --help"
expect 0 "$P" drop --help && grep -q "usage: paimon drop" "$TMP/out" && ok || bad "drop --help"
expect 2 "$P" ls && err_has "missing WAREHOUSE"
expect 2 "$P" drop "$TMP/plain" && err_has "neither"
expect 1 "$P" ls "$TMP/none" && err_has "does not exist"

cat >"$TMP/s.json" <<'EOF'
{"fields":[{"name":"k","type":"INT"},{"name":"v","type":"STRING"}],"options":{"bucket":"-1"}}
EOF
W="$TMP/wh"
# create makes the database directories as needed
for t in db1.db/t1 db1.db/t2 db2.db/t3; do expect 0 "$P" create --schema "$TMP/s.json" "$W/$t"; done
[ -d "$W/db1.db" ] && [ -d "$W/db2.db" ] && ok || bad "database directories not created"
mkdir -p "$W/db1.db/not_a_table" "$W/not_a_db"
expect 0 "$P" ls "$W" && same "$(lines)" "db1 db2" "ls WAREHOUSE"
expect 0 "$P" ls "$W/db1.db" && same "$(lines)" "t1 t2" "ls WAREHOUSE/db1.db"
expect 0 "$P" ls "$W/db1.db/" && same "$(lines)" "t1 t2" "ls with a trailing slash"
expect 0 "$P" ls --warehouse "$W" db2 && same "$(lines)" "t3" "ls --warehouse W db2"
expect 0 "$P" ls -l "$W" && same "$(lines)" "db1.t1 db1.t2 db2.t3" "ls -l"
expect 1 "$P" ls "$W/db9.db" && err_has "database 'db9' does not exist"

# tables by DB.TABLE
printf '{"k":1,"v":"one"}\n{"k":2,"v":"two"}\n' | "$P" write "$W/db1.db/t1" >/dev/null 2>&1 && ok || bad "write"
expect 0 "$P" cat --warehouse "$W" db1.t1 && same "$(sort "$TMP/out" | tr '\n' ' ')" '{"k": 1, "v": "one"} {"k": 2, "v": "two"} ' "cat --warehouse"
expect 0 "$P" info --warehouse "$W" db1.t1 && grep -q "latest snapshot: 1" "$TMP/out" && ok || bad "info --warehouse"
expect 0 "$P" snapshots --warehouse "$W" db1.t1
expect 1 "$P" cat --warehouse "$W" db1 && err_has "DATABASE.TABLE"
expect 1 "$P" cat --warehouse "$W" db1.nope

# drop: a table, a database (refused while not empty), cascade
echo keep >"$TMP/precious"
ln -s "$TMP/precious" "$W/db1.db/t2/link"
expect 0 "$P" drop "$W/db1.db/t2" && grep -q "dropped table db1.t2" "$TMP/out" && ok || bad "drop table"
[ ! -e "$W/db1.db/t2" ] && [ -e "$TMP/precious" ] && ok || bad "drop removed the wrong things"
expect 1 "$P" drop "$W/db1.db/t2" && err_has "does not exist"
expect 0 "$P" drop --if-exists "$W/db1.db/t2"
expect 0 "$P" ls "$W/db1.db" && same "$(lines)" "t1" "after drop"
expect 1 "$P" drop "$W/db1.db" && err_has "not empty"
expect 0 "$P" drop --cascade "$W/db1.db"
[ ! -e "$W/db1.db" ] && ok || bad "database directory left"
expect 0 "$P" drop --warehouse "$W" db2.t3
expect 0 "$P" drop --warehouse "$W" db2
expect 0 "$P" ls "$W" && same "$(lines)" "" "empty warehouse"
same "$(ls -A "$W" | tr '\n' ' ')" "not_a_db " "only the foreign directory is left"

# the corpus: Java-layout warehouses list every NAME.db and its table NAME
for f in orc parquet; do
  want=$(cd "$T/$f" && ls -d *.db | sed 's/\.db$//' | sort | tr '\n' ' ')
  expect 0 "$P" ls "$T/$f" && same "$(sort "$TMP/out" | tr '\n' ' ')" "$want" "ls $f warehouse"
  wantl=$(cd "$T/$f" && ls -d *.db | sed 's/\(.*\)\.db$/\1.\1/' | sort | tr '\n' ' ')
  expect 0 "$P" ls -l "$T/$f" && same "$(sort "$TMP/out" | tr '\n' ' ')" "$wantl" "ls -l $f warehouse"
done
db=append_with_bitmap_no_embedding
expect 0 "$P" ls "$T/parquet/$db.db" && same "$(lines)" "$db" "external-path is no table"
expect 0 "$P" info --warehouse "$T/parquet" "$db.$db"

check_summary
