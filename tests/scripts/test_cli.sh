#!/usr/bin/env bash
# CLI behaviour: help, exit codes and messages, and reads of real corpus tables checked
# against the corpus' expected rows and metadata files (counted with python3, not with
# the CLI). Usage: test_cli.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
SHARED=${2:?shared dir}
P="$BUILD/paimon"
T="$SHARED/compat/tables"
E="$SHARED/compat/expected"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0

ok() { checks=$((checks + 1)); }
bad() {
  checks=$((checks + 1))
  fails=$((fails + 1))
  echo "FAIL: $*"
}

# expect CODE CMD... : runs CMD, checks its exit code; stdout/stderr kept in $TMP/out, $TMP/err
expect() {
  local want=$1
  shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    bad "exit $got (want $want): $*"
    sed 's/^/    /' "$TMP/err" | head -5
    return 1
  fi
  ok
  return 0
}

err_has() { # the first stderr line starts with "paimon: " and contains $1
  if head -1 "$TMP/err" | grep -q "^paimon: .*$1"; then ok; else
    bad "stderr lacks 'paimon: ...$1': $(head -1 "$TMP/err")"
  fi
}
out_has() { if grep -q -- "$1" "$TMP/out"; then ok; else bad "stdout lacks '$1'"; fi; }
lines() { wc -l <"$1" | tr -d ' '; }
same() { if [ "$1" = "$2" ]; then ok; else bad "$3: got $1, want $2"; fi; }

if [ ! -x "$P" ]; then
  echo "FAIL: $P not built"
  exit 1
fi

# ---- help and usage errors ---------------------------------------------------------------
expect 0 "$P" --help && out_has "usage: paimon"
for c in info snapshots files cat; do
  expect 0 "$P" "$c" --help && out_has "usage: paimon $c"
done
expect 0 "$P" help cat && out_has "--format"
expect 2 "$P"
expect 2 "$P" frobnicate x && err_has "unknown command 'frobnicate'"
expect 2 "$P" cat && err_has "missing TABLE"
expect 2 "$P" cat a b && err_has "unexpected argument 'b'"
expect 2 "$P" cat --bogus x && err_has "unknown option '--bogus'"
expect 2 "$P" cat x --limit && err_has "needs a value"
expect 2 "$P" cat x --limit abc && err_has "--limit"
expect 2 "$P" cat x --snapshot 0 && err_has "--snapshot"
expect 2 "$P" cat x --format xml && err_has "--format"
expect 2 "$P" cat x --where "f1 = " && err_has "--where: predicate"
expect 2 "$P" cat x --remap-path nodelimiter && err_has "FROM=TO"
expect 2 "$P" snapshots x --where "a = 1" && err_has "does not apply"

# ---- runtime errors ------------------------------------------------------------------------
expect 1 "$P" info "$TMP/no-such-table" && err_has ""
expect 1 "$P" cat "$TMP/no-such-table" && err_has ""

# ---- a real table ----------------------------------------------------------------------------
TB="$T/parquet/append_09.db/append_09"
EX="$E/parquet__append_09.db__append_09"
if [ ! -d "$TB" ]; then
  echo "FAIL: corpus table $TB missing"
  exit 1
fi

# info lists every field of the latest schema file, the partition keys and the options
expect 0 "$P" info "$TB" && {
  for f in $(python3 -c 'import json,sys,glob,re
d=sys.argv[1]+"/schema"
ids=[int(re.sub(r"\D","",p.split("/")[-1])) for p in glob.glob(d+"/schema-*")]
s=json.load(open("%s/schema-%d"%(d,max(ids))))
print(" ".join(f["name"] for f in s["fields"]))
print(" ".join("%s=%s"%kv for kv in s["options"].items()))' "$TB"); do
    case "$f" in
      *=*) k=${f%%=*}; v=${f#*=}; out_has "  $k = $v" ;;
      *) out_has " $f " ;;
    esac
  done
  out_has "partition keys: f1"
  out_has "latest snapshot: $(cat "$TB/snapshot/LATEST" 2>/dev/null || ls "$TB/snapshot" | sed -n 's/^snapshot-//p' | sort -n | tail -1)"
}

# snapshots: a header plus one line per snapshot file, ids ascending
nsnap=$(ls "$TB/snapshot" | grep -c '^snapshot-[0-9]*$')
expect 0 "$P" snapshots "$TB" && {
  same "$(lines "$TMP/out")" "$((nsnap + 1))" "snapshots line count"
  same "$(awk 'NR>1{print $1}' "$TMP/out" | tr '\n' ' ')" "$(ls "$TB/snapshot" | sed -n 's/^snapshot-//p' | sort -n | tr '\n' ' ')" "snapshot ids"
}

# cat: as many rows as the expected files, every line a JSON object
count_expected() { # FILE [python condition on row r]
  python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    if l.strip():
        r=json.loads(l)
        n+= bool(eval(sys.argv[2]))
print(n)' "$1" "${2:-True}"
}
expect 0 "$P" cat "$TB" && {
  same "$(lines "$TMP/out")" "$(count_expected "$EX/latest.jsonl")" "cat row count"
  if python3 -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$TMP/out"; then ok; else bad "cat output is not JSON lines"; fi
}
expect 0 "$P" cat "$TB" --snapshot 1 &&
  same "$(lines "$TMP/out")" "$(count_expected "$EX/snapshot-1.jsonl")" "cat --snapshot 1 row count"
expect 0 "$P" cat "$TB" --where "f1 = 10" &&
  same "$(lines "$TMP/out")" "$(count_expected "$EX/latest.jsonl" 'r["f1"] == 10')" "cat --where f1 = 10"
expect 0 "$P" cat "$TB" --where "f1 <> 10 OR f1 IS NULL" &&
  same "$(lines "$TMP/out")" "$(count_expected "$EX/latest.jsonl" 'r["f1"] != 10')" "cat --where f1 <> 10"
expect 0 "$P" cat "$TB" --limit 2 && same "$(lines "$TMP/out")" 2 "cat --limit 2"
expect 0 "$P" cat "$TB" --select f1 --limit 1 &&
  same "$(python3 -c 'import json,sys; print(list(json.loads(open(sys.argv[1]).readline())))' "$TMP/out")" "['f1']" "cat --select keys"
expect 0 "$P" cat "$TB" --format csv && {
  same "$(lines "$TMP/out")" "$(($(count_expected "$EX/latest.jsonl") + 1))" "csv line count"
  same "$(python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1],newline=""))); print(len(set(len(x) for x in r)))' "$TMP/out")" 1 "csv rectangular"
}
expect 0 "$P" cat "$TB" --format table && out_has "^f0 *| f1 *| f2"
expect 0 "$P" files "$TB" && {
  missing=$(awk 'NR>1{print $NF}' "$TMP/out" | while read -r f; do [ -f "$f" ] || echo "$f"; done)
  [ -z "$missing" ] && ok || bad "files lists paths that do not exist: $missing"
  [ "$(lines "$TMP/out")" -gt 1 ] && ok || bad "files printed no data file"
}

# errors on a real table
expect 1 "$P" cat "$TB" --snapshot 999 && err_has ""
expect 1 "$P" cat "$TB" --where "nope = 1" && err_has "nope"
expect 1 "$P" cat "$TB" --select nope && err_has "nope"
expect 1 "$P" cat "$TB" --branch no-such-branch && err_has ""

# a broken pipe must not hang or corrupt anything
big="$T/parquet/append_with_bloomfilter.db/append_with_bloomfilter"
if [ -d "$big" ]; then
  n=$(timeout 60 "$P" cat "$big" | head -1 | wc -l)
  same "$n" 1 "cat | head -1"
fi

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
