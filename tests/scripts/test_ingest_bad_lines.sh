#!/usr/bin/env bash
# Malformed source lines in `paimon ingest` (issue 13 item 8). --bad-lines fail (default):
# the lines before a bad one are committed exactly once, the job exits 1 naming the file,
# line and column and saying how to go on; after fixing the line a rerun continues exactly
# once. --bad-lines skip: bad lines go to a rejects file keyed by line number, are counted
# in /status and on the commit lines, are never examined again once committed past (the
# committed source high-water mark), and reruns leave the same rejects file and table. An
# all-bad batch still advances the committed source state. Expectations come from python3.
# Usage: test_ingest_bad_lines.sh BUILD_DIR SHARED_DIR
# needs: libmicrohttpd (it runs `paimon ingest --serve`)
set -u
BUILD=${1:?build dir}
P="$BUILD/paimon"
TMP=$(mktemp -d)
. "$(dirname "$0")/lib_ingest.sh"
# TABLE FILE -> "equal" when the table's rows are exactly FILE's valid lines (bad ones are
# those python cannot load or whose "v" is not an integer)
rows_are_good_lines() {
  "$P" cat "$1" --format jsonl >"$TMP/cat.out" 2>"$TMP/cat.err" || { echo "cat failed: $(cat "$TMP/cat.err")"; return; }
  python3 - "$TMP/cat.out" "$2" <<'EOF'
import collections, json, sys
got = collections.Counter(json.dumps(json.loads(l), sort_keys=True) for l in open(sys.argv[1]))
want = collections.Counter()
for l in open(sys.argv[2]):
    try:
        r = json.loads(l)
    except ValueError:
        continue
    if isinstance(r.get("v"), int) and not isinstance(r.get("v"), bool) and set(r) == {"id", "v"}:
        want[json.dumps(r, sort_keys=True)] += 1
print("equal" if got == want else "differ: %d table rows, %d good lines, %d missing, %d extra" % (
    sum(got.values()), sum(want.values()), sum((want - got).values()), sum((got - want).values())))
EOF
}
# SOURCE REJECTS -> "exact" when REJECTS lists exactly the bad lines of SOURCE, in order,
# each with its 1-based line number, the raw line and an error
rejects_exact() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
want = []
for i, l in enumerate(open(sys.argv[1]).read().split("\n")[:-1]):
    try:
        r = json.loads(l)
        okl = isinstance(r.get("v"), int) and not isinstance(r.get("v"), bool) and set(r) == {"id", "v"}
    except ValueError:
        okl = False
    if not okl: want.append((i + 1, l))
got = []
for l in open(sys.argv[2]):
    e = json.loads(l)
    assert e["error"], e
    got.append((e["line"], e["raw"]))
print("exact" if got == want else "differ: want lines %s, got %s" % ([w[0] for w in want][:10], [g[0] for g in got][:10]))
EOF
}

[ -x "$P" ] || { echo "FAIL: $P not built"; exit 1; }
cat >"$TMP/s.json" <<'EOF'
{"fields": [{"id": 0, "name": "id", "type": "BIGINT"}, {"id": 1, "name": "v", "type": "BIGINT"}],
 "options": {"bucket": "2", "bucket-key": "id", "realtime.enabled": "true"}}
EOF
ING=(--commit-interval 1h --maintain-every 0)
line() { echo "{\"id\": $1, \"v\": $(($1 * 3))}"; }

# ---- fail (the default): the good lines before the bad one are committed, once ------------
T="$TMP/f"
"$P" create "$T" --schema "$TMP/s.json" >/dev/null || { echo "FAIL: create"; exit 1; }
S="$TMP/f.jsonl"
{ for i in $(seq 0 9); do line "$i"; done; echo '{"id": 10, "v": "ten"}'; for i in $(seq 11 19); do line "$i"; done; } >"$S"
expect 1 "$P" ingest "$T" --source "$S" "${ING[@]}" --batch-rows 4 && err_has "$S: line 11, column " &&
  err_has "field 'v'" && err_has "Fix line 11" && err_has "--bad-lines skip"
head -n 10 "$S" >"$TMP/f.first10"
same "$(rows_are_good_lines "$T" "$TMP/f.first10")" equal "fail: the 10 lines before the bad one are committed"
s1=$(latest "$T")
expect 1 "$P" ingest "$T" --source "$S" "${ING[@]}" && err_has "line 11, column "
same "$(latest "$T")" "$s1" "fail: a rerun over the unfixed line commits nothing"
same "$(rows_are_good_lines "$T" "$TMP/f.first10")" equal "fail: no duplicates after the rerun"
sed -i 's/"v": "ten"/"v": 30/' "$S" # fixed in place
expect 0 "$P" ingest "$T" --source "$S" "${ING[@]}" && err_has "reading on from line 11"
same "$(rows_are_good_lines "$T" "$S")" equal "fail: after fixing the line every line once"

# ---- skip: rejects file, counts, reruns identical ---------------------------------------------
T="$TMP/k"
"$P" create "$T" --schema "$TMP/s.json" >/dev/null || { echo "FAIL: create"; exit 1; }
S="$TMP/k.jsonl"
{
  echo 'not json at all' # line 1: bad before anything was committed
  for i in $(seq 1 30); do line "$i"; done
  echo '{"id": 31, "v": 1.5}'
  echo '{"id": 32, "v": 2, "extra": 1}'
  for i in $(seq 33 40); do line "$i"; done
  for i in $(seq 41 48); do echo "{\"id\": $i, \"v\": ["; done # a batch of 8 bad lines only
  for i in $(seq 49 60); do line "$i"; done
  echo '{"id": 61, "v": "x"}' # the last line
} >"$S"
expect 0 "$P" ingest "$T" --source "$S" "${ING[@]}" --batch-rows 8 --bad-lines skip &&
  err_has "bad line(s) skipped"
R="$S.rejects"
same "$(rejects_exact "$S" "$R")" exact "skip: rejects file"
same "$(rows_are_good_lines "$T" "$S")" equal "skip: the good lines, once"
cp "$R" "$TMP/r.1"
s1=$(latest "$T")
expect 0 "$P" ingest "$T" --source "$S" "${ING[@]}" --bad-lines skip
same "$(latest "$T")" "$s1" "skip: a rerun commits nothing"
cmp -s "$R" "$TMP/r.1" && ok || bad "skip: the rerun changed the rejects file"
# the source grows; a killed run's tail in the rejects file (lines past the committed mark)
# is cut off and written again, exactly
{ for i in $(seq 62 70); do line "$i"; done; echo '{"id": 71}x'; line 72; } >>"$S"
printf '{"line": 72, "error": "from a killed run", "raw": "{\\"id\\": 71}x"}\n{"line": 7' >>"$R"
expect 0 "$P" ingest "$T" --source "$S" "${ING[@]}" --bad-lines skip && err_has "dropped 2 entries"
same "$(rejects_exact "$S" "$R")" exact "skip: rejects file after growth and a torn tail"
same "$(rows_are_good_lines "$T" "$S")" equal "skip: the good lines after growth"
# another table's rejects file is refused, never cut: the same source into a new table
# with the default --rejects path, and into this table with that table's file
cp "$R" "$TMP/r.2"
"$P" create "$TMP/k2" --schema "$TMP/s.json" >/dev/null
expect 1 "$P" ingest "$TMP/k2" --source "$S" "${ING[@]}" --bad-lines skip && err_has "belongs to another table"
cmp -s "$R" "$TMP/r.2" && ok || bad "skip: another table's run changed the rejects file"
same "$(latest "$TMP/k2")" none "skip: the refused run on a new table committed something"
expect 0 "$P" ingest "$TMP/k2" --source "$S" "${ING[@]}" --bad-lines skip --rejects "$TMP/k2.rejects"
same "$(rejects_exact "$S" "$TMP/k2.rejects")" exact "skip: the new table's own rejects file"
{ sed -n 1,12p "$TMP/r.2"; sed -n 3p "$TMP/r.2"; } >"$R" # an entry out of line order: not ours
expect 1 "$P" ingest "$T" --source "$S" "${ING[@]}" --bad-lines skip && err_has "does not match"
cp "$TMP/r.2" "$R"
# an all-bad last batch still advances the committed source state (its high-water mark)
for i in $(seq 73 80); do echo "bad $i"; done >>"$S"
expect 0 "$P" ingest "$T" --source "$S" "${ING[@]}" --batch-rows 8 --bad-lines skip
python3 - "$T" "$S" <<'EOF' && ok || bad "skip: the all-bad batch did not advance the source state"
import json, os, sys
t, src = sys.argv[1], sys.argv[2]
snap = json.load(open(os.path.join(t, "snapshot", "snapshot-" + open(os.path.join(t, "snapshot", "LATEST")).read().strip())))
st = snap["properties"]["realtime.source"]
assert " lines=81 " in st and " bytes=%d " % os.path.getsize(src) in st and st.endswith(" rejected=21"), st
EOF
same "$(rejects_exact "$S" "$R")" exact "skip: rejects file after an all-bad batch"
cp "$R" "$TMP/r.3"
expect 0 "$P" ingest "$T" --source "$S" "${ING[@]}" --bad-lines skip && err_has "reading on from line 82"
cmp -s "$R" "$TMP/r.3" && ok || bad "skip: rerun after the all-bad batch changed the rejects file"

# ---- /status and the commit line count the skipped lines --------------------------------------
echo '{"id": 81, "v": false}' >>"$S"
"$P" ingest "$T" --source "$S" --follow --commit-interval 100ms --maintain-every 0 --bad-lines skip \
  --serve 127.0.0.1:0 2>"$TMP/serve.err" &
srv=$!
port=$(serve_port "$TMP/serve.err")
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/status" >"$TMP/status.json" &&
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["source_fingerprint"]["lines"] != 82)' \
      "$TMP/status.json" && break
  sleep 0.1
done
python3 - "$TMP/status.json" "$R" <<'EOF' && ok || bad "/status: $(head -c 800 "$TMP/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["bad_lines"] == "skip" and s["skipped_lines"] == 22, s
assert s["source_fingerprint"]["rejected"] == 22 and s["rejects_file"] == sys.argv[2], s
EOF
kill -TERM "$srv"
wait "$srv"
srv=""
grep -q "22 bad line(s) skipped" "$TMP/serve.err" && ok || bad "commit line lacks the count: $(grep commit "$TMP/serve.err" | tail -1)"
same "$(rejects_exact "$S" "$R")" exact "skip: rejects file at the end"
same "$(rows_are_good_lines "$T" "$S")" equal "skip: the good lines at the end"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
