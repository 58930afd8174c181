# shellcheck shell=bash
# Object-storage test harness (issue 19), sourced by test scripts; not a test itself.
#
#   s3_start WORKDIR     installs s3rver (npm, pinned, cached outside the repo) if needed,
#                        starts it on 127.0.0.1 with a random port and its data under
#                        WORKDIR/s3rver-data, starts tests/s3/s3_proxy.py in front of it on
#                        another random port, waits until both answer, and exports
#                          S3_ENDPOINT        http://127.0.0.1:P  (s3rver itself)
#                          S3_PROXY_ENDPOINT  http://127.0.0.1:Q  (the proxy)
#                          S3_PROXY_CONTROL   http://127.0.0.1:Q/__proxy (control API)
#                          AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
#                          AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
#                          S3_PYTHON          a python3 that imports boto3 (for s3_tool)
#                        and registers an EXIT trap that stops both (chained before any
#                        EXIT trap already set; a trap set after s3_start replaces it, so
#                        such a script must call s3_stop itself). Returns non-zero with a
#                        message on stderr when anything is missing: never skips.
#   s3_stop              stops the proxy and s3rver (idempotent).
#   s3_stop_server       stops s3rver only (the proxy then drops every connection).
#   s3_start_server      starts s3rver again on the same port and data directory.
#   s3_restart_server    both of the above.
#   s3_proxy_ctl CMD [NAME=VALUE...]
#                        one control command (see the top of s3_proxy.py): stats, log,
#                        count, reset, fault, clear, faults, overwrite, auth, uploads, ping;
#                        prints the answer, returns non-zero on an HTTP error.
#                        e.g. s3_proxy_ctl fault kind=503 count=2 method=PUT key='snapshot-'
#                             s3_proxy_ctl count op=GetObject key='\.parquet$'
#   s3_tool ARGS...      tests/s3/s3_tool.py with S3_PYTHON (boto3; proxy endpoint).
#
# s3rver 3.7.1 checks V2 signatures only and accepts anonymous requests; Signature V4 is
# verified by the proxy (see s3_proxy.py), so signing tests go through S3_PROXY_ENDPOINT.
# Environment: PAIMON_S3RVER_DIR (install dir, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/paimon-c-s3rver), S3RVER_VERSION (default 3.7.1).

S3_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S3RVER_VERSION=${S3RVER_VERSION:-3.7.1}
_s3_srv_pid=""
_s3_proxy_pid=""
_s3_work=""
_s3_port=""

_s3_die() {
  echo "FAIL: lib_s3: $*" >&2
  return 1
}

# The python3 with boto3: Debian's python3-boto3 first, then whatever python3 is first on PATH.
_s3_find_python() {
  local p
  for p in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
    [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import boto3' 2>/dev/null && {
      echo "$p"
      return 0
    }
  done
  return 1
}

# Installs s3rver@S3RVER_VERSION into the cache dir once (flock against parallel tests).
s3_install() {
  local dir=${PAIMON_S3RVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/paimon-c-s3rver}
  command -v node >/dev/null || _s3_die "node not found (Debian package nodejs)" || return 1
  command -v npm >/dev/null || _s3_die "npm not found (Debian package npm)" || return 1
  mkdir -p "$dir" || _s3_die "cannot create $dir" || return 1
  S3RVER_BIN="$dir/node_modules/s3rver/bin/s3rver.js"
  (
    flock 9
    if [ -f "$S3RVER_BIN" ] && grep -q "\"version\": \"$S3RVER_VERSION\"" \
      "$dir/node_modules/s3rver/package.json" 2>/dev/null; then
      exit 0
    fi
    echo "lib_s3: installing s3rver@$S3RVER_VERSION into $dir" >&2
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
      "s3rver@$S3RVER_VERSION" >"$dir/npm-install.log" 2>&1 || {
      tail -20 "$dir/npm-install.log" >&2
      exit 1
    }
  ) 9>"$dir/.lock" || _s3_die "npm install s3rver@$S3RVER_VERSION failed (log: $dir/npm-install.log)" || return 1
  [ -f "$S3RVER_BIN" ] || _s3_die "s3rver not found at $S3RVER_BIN after install" || return 1
  return 0
}

# s3_start_server: starts s3rver on $_s3_port (0 = pick one) with data in $_s3_work.
s3_start_server() {
  local log="$_s3_work/s3rver.log"
  : >"$log"
  node "$S3RVER_BIN" -d "$_s3_work/s3rver-data" -a 127.0.0.1 -p "${_s3_port:-0}" \
    >>"$log" 2>&1 &
  _s3_srv_pid=$!
  for _ in $(seq 200); do
    if [ -z "$_s3_port" ] || [ "$_s3_port" = 0 ]; then
      _s3_port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -1)
    fi
    if [ -n "$_s3_port" ] && [ "$_s3_port" != 0 ] &&
      curl -s -o /dev/null "http://127.0.0.1:$_s3_port/" 2>/dev/null; then
      return 0
    fi
    kill -0 "$_s3_srv_pid" 2>/dev/null || break
    sleep 0.1
  done
  tail -20 "$log" >&2
  _s3_die "s3rver did not start (log $log)"
}

s3_stop_server() {
  if [ -n "$_s3_srv_pid" ]; then
    kill "$_s3_srv_pid" 2>/dev/null
    wait "$_s3_srv_pid" 2>/dev/null
    _s3_srv_pid=""
  fi
  return 0
}

s3_restart_server() {
  s3_stop_server
  s3_start_server
}

s3_start() {
  local work=${1:?s3_start WORKDIR}
  local port=""
  mkdir -p "$work" || return 1
  _s3_work=$(cd "$work" && pwd)
  _s3_port=""
  command -v curl >/dev/null || _s3_die "curl not found" || return 1
  S3_PYTHON=$(_s3_find_python) || _s3_die "no python3 with boto3 (Debian package python3-boto3)" || return 1
  export S3_PYTHON
  s3_install || return 1
  s3_start_server || return 1
  rm -f "$_s3_work/proxy.port"
  "$S3_PYTHON" "$S3_LIB_DIR/s3_proxy.py" --upstream "127.0.0.1:$_s3_port" --port 0 \
    --port-file "$_s3_work/proxy.port" >"$_s3_work/proxy.log" 2>&1 &
  _s3_proxy_pid=$!
  for _ in $(seq 200); do
    port=$(cat "$_s3_work/proxy.port" 2>/dev/null)
    if [ -n "$port" ] && curl -sf -o /dev/null "http://127.0.0.1:$port/__proxy/ping"; then
      break
    fi
    port=""
    kill -0 "$_s3_proxy_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    cat "$_s3_work/proxy.log" >&2
    s3_stop
    _s3_die "s3_proxy.py did not start (log $_s3_work/proxy.log)"
    return 1
  fi
  export S3_ENDPOINT="http://127.0.0.1:$_s3_port"
  export S3_PROXY_ENDPOINT="http://127.0.0.1:$port"
  export S3_PROXY_CONTROL="http://127.0.0.1:$port/__proxy"
  export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
  export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
  unset AWS_SESSION_TOKEN AWS_PROFILE
  # chain before an EXIT trap already set
  local prev
  prev=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//" -e "s/'\\\\''/'/g")
  if [ -n "$prev" ]; then
    # shellcheck disable=SC2064
    trap "s3_stop; $prev" EXIT
  else
    trap s3_stop EXIT
  fi
  return 0
}

s3_stop() {
  if [ -n "$_s3_proxy_pid" ]; then
    kill "$_s3_proxy_pid" 2>/dev/null
    wait "$_s3_proxy_pid" 2>/dev/null
    _s3_proxy_pid=""
  fi
  s3_stop_server
}

s3_proxy_ctl() {
  local cmd=${1:?s3_proxy_ctl CMD [NAME=VALUE...]}
  shift
  local args=() a
  for a in "$@"; do args+=(--data-urlencode "$a"); done
  curl -sS -G --fail-with-body "${args[@]}" "$S3_PROXY_CONTROL/$cmd"
}

s3_tool() {
  "$S3_PYTHON" "$S3_LIB_DIR/s3_tool.py" "$@"
}
