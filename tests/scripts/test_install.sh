#!/usr/bin/env bash
# An installed libpaimon is usable the way users use it: an out-of-tree project with one
# C file builds and runs against the install through `pkg-config --cflags --libs paimon`
# (shared and static) and through CMake `find_package(paimon)` (paimon::paimon and
# paimon::paimon_static). Also checks the installed files, the SONAME, the exported
# symbols (only paimon_* global in libpaimon.so and libpaimon.a), and that paimon(1)
# documents every command and option of `paimon --help`.
#
# usage: test_install.sh --make PREFIX        `make install PREFIX=...`, checks, then
#                                             `make uninstall` and checks nothing is left
#        test_install.sh BUILD_DIR SHARED_DIR  (ctest) `cmake --install` into a temp prefix
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

san=""
if [ "${1:-}" = "--make" ]; then
  mode=make
  prefix=$(mkdir -p "${2:?prefix}" && cd "$2" && pwd)
  shared=$(cd "$root/../shared" && pwd)
  make -C "$root" install PREFIX="$prefix" || { echo "FAIL: make install"; exit 1; }
  build="$root/build"
else
  mode=ctest
  build=$(cd "${1:?build dir}" && pwd)
  shared=$(cd "${2:?shared dir}" && pwd)
  prefix="$tmp/prefix"
  cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
  grep -q '^PAIMON_ASAN:BOOL=ON' "$build/CMakeCache.txt" && san="-fsanitize=address,undefined"
  grep -q '^PAIMON_TSAN:BOOL=ON' "$build/CMakeCache.txt" && san="-fsanitize=thread"
fi
echo "installed into $prefix"

# --- installed files ----------------------------------------------------------------
for f in include/paimon/paimon.h include/paimon/sys/fs.h include/paimon/sys/realtime_store.h \
         lib/libpaimon.so.0.1.0 lib/libpaimon.so.0 lib/libpaimon.so lib/libpaimon.a \
         lib/pkgconfig/paimon.pc lib/cmake/paimon/paimonConfig.cmake \
         lib/cmake/paimon/paimonConfigVersion.cmake share/man/man1/paimon.1; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
[ -x "$build/paimon" ] && { [ -x "$prefix/bin/paimon" ] || fail "not installed: bin/paimon"; }
for h in $(cd "$root/include" && find paimon -name '*.h'); do
  cmp -s "$root/include/$h" "$prefix/include/$h" || fail "installed $h differs from the source"
done
soname=$(objdump -p "$prefix/lib/libpaimon.so.0.1.0" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = libpaimon.so.0 ] || fail "SONAME is '$soname', expected libpaimon.so.0"
[ "$(readlink "$prefix/lib/libpaimon.so")" = libpaimon.so.0 ] || fail "libpaimon.so -> $(readlink "$prefix/lib/libpaimon.so")"
other=$(nm -D --defined-only "$prefix/lib/libpaimon.so" | awk '{print $NF}' | grep -v '^paimon_')
[ -z "$other" ] || fail "installed libpaimon.so exports non-paimon_ symbols: $other"
# the installed archive too (tests/scripts/test_symbols.sh checks the build tree's)
other=$(nm -g --defined-only "$prefix/lib/libpaimon.a" | awk 'NF >= 3 {print $NF}' | grep -v '^paimon_')
[ -z "$other" ] || fail "installed libpaimon.a defines $(echo "$other" | wc -l) global non-paimon_ symbols: $(echo $other | cut -c1-200)"

# --- the out-of-tree project: one C file --------------------------------------------
table="$shared/compat/tables/parquet/append_10.db/append_10"
expected_rows=$(grep -c . "$shared/compat/expected/parquet__append_10.db__append_10/latest.jsonl")
proj="$tmp/project"
mkdir -p "$proj"
cat >"$proj/main.c" <<'C'
/* Counts the rows of a table, with the installed headers and library. */
#include <paimon/paimon.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (strcmp(paimon_version(), PAIMON_VERSION_STRING) != 0) {
    fprintf(stderr, "library %s, headers %s\n", paimon_version(), PAIMON_VERSION_STRING);
    return 1;
  }
  if (paimon_version_number() != PAIMON_VERSION_NUMBER) {
    fprintf(stderr, "library number %d, headers %d\n", paimon_version_number(),
            PAIMON_VERSION_NUMBER);
    return 1;
  }
  paimon_error err = {0};
  paimon_table *t = NULL;
  paimon_scan *scan = NULL;
  struct ArrowArrayStream stream;
  if (paimon_table_open(&t, argv[1], NULL, &err) || paimon_scan_new(&scan, t, &err) ||
      paimon_read_scan(&stream, scan, NULL, NULL, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  long long rows = 0;
  struct ArrowArray batch;
  while (stream.get_next(&stream, &batch) == 0 && batch.release) {
    rows += batch.length;
    batch.release(&batch);
  }
  stream.release(&stream);
  paimon_scan_free(scan);
  paimon_table_close(t);
  printf("paimon %s: %lld rows\n", paimon_version(), rows);
  return 0;
}
C
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
check_run() { # check_run LABEL BINARY
  local out
  if ! out=$("$2" "$table" 2>&1); then fail "$1: run failed: $out"; return; fi
  if [ "$out" = "paimon 0.1.0: $expected_rows rows" ]; then echo "ok   $1: $out"
  else fail "$1: printed '$out', expected $expected_rows rows"; fi
}
[ "$(pkg-config --modversion paimon)" = 0.1.0 ] || fail "pkg-config --modversion paimon"

# 1. pkg-config, shared library
cc_flags="-std=c11 -Wall -Wextra -Werror $san"
if cc $cc_flags -o "$proj/app_pc" "$proj/main.c" $(pkg-config --cflags --libs paimon) \
    -Wl,-rpath,"$(pkg-config --variable=libdir paimon)"; then
  ldd "$proj/app_pc" | grep -q "$prefix/lib/libpaimon.so.0" || fail "pkg-config app does not load the installed libpaimon.so.0"
  check_run "pkg-config (shared)" "$proj/app_pc"
else fail "build with pkg-config --cflags --libs paimon"; fi

# 2. pkg-config --static: Libs.private and Requires.private must be enough for libpaimon.a
static_libs=$(pkg-config --static --libs paimon | sed 's/-lpaimon\b/-l:libpaimon.a/')
if cc $cc_flags -o "$proj/app_pc_static" "$proj/main.c" $(pkg-config --cflags paimon) $static_libs; then
  ldd "$proj/app_pc_static" | grep -q libpaimon && fail "static app still loads libpaimon.so"
  check_run "pkg-config --static (libpaimon.a)" "$proj/app_pc_static"
else fail "build with pkg-config --static --libs paimon and libpaimon.a"; fi

# 3. CMake find_package(paimon)
cat >"$proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(uses_paimon C)
find_package(paimon 0.1 REQUIRED)
add_executable(app main.c)
target_link_libraries(app PRIVATE paimon::paimon)
add_executable(app_static main.c)
target_link_libraries(app_static PRIVATE paimon::paimon_static)
CM
if cmake -S "$proj" -B "$proj/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" >"$tmp/cmake.log" 2>&1 &&
   cmake --build "$proj/build" >>"$tmp/cmake.log" 2>&1; then
  ldd "$proj/build/app" | grep -q "$prefix/lib/libpaimon.so.0" || fail "CMake app does not load the installed libpaimon.so.0"
  check_run "CMake paimon::paimon" "$proj/build/app"
  check_run "CMake paimon::paimon_static" "$proj/build/app_static"
else cat "$tmp/cmake.log"; fail "CMake project with find_package(paimon)"; fi
# A version the package does not satisfy must be refused.
mkdir -p "$tmp/p2" && cat >"$tmp/p2/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(wants_v1 C)
find_package(paimon 1.0 REQUIRED)
CM
cmake -S "$tmp/p2" -B "$tmp/p2/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1 &&
  fail "find_package(paimon 1.0) accepted version 0.1.0"

# --- paimon(1) documents the installed CLI ------------------------------------------
if [ -x "$prefix/bin/paimon" ]; then
  cli="$prefix/bin/paimon"
  man="$prefix/share/man/man1/paimon.1"
  [ "$("$cli" --version 2>&1 | grep -c 0.1.0)" -ge 1 ] || fail "paimon --version"
  cmds=$("$cli" --help | awk '/^commands:/{c=1; next} c && /^$/{c=0} c && /^  [a-z]+ /{print $1}')
  [ -n "$cmds" ] || fail "no commands found in paimon --help"
  for c in $cmds; do
    grep -q "^\.SS \"$c[ \"]" "$man" || fail "paimon.1 has no section for command '$c'"
    "$cli" "$c" --help >"$tmp/help.$c" 2>&1 || fail "paimon $c --help failed"
    for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help.$c" | sort -u) \
             $(grep -o -- ' -o key=value' "$tmp/help.$c" | sed 's/ //; s/ .*//' | sort -u); do
      esc=$(echo "$o" | sed 's/-/\\\\-/g')
      grep -q -- "$esc" "$man" || fail "paimon.1 does not mention '$o' (paimon $c --help)"
    done
  done
  for o in $("$cli" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$man" || fail "paimon.1 does not mention '$o' (paimon --help)"
  done
  if command -v man >/dev/null; then
    warn=$(LC_ALL=C.UTF-8 man --warnings -l "$man" 2>&1 >/dev/null)
    [ -z "$warn" ] || fail "man page warnings: $warn"
  fi
  echo "ok   paimon(1) covers: $(echo $cmds)"
fi

# --- make uninstall removes exactly what make install put there -----------------------
if [ "$mode" = make ]; then
  manifest="$build/install_manifest$(echo "$prefix" | tr / _).txt"
  [ -f "$manifest" ] || fail "no install manifest $manifest"
  # CMake writes the manifest without a final newline
  { cat "$manifest"; echo; } | grep . >"$tmp/manifest"
  make -s -C "$root" uninstall PREFIX="$prefix" >/dev/null || fail "make uninstall"
  while IFS= read -r f; do
    if [ -e "$f" ] || [ -L "$f" ]; then fail "left after uninstall: $f"; fi
  done <"$tmp/manifest"
  for d in include/paimon lib/cmake/paimon; do
    [ -d "$prefix/$d" ] && fail "left after uninstall: $prefix/$d/"
  done
  echo "ok   make uninstall PREFIX=$prefix removed $(wc -l <"$tmp/manifest") files"
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
