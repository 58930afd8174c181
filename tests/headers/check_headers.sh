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
# Attributes (paimon/common.h): ignoring a status is diagnosed (PAIMON_NODISCARD), a call
# of a deprecated alias warns and names the replacement (PAIMON_DEPRECATED), and
# PAIMON_NO_DEPRECATION_WARNINGS silences only the latter; in C11, C23 and C++17.
attr="$work/attributes"
printf '%s\n' '#include <paimon/paimon.h>' \
  'int ignored(paimon_options *o);' \
  'int ignored(paimon_options *o) { paimon_options_set(o, "k", "v", 0); return 0; }' >"$attr.1.c"
printf '%s\n' '#include <paimon/paimon.h>' 'int old(const paimon_table *t);' \
  'int old(const paimon_table *t) { int64_t n = 0; return paimon_expire_snapshots(t, 0, &n, 0); }' \
  >"$attr.2.c"
cp "$attr.1.c" "$attr.1.cpp"
cp "$attr.2.c" "$attr.2.cpp"
for lang in "$cc -std=c11 -x c" "$cc -std=c2x -x c" "$cxx -std=c++17 -x c++"; do
  ext=c
  case "$lang" in *c++*) ext=cpp ;; esac
  if $lang -Wall -Werror -I"$inc" -c "$attr.1.$ext" -o "$attr.o" 2>"$attr.log" ||
     ! grep -Eq 'unused|nodiscard|discard' "$attr.log"; then
    echo "FAIL ($lang): an ignored status is not diagnosed (PAIMON_NODISCARD)"
    fails=$((fails + 1))
  fi
  if $lang -Wall -Werror -I"$inc" -c "$attr.2.$ext" -o "$attr.o" 2>"$attr.log" ||
     ! grep -q 'use paimon_table_expire_snapshots' "$attr.log"; then
    echo "FAIL ($lang): a deprecated alias does not warn naming its replacement"
    fails=$((fails + 1))
  fi
  if ! $lang -Wall -Werror -DPAIMON_NO_DEPRECATION_WARNINGS -I"$inc" -c "$attr.2.$ext" \
      -o "$attr.o"; then
    echo "FAIL ($lang): PAIMON_NO_DEPRECATION_WARNINGS does not silence the alias warning"
    fails=$((fails + 1))
  fi
done
echo "$count headers checked as C11 and C++17, $fails failure(s)"
[ "$fails" -eq 0 ]
