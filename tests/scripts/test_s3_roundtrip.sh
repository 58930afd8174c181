#!/usr/bin/env bash
# Object storage round trip (issue 19) against a real s3rver behind the test proxy of
# tests/s3/lib_s3.sh (Signature V4 checked, conditional PUT, suffix ranges, multipart
# tracking), with boto3 (tests/s3/s3_tool.py) as the independent client:
#  1. corpus tables uploaded with boto3 read on s3:// exactly as locally (latest, every
#     snapshot, branches), with nothing but AWS_* in the environment;
#  2. a table created, written, compacted and expired on s3:// reads like its local twin
#     after each step, and boto3 lists exactly the twin's relative files;
#  3. a large write goes up as a multipart upload; a failed part aborts it, leaving no
#     pending upload and no object;
#  4. errors: a wrong secret (SignatureDoesNotMatch), a missing table, an unknown scheme,
#     and a store that ignores If-None-Match (plain s3rver) refused for commits.
# Usage: test_s3_roundtrip.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
SHARED=${2:?shared dir}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
P="$BUILD/paimon"
T="$SHARED/compat/tables"
LIB_DIR=${PAIMON_S3_LIB_DIR:-$ROOT/tests/s3}
if [ ! -f "$LIB_DIR/lib_s3.sh" ]; then
  echo "FAIL: $LIB_DIR/lib_s3.sh not found (the s3rver harness of tests/s3)"
  exit 1
fi
# shellcheck source=/dev/null
. "$LIB_DIR/lib_s3.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT # s3_start chains its own stop before this
s3_start "$TMP/s3" || {
  echo "FAIL: could not start s3rver and the proxy"
  exit 1
}
fails=0
checks=0
rows_checked=0
SECONDS=0
section() { echo "test_s3_roundtrip: ${SECONDS}s: $*"; }
ok() { checks=$((checks + 1)); }
bad() {
  checks=$((checks + 1))
  fails=$((fails + 1))
  echo "FAIL: $*"
}

# Only the environment configures the CLI: the endpoint (through the proxy) and the keys.
export AWS_ENDPOINT_URL=$S3_PROXY_ENDPOINT
s3_tool mkbucket corpus >/dev/null || bad "mkbucket corpus"
s3_tool mkbucket work >/dev/null || bad "mkbucket work"

# same_rows LABEL ARGS... : `paimon cat ARGS` on s3 ($S3T) and locally ($LOCT) agree
same_rows() {
  local label=$1
  shift
  "$P" cat "$@" "$S3T" >"$TMP/s3.out" 2>"$TMP/s3.err"
  local rs=$?
  "$P" cat "$@" "$LOCT" >"$TMP/loc.out" 2>"$TMP/loc.err"
  local rl=$?
  if [ "$rs" -ne "$rl" ]; then
    bad "$label: exit $rs on s3, $rl locally: $(head -c 300 "$TMP/s3.err")"
    return
  fi
  if [ "$rl" -ne 0 ]; then
    # the same failure both ways (e.g. a feature this library refuses): the same message
    # but for the path
    if [ "$(sed "s#$S3T#T#g" "$TMP/s3.err")" = "$(sed "s#$LOCT#T#g" "$TMP/loc.err")" ]; then
      ok
    else
      bad "$label: different errors: $(head -c 200 "$TMP/s3.err") / $(head -c 200 "$TMP/loc.err")"
    fi
    return
  fi
  if cmp -s <(sort "$TMP/s3.out") <(sort "$TMP/loc.out"); then
    rows_checked=$((rows_checked + $(wc -l <"$TMP/loc.out")))
    ok
  else
    bad "$label: rows differ ($(wc -l <"$TMP/s3.out") on s3, $(wc -l <"$TMP/loc.out") locally)"
  fi
}

# ---- 1. corpus tables uploaded with boto3 -------------------------------------------
section "corpus tables"
CORPUS="parquet/append_09.db/append_09
parquet/append_complex_data.db/append_complex_data
orc/multi_partition_append_table.db/multi_partition_append_table
parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor
parquet/pk_09.db/pk_09 parquet/pk_table_partial_update.db/pk_table_partial_update
orc/append_table_with_rt_branch.db/append_table_with_rt_branch"
for rel in $CORPUS; do
  LOCT="$T/$rel"
  S3T="s3://corpus/$rel"
  [ -d "$LOCT" ] || {
    bad "corpus table $rel missing"
    continue
  }
  s3_tool upload-dir "$LOCT" "$S3T" >/dev/null || {
    bad "upload $rel"
    continue
  }
  same_rows "$rel latest"
  # every snapshot the local table has
  for s in $(ls "$LOCT/snapshot" | sed -n 's/^snapshot-\([0-9]*\)$/\1/p' | sort -n); do
    same_rows "$rel snapshot $s" --snapshot "$s"
  done
  if [ -d "$LOCT/branch" ]; then
    for b in $(ls "$LOCT/branch" | sed -n 's/^branch-//p'); do
      same_rows "$rel branch $b" --branch "$b"
    done
  fi
  "$P" snapshots "$S3T" >"$TMP/s3.snap" 2>&1
  "$P" snapshots "$LOCT" >"$TMP/loc.snap" 2>&1
  if cmp -s "$TMP/s3.snap" "$TMP/loc.snap"; then ok; else bad "$rel: snapshots listing differs"; fi
done
[ "$rows_checked" -gt 200 ] && ok || bad "corpus: only $rows_checked rows compared"

# ---- 2. create / write / compact / expire on s3 and on a local twin --------------------
section "create, write, compact, expire"
cat >"$TMP/schema.json" <<'EOF'
{"fields":[{"name":"k","type":"INT"},{"name":"v","type":"STRING"},{"name":"p","type":"INT"}],
 "partitionKeys":["p"],"options":{"bucket":"2","bucket-key":"k"}}
EOF
cat >"$TMP/pk.json" <<'EOF'
{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"v","type":"STRING"}],
 "primaryKeys":["k"],"options":{"bucket":"1"}}
EOF
for kind in append pk; do
  S3T="s3://work/db.db/$kind"
  LOCT="$TMP/local/db.db/$kind"
  mkdir -p "$TMP/local/db.db"
  schema="$TMP/schema.json"
  [ $kind = pk ] && schema="$TMP/pk.json"
  for t in "$S3T" "$LOCT"; do
    "$P" create "$t" --schema "$schema" >/dev/null 2>"$TMP/err" || bad "create $t: $(cat "$TMP/err")"
  done
  for i in 1 2 3; do
    python3 -c "
import json
for r in range($i * 10):
    print(json.dumps({'k': r, 'v': 'v%d-%d' % ($i, r), 'p': r % 3}))" >"$TMP/rows.jsonl"
    [ $kind = pk ] && sed -i 's/, "p": [0-9]*//' "$TMP/rows.jsonl"
    for t in "$S3T" "$LOCT"; do
      "$P" write "$t" --commit-user u <"$TMP/rows.jsonl" >/dev/null 2>"$TMP/err" ||
        bad "write $i to $t: $(cat "$TMP/err")"
    done
    same_rows "$kind after write $i"
  done
  for t in "$S3T" "$LOCT"; do
    "$P" compact "$t" --full --commit-user u >/dev/null 2>"$TMP/err" || bad "compact $t: $(cat "$TMP/err")"
  done
  same_rows "$kind after compact"
  for s in 1 3; do same_rows "$kind snapshot $s" --snapshot $s; done
  for t in "$S3T" "$LOCT"; do
    "$P" expire "$t" -o snapshot.num-retained.min=2 -o snapshot.num-retained.max=2 \
      -o snapshot.time-retained=1ms >/dev/null 2>"$TMP/err" || bad "expire $t: $(cat "$TMP/err")"
  done
  same_rows "$kind after expire"
  "$P" snapshots "$S3T" | awk 'NR>1{print $1, $2, $3, $6, $7}' >"$TMP/s3.snap"
  "$P" snapshots "$LOCT" | awk 'NR>1{print $1, $2, $3, $6, $7}' >"$TMP/loc.snap"
  if cmp -s "$TMP/s3.snap" "$TMP/loc.snap" && [ "$(wc -l <"$TMP/loc.snap")" -eq 2 ]; then
    ok
  else
    bad "$kind: snapshots after expire differ: $(tr '\n' '|' <"$TMP/s3.snap") vs $(tr '\n' '|' <"$TMP/loc.snap")"
  fi
  # the same objects as the twin's files: names carry random UUIDs, so compare the
  # layout with each UUID replaced by a placeholder
  norm() { sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g' | sort; }
  s3_tool list "$S3T" | norm >"$TMP/s3.keys"
  (cd "$LOCT" && find . -type f ! -name '.*' | sed 's#^\./##') | norm >"$TMP/loc.keys"
  if cmp -s "$TMP/s3.keys" "$TMP/loc.keys" && [ -s "$TMP/loc.keys" ]; then
    ok
  else
    bad "$kind: objects differ from the local twin's files: $(diff "$TMP/s3.keys" "$TMP/loc.keys" | head -10 | tr '\n' ' ')"
  fi
done
n=$(s3_tool pending-uploads work)
[ "$n" = 0 ] && ok || bad "pending multipart uploads after the workload: $n"

# ---- 3. multipart upload, and its abort on failure -------------------------------------
section "multipart"
S3T="s3://work/db.db/big"
LOCT="$TMP/local/db.db/big"
for t in "$S3T" "$LOCT"; do
  "$P" create "$t" --schema "$TMP/schema.json" -o target-file-size=256mb -o file.compression=none \
    >/dev/null 2>"$TMP/err" || bad "create $t: $(cat "$TMP/err")"
done
python3 -c "
import json, random, string
rnd = random.Random(7)
for r in range(14000):
    print(json.dumps({'k': 1, 'v': ''.join(rnd.choice(string.ascii_letters) for _ in range(1000)), 'p': 0}))
" >"$TMP/big.jsonl"
s3_proxy_ctl reset >/dev/null
for t in "$S3T" "$LOCT"; do
  "$P" write "$t" <"$TMP/big.jsonl" >/dev/null 2>"$TMP/err" || bad "big write to $t: $(cat "$TMP/err")"
done
parts=$(s3_proxy_ctl count op=UploadPart | awk '{print $1}')
[ "${parts:-0}" -ge 2 ] && ok || bad "a ~14 MB data file went up in ${parts:-0} parts (want >= 2)"
same_rows "big after write"
n=$(s3_tool pending-uploads work)
[ "$n" = 0 ] && ok || bad "pending multipart uploads after the big write: $n"
# a part that fails for good: the write fails, the upload is aborted, no object appears
s3_tool list "$S3T" >"$TMP/before.keys"
s3_proxy_ctl fault kind=500 count=-1 op=UploadPart >/dev/null
"$P" write "$S3T" <"$TMP/big.jsonl" >/dev/null 2>"$TMP/err"
rc=$?
s3_proxy_ctl clear >/dev/null
[ $rc -ne 0 ] && grep -q 'HTTP 500' "$TMP/err" && ok || bad "failing parts: exit $rc: $(cat "$TMP/err")"
n=$(s3_tool pending-uploads work)
[ "$n" = 0 ] && ok || bad "pending multipart uploads after a failed write: $n"
s3_tool list "$S3T" >"$TMP/after.keys"
cmp -s "$TMP/before.keys" "$TMP/after.keys" && ok ||
  bad "a failed write left objects: $(diff "$TMP/before.keys" "$TMP/after.keys" | head -5 | tr '\n' ' ')"
# transient faults are retried: two 503 SlowDown on the snapshot PUT, one dropped GET
s3_proxy_ctl fault kind=503 count=2 method=PUT key='snapshot-' >/dev/null
s3_proxy_ctl fault kind=drop count=1 method=GET >/dev/null
echo '{"k":5,"v":"retried","p":2}' >"$TMP/one.jsonl"
"$P" write "s3://work/db.db/append" <"$TMP/one.jsonl" >/dev/null 2>"$TMP/err" &&
  "$P" cat "s3://work/db.db/append" --where "v = 'retried'" | grep -q retried && ok ||
  bad "write through 503 SlowDown and a dropped connection: $(cat "$TMP/err")"
s3_proxy_ctl clear >/dev/null
# the snapshot PUT reaches the store but its answer is lost: the retry meets 412, reads the
# object back, finds its own bytes and succeeds; exactly one snapshot is added
before=$("$P" snapshots "s3://work/db.db/append" | tail -1 | awk '{print $1}')
s3_proxy_ctl fault kind=drop_after count=1 method=PUT key='snapshot/snapshot-' >/dev/null
echo '{"k":6,"v":"lost-reply","p":2}' >"$TMP/one.jsonl"
"$P" write "s3://work/db.db/append" <"$TMP/one.jsonl" >/dev/null 2>"$TMP/err" || bad "lost reply: $(cat "$TMP/err")"
s3_proxy_ctl clear >/dev/null
after=$("$P" snapshots "s3://work/db.db/append" | tail -1 | awk '{print $1}')
n=$("$P" cat "s3://work/db.db/append" --where "v = 'lost-reply'" | wc -l)
[ "$after" -eq $((before + 1)) ] && [ "$n" -eq 1 ] && ok ||
  bad "lost reply to the snapshot PUT: snapshots $before -> $after, $n rows"

# ---- 4. errors ---------------------------------------------------------------------------
section "errors"
AWS_SECRET_ACCESS_KEY=wrong "$P" cat s3://corpus/parquet/append_09.db/append_09 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'HTTP 403 SignatureDoesNotMatch' "$TMP/err" && grep -q 's3://corpus' "$TMP/err" &&
  ok || bad "wrong secret: exit $rc: $(cat "$TMP/err")"
"$P" cat s3://corpus/no.db/such_table >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q 's3://corpus/no.db/such_table: no such file or directory' "$TMP/err" && ok ||
  bad "missing table: exit $rc: $(cat "$TMP/err")"
"$P" cat hdfs://nn/db.db/t >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "unsupported scheme 'hdfs'" "$TMP/err" && ok ||
  bad "unknown scheme: exit $rc: $(cat "$TMP/err")"
# plain s3rver ignores If-None-Match: reads work, commits are refused, nothing is left
AWS_ENDPOINT_URL=$S3_ENDPOINT "$P" cat s3://work/db.db/append >"$TMP/direct.out" 2>"$TMP/err" &&
  [ -s "$TMP/direct.out" ] && ok || bad "read straight from s3rver: $(cat "$TMP/err")"
s3_tool list s3://work/db.db/append >"$TMP/before.keys"
AWS_ENDPOINT_URL=$S3_ENDPOINT "$P" write s3://work/db.db/append <"$TMP/one.jsonl" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "ignores 'If-None-Match: \*'" "$TMP/err" && grep -q "$S3_ENDPOINT" "$TMP/err" &&
  ok || bad "commit on a store that overwrites: exit $rc: $(cat "$TMP/err")"
s3_tool list s3://work/db.db/append >"$TMP/after.keys"
cmp -s "$TMP/before.keys" "$TMP/after.keys" && ok ||
  bad "the refused commit left objects: $(diff "$TMP/before.keys" "$TMP/after.keys" | head -5 | tr '\n' ' ')"

section "done"
echo "test_s3_roundtrip: $checks checks, $fails failures ($rows_checked corpus rows)"
[ "$fails" -eq 0 ]
