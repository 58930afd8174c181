#!/usr/bin/env bash
# The object-storage test harness itself (issue 19): tests/s3/lib_s3.sh starts s3rver (npm,
# signature checks on) and tests/s3/s3_proxy.py in front of it; this script checks with
# boto3 (tests/s3/s3_tool.py, Debian python3-boto3) and curl that what the S3 tests rely on
# holds: Signature V4 is verified (a wrong secret is refused with SignatureDoesNotMatch),
# conditional PUT answers 412 on an existing key and is atomic under concurrent writers,
# suffix ranges return the last N bytes with a correct Content-Range, multipart uploads are
# tracked (ListMultipartUploads, AbortMultipartUpload), faults are injected as asked, the
# proxy counts requests and bytes per object, a server restart keeps the data, and a corpus
# table uploaded and listed back equals the local tree. Nothing is skipped: a missing npm,
# node or boto3 is a failure.
# Usage: test_s3_harness.sh BUILD_DIR SHARED_DIR
set -u
SHARED=${2:?shared dir}
HERE=$(cd "$(dirname "$0")" && pwd)
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
same() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }

# shellcheck source=../s3/lib_s3.sh
. "$HERE/../s3/lib_s3.sh"
if ! s3_start "$TMP/s3"; then
  echo "FAIL: the S3 harness did not start"
  echo "0 passed, 1 failed"
  exit 1
fi
T() { s3_tool "$@"; }
PY() { "$S3_PYTHON" - "$@"; }
# curl signed with Signature V4; SECRET overrides the secret key
SC() {
  curl -s --aws-sigv4 aws:amz:us-east-1:s3 --user "S3RVER:${SECRET:-S3RVER}" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

T mkbucket bkt && ok || bad "mkbucket bkt"
head -c 1000 /dev/urandom >"$TMP/obj1000"
T put "$TMP/obj1000" s3://bkt/dir/obj1000 && ok || bad "put obj1000"
T get s3://bkt/dir/obj1000 "$TMP/back" && cmp -s "$TMP/obj1000" "$TMP/back" && ok ||
  bad "boto3 get through the proxy differs from what was put"

# ---- 1. signatures ---------------------------------------------------------------------
out=$(AWS_SECRET_ACCESS_KEY=wrong T get s3://bkt/dir/obj1000 2>&1 >/dev/null)
case $out in *SignatureDoesNotMatch*) ok ;; *) bad "boto3 wrong secret via proxy: $out" ;; esac
code=$(SECRET=wrong SC -o "$TMP/err.xml" -w '%{http_code}' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000")
same "$code" 403 "curl wrong secret via proxy: status"
grep -q '<Code>SignatureDoesNotMatch</Code>' "$TMP/err.xml" && ok ||
  bad "curl wrong secret: no SignatureDoesNotMatch in $(cat "$TMP/err.xml")"
code=$(SC -o "$TMP/ok.bin" -w '%{http_code}' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000")
same "$code" 200 "curl right secret via proxy"
cmp -s "$TMP/ok.bin" "$TMP/obj1000" && ok || bad "curl GET via proxy: bytes differ"
code=$(curl -s -o "$TMP/err.xml" -w '%{http_code}' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000")
same "$code" 403 "anonymous GET via proxy"
grep -q '<Code>AccessDenied</Code>' "$TMP/err.xml" && ok || bad "anonymous: $(cat "$TMP/err.xml")"
# a body that does not match its signed x-amz-content-sha256
code=$(curl -s -o "$TMP/err.xml" -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 \
  --user S3RVER:S3RVER -H "x-amz-content-sha256: $(printf 'other' | sha256sum | cut -c1-64)" \
  -T "$TMP/obj1000" "$S3_PROXY_ENDPOINT/bkt/dir/tampered")
same "$code" 400 "payload hash mismatch"
grep -q XAmzContentSHA256Mismatch "$TMP/err.xml" && ok || bad "hash mismatch: $(cat "$TMP/err.xml")"
# s3rver itself runs with signature checks on (allowMismatchedSignatures off): a V2
# signature with a wrong secret is refused directly (s3rver 3.7.1 checks V2 only)
out=$(PY <<'EOF' 2>&1
import os, boto3, botocore.config, botocore.exceptions
c = boto3.client('s3', endpoint_url=os.environ['S3_ENDPOINT'], region_name='us-east-1',
                 aws_access_key_id='S3RVER', aws_secret_access_key='wrong',
                 config=botocore.config.Config(signature_version='s3',
                                               s3={'addressing_style': 'path'}))
try:
    c.get_object(Bucket='bkt', Key='dir/obj1000')
    print('accepted')
except botocore.exceptions.ClientError as e:
    print(e.response['Error']['Code'])
EOF
)
same "$out" SignatureDoesNotMatch "s3rver direct, V2 signature with a wrong secret"

# ---- 2. conditional PUT ----------------------------------------------------------------
printf 'first' >"$TMP/first"
printf 'second' >"$TMP/second"
T put --if-none-match "$TMP/first" s3://bkt/cond/k1 && ok || bad "conditional PUT of a new key"
T put --if-none-match "$TMP/second" s3://bkt/cond/k1 2>"$TMP/err"
same "$?" 1 "conditional PUT of an existing key (exit code)"
grep -q PreconditionFailed "$TMP/err" && ok || bad "no PreconditionFailed: $(cat "$TMP/err")"
same "$(T get s3://bkt/cond/k1)" first "object after a refused conditional PUT"
code=$(SC -o "$TMP/err.xml" -w '%{http_code}' -H 'If-None-Match: *' -T "$TMP/second" \
  "$S3_PROXY_ENDPOINT/bkt/cond/k1")
same "$code" 412 "curl conditional PUT of an existing key"
grep -q '<Code>PreconditionFailed</Code>' "$TMP/err.xml" && ok || bad "412 body: $(cat "$TMP/err.xml")"
code=$(SC -o /dev/null -w '%{http_code}' -H 'If-None-Match: *' -T "$TMP/second" \
  "$S3_PROXY_ENDPOINT/bkt/cond/k2")
same "$code" 200 "curl conditional PUT of a new key"
# 8 concurrent conditional PUTs of one new key: exactly one wins, its bytes stay
racers=""
for i in 1 2 3 4 5 6 7 8; do
  printf 'writer %d' "$i" >"$TMP/w$i"
  (
    T put --if-none-match "$TMP/w$i" s3://bkt/cond/race 2>/dev/null
    echo "$?" >"$TMP/rc$i"
  ) &
  racers="$racers $!"
done
# shellcheck disable=SC2086
wait $racers # not a bare wait: s3rver and the proxy are children of this shell too
wins=0
winner=""
for i in 1 2 3 4 5 6 7 8; do
  rc=$(cat "$TMP/rc$i")
  if [ "$rc" = 0 ]; then
    wins=$((wins + 1))
    winner=$i
  elif [ "$rc" != 1 ]; then bad "concurrent writer $i exit $rc (want 0 or 1)"; fi
done
same "$wins" 1 "winners among 8 concurrent conditional PUTs"
same "$(T get s3://bkt/cond/race)" "writer $winner" "bytes of the race key"
# a store that silently overwrites (overwrite mode) accepts both
s3_proxy_ctl overwrite on=1 >/dev/null
T put --if-none-match "$TMP/second" s3://bkt/cond/k1 && ok || bad "overwrite mode: PUT refused"
same "$(T get s3://bkt/cond/k1)" second "overwrite mode: object replaced"
s3_proxy_ctl overwrite on=0 >/dev/null

# ---- 3. ranges -------------------------------------------------------------------------
SC -D "$TMP/h" -o "$TMP/tail" -H 'Range: bytes=-100' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
tail -c 100 "$TMP/obj1000" >"$TMP/want"
cmp -s "$TMP/tail" "$TMP/want" && ok || bad "suffix range: not the last 100 bytes"
same "$(sed -n 's/^HTTP\/1.1 \([0-9]*\).*/\1/p' "$TMP/h")" 206 "suffix range status"
same "$(tr -d '\r' <"$TMP/h" | sed -n 's/^[Cc]ontent-[Rr]ange: //p')" "bytes 900-999/1000" \
  "suffix range Content-Range"
SC -D "$TMP/h" -o "$TMP/tail" -H 'Range: bytes=-5000' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
cmp -s "$TMP/tail" "$TMP/obj1000" && ok || bad "suffix range longer than the object"
same "$(tr -d '\r' <"$TMP/h" | sed -n 's/^[Cc]ontent-[Rr]ange: //p')" "bytes 0-999/1000" \
  "long suffix range Content-Range"
SC -D "$TMP/h" -o "$TMP/one" -H 'Range: bytes=0-0' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
same "$(wc -c <"$TMP/one")" 1 "range 0-0 length"
same "$(tr -d '\r' <"$TMP/h" | sed -n 's/^[Cc]ontent-[Rr]ange: //p')" "bytes 0-0/1000" "range 0-0"
SC -o "$TMP/mid" -H 'Range: bytes=10-19' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
cmp -s "$TMP/mid" <(tail -c +11 "$TMP/obj1000" | head -c 10) && ok || bad "range 10-19 bytes"
code=$(SC -o /dev/null -w '%{http_code}' -H 'Range: bytes=2000-' "$S3_PROXY_ENDPOINT/bkt/dir/obj1000")
same "$code" 416 "range past the end"
out=$(PY <<'EOF'
import os, boto3, botocore.config
c = boto3.client('s3', endpoint_url=os.environ['S3_PROXY_ENDPOINT'], region_name='us-east-1',
                 config=botocore.config.Config(s3={'addressing_style': 'path'}))
r = c.get_object(Bucket='bkt', Key='dir/obj1000', Range='bytes=-7')
print(r['ContentRange'], len(r['Body'].read()))
EOF
)
same "$out" "bytes 993-999/1000 7" "boto3 suffix range"

# ---- 4. multipart uploads --------------------------------------------------------------
same "$(T pending-uploads bkt)" 0 "pending uploads at the start"
out=$(PY <<'EOF' 2>&1
import os, boto3, botocore.config
c = boto3.client('s3', endpoint_url=os.environ['S3_PROXY_ENDPOINT'], region_name='us-east-1',
                 config=botocore.config.Config(s3={'addressing_style': 'path'}))
def pending():
    return len(c.list_multipart_uploads(Bucket='bkt').get('Uploads', []))
u = c.create_multipart_upload(Bucket='bkt', Key='mp/aborted')['UploadId']
c.upload_part(Bucket='bkt', Key='mp/aborted', UploadId=u, PartNumber=1, Body=b'x' * 100)
a = pending()
c.abort_multipart_upload(Bucket='bkt', Key='mp/aborted', UploadId=u)
b = pending()
try:
    c.upload_part(Bucket='bkt', Key='mp/aborted', UploadId=u, PartNumber=2, Body=b'y')
    late = 'accepted'
except c.exceptions.ClientError as e:
    late = e.response['Error']['Code']
p1 = os.urandom(5 * 1024 * 1024)
p2 = os.urandom(1234)
u2 = c.create_multipart_upload(Bucket='bkt', Key='mp/done')['UploadId']
e1 = c.upload_part(Bucket='bkt', Key='mp/done', UploadId=u2, PartNumber=1, Body=p1)['ETag']
e2 = c.upload_part(Bucket='bkt', Key='mp/done', UploadId=u2, PartNumber=2, Body=p2)['ETag']
c.complete_multipart_upload(Bucket='bkt', Key='mp/done', UploadId=u2, MultipartUpload={
    'Parts': [{'ETag': e1, 'PartNumber': 1}, {'ETag': e2, 'PartNumber': 2}]})
same = c.get_object(Bucket='bkt', Key='mp/done')['Body'].read() == p1 + p2
d = pending()
c.create_multipart_upload(Bucket='bkt', Key='mp/left')
print(a, b, late, same, d, pending())
EOF
)
same "$out" "1 0 NoSuchUpload True 0 1" "multipart: pending during, after abort, late part, complete, left"
same "$(T pending-uploads bkt)" 1 "pending uploads with one left open"
same "$(T pending-uploads --prefix mp/done bkt)" 0 "pending uploads under another prefix"

# ---- 5. faults ---------------------------------------------------------------------------
s3_proxy_ctl reset >/dev/null
s3_proxy_ctl fault kind=503 count=2 method=GET key='^bkt/dir/obj1000$' >/dev/null
T --retries 3 get s3://bkt/dir/obj1000 "$TMP/back" && cmp -s "$TMP/back" "$TMP/obj1000" && ok ||
  bad "boto3 did not succeed after two 503 SlowDown"
same "$(s3_proxy_ctl count method=GET key='^bkt/dir/obj1000$' status=503 | cut -d' ' -f1)" 2 \
  "503 answers counted"
same "$(s3_proxy_ctl count method=GET key='^bkt/dir/obj1000$' status=200 | cut -d' ' -f1)" 1 \
  "GET that succeeded after the 503s"
s3_proxy_ctl fault kind=503 count=5 method=GET >/dev/null
T --retries 3 get s3://bkt/dir/obj1000 "$TMP/back" 2>"$TMP/err"
same "$?" 2 "boto3 with 3 attempts against five 503s"
grep -q SlowDown "$TMP/err" && ok || bad "no SlowDown in: $(cat "$TMP/err")"
s3_proxy_ctl clear >/dev/null
s3_proxy_ctl fault kind=drop count=1 method=GET >/dev/null
SC -o /dev/null "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
rc=$?
[ "$rc" = 52 ] || [ "$rc" = 56 ] && ok || bad "curl against a dropped connection: exit $rc (want 52/56)"
s3_proxy_ctl fault kind=drop count=1 method=GET >/dev/null
T --retries 3 get s3://bkt/dir/obj1000 "$TMP/back" && cmp -s "$TMP/back" "$TMP/obj1000" && ok ||
  bad "boto3 did not succeed after a dropped connection"
# drop_after: the store applied the PUT, the client never heard
s3_proxy_ctl fault kind=drop_after count=1 method=PUT key='^bkt/faults/after$' >/dev/null
SC -o /dev/null -T "$TMP/first" "$S3_PROXY_ENDPOINT/bkt/faults/after"
rc=$?
[ "$rc" = 52 ] || [ "$rc" = 56 ] && ok || bad "drop_after: curl exit $rc"
same "$(T get s3://bkt/faults/after)" first "drop_after: the PUT reached the store"
s3_proxy_ctl fault kind=truncate count=1 method=GET >/dev/null
SC -o "$TMP/half" "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
rc=$?
[ "$rc" = 18 ] && ok || bad "truncate: curl exit $rc (want 18, partial file)"
same "$(wc -c <"$TMP/half")" 500 "truncate: half the body arrived"
s3_proxy_ctl fault kind=delay ms=1500 count=1 method=HEAD >/dev/null
t0=$(date +%s%N)
T head s3://bkt/dir/obj1000 >/dev/null || bad "head with a delay failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -ge 1500 ] && ok || bad "delay of 1500 ms: HEAD took $ms ms"
same "$(s3_proxy_ctl faults | "$S3_PYTHON" -c 'import json,sys; print(sum(r["count"] for r in json.load(sys.stdin)["faults"]))')" \
  0 "every fault rule used up"

# ---- 6. stats ------------------------------------------------------------------------------
s3_proxy_ctl reset >/dev/null
head -c 4321 /dev/urandom >"$TMP/s4321"
T put "$TMP/s4321" s3://bkt/stats/o >/dev/null
T get s3://bkt/stats/o >/dev/null
T get s3://bkt/stats/o >/dev/null
SC -o /dev/null -H 'Range: bytes=-21' "$S3_PROXY_ENDPOINT/bkt/stats/o"
same "$(s3_proxy_ctl count op=GetObject key='^bkt/stats/o$')" "3 0 8663" "GETs and bytes out of one object"
same "$(s3_proxy_ctl count op=PutObject key='^bkt/stats/o$')" "1 4321 0" "PUTs and bytes in of one object"
out=$(s3_proxy_ctl stats | "$S3_PYTHON" -c '
import json, sys
s = json.load(sys.stdin)
o = s["objects"]["bkt/stats/o"]
print(o["requests"], o["GET"], o["PUT"], o["bytes_in"], o["bytes_out"], s["methods"]["GET"],
      s["ops"]["GetObject"], s["total"]["requests"])')
same "$out" "4 3 1 4321 8663 3 3 4" "stats JSON per object, method, op and in total"

# ---- 7. restart --------------------------------------------------------------------------
T list s3://bkt >"$TMP/before"
s3_stop_server
SC -o /dev/null "$S3_PROXY_ENDPOINT/bkt/dir/obj1000"
rc=$?
[ "$rc" != 0 ] && ok || bad "GET succeeded while s3rver was stopped"
s3_start_server && ok || bad "s3rver did not restart"
T list s3://bkt >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && ok || bad "listing changed across a restart: $(diff "$TMP/before" "$TMP/after")"
# every key this script stored (the tampered PUT and the aborted upload left nothing)
same "$(tr '\n' ' ' <"$TMP/after")" "cond/k1 cond/k2 cond/race dir/obj1000 faults/after mp/done stats/o " \
  "keys after a restart"
T get s3://bkt/dir/obj1000 "$TMP/back" && cmp -s "$TMP/back" "$TMP/obj1000" && ok ||
  bad "object bytes after a restart"
s3_restart_server && ok || bad "s3_restart_server"
same "$(T get s3://bkt/cond/race)" "writer $winner" "object after s3_restart_server"

# ---- 8. a corpus table, uploaded and listed back ---------------------------------------
for rel in parquet/append_09.db/append_09 orc/append_10.db/append_10; do
  src="$SHARED/compat/tables/$rel"
  [ -d "$src" ] || {
    bad "corpus table $src missing"
    continue
  }
  T mkbucket corpus
  T upload-dir "$src" "s3://corpus/wh/$rel" 2>/dev/null && ok || bad "upload $rel"
  T list "s3://corpus/wh/$rel" >"$TMP/listed"
  (cd "$src" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$TMP/local"
  LC_ALL=C sort -c "$TMP/listed" 2>/dev/null && ok || bad "list output is not sorted"
  if cmp -s "$TMP/listed" "$TMP/local"; then ok; else
    bad "listing of $rel differs from the local tree: $(diff "$TMP/local" "$TMP/listed" | head -5)"
  fi
  [ "$(wc -l <"$TMP/listed")" -gt 5 ] && ok || bad "listing of $rel has $(wc -l <"$TMP/listed") keys"
  T compare-tree --content "$src" "s3://corpus/wh/$rel" && ok || bad "compare-tree --content $rel"
done
# compare-tree notices a missing and an extra object
rel=parquet/append_09.db/append_09
first=$(head -1 "$TMP/local")
T rm "s3://corpus/wh/$rel/$first"
T put "$TMP/first" "s3://corpus/wh/$rel/extra/file"
T compare-tree "$SHARED/compat/tables/$rel" "s3://corpus/wh/$rel" >"$TMP/diff" 2>&1
same "$?" 1 "compare-tree exit with differences"
grep -q "only local:  $first" "$TMP/diff" && grep -q 'only on s3:  extra/file' "$TMP/diff" && ok ||
  bad "compare-tree output: $(cat "$TMP/diff")"
same "$(T pending-uploads corpus)" 0 "no pending upload in the corpus bucket"

s3_stop
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
