#!/usr/bin/env bash
# `paimon write --format csv` refuses invalid UTF-8 as JSON lines do (issue 15 item 3; it
# used to store U+FFFD instead): exit 1, the message names the line, the byte of the line
# and the column, nothing is committed. Valid multi-byte text is stored byte for byte.
# The library's value checks reach the CLI too: VARCHAR(n) over length and duplicate map
# keys fail naming the column.
# Usage: test_cli_csv_validation.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
P="$BUILD/paimon"
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
# WANT_RC INPUT_FILE: runs paimon write into $T, output in $TMP/err
run_write() {
  "$P" write "$T" --format "$FMT" <"$2" >/dev/null 2>"$TMP/err"
  local got=$?
  [ "$got" -eq "$1" ] || { bad "write of $2 exited $got, expected $1: $(cat "$TMP/err")"; return 1; }
  return 0
}
snapshots() { ls "$T/snapshot" 2>/dev/null | grep -c '^snapshot-'; }

T="$TMP/t"
cat >"$TMP/schema.json" <<'EOF'
{"fields":[{"name":"k","type":"INT"},{"name":"s","type":"STRING"},{"name":"v","type":"VARCHAR(3)"},
 {"name":"m","type":{"type":"MAP","key":"STRING NOT NULL","value":"INT"}}]}
EOF
"$P" create "$T" --schema "$TMP/schema.json" >/dev/null 2>"$TMP/err" || { echo "create failed: $(cat "$TMP/err")"; exit 1; }
FMT=csv

# valid: multi-byte characters, quoted and not; VARCHAR(3) holding three 2-byte characters
printf 'k,s,v\n1,h\xc3\xa9,\xc3\xa9\xc3\xa9\xc3\xa9\n2,"\xe2\x82\xac,x",ab\n' >"$TMP/good.csv"
run_write 0 "$TMP/good.csv" && ok
[ "$(snapshots)" -eq 1 ] && ok || bad "valid csv not committed"
"$P" cat "$T" --format jsonl >"$TMP/cat.out" 2>"$TMP/err" || bad "cat failed: $(cat "$TMP/err")"
python3 - "$TMP/cat.out" <<'EOF' && ok || bad "valid csv values changed"
import json, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1], encoding="utf-8")), key=lambda r: r["k"])
assert rows == [{"k": 1, "s": "h\u00e9", "v": "\u00e9\u00e9\u00e9", "m": None},
                {"k": 2, "s": "\u20ac,x", "v": "ab", "m": None}], rows
EOF

# invalid bytes: a lone continuation byte, an overlong form, a surrogate, a truncated
# sequence at the end of a quoted cell; each names line, byte and column
check_bad() { # NAME CSV_BODY(printf) WANT_LINE WANT_BYTE WANT_COLUMN
  printf "$2" >"$TMP/$1.csv"
  run_write 1 "$TMP/$1.csv" || return
  grep -q "line $3: column '$5' (field [0-9]*): invalid UTF-8 at byte $4 of the line" "$TMP/err" && ok ||
    bad "$1: message lacks line $3, byte $4, column $5: $(cat "$TMP/err")"
  grep -q 'U+FFFD\|\xef\xbf\xbd' "$TMP/err" && bad "$1: replacement character in message"
  [ "$(snapshots)" -eq 1 ] && ok || bad "$1: a snapshot was committed"
}
check_bad continuation 'k,s,v\n3,a\x80b,x\n' 2 4 s
check_bad overlong 'k,s,v\n3,ok,x\n4,ok,\xc0\xaf\n' 3 6 v
check_bad surrogate 'k,s,v\n5,\xed\xa0\x80,x\n' 2 3 s
check_bad truncated 'k,s,v\n6,"ab\xe2\x82",x\n' 2 6 s
# in the header
printf 'k,s\xff\n1,a\n' >"$TMP/hdr.csv"
run_write 1 "$TMP/hdr.csv" && { grep -q 'line 1: CSV header: field 2: invalid UTF-8 at byte 4' "$TMP/err" && ok ||
  bad "header: $(cat "$TMP/err")"; }

# library checks through the CLI: VARCHAR(3) over length, duplicate map keys (jsonl)
printf 'k,s,v\n7,a,abcd\n' >"$TMP/long.csv"
run_write 1 "$TMP/long.csv" && { grep -q "column 'v', row 0: 4 characters exceed VARCHAR(3)" "$TMP/err" && ok ||
  bad "over-length: $(cat "$TMP/err")"; }
FMT=jsonl
printf '{"k":8,"m":[["a",1],["a",2]]}\n' >"$TMP/dup.jsonl"
run_write 1 "$TMP/dup.jsonl" && { grep -q "column 'm', row 0: duplicate map key" "$TMP/err" && ok ||
  bad "duplicate map key: $(cat "$TMP/err")"; }
[ "$(snapshots)" -eq 1 ] && ok || bad "a refused write committed"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
