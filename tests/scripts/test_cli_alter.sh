#!/usr/bin/env bash
# `paimon alter` (issue 24): every change form round-trips through the CLI (the schema
# file and `paimon info` / `paimon cat` show it), refusals exit 1 naming the column and
# the types, schema files have the key set of a Java-written one, every earlier snapshot
# reads as before (our tables and a copy of corpus tables), and writes after an alter
# commit under the new schema id.
# Usage: test_cli_alter.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
SHARED=${2:?shared dir}
P="$BUILD/paimon"
T="$SHARED/compat/tables"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/lib_check.sh"
# "name:id:type ..." of schema file $1
fields() {
  python3 -c 'import json,sys
s=json.load(open(sys.argv[1]))
print(" ".join("%s:%d:%s"%(f["name"],f["id"],f["type"] if isinstance(f["type"],str) else "nested") for f in s["fields"]))' "$1"
}
opt() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["options"].get(sys.argv[2],"(unset)"))' "$1" "$2"; }

[ -x "$P" ] || { echo "FAIL: $P not built"; exit 1; }

# ---- usage -------------------------------------------------------------------------------
expect 0 "$P" alter --help && out_has "usage: paimon alter"
expect 0 "$P" help alter && out_has "rename-column OLD NEW"
expect 2 "$P" alter && err_has "missing TABLE"
expect 2 "$P" alter "$TMP/x" && err_has "missing CHANGE"
expect 2 "$P" alter "$TMP/x" explode c && err_has "unknown change 'explode'"
expect 2 "$P" alter "$TMP/x" add-column c && err_has "add-column needs 2 arguments"
expect 2 "$P" alter "$TMP/x" set novalue && err_has "KEY=VALUE"
expect 2 "$P" alter "$TMP/x" add-column c INT --middle && err_has "unexpected argument '--middle'"

# ---- a primary-key table through every form ----------------------------------------------
cat >"$TMP/s.json" <<'EOF'
{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"v","type":"BIGINT"},
 {"name":"s","type":"STRING"},{"name":"d","type":"INT"},{"name":"p","type":"INT NOT NULL"}],
 "partitionKeys":["p"],"primaryKeys":["k","p"],"options":{"bucket":"1"}}
EOF
A="$TMP/pk"
expect 0 "$P" create --schema "$TMP/s.json" "$A"
printf '{"k":1,"v":10,"s":"a","d":5,"p":0}\n{"k":2,"v":20,"s":null,"d":6,"p":1}\n' >"$TMP/rows1"
expect 0 "$P" write "$A" <"$TMP/rows1"
"$P" cat "$A" | sort >"$TMP/snap1"

expect 0 "$P" alter "$A" add-column c STRING --after k && out_has "schema id 1"
same "$(fields "$A/schema/schema-1")" "k:0:INT NOT NULL c:5:STRING v:1:BIGINT s:2:STRING d:3:INT p:4:INT NOT NULL" "add --after"
expect 0 "$P" alter "$A" add-column f DOUBLE --first --comment "first col" && out_has "schema id 2"
same "$(fields "$A/schema/schema-2" | cut -d' ' -f1)" "f:6:DOUBLE" "add --first"
expect 0 "$P" alter "$A" add-column e INT && out_has "schema id 3"
same "$(fields "$A/schema/schema-3" | awk '{print $NF}')" "e:7:INT" "add at the end"
expect 0 "$P" info "$A" && out_has "schema id: 3" && out_has "7    e"
expect 0 "$P" alter "$A" rename-column v vv && out_has "schema id 4"
expect 0 "$P" alter "$A" drop-column s && out_has "schema id 5"
expect 0 "$P" alter "$A" alter-type vv STRING && out_has "schema id 6"
expect 0 "$P" alter "$A" set write-only=true snapshot.num-retained.min=3 && out_has "schema id 7"
same "$(opt "$A/schema/schema-7" write-only),$(opt "$A/schema/schema-7" snapshot.num-retained.min)" "true,3" "set"
expect 0 "$P" alter "$A" unset write-only && out_has "schema id 8"
same "$(opt "$A/schema/schema-8" write-only)" "(unset)" "unset"
expect 0 "$P" alter "$A" comment e "an int" && out_has "schema id 9"
same "$(fields "$A/schema/schema-9")" "f:6:DOUBLE k:0:INT NOT NULL c:5:STRING vv:1:STRING d:3:INT p:4:INT NOT NULL e:7:INT" "after the alters"
# the latest read: renamed, dropped, retyped, added columns
expect 0 "$P" cat "$A" && out_has '"k": 1, "c": null, "vv": "10", "d": 5, "p": 0, "e": null'
# every earlier snapshot reads as before
expect 0 "$P" cat --snapshot 1 "$A"
same "$(sort "$TMP/out")" "$(cat "$TMP/snap1")" "snapshot 1 after the alters"

# refusals (exit 1, naming column and types)
expect 1 "$P" alter "$A" alter-type d DATE && err_has "column 'd'" && err_has "INT" && err_has "DATE"
expect 1 "$P" alter "$A" alter-type k BIGINT && err_has "primary key column 'k'"
expect 1 "$P" alter "$A" alter-type p BIGINT && err_has "partition column 'p'"
expect 1 "$P" alter "$A" drop-column k && err_has "'k'"
expect 1 "$P" alter "$A" drop-column nope && err_has "'nope' does not exist"
expect 1 "$P" alter "$A" rename-column p q && err_has "partition column 'p'"
expect 1 "$P" alter "$A" add-column c INT && err_has "'c' already exists"
expect 1 "$P" alter "$A" add-column z INT --after nope && err_has "'nope'"
expect 1 "$P" alter "$A" add-column z "INT NOT NULL" && err_has "NOT NULL"
expect 1 "$P" alter "$A" not-null d && err_has "alter-column-null-to-not-null.disabled"
expect 1 "$P" alter "$A" set bucket=4 && err_has "bucket" && err_has "layout"
expect 1 "$P" alter "$A" set merge-engine=first-row && err_has "merge-engine"
expect 1 "$P" alter "$A" unset bucket && err_has "bucket"
expect 0 "$P" alter "$A" set disable-explicit-type-casting=true && out_has "schema id 10"
expect 1 "$P" alter "$A" alter-type e SMALLINT && err_has "disable-explicit-type-casting"
expect 0 "$P" alter "$A" alter-type e BIGINT && out_has "schema id 11"
expect 0 "$P" alter "$A" set alter-column-null-to-not-null.disabled=false
expect 0 "$P" alter "$A" not-null d && out_has "schema id 13"
expect 0 "$P" alter "$A" nullable d && out_has "schema id 14"
ls "$A/schema" | grep -c '^schema-' | { read -r n; same "$n" 15 "schema files"; }

# writes after the alters: the new columns, under the latest schema id
printf '{"f":1.5,"k":3,"c":"x","vv":"thirty","d":7,"p":0,"e":70}\n' >"$TMP/rows2"
expect 0 "$P" write "$A" <"$TMP/rows2"
expect 0 "$P" snapshots "$A"
same "$(awk 'NR==3{print $2}' "$TMP/out")" "14" "schema id of the snapshot written after the alters"
expect 0 "$P" cat "$A" --where "k = 3" && out_has '"vv": "thirty"'
expect 0 "$P" cat --snapshot 1 "$A"
same "$(sort "$TMP/out")" "$(cat "$TMP/snap1")" "snapshot 1 after a later write"

# ---- schema files: Java's key set --------------------------------------------------------
JAVA="$T/orc/pk_table_with_alter_table.db/pk_table_with_alter_table/schema/schema-1"
for f in "$A"/schema/schema-*; do
  python3 - "$JAVA" "$f" <<'EOF' && ok || bad "key set of $f"
import json, sys
j, o = (json.load(open(p)) for p in sys.argv[1:3])
assert set(j) == set(o), (set(j) ^ set(o))
for f in o["fields"]:
    assert set(f) <= {"id", "name", "type", "description"}, f
assert o["version"] == 3 and isinstance(o["highestFieldId"], int)
assert all(isinstance(v, str) for v in o["options"].values())
EOF
done

# ---- --warehouse DB.TABLE ----------------------------------------------------------------
W="$TMP/wh"
expect 0 "$P" create --schema "$TMP/s.json" "$W/db.db/t"
expect 0 "$P" alter --warehouse "$W" db.t add-column extra STRING && out_has "schema id 1"
same "$(fields "$W/db.db/t/schema/schema-1" | awk '{print $NF}')" "extra:5:STRING" "alter via warehouse"
expect 1 "$P" alter --warehouse "$W" db.nope add-column x INT

# ---- copies of corpus tables: earlier snapshots read the same after an alter -------------
n=0
for src in "$T"/parquet/append_table_with_alter_table.db/append_table_with_alter_table \
  "$T"/orc/pk_table_with_alter_table.db/pk_table_with_alter_table \
  "$T"/parquet/append_09.db/append_09; do
  [ -d "$src" ] || { bad "corpus table $src missing"; continue; }
  n=$((n + 1))
  C="$TMP/copy$n"
  cp -r "$src" "$C"
  ids=$(ls "$C/snapshot" | sed -n 's/^snapshot-\([0-9]*\)$/\1/p' | sort -n)
  for id in $ids; do "$P" cat --snapshot "$id" "$C" | sort >"$TMP/before.$id"; done
  before_latest=$("$P" cat "$C" | wc -l)
  expect 0 "$P" alter "$C" add-column added_by_cli STRING
  expect 0 "$P" alter "$C" set snapshot.num-retained.min=9
  for id in $ids; do
    "$P" cat --snapshot "$id" "$C" | sort >"$TMP/after.$id"
    cmp -s "$TMP/before.$id" "$TMP/after.$id" && ok || bad "$C snapshot $id reads differently"
  done
  same "$("$P" cat "$C" | grep -c '"added_by_cli": null')" "$before_latest" "$C latest rows with the new column"
done

check_summary
