#!/usr/bin/env bash
# Every public header must compile on its own (it includes what it uses) as strict C11
# and as C++17, so that C and C++ projects can include any of them first.
# usage: check_headers.sh INCLUDE_DIR WORK_DIR   (CC and CXX may name the compilers)
set -u
inc=${1:?include dir}
work=${2:?work dir}
cc=${CC:-cc}
cxx=${CXX:-g++}
mkdir -p "$work"
if ! command -v "$cxx" >/dev/null; then
  echo "FAIL: no C++ compiler ($cxx); install g++"
  exit 1
fi
fails=0
count=0
while IFS= read -r h; do
  rel=${h#"$inc"/}
  base=$(echo "$rel" | tr '/.' '__')
  # Included twice to check the include guard.
  printf '#include <%s>\n#include <%s>\nint paimon_header_check_%s;\n' "$rel" "$rel" "$base" \
    >"$work/$base.c"
  cp "$work/$base.c" "$work/$base.cpp"
  if ! "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$work/$base.c" \
      -o "$work/$base.c.o"; then
    echo "FAIL (C11): $rel"
    fails=$((fails + 1))
  fi
  if ! "$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$work/$base.cpp" \
      -o "$work/$base.cpp.o"; then
    echo "FAIL (C++17): $rel"
    fails=$((fails + 1))
  fi
  count=$((count + 1))
done < <(find "$inc/paimon" -name '*.h' | sort)
if [ "$count" -eq 0 ]; then
  echo "FAIL: no headers under $inc/paimon"
  exit 1
fi
# All headers together in one translation unit (typedefs repeated across headers must agree).
all="$work/all_headers"
: >"$all.c"
while IFS= read -r h; do printf '#include <%s>\n' "${h#"$inc"/}" >>"$all.c"; done \
  < <(find "$inc/paimon" -name '*.h' | sort)
cp "$all.c" "$all.cpp"
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$all.c" -o "$all.c.o" \
  || { echo "FAIL (C11): all headers together"; fails=$((fails + 1)); }
"$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$all.cpp" -o "$all.cpp.o" \
  || { echo "FAIL (C++17): all headers together"; fails=$((fails + 1)); }
echo "$count headers checked as C11 and C++17, $fails failure(s)"
[ "$fails" -eq 0 ]
