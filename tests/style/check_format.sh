#!/usr/bin/env bash
# The C sources follow .clang-format (the project's style, applied once to the whole tree).
# Fails listing every file clang-format would change; fix with:
#   clang-format-14 -i --style=file FILE...
# usage: check_format.sh SOURCE_DIR
set -u
src=${1:?source dir}
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  echo "FAIL: clang-format not installed (apt-get install clang-format-14)"
  exit 1
fi
# The style file was tuned with clang-format 14 (Debian 12); other versions break lines
# differently, so they are refused rather than reporting noise.
if ! "$cf" --version | grep -q 'version 14\.'; then
  echo "FAIL: $("$cf" --version) is not clang-format 14, which .clang-format targets"
  exit 1
fi
cd "$src" || exit 1
mapfile -t files < <(find src include tools tests bench examples fuzz -name '*.[ch]' \
  -not -path '*/corpus/*' -not -path '*/fixtures/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "FAIL: no C sources under $src"
  exit 1
fi
bad=0
for f in "${files[@]}"; do
  if ! "$cf" --dry-run --Werror --style=file "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    bad=$((bad + 1))
  fi
done
echo "${#files[@]} files checked, $bad not formatted"
[ "$bad" -eq 0 ]
