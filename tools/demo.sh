#!/bin/bash
# The main job of paimon-c, end to end on a fresh local warehouse:
#   real-time ingestion of a growing JSON-lines stream into two Paimon tables, queries that
#   see rows before any commit, a crash (SIGKILL) in the middle of the stream, a restart,
#   and a proof that every source row ended up in the tables exactly once.
# Run it with `make demo` (which builds build/paimon first).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
paimon="${PAIMON_BIN:-$here/build/paimon}"
wh="${DEMO_WAREHOUSE:-/tmp/paimon-demo}"
lines="${DEMO_LINES:-200000}"
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say() { printf '%s\n' "$*" | fold -s -w 100; }
run() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }
die() { printf 'demo failed: %s\n' "$*" >&2; exit 1; }
port_of() { # LOG -> the port the ingester's HTTP server listens on
  for _ in $(seq 100); do
    p=$(sed -n 's|^paimon: serving http://127.0.0.1:\([0-9]*\).*|\1|p' "$1" | tail -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.1
  done
  return 1
}
status_field() { python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1]))' "$1"; }

[ -x "$paimon" ] || die "$paimon is not built (run make)"
command -v curl >/dev/null || die "curl is needed"
rm -rf "$wh" && mkdir -p "$wh/db.db" || die "cannot create $wh"
events="$wh/db.db/events"
totals="$wh/db.db/totals"
stream="$wh/stream.jsonl"

step "1. Two tables in a fresh warehouse ($wh)"
say "'events' is an append table: every source line becomes one row. 'totals' is a primary-key table with the aggregation merge engine: one row per id holding the SUM of its amounts, so a lost or duplicated line would change a total. Both have 2 buckets and realtime.enabled=true, which lets rows be queried before they are committed."
cat >"$wh/events.json" <<'EOF'
{"fields": [{"id": 0, "name": "id", "type": "BIGINT"},
            {"id": 1, "name": "line", "type": "BIGINT"},
            {"id": 2, "name": "amount", "type": "BIGINT"}],
 "partitionKeys": [], "primaryKeys": [],
 "options": {"bucket": "2", "bucket-key": "id", "realtime.enabled": "true",
             "snapshot.num-retained.min": "3", "snapshot.num-retained.max": "5",
             "compaction.max.file-num": "4"}}
EOF
cat >"$wh/totals.json" <<'EOF'
{"fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
            {"id": 1, "name": "line", "type": "BIGINT"},
            {"id": 2, "name": "amount", "type": "BIGINT"}],
 "partitionKeys": [], "primaryKeys": ["id"],
 "options": {"bucket": "2", "realtime.enabled": "true",
             "merge-engine": "aggregation", "fields.amount.aggregate-function": "sum",
             "fields.line.aggregate-function": "max",
             "snapshot.num-retained.min": "3", "snapshot.num-retained.max": "5",
             "compaction.max.file-num": "4"}}
EOF
run "$paimon" create "$events" --schema "$wh/events.json" || die "create events"
run "$paimon" create "$totals" --schema "$wh/totals.json" || die "create totals"
run "$paimon" info "$totals" | sed -n '/^options:/,$p'

step "2. A stream of $lines JSON lines arrives over ~20 seconds"
say "A generator appends lines like {\"id\": 42, \"line\": 7, \"amount\": 55} to $stream. The line number (0-based) is each row's offset: the tables remember, per bucket, up to which line they hold the data."
: >"$stream"
python3 - "$stream" "$lines" <<'EOF' &
import random, sys, time
path, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(2024)
chunk = max(1, n // 200)
with open(path, "a") as f:
    for b in range(0, n, chunk):
        f.write("".join('{"id": %d, "line": %d, "amount": %d}\n' % (rnd.randrange(1000), i, rnd.randrange(1, 100))
                        for i in range(b, min(n, b + chunk))))
        f.flush()
        time.sleep(0.1)
EOF
gen=$!
pids="$gen"

step "3. Start the ingesters: one 'paimon ingest' per table, committing every 3 seconds"
start_ingesters() { # sets ev_pid, to_pid (children of this shell, so `wait` works)
  "$paimon" ingest "$events" --source "$stream" --follow --commit-interval 3s --maintain-every 3 \
    --serve 127.0.0.1:0 >>"$wh/events.log" 2>&1 &
  ev_pid=$!
  "$paimon" ingest "$totals" --source "$stream" --follow --commit-interval 3s --maintain-every 3 \
    --serve 127.0.0.1:0 >>"$wh/totals.log" 2>&1 &
  to_pid=$!
}
printf '\033[2m$ paimon ingest %s --source %s --follow --commit-interval 3s --serve 127.0.0.1:0 &\033[0m\n' "$events" "$stream"
start_ingesters
pids="$gen $ev_pid $to_pid"
ev_port=$(port_of "$wh/events.log") || die "events ingester did not start: $(cat "$wh/events.log")"
to_port=$(port_of "$wh/totals.log") || die "totals ingester did not start: $(cat "$wh/totals.log")"
say "events is served on http://127.0.0.1:$ev_port, totals on http://127.0.0.1:$to_port"
sleep 0.7

step "4. Query BEFORE any commit"
if [ "$(curl -s "http://127.0.0.1:$ev_port/status" | status_field commits)" != 0 ]; then
  say "(This machine is slow: a commit already happened. The point stands: rows appear in queries as soon as they are written.)"
fi
say "No snapshot exists yet: the directory holds no committed data..."
run "$paimon" snapshots "$events"
say "...yet the server answers from memory + disk (a union read). Rows of id 42 so far:"
run curl -s -G "http://127.0.0.1:$ev_port/query" --data-urlencode "where=id = 42" --data-urlencode "limit=5"
say "and the running total of id 42 in the primary-key table (merged in memory with the sum engine):"
run curl -s -G "http://127.0.0.1:$to_port/query" --data-urlencode "where=id = 42"
say "The status shows nothing committed (context_snapshot 0) and the rows held in memory:"
curl -s "http://127.0.0.1:$ev_port/status" | python3 -c 'import json,sys
s=json.load(sys.stdin)
print("  source lines read: %s, committed snapshot: %s, memory: %s bytes, commits: %s" % (
    s["source_lines_read"], s["context_snapshot"], s["memory_bytes"], s["commits"]))'

step "5. Let it commit"
say "Every 3 seconds each ingester seals what it wrote, writes it as data files and commits a snapshot that also records the per-bucket offsets (snapshot property realtime.offsets). Ingestion continues meanwhile."
sleep 5
grep -h "commit\|maintenance" "$wh/events.log" | sed 's/^/  events: /'
grep -h "commit\|maintenance\|paimon:" "$wh/totals.log" | grep -v serving | sed 's/^/  totals: /'
pk_ok=1
if grep -q "needs the primary-key writer" "$wh/totals.log"; then
  pk_ok=0
  say "NOTE: this build cannot commit primary-key rows from the real-time writer yet (the primary-key writer is not there); the demo continues with the append table only."
fi
run "$paimon" snapshots "$events"
curl -s "http://127.0.0.1:$ev_port/status" | python3 -c 'import json,sys
s=json.load(sys.stdin)
print("  committed offsets per bucket:", ", ".join("bucket %d < line %d" % (o["bucket"], o["offset"]) for o in s["committed_offsets"]))'

step "6. Crash: SIGKILL both ingesters in the middle of the stream"
{ kill -9 "$ev_pid" "$to_pid"; wait "$ev_pid" "$to_pid"; sleep 0.1; } 2>/dev/null # quiet: no "Killed" notices
pids="$gen"
read_now=$(wc -l <"$stream")
committed=$("$paimon" cat "$events" --format csv | tail -n +2 | wc -l)
say "The stream has $read_now lines so far; the table holds the $committed rows committed before the crash. Rows that were only in memory are gone from the process, but not from the source."

step "7. Restart: the same command, nothing else"
say "The new ingester checks that the stream still begins with the committed prefix (its fingerprint is in the snapshot: lines, bytes, hash) and reads on after it. The writer runs in replay mode: a row whose line is below its bucket's committed offset is skipped, the rest is written. So each line is ingested exactly once."
mv "$wh/events.log" "$wh/events.log.1"
mv "$wh/totals.log" "$wh/totals.log.1"
start_ingesters
pids="$gen $ev_pid $to_pid"
ev_port=$(port_of "$wh/events.log") || die "restart failed: $(tail -3 "$wh/events.log")"
to_port=$(port_of "$wh/totals.log") || die "restart failed: $(tail -3 "$wh/totals.log")"
grep -h "resuming" "$wh/events.log" | sed 's/^/  events: /'
say "Waiting for the stream to end and the ingesters to catch up..."
wait "$gen"
pids="$ev_pid $to_pid"
for port in $ev_port $to_port; do
  for _ in $(seq 300); do
    n=$(curl -s "http://127.0.0.1:$port/status" | status_field source_lines_read)
    [ "$n" = "$lines" ] && break
    sleep 0.2
  done
done
say "Both have read all $lines lines; stop them with SIGTERM, which commits what is left and exits."
kill -TERM "$ev_pid" "$to_pid"
wait "$ev_pid" "$to_pid"
pids=""
tail -n 3 "$wh/events.log" | sed 's/^/  events: /'
tail -n 3 "$wh/totals.log" | sed 's/^/  totals: /'

step "8. Exactly once? Compare the tables with the source, computed independently"
say "python3 reads the stream file directly; the tables are read with 'paimon cat'."
src=$(python3 -c 'import json,sys
n=s=0
for l in open(sys.argv[1]):
    r=json.loads(l); n+=1; s+=r["amount"]
print(n, s)' "$stream")
tab=$("$paimon" cat "$events" --format csv | awk -F, 'NR>1 {n++; s+=$3} END {print n, s}')
dups=$("$paimon" cat "$events" --format csv | awk -F, 'NR>1 {c[$2]++} END {d=0; for (k in c) if (c[k]>1) d++; print d}')
printf '  source: %s rows, sum of amount %s\n' ${src}
printf '  events: %s rows, sum of amount %s, lines present more than once: %s\n' ${tab} "$dups"
ok=1
if [ "$src" = "$tab" ] && [ "$dups" = 0 ]; then say "  -> the append table holds every source line exactly once."; else ok=0; say "  -> MISMATCH"; fi
if [ "$pk_ok" = 1 ]; then
  res=$("$paimon" cat "$totals" --format jsonl | python3 -c 'import json,sys,collections
want=collections.Counter()
for l in open(sys.argv[1]):
    r=json.loads(l); want[r["id"]]+=r["amount"]
got={}
for l in sys.stdin:
    r=json.loads(l); got[r["id"]]=r["amount"]
bad=[k for k in set(want)|set(got) if want.get(k)!=got.get(k)]
print("%d keys, %d sums differ" % (len(want), len(bad)))' "$stream")
  printf '  totals: %s\n' "$res"
  case "$res" in *", 0 sums differ") say "  -> every per-id sum in the primary-key table equals the source's." ;; *) ok=0; say "  -> MISMATCH" ;; esac
else
  say "  totals: skipped (primary-key real-time commits not available in this build)"
fi

step "9. Housekeeping happened on the way"
say "Every 3 commits the ingester compacted small files (compaction.max.file-num=4 makes it visible here; by default Java's rules wait for 50 small files or a 256 MB window) and expired old snapshots (the tables keep 3 to 5), so days of 2-second commits do not pile up:"
cat "$wh/events.log.1" "$wh/events.log" | grep -h "maintenance" | tail -n 4 | sed 's/^/  /'
run "$paimon" snapshots "$events"
[ "$ok" = 1 ] || die "the tables do not match the source"
say "Done. The warehouse stays in $wh for you to explore (paimon info/files/cat)."
