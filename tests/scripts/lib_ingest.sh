# Helpers shared by the `paimon ingest` scripts (sourced; not a test itself). Expects TMP.
. "$(dirname "${BASH_SOURCE[0]}")/lib_check.sh"
srv=""
trap '[ -n "$srv" ] && kill -9 $srv 2>/dev/null; rm -rf "$TMP"' EXIT
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
