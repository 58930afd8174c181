#!/usr/bin/env bash
# Incremental and streaming reads through the CLI (issue 22):
# - the corpus acceptance (incremental_corpus.py): delta / diff / auto / changelog between
#   every pair of consecutive snapshots of every corpus table with several snapshots,
#   against the expected rows per snapshot;
# - cat | write round trip: applying `cat --incremental` of each snapshot to an empty copy
#   gives the source table's rows;
# - `cat --follow --consumer-id` on a table another process writes 200 commits into (with
#   compactions and expiration between): every row exactly once, in commit order, then a
#   clean stop on SIGINT; expiration never removed a snapshot the consumer still needed.
# Usage: test_cli_incremental.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
SHARED=${2:?shared dir}
P="$BUILD/paimon"
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
FPID=
trap '[ -n "$FPID" ] && kill "$FPID" 2>/dev/null; rm -rf "$TMP"' EXIT
fails=0
checks=0
ok() { checks=$((checks + 1)); }
bad() {
  checks=$((checks + 1))
  fails=$((fails + 1))
  echo "FAIL: $*"
}

# 1. corpus
if python3 "$HERE/incremental_corpus.py" "$P" "$SHARED" >"$TMP/corpus.out" 2>&1; then ok; else
  bad "corpus incremental reads"
  grep -v '^PASS' "$TMP/corpus.out" | head -40
fi
tail -1 "$TMP/corpus.out"

# 2. usage errors
T0="$SHARED/compat/tables/orc/pk_09.db/pk_09"
"$P" cat "$T0" --incremental 5 >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--incremental 5 is a usage error"
"$P" cat "$T0" --incremental 1,99 >/dev/null 2>"$TMP/e"
[ $? -eq 1 ] && grep -q "outside the kept snapshots" "$TMP/e" && ok || bad "range outside: $(cat "$TMP/e")"
"$P" cat "$T0" --incremental 1,2 --incremental-mode sideways >/dev/null 2>"$TMP/e"
grep -q "sideways" "$TMP/e" && ok || bad "bad mode named: $(cat "$TMP/e")"
"$P" cat "$T0" --incremental-tags nope1,nope2 >/dev/null 2>"$TMP/e"
grep -q "nope1" "$TMP/e" && ok || bad "missing tag named: $(cat "$TMP/e")"

# 3. round trip
S='{"fields":[{"id":0,"name":"k","type":"INT NOT NULL"},{"id":1,"name":"v","type":"STRING"}],"partitionKeys":[],"primaryKeys":["k"],"options":{"bucket":"2"}}'
echo "$S" >"$TMP/s.json"
"$P" create "$TMP/src" --schema "$TMP/s.json" >/dev/null && "$P" create "$TMP/dst" --schema "$TMP/s.json" >/dev/null || bad "create"
printf '{"k":1,"v":"a"}\n{"k":2,"v":"b"}\n{"k":3,"v":"c"}\n' | "$P" write "$TMP/src" 2>/dev/null
printf '{"k":2,"v":"B"}\n{"k":3,"_VALUE_KIND":"-D"}\n{"k":4,"v":"d"}\n' | "$P" write "$TMP/src" 2>/dev/null
"$P" compact "$TMP/src" --full >/dev/null
printf '{"k":1,"_VALUE_KIND":"-D"}\n{"k":5,"v":"e"}\n' | "$P" write "$TMP/src" 2>/dev/null
for r in 0,1 1,2 2,3 3,4; do "$P" cat "$TMP/src" --incremental $r | "$P" write "$TMP/dst" 2>/dev/null || bad "write $r"; done
if [ "$("$P" cat "$TMP/src" | sort)" = "$("$P" cat "$TMP/dst" | sort)" ]; then ok; else bad "cat --incremental | write round trip"; fi
n=$("$P" cat "$TMP/src" --incremental 1,4 --incremental-mode diff | grep -c '"_VALUE_KIND": "-D"')
[ "$n" = 2 ] && ok || bad "diff 1,4 has 2 deletes (got $n)"

# 4. follow a table written by another process
"$P" create "$TMP/f" --schema "$TMP/s.json" >/dev/null || bad "create f"
printf '{"k":0,"v":"init"}\n' | "$P" write "$TMP/f" 2>/dev/null
"$P" cat "$TMP/f" --follow --from-snapshot 1 --consumer-id c1 >"$TMP/follow.out" 2>"$TMP/follow.err" &
FPID=$!
sleep 0.5
(
  for i in $(seq 1 200); do
    # each commit writes key i (value i) and rewrites key i-1: rows are unique per commit
    printf '{"k":%d,"v":"n%d"}\n{"k":%d,"v":"u%d"}\n' "$i" "$i" "$((i - 1))" "$i" |
      "$P" write "$TMP/f" 2>/dev/null || echo "write $i failed"
    if [ $((i % 25)) -eq 0 ]; then "$P" compact "$TMP/f" >/dev/null 2>&1 || echo "compact $i failed"; fi
    if [ $((i % 20)) -eq 0 ]; then
      "$P" expire "$TMP/f" -o snapshot.num-retained.min=1 -o snapshot.num-retained.max=2 \
        -o snapshot.time-retained=1ms >/dev/null 2>&1 || echo "expire $i failed"
    fi
  done
) >"$TMP/writer.out" 2>&1
[ -s "$TMP/writer.out" ] && bad "writer: $(head -3 "$TMP/writer.out")" || ok
# wait until the follower printed the last commit's rows
for _ in $(seq 1 300); do grep -q '"u200"' "$TMP/follow.out" && break; sleep 0.1; done
kill -INT "$FPID"
wait "$FPID"
rc=$?
FPID=
[ $rc -eq 0 ] && ok || bad "follow exit status $rc after SIGINT: $(cat "$TMP/follow.err")"
python3 - "$TMP/follow.out" <<'PY' && ok || bad "follow output"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = [(0, "init", "+I")]
for i in range(1, 201):
    want += [(i - 1, "u%d" % i, "+I"), (i, "n%d" % i, "+I")]
got = [(r["k"], r["v"], r["_VALUE_KIND"]) for r in rows]
# per commit, rows come per bucket: compare commits in order, rows within as sets
def commits(rs):
    out, cur = [], []
    for r in rs:
        cur.append(r)
        if len(out) == 0 or len(cur) == 2:
            out.append(sorted(cur)); cur = []
    return out, cur
if len(got) != len(want):
    print("rows: %d, want %d" % (len(got), len(want))); sys.exit(1)
if sorted(got) != sorted(want) or len(set(got)) != len(got):
    print("rows differ"); sys.exit(1)
gw, _ = commits(want); gg, _ = commits(got)
if gw != gg:
    print("commit order differs"); sys.exit(1)
print("follow: %d rows, each once, in commit order" % len(got))
PY
# the consumer kept its snapshots: its file names a snapshot that still exists or the next
next=$(python3 -c "import json;print(json.load(open('$TMP/f/consumer/consumer-c1'))['nextSnapshot'])")
[ -e "$TMP/f/snapshot/snapshot-$next" ] || [ "$next" -gt "$(cat "$TMP/f/snapshot/LATEST")" ] && ok ||
  bad "consumer nextSnapshot $next neither kept nor next"
[ -e "$TMP/f/snapshot/snapshot-1" ] && bad "expiration ran: snapshot-1 should be gone" || ok

echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
