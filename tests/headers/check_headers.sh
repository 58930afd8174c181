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
# Versioned structs (docs/conventions.md): every public transparent struct outside sys/
# (the plugin ABIs, versioned on their own) has `size_t struct_size` as its first member
# and an upper-cased NAME_INIT macro in the same header, and NAME x = NAME_INIT compiles
# without a missing-initializer warning in C and C++ (the macro covers every member).
# Exempt, with the reason:
#   paimon_error: on every caller's stack; layout frozen instead (see paimon/error.h).
exempt=" paimon_error "
init_c="$work/struct_init"
: >"$init_c.c"
nstructs=0
for h in "$inc"/paimon/*.h; do
  rel=${h#"$inc"/}
  printf '#include <%s>\n' "$rel" >>"$init_c.c"
  # name and first member line of each `typedef struct NAME {` with a body
  while IFS=' ' read -r name first; do
    [ -n "$name" ] || continue
    case "$exempt" in *" $name "*) continue ;; esac
    nstructs=$((nstructs + 1))
    macro="$(echo "$name" | tr '[:lower:]' '[:upper:]')_INIT"
    if ! [[ "$first" =~ ^size_t[[:space:]]+struct_size\; ]]; then
      echo "FAIL (versioned struct): $rel: $name's first member is '$first', not size_t struct_size"
      fails=$((fails + 1))
    fi
    if ! grep -Eq "^#define[[:space:]]+$macro([[:space:]]|\$)" "$h"; then
      echo "FAIL (versioned struct): $rel: $name has no $macro macro"
      fails=$((fails + 1))
    else
      printf 'void init_%s(void); void init_%s(void) { %s x = %s; (void)x; }\n' \
        "$name" "$name" "$name" "$macro" >>"$init_c.c.body"
    fi
  done < <(awk '
    /^typedef struct [A-Za-z_0-9]+ *\{/ { name = $3; sub(/\{.*/, "", name); want = 1; next }
    want && /^[ \t]*(\/\*.*\*\/)?[ \t]*$/ { next }
    want { line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]*\/\*.*/, "", line);
           print name, line; want = 0 }' "$h")
done
if [ "$nstructs" -eq 0 ]; then
  echo "FAIL (versioned struct): found no public transparent struct to check"
  fails=$((fails + 1))
fi
if [ -f "$init_c.c.body" ]; then
  cat "$init_c.c.body" >>"$init_c.c"
  rm -f "$init_c.c.body"
  cp "$init_c.c" "$init_c.cpp"
  "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$init_c.c" -o "$init_c.c.o" \
    || { echo "FAIL (C11): a NAME_INIT macro does not initialize every member"; fails=$((fails + 1)); }
  "$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$init_c.cpp" -o "$init_c.cpp.o" \
    || { echo "FAIL (C++17): a NAME_INIT macro does not initialize every member"; fails=$((fails + 1)); }
fi
echo "$nstructs versioned public struct(s) checked"
echo "$count headers checked as C11 and C++17, $fails failure(s)"
[ "$fails" -eq 0 ]
