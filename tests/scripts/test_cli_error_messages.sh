#!/usr/bin/env bash
# CLI error messages name the cause (issue 15 item 7): a missing path, a plain file, a
# directory that is no table and an object-store URI each get their own message (they all
# said "not a Paimon table (no schema files)"); `create s3://b/t` refuses without creating
# a local "s3:" directory; `--branch nope` lists the branches; CSV errors give the line,
# the column name and number and the byte; an over-long partition value says why.
# Disk-full and permission errors are covered by the library test test_error_messages
# (/dev/full and an injecting memory file system): the CI runs as root, where chmod does
# not deny, and a full file system cannot be mounted without privileges.
# Usage: test_cli_error_messages.sh BUILD_DIR SHARED_DIR
set -u
BUILD=${1:?build dir}
P="$(cd "$BUILD" && pwd)/paimon"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0
bad() {
  fails=$((fails + 1))
  echo "FAIL: $*"
}
# WANT_RC TEXT CMD...: runs CMD, checks its exit status and that stderr holds TEXT
expect() {
  local want=$1 text=$2
  shift 2
  checks=$((checks + 1))
  "$@" >/dev/null 2>"$TMP/err" <"${STDIN:-/dev/null}"
  local got=$?
  [ "$got" -eq "$want" ] || { bad "'$*' exited $got, expected $want: $(cat "$TMP/err")"; return; }
  grep -qF -- "$text" "$TMP/err" || bad "'$*': stderr lacks '$text': $(cat "$TMP/err")"
}

# opening: four causes, four messages
expect 1 "$TMP/nope: no such file or directory" "$P" info "$TMP/nope"
echo hi >"$TMP/file"
expect 1 "not a Paimon table: a file, not a table directory" "$P" info "$TMP/file"
expect 1 "/etc: not a Paimon table: no schema directory" "$P" info /etc
for u in gs://bucket/t hdfs://nn:8020/w/t abfs://b/t; do
  expect 1 "unsupported scheme '${u%%:*}'" "$P" snapshots "$u"
done
# s3 and oss are built in: without credentials the message says which are missing
for u in s3://bucket/t oss://b/t; do
  expect 1 "S3 credentials missing" env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
    "$P" snapshots "$u"
done

# create on an object store: refused before touching the disk
cat >"$TMP/schema.json" <<'EOF'
{"fields":[{"name":"p","type":"STRING"},{"name":"k","type":"INT"},{"name":"b","type":"BOOLEAN"}],
 "partitionKeys":["p"]}
EOF
mkdir "$TMP/cwd"
(cd "$TMP/cwd" &&
 expect 1 "unsupported scheme 'gs'" "$P" create gs://b/t --schema "$TMP/schema.json"
 [ -z "$(ls -A .)" ] || bad "create gs://b/t left local files: $(ls -A .)"
 exit $fails) || fails=$((fails + 1))
checks=$((checks + 1))

T="$TMP/t"
"$P" create "$T" --schema "$TMP/schema.json" >/dev/null 2>"$TMP/err" ||
  { echo "create failed: $(cat "$TMP/err")"; exit 1; }

# a missing branch: says so and lists what exists (Java BranchManager: branch/branch-<name>)
mkdir -p "$T/branch/branch-dev"
expect 1 "branch 'nope' does not exist; existing branches: main, dev" "$P" cat "$T" --branch nope
expect 1 "branch 'nope' does not exist" "$P" snapshots "$T" --branch nope

# CSV errors: line, column name and number, byte of the line
w() { STDIN="$TMP/in.csv" expect 1 "$1" "$P" write "$T" --format csv; }
printf 'p,k,b\nx,1,true\nx,abc,true\n' >"$TMP/in.csv"
w "line 3: column 'k' (field 2) at byte 3 of the line: 'abc' is not an integer"
printf 'p,k,b\nx,1,yes\n' >"$TMP/in.csv"
w "line 2: column 'b' (field 3) at byte 5 of the line: 'yes' is not a BOOLEAN"
printf 'p,k,b\nx,1,true\n"x,2,true\n' >"$TMP/in.csv"
w "line 3: column 'p' (field 1): malformed CSV at byte 1 of the line (unbalanced quote)"
printf 'p,k,b\nx,1,true\nx,"2"z,true\n' >"$TMP/in.csv"
w "line 3: column 'k' (field 2): malformed CSV at byte 6 of the line (text after a closing quote)"
printf 'p,k,b\nx,1\n' >"$TMP/in.csv"
w "line 2: field count: the record has 2 fields, the header 3"
printf 'p,k"x,b\n' >"$TMP/in.csv"
w "line 1: CSV header: field 2: malformed CSV at byte 4 of the line"

# a partition value too long for a directory name: the reason, before any path
printf 'p,k,b\n%s,1,true\n' "$(head -c 300 /dev/zero | tr '\0' a)" >"$TMP/in.csv"
w "partition value of column 'p' is 300 bytes (as escaped in the path): the partition directory"
grep -qF "name 'p=aaaa" "$TMP/err" || bad "no directory name in: $(cat "$TMP/err")"
grep -qF "exceeds the file-name limit of 255 bytes" "$TMP/err" ||
  bad "no file-name limit in: $(cat "$TMP/err")"
ls "$T" | grep -q '^p=' && bad "a partition directory was created: $(ls "$T")"

[ -z "$(ls "$T/snapshot" 2>/dev/null)" ] || bad "a failed write committed: $(ls "$T/snapshot")"
echo "$checks checks, $fails failures"
[ "$fails" -eq 0 ]
