#!/usr/bin/env bash
# libpaimon.so exports exactly the public API: every dynamic symbol it defines is a
# paimon_* function declared PAIMON_API in include/paimon/, and every such declaration
# is defined (a missing implementation would otherwise only show up at a user's link).
# usage: test_symbols.sh BUILD_DIR [SHARED_DIR]
set -u
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
lib="$build/libpaimon.so"
[ -e "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols (name only; versioned names are not used by libpaimon).
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/exported"
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
exit $fails
