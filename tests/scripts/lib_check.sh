# Check helpers shared by the CLI scripts (sourced; not a test itself). Expects TMP, a
# scratch directory: expect leaves each command's stdout and stderr in $TMP/out and
# $TMP/err for err_has / out_has. Each check counts; check_summary prints the tally and
# fails when any check did.
fails=0
checks=0
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
out_has() { if grep -q -- "$1" "$TMP/out"; then ok; else bad "stdout lacks '$1': $(head -5 "$TMP/out")"; fi; }
same() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }
check_summary() {
  echo "$((checks - fails)) passed, $fails failed"
  [ "$fails" -eq 0 ]
}
