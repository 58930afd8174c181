#!/usr/bin/env bash
# Generates the API reference (docs/Doxyfile) into OUT_DIR and fails on any Doxygen
# warning: an undocumented function, parameter, return value, type, member, enum value or
# macro of a public header. Every header must carry a @file block, because Doxygen
# silently skips the members of a file that has none.
# usage: check_docs.sh SOURCE_DIR OUT_DIR
set -u
src=$(cd "${1:?source dir}" && pwd)
out=${2:?output dir}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v doxygen >/dev/null || { echo "FAIL: doxygen is not installed (Debian package doxygen)"; exit 1; }
cd "$src" || exit 1
missing=$(grep -L '@file' $(find include/paimon -name '*.h' | sort))
if [ -n "$missing" ]; then
  echo "FAIL: headers without a @file doc block:" $missing
  exit 1
fi
# Same configuration, output redirected (later settings override earlier ones).
if ! (cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out") | doxygen - >"$out/doxygen.log" 2>&1 ||
   [ -s "$out/doxygen.log" ]; then
  cat "$out/doxygen.log"
  echo "FAIL: Doxygen warnings (see above)"
  exit 1
fi
echo "API reference: $out/html/index.html ($(ls "$out/html" | wc -l) files, 0 warnings)"
