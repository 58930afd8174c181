#!/usr/bin/env bash
# libpaimon.so exports exactly the public API: every dynamic symbol it defines is a
# paimon_* function declared PAIMON_API in include/paimon/, and every such declaration
# is defined (a missing implementation would otherwise only show up at a user's link).
# libpaimon.a and libpaimon.so define no global symbol outside paimon_*, and a program
# with its own functions named like internal ones (pm_malloc, pm_fail) links with
# libpaimon.a and keeps them apart from the library's.
# usage: test_symbols.sh BUILD_DIR [SHARED_DIR]
set -u
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
lib="$build/libpaimon.so"
archive="$build/libpaimon.a"
[ -e "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
[ -e "$archive" ] || { echo "FAIL: $archive not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cache="$build/CMakeCache.txt"
# Defined dynamic symbols (name only; versioned names are not used by libpaimon). A
# libFuzzer build (-fsanitize=fuzzer-no-link) also exports the linker's bounds of its
# coverage sections, which are not API.
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/exported"
if grep -q '^PAIMON_FUZZ:BOOL=ON' "$cache" 2>/dev/null; then
  grep -Ev '^__(start|stop)___sancov_[a-z]+$' "$tmp/exported" >"$tmp/e" && mv "$tmp/e" "$tmp/exported"
fi
# Declared: the identifier before the first '(' of each PAIMON_API declaration, with
# comments removed first.
for h in $(find "$root/include/paimon" -name '*.h' | sort); do
  perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{^[ \t]*#[^\n]*}{}mg' "$h" | tr '\n' ' ' |
    grep -o 'PAIMON_API[^;(]*(' | sed -E 's/.*[^A-Za-z0-9_]([A-Za-z0-9_]+)[[:space:]]*\($/\1/'
done | sort -u >"$tmp/declared"

fails=0
bad=$(grep -v '^paimon_' "$tmp/exported")
if [ -n "$bad" ]; then
  echo "FAIL: libpaimon.so exports symbols outside the paimon_ namespace:"
  echo "$bad" | sed 's/^/  /'
  fails=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
  echo "FAIL: declared PAIMON_API in include/paimon/ but not exported (not implemented?):"
  echo "$missing" | sed 's/^/  /'
  fails=1
fi
undeclared=$(comm -13 "$tmp/declared" "$tmp/exported" | grep '^paimon_')
if [ -n "$undeclared" ]; then
  echo "FAIL: exported but declared in no public header (PAIMON_API on an internal function?):"
  echo "$undeclared" | sed 's/^/  /'
  fails=1
fi
echo "$(wc -l <"$tmp/exported") exported, $(wc -l <"$tmp/declared") declared in include/paimon/"

# Global symbols of the static archive and of the .so's full symbol table: a user linking
# libpaimon.a sees every global of every member it pulls in.
for f in "$archive" "$lib"; do
  nm -g --defined-only "$f" | awk 'NF >= 3 {print $NF}' | sort -u >"$tmp/globals"
  bad=$(grep -v '^paimon_' "$tmp/globals")
  if [ -n "$bad" ]; then
    echo "FAIL: $(basename "$f") defines $(echo "$bad" | wc -l) global symbols outside paimon_*:"
    echo "$bad" | head -20 | sed 's/^/  /'
    fails=1
  else
    echo "ok   $(basename "$f"): $(wc -l <"$tmp/globals") global symbols, all paimon_*"
  fi
done

# A program that defines its own pm_malloc and pm_fail links with libpaimon.a (no
# "multiple definition") and the library keeps calling its own: the program's pm_malloc
# counts its calls, and a failing paimon_table_open (which allocates and formats an
# error through the library's internals) must not reach it.
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache" 2>/dev/null)
cc=${cc:-cc}
san=""
grep -q '^PAIMON_ASAN:BOOL=ON' "$cache" 2>/dev/null && san="-fsanitize=address,undefined"
grep -q '^PAIMON_TSAN:BOOL=ON' "$cache" 2>/dev/null && san="-fsanitize=thread"
grep -q '^PAIMON_FUZZ:BOOL=ON' "$cache" 2>/dev/null && "$cc" --version | grep -q clang &&
  san="$san -fsanitize=fuzzer-no-link"
cat >"$tmp/app.c" <<'C'
#include <paimon/paimon.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int my_calls;
/* Same names as libpaimon internals, different meaning. */
void *pm_malloc(size_t n);
void *pm_malloc(size_t n) { my_calls++; return malloc(n); }
int pm_fail(const char *what);
int pm_fail(const char *what) { return (int)strlen(what); }

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  paimon_error err = {0};
  paimon_table *t = NULL;
  if (paimon_table_open(&t, argv[1], NULL, &err) == PAIMON_OK) {
    fprintf(stderr, "opened a table that does not exist: %s\n", argv[1]);
    return 1;
  }
  if (err.message[0] == '\0') { fprintf(stderr, "no error message\n"); return 1; }
  free(pm_malloc(8));
  if (strcmp(paimon_version(), PAIMON_VERSION_STRING) != 0) return 1;
  printf("%d|%d\n", my_calls, pm_fail("abc"));
  return 0;
}
C
# curl and libcrypto link dynamically: their --static closure names libraries (rtmp,
# ldap, ...) whose archives Debian does not ship
deps="$(pkg-config --static --libs jansson libzstd snappy liblz4 zlib) $(pkg-config --libs libcurl libcrypto)"
if "$cc" -std=c11 -Wall -Wextra -Werror $san -I"$root/include" -o "$tmp/app" "$tmp/app.c" \
     "$archive" $deps -lroaring -pthread -lm 2>"$tmp/link.log"; then
  out=$("$tmp/app" "$tmp/no-such-table" 2>&1)
  if [ "$out" = "1|3" ]; then
    echo "ok   a program's own pm_malloc/pm_fail coexist with libpaimon.a: $out"
  else
    echo "FAIL: program with its own pm_malloc/pm_fail printed '$out', expected '1|3'"
    fails=1
  fi
else
  echo "FAIL: a program defining pm_malloc and pm_fail does not link with libpaimon.a:"
  grep -m5 -E 'multiple definition|error' "$tmp/link.log" | sed 's/^/  /'
  fails=1
fi
exit $fails
