#!/usr/bin/env bash
# The examples build against the INSTALLED library and do what they say:
# install BUILD_DIR into a temporary prefix, build examples/ with pkg-config (as a user
# would), run each one and check its effect with an independent reader where one exists
# (expected rows of the compatibility corpus, tools/inspect/parquet_rows.py for the
# Parquet files an example wrote).
# usage: test_examples.sh BUILD_DIR SHARED_DIR
set -u
build=$(cd "${1:?build dir}" && pwd)
shared=$(cd "${2:?shared dir}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Sanitizer builds: the examples must be built with the same runtime.
san=""
grep -q '^PAIMON_ASAN:BOOL=ON' "$build/CMakeCache.txt" && san="-fsanitize=address,undefined"
grep -q '^PAIMON_TSAN:BOOL=ON' "$build/CMakeCache.txt" && san="-fsanitize=thread"

prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
bin="$tmp/bin"
make -s -C "$root/examples" OUT="$bin" \
  CFLAGS="-std=c11 -O1 -g -Wall -Wextra -Wpedantic -Werror $san" LDFLAGS="$san" ||
  { echo "FAIL: building the examples against $prefix"; exit 1; }
# The programs must load the installed library, not the build tree's.
ldd "$bin/read_table" | grep -q "$prefix/lib/libpaimon.so.0" ||
  fail "read_table does not load $prefix/lib/libpaimon.so.0"

# compare_rows ACTUAL EXPECTED: both JSON lines, as multisets, floats with tolerance.
compare_rows() {
  python3 - "$1" "$2" <<'PY'
import json, math, sys
def norm(v):
    if isinstance(v, float): return round(v, 9)
    if isinstance(v, int) and not isinstance(v, bool): return float(v)  # 11 vs 11.0
    if isinstance(v, dict): return tuple(sorted((k, norm(x)) for k, x in v.items()))
    if isinstance(v, list): return tuple(norm(x) for x in v)
    return v
def load(p):
    return sorted((norm(json.loads(l)) for l in open(p) if l.strip()), key=repr)
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    print("rows differ:\n  got      %r\n  expected %r" % (a, b)); sys.exit(1)
print("%d rows match" % len(a))
PY
}

run() { # run NAME ARGS...: runs an example, output in $tmp/NAME.out
  local name=$1; shift
  if ! "$bin/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    cat "$tmp/$name.err"; fail "$name $* exited with $?"; return 1
  fi
}

# --- read_table: corpus tables against their expected rows --------------------------
for t in parquet/append_10.db/append_10 orc/append_09.db/append_09 \
         parquet/pk_09.db/pk_09 orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor; do
  exp="$shared/compat/expected/$(echo "$t" | sed 's|/|__|g')/latest.jsonl"
  [ -f "$exp" ] || { fail "missing $exp"; continue; }
  run read_table "$shared/compat/tables/$t" && echo "read_table $t:" &&
    { compare_rows "$tmp/read_table.out" "$exp" || fail "read_table $t"; }
done
# with a filter: the expected rows filtered independently
t=parquet/append_10.db/append_10
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["f1"] == 10 and r["f3"] > 11.5: print(l.strip())
' "$shared/compat/expected/parquet__append_10.db__append_10/latest.jsonl" >"$tmp/filtered.jsonl"
run read_table "$shared/compat/tables/$t" "f1 = 10 AND f3 > 11.5" && echo "read_table with filter:" &&
  { compare_rows "$tmp/read_table.out" "$tmp/filtered.jsonl" || fail "read_table with filter"; }

# --- write_append: the Parquet files hold exactly the rows written -------------------
if run write_append "$tmp/append"; then
  grep -q '^committed snapshot 1$' "$tmp/write_append.out" || fail "write_append: no snapshot 1"
  [ -f "$tmp/append/snapshot/snapshot-1" ] || fail "write_append: snapshot/snapshot-1 missing"
  files=$(find "$tmp/append" -name '*.parquet' | sort)
  [ -n "$files" ] || fail "write_append: no Parquet data file"
  # rows as the example writes them (id | region | score), read back by the independent
  # Parquet reader
  printf '%s\n' "1 | eu | 9.5" "2 | us | 7.25" "3 | eu | 8.0" "4 | us | 6.5" "5 | eu | 10.0" \
    "6 | None | 3.75" | sort >"$tmp/append.expected"
  for f in $files; do python3 "$shared/tools/inspect/parquet_rows.py" "$f" | tail -n +2; done |
    sort >"$tmp/append.actual"
  if cmp -s "$tmp/append.actual" "$tmp/append.expected"; then echo "write_append: 6 rows in Parquet"
  else fail "write_append: data files hold"; cat "$tmp/append.actual"; fi
fi

# --- upsert_pk: deduplicate semantics (last write wins, -D removes) ------------------
if run upsert_pk "$tmp/pk"; then
  printf '%s\n' "id=1 name=ann score=1.5" "id=2 name=bob score=20.5" "id=4 name=dan score=4.5" \
    >"$tmp/pk.expected"
  if grep '^id=' "$tmp/upsert_pk.out" | sort | cmp -s - "$tmp/pk.expected"; then
    echo "upsert_pk: merged rows as expected"
  else fail "upsert_pk printed"; cat "$tmp/upsert_pk.out"; fi
  # read back by another program (read_table) from the committed snapshots
  printf '%s\n' '{"id": 1, "name": "ann", "score": 1.5}' '{"id": 2, "name": "bob", "score": 20.5}' \
    '{"id": 4, "name": "dan", "score": 4.5}' >"$tmp/pk.jsonl"
  run read_table "$tmp/pk" && { compare_rows "$tmp/read_table.out" "$tmp/pk.jsonl" || fail "upsert_pk read back"; }
  [ -f "$tmp/pk/snapshot/snapshot-2" ] || fail "upsert_pk: snapshot-2 missing"
fi

# --- realtime_ingest: visible before commit; offsets committed with the files --------
if run realtime_ingest "$tmp/rt"; then
  cat "$tmp/realtime_ingest.out"
  grep -q '^before commit: disk 0 rows, union 10 rows$' "$tmp/realtime_ingest.out" ||
    fail "realtime_ingest: rows not visible before commit"
  grep -q '^after commit:  disk 10 rows, union 15 rows$' "$tmp/realtime_ingest.out" ||
    fail "realtime_ingest: union after commit"
  grep -q 'realtime.offsets' "$tmp/rt/snapshot/snapshot-1" ||
    fail "realtime_ingest: snapshot-1 carries no realtime.offsets property"
  run read_table "$tmp/rt" &&
    { python3 -c 'import sys; print("\n".join("{\"id\": %d, \"msg\": \"%s\"}" % (i, "odd" if i % 2 else "even") for i in range(10)))' \
        >"$tmp/rt.jsonl"; compare_rows "$tmp/read_table.out" "$tmp/rt.jsonl" || fail "realtime_ingest: committed rows"; }
fi

# --- custom_store: the plugin serves the union reads ---------------------------------
if run custom_store "$tmp/cs"; then
  cat "$tmp/custom_store.out"
  n() { awk -v k="$1" '$1 == k {print $2}' "$tmp/custom_store.out"; }
  [ "$(grep -c '^union query: \([0-9]*\) rows (expected \1)$' "$tmp/custom_store.out")" = 2 ] ||
    fail "custom_store: union queries"
  # 2 buckets with rows: 2 stores; 3 batches spread over them; 2 union queries pinned a
  # view in each store and read it; one prepare sealed and read each store; the refresh
  # advanced each store; every store was released.
  [ "$(n create)" = 2 ] || fail "custom_store: create $(n create), expected 2"
  [ "$(n write)" -ge 3 ] || fail "custom_store: write $(n write)"
  # every write was reserved first (all-or-nothing batches), none refused
  [ "$(n reserve)" = "$(n write)" ] || fail "custom_store: reserve $(n reserve) != write $(n write)"
  [ "$(n cancel_reservation)" = 0 ] || fail "custom_store: cancel_reservation $(n cancel_reservation)"
  [ "$(n acquire_read_view)" -ge 2 ] || fail "custom_store: acquire_read_view $(n acquire_read_view)"
  [ "$(n create_query_readers)" -ge 2 ] || fail "custom_store: create_query_readers $(n create_query_readers)"
  [ "$(n seal_for_commit)" -ge 1 ] || fail "custom_store: seal_for_commit $(n seal_for_commit)"
  [ "$(n create_commit_readers)" -ge 1 ] || fail "custom_store: create_commit_readers"
  [ "$(n advance_committed_offset)" -ge 1 ] || fail "custom_store: advance_committed_offset"
  [ "$(n release)" = "$(n create)" ] || fail "custom_store: release $(n release) != create $(n create)"
  run read_table "$tmp/cs" && [ "$(wc -l <"$tmp/read_table.out")" = 12 ] ||
    fail "custom_store: 12 committed rows expected on disk"
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
