#!/usr/bin/env bash
# Source identity of `paimon ingest` (issue 13 item 7): committed offsets are line numbers,
# so a different file must never be taken for the committed lines. The committed prefix's
# fingerprint (lines, bytes, hash) is the source state of each snapshot; a source that does
# not begin with it is refused (exit 1, table unchanged), and --source-id NAME ingests a
# second source with its own progress. Expectations are computed with python3 from the
# source files.
# Usage: test_ingest_source.sh BUILD_DIR SHARED_DIR
# needs: libmicrohttpd (it runs `paimon ingest --serve`)
set -u
BUILD=${1:?build dir}
P="$BUILD/paimon"
TMP=$(mktemp -d)
. "$(dirname "$0")/lib_ingest.sh"
# TABLE FILES... -> "equal" when the table's rows are exactly the lines of FILES (a multiset)
rows_are() {
  local t=$1
  shift
  "$P" cat "$t" --format jsonl >"$TMP/cat.out" 2>"$TMP/cat.err" || { echo "cat failed: $(cat "$TMP/cat.err")"; return; }
  python3 - "$TMP/cat.out" "$@" <<'EOF'
import collections, json, sys
got = collections.Counter(json.dumps(json.loads(l), sort_keys=True) for l in open(sys.argv[1]))
want = collections.Counter()
for f in sys.argv[2:]:
    for l in open(f):
        if l.strip(): want[json.dumps(json.loads(l), sort_keys=True)] += 1
print("equal" if got == want else "differ: %d table rows, %d source rows, %d missing, %d extra" % (
    sum(got.values()), sum(want.values()), sum((want - got).values()), sum((got - want).values())))
EOF
}
gen() { # FILE FIRST COUNT [SEED]: lines {"id": i, "src": SEED, "v": ...}
  python3 - "$@" <<'EOF'
import sys
path, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seed = sys.argv[4] if len(sys.argv) > 4 else "a"
with open(path, "a") as f:
    for i in range(first, first + n):
        f.write('{"id": %d, "src": "%s", "v": %d}\n' % (i, seed, (i * 7919) % 1000))
EOF
}

[ -x "$P" ] || { echo "FAIL: $P not built"; exit 1; }
cat >"$TMP/s.json" <<'EOF'
{"fields": [{"id": 0, "name": "id", "type": "BIGINT"}, {"id": 1, "name": "src", "type": "STRING"},
            {"id": 2, "name": "v", "type": "BIGINT"}],
 "options": {"bucket": "2", "bucket-key": "id", "realtime.enabled": "true"}}
EOF
T="$TMP/t"
"$P" create "$T" --schema "$TMP/s.json" >/dev/null || { echo "FAIL: create"; exit 1; }
A="$TMP/a.jsonl"
B="$TMP/other.jsonl"
gen "$A" 0 1000 a
gen "$B" 0 1000 b # the same line numbers and ids, other content
ING=(--commit-interval 1h --maintain-every 0)

# ---- ingest A ---------------------------------------------------------------------------
expect 0 "$P" ingest "$T" --source "$A" "${ING[@]}"
same "$(rows_are "$T" "$A")" equal "after ingesting A"
s1=$(latest "$T")

# ---- a different source at another path: refused, table unchanged ----------------------
expect 1 "$P" ingest "$T" --source "$B" --commit-user third "${ING[@]}" && err_has "is not the source" &&
  err_has "committed source: 1000 lines" && err_has "this file: " && err_has "--source-id"
same "$(latest "$T")" "$s1" "snapshot after refusing another source"
same "$(rows_are "$T" "$A")" equal "rows after refusing another source"

# ---- the same path replaced: different content of the same length, longer, shorter -------
cp "$A" "$TMP/a.orig"
python3 - "$A" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.index(b'"v": ', len(b) // 2) + 5
b[i] = ord("9") if b[i] != ord("9") else ord("8") # one digit of line ~500
open(p, "wb").write(bytes(b))
EOF
expect 1 "$P" ingest "$T" --source "$A" "${ING[@]}" && err_has "is not the source" && err_has "first"
same "$(latest "$T")" "$s1" "snapshot after refusing an edited file at the same path"
cp "$TMP/a.orig" "$A"
gen "$A" 1000 10 a # grows past the committed prefix: fine below; first an edit before it
python3 - "$A" <<'EOF'
import sys
p = sys.argv[1]
l = open(p).read().split("\n")
l[3] = l[3].replace('"src": "a"', '"src": "A"')
open(p, "w").write("\n".join(l))
EOF
expect 1 "$P" ingest "$T" --source "$A" "${ING[@]}" && err_has "is not the source"
head -n 600 "$TMP/a.orig" >"$A" # truncated
expect 1 "$P" ingest "$T" --source "$A" "${ING[@]}" && err_has "only" && err_has "truncated"
gen "$TMP/c.jsonl" 0 2000 c # a longer, different file moved into place
cp "$TMP/c.jsonl" "$A"
expect 1 "$P" ingest "$T" --source "$A" "${ING[@]}" && err_has "is not the source"
same "$(latest "$T")" "$s1" "snapshot after refusing replaced files"
same "$(rows_are "$T" "$TMP/a.orig")" equal "rows after refusing replaced files"

# ---- the original, grown: only the new lines land ------------------------------------------
cp "$TMP/a.orig" "$A"
gen "$A" 1000 50 a
expect 0 "$P" ingest "$T" --source "$A" "${ING[@]}" && err_has "reading on from line 1001"
same "$(rows_are "$T" "$A")" equal "after A grew"

# ---- a second source with --source-id: its own progress, exactly once ------------------------
expect 0 "$P" ingest "$T" --source "$B" --source-id other "${ING[@]}"
same "$(rows_are "$T" "$A" "$B")" equal "A and B after ingesting B as its own source"
s2=$(latest "$T")
expect 0 "$P" ingest "$T" --source "$B" --source-id other "${ING[@]}"
same "$(latest "$T")" "$s2" "re-running B commits nothing"
expect 0 "$P" ingest "$T" --source "$A" "${ING[@]}"
same "$(latest "$T")" "$s2" "re-running A after B commits nothing (B's commits kept A's progress)"
gen "$B" 1000 20 b
gen "$A" 1050 20 a
expect 0 "$P" ingest "$T" --source "$B" --source-id other "${ING[@]}"
expect 0 "$P" ingest "$T" --source "$A" "${ING[@]}"
same "$(rows_are "$T" "$A" "$B")" equal "A and B after both grew"
# the named source is checked too
expect 1 "$P" ingest "$T" --source "$TMP/c.jsonl" --source-id other "${ING[@]}" && err_has "source id 'other'"
python3 - "$T" <<'EOF' && ok || bad "snapshot properties lack the source states"
import json, os, sys
t = sys.argv[1]
p = json.load(open(os.path.join(t, "snapshot", "snapshot-" + open(os.path.join(t, "snapshot", "LATEST")).read().strip())))["properties"]
for k in ("realtime.source", "realtime.source.other", "realtime.offsets", "realtime.offsets.other"):
    assert k in p, (k, p)
assert p["realtime.source"].startswith("paimon-ingest/1 lines=1070 "), p["realtime.source"]
assert p["realtime.source.other"].startswith("paimon-ingest/1 lines=1020 "), p["realtime.source.other"]
EOF

# ---- a last line committed without its newline: its newline may follow, nothing else --------
T2="$TMP/u"
"$P" create "$T2" --schema "$TMP/s.json" >/dev/null
U="$TMP/u.jsonl"
printf '{"id": 1, "src": "u", "v": 1}\n{"id": 2, "src": "u", "v": 2}' >"$U"
expect 0 "$P" ingest "$T2" --source "$U" "${ING[@]}"
printf '\n{"id": 3, "src": "u", "v": 3}\n' >>"$U"
expect 0 "$P" ingest "$T2" --source "$U" "${ING[@]}"
same "$(rows_are "$T2" "$U")" equal "the unterminated last line, terminated later"
printf '{"id": 4, "src": "u", "v": 4}' >>"$U"
expect 0 "$P" ingest "$T2" --source "$U" "${ING[@]}"
s3=$(latest "$T2")
printf ' ' >>"$U" # the committed line 4 changed
expect 1 "$P" ingest "$T2" --source "$U" "${ING[@]}" && err_has "has been extended"
same "$(latest "$T2")" "$s3" "snapshot after refusing an extended last line"
same "$(rows_are "$T2" "$U")" equal "rows after refusing an extended last line"

# ---- /status names the source and its fingerprint -------------------------------------------
"$P" ingest "$T" --source "$B" --source-id other --follow "${ING[@]}" --serve 127.0.0.1:0 2>"$TMP/serve.err" &
srv=$!
port=$(serve_port "$TMP/serve.err")
curl -sf "http://127.0.0.1:$port/status" >"$TMP/status.json" || bad "GET /status failed"
python3 - "$TMP/status.json" "$B" <<'EOF' && ok || bad "/status: $(head -c 600 "$TMP/status.json")"
import json, os, sys
s = json.load(open(sys.argv[1]))
fp = s["source_fingerprint"]
assert s["source_id"] == "other", s["source_id"]
assert fp["lines"] == 1020 and fp["bytes"] == os.path.getsize(sys.argv[2]), fp
assert len(fp["hash"]) == 16, fp
EOF
kill -TERM "$srv"
wait "$srv"
srv=""

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
