#!/usr/bin/env bash
# tests/oracle/parquet_oracle.sh: checks paimon-c's Parquet writer against independent
# readers. Builds tests/oracle/write_samples.c, writes sample files (every Paimon type,
# nulls, extremes, nested ARRAY/MAP/ROW/MULTISET, several row groups and pages, each
# codec) with their expected rows, then reads every file with DuckDB and with hyparquet and
# compares value by value (DuckDB reads INT96 at microseconds, so those compare at us).
#
# Usage: bash tests/oracle/parquet_oracle.sh [OUT_DIR]
# Needs the oracles: bash ../shared/tools/oracle/setup_oracles.sh (into $ORACLE_DIR,
# default /tmp/oracle). Links against build/libpaimon.a when present, else compiles the
# needed sources directly.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${PM_SHARED_DIR:-$ROOT/../shared}
ORACLE_DIR=${ORACLE_DIR:-/tmp/oracle}
OUT=${1:-$(mktemp -d /tmp/pq_oracle.XXXXXX)}
mkdir -p "$OUT"

[ -d "$ORACLE_DIR/node_modules/hyparquet" ] || {
  echo "oracles missing: run bash $SHARED/tools/oracle/setup_oracles.sh" >&2; exit 2; }

LIBS="-ljansson -lzstd -lsnappy -llz4 -lz -lcurl -lcrypto -lroaring -lm -lpthread"
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -I$ROOT/include -I$ROOT/src"
BIN="$OUT/write_samples"
if [ -f "$ROOT/build/libpaimon.a" ]; then
  gcc $CFLAGS "$ROOT/tests/oracle/write_samples.c" "$ROOT/build/libpaimon.a" -o "$BIN" $LIBS
else
  gcc $CFLAGS "$ROOT/tests/oracle/write_samples.c" "$ROOT"/src/util/*.c "$ROOT"/src/arrow/*.c \
    "$ROOT"/src/io/*.c "$ROOT"/src/format/parquet/parquet_write*.c \
    "$ROOT"/src/format/format_write.c -o "$BIN" $LIBS
fi
"$BIN" "$OUT"

fail=0
for f in "$OUT"/*.parquet; do
  name=${f%.parquet}
  # DuckDB: one SQL expression per column that yields comparable text/numbers.
  sql=$(python3 - "$name.types" "$f" <<'EOF'
import sys
cols = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
ex = []
for n, t in cols:
    q = '"%s"' % n
    base = t.replace(' NOT NULL', '')
    if base.startswith(('ARRAY', 'MAP', 'ROW', 'MULTISET')):
        e = 'to_json(%s)::VARCHAR' % q
    elif base.startswith('TIMESTAMP'):
        e = 'epoch_us(%s)::VARCHAR' % q
    elif base == 'DATE':
        e = '(%s - DATE \'1970-01-01\')' % q
    elif base.startswith('TIME'):
        e = 'round(extract(epoch from %s::TIME) * 1000)::BIGINT' % q
    elif base.startswith(('DECIMAL', 'BIGINT')):
        e = '%s::VARCHAR' % q
    elif base.startswith(('BINARY', 'VARBINARY', 'BYTES')):
        e = 'lower(hex(%s))' % q
    else:
        e = q
    ex.append('%s AS %s' % (e, q))
print("SELECT %s FROM read_parquet('%s', hive_partitioning=false) ORDER BY file_row_number" %
      (', '.join(ex), sys.argv[2].replace("'", "''")))
EOF
)
  (cd "$ORACLE_DIR" && node "$SHARED/tools/oracle/duckdb_parquet.mjs" sql "$sql") > "$name.duckdb.tsv"
  (cd "$ORACLE_DIR" && node "$SHARED/tools/oracle/hyparquet_read.mjs" "$f") > "$name.hyparquet.jsonl"
  if ! python3 - "$name" <<'EOF'
import json, math, struct, sys
from decimal import Decimal
name = sys.argv[1]
cols = [l.rstrip('\n').split('\t') for l in open(name + '.types') if l.strip()]
exp = [json.loads(l) for l in open(name + '.expected.jsonl')]

def base(t): return t.replace(' NOT NULL', '')

def num_eq(a, b, t):
    if isinstance(a, bool) or isinstance(b, bool): return a == b
    if isinstance(a, int) and isinstance(b, int): return a == b
    a, b = float(a), float(b)
    if 'FLOAT' in t:  # compare as float32
        a = struct.unpack('f', struct.pack('f', a))[0]; b = struct.unpack('f', struct.pack('f', b))[0]
    return a == b or math.isclose(a, b, rel_tol=1e-15)

def deep_eq(a, b, t):
    if a is None or b is None: return a is None and b is None
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(deep_eq(a[k], b[k], t) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(deep_eq(x, y, t) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)): return num_eq(a, b, t)
    return a == b

def trunc_div(a, b): return -((-a) // b) if a < 0 else a // b

bad = 0
def report(src, row, col, e, g):
    global bad
    bad += 1
    if bad <= 10: print('  %s row %d col %s: expected %r got %r' % (src, row, col, e, g))

# hyparquet: exact values in the canonical form (maps keyed by the key's text)
hyp = [json.loads(l) for l in open(name + '.hyparquet.jsonl')]
if len(hyp) != len(exp): report('hyparquet', -1, '*', len(exp), len(hyp))
for r, (e, g) in enumerate(zip(exp, hyp)):
    for n, t in cols:
        if not deep_eq(e[n], g.get(n), base(t)): report('hyparquet', r, n, e[n], g.get(n))

# DuckDB: per-column SQL projections
lines = open(name + '.duckdb.tsv').read().split('\n')[1:]
lines = [l for l in lines if l]
if len(lines) != len(exp): report('duckdb', -1, '*', len(exp), len(lines))
for r, (e, l) in enumerate(zip(exp, lines)):
    cells = [json.loads(c) for c in l.split('\t')]
    for (n, t), g in zip(cols, cells):
        v, bt = e[n], base(t)
        if v is None:
            if g is not None: report('duckdb', r, n, v, g)
            continue
        if bt.startswith(('ARRAY', 'MAP', 'ROW', 'MULTISET')):
            ok = deep_eq(v, json.loads(g), bt)
        elif bt.startswith('TIMESTAMP'):
            ns = int(v['ts_ns'])
            ok = int(g) == trunc_div(ns, 1000)
        elif bt == 'DATE':
            ok = int(g) == v['days']
        elif bt.startswith('TIME'):
            ok = int(g) == v
        elif bt.startswith('DECIMAL'):  # DuckDB prints DECIMAL(9,9) as .5: compare exactly as numbers
            ok = Decimal(g) == Decimal(v)
        elif bt.startswith('BIGINT'):
            ok = int(g) == v
        elif bt.startswith(('BINARY', 'VARBINARY', 'BYTES')):
            ok = g == v['hex']
        else:
            ok = deep_eq(v, g, bt)
        if not ok: report('duckdb', r, n, v, g)
print('%s: %d rows, %d mismatches' % (name.split('/')[-1], len(exp), bad))
sys.exit(1 if bad else 0)
EOF
  then fail=1; fi
done
[ $fail = 0 ] && echo "parquet oracle: all files match DuckDB and hyparquet" || { echo "parquet oracle: MISMATCHES"; exit 1; }
