# Helpers shared by the `paimon ingest` scripts (sourced; not a test itself). Expects TMP.
fails=0
checks=0
srv=""
trap '[ -n "$srv" ] && kill -9 $srv 2>/dev/null; rm -rf "$TMP"' EXIT
ok() { checks=$((checks + 1)); }
bad() {
  checks=$((checks + 1))
  fails=$((fails + 1))
  echo "FAIL: $*"
}
expect() { # CODE CMD...: exit code check; stdout/stderr in $TMP/out, $TMP/err
  local want=$1
  shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    bad "exit $got (want $want): $*"
    sed 's/^/    /' "$TMP/err" | head -8
    return 1
  fi
  ok
  return 0
}
err_has() { if grep -q -- "$1" "$TMP/err"; then ok; else bad "stderr lacks '$1': $(head -5 "$TMP/err")"; fi; }
same() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }
latest() { cat "$1/snapshot/LATEST" 2>/dev/null || echo none; }
# LOG -> the port an `ingest --serve 127.0.0.1:0` logging to LOG listens on (waits ~10 s)
serve_port() {
  local port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/.*serving http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$1")
    [ -n "$port" ] && break
    sleep 0.1
  done
  echo "$port"
}
