#!/usr/bin/env bash
# tests/oracle/run.sh (`make test-oracle`): checks every file paimon-c writes against
# independent readers and against what Java Paimon writes.
#
# 1. Installs the oracles when missing (../shared/tools/oracle/setup_oracles.sh: DuckDB,
#    hyparquet, python3-avro; needs root for apt-get).
# 2. Format level: tests/oracle/parquet_oracle.sh (every Paimon type, codec, page layout).
# 3. Table level: creates tables with `paimon create` and fills them with `paimon write`
#    (generated rows of every type, nulls and extremes; Parquet data files with each codec,
#    Avro data files, append and primary-key tables, partitions, buckets, rolled files),
#    then
#    - reads every Parquet data file with hyparquet (exact) and DuckDB (INT96 timestamps
#      compared at microseconds) and every Avro data file with python3-avro, and checks
#      that together they hold exactly the rows written, value by value;
#    - reads every manifest and manifest list with python3-avro, checks their entries
#      (files, row counts), and requires their Avro schema (record names, field names,
#      types, defaults) to equal the schema of real Java Paimon files of the corpus;
#    - requires the Avro schema of our data files to equal Java's for the same table
#      (tables mirroring the corpus' avro/data files) and to follow Java's type mapping
#      for every other type, and our values to read back equal to Java's;
#    - requires snapshot and schema JSON to carry every field that all of the corpus' Java
#      snapshot and schema files carry, with the same JSON types.
#
# Usage: bash tests/oracle/run.sh [OUT_DIR]
# Environment: BUILD (default <repo>/build; the CLI is built there when missing),
# PM_SHARED_DIR (default <repo>/../shared), ORACLE_DIR (default /tmp/oracle).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${PM_SHARED_DIR:-$ROOT/../shared}
ORACLE_DIR=${ORACLE_DIR:-/tmp/oracle}
BUILD=${BUILD:-$ROOT/build}
OUT=${1:-$(mktemp -d /tmp/pm_oracle.XXXXXX)}
mkdir -p "$OUT"

have_oracles() {
  [ -d "$ORACLE_DIR/node_modules/hyparquet" ] && [ -d "$ORACLE_DIR/node_modules/@duckdb/node-api" ] &&
    /usr/bin/python3 -c 'import avro, zstandard' 2>/dev/null
}
if ! have_oracles; then
  echo "== installing oracles into $ORACLE_DIR"
  ORACLE_DIR=$ORACLE_DIR bash "$SHARED/tools/oracle/setup_oracles.sh"
fi

if [ ! -x "$BUILD/paimon" ] || [ ! -f "$BUILD/libpaimon.a" ]; then
  [ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" --target paimon_cli paimon_static -j2 >/dev/null
fi

fail=0
echo "== format level: Parquet samples (tests/oracle/parquet_oracle.sh)"
bash "$ROOT/tests/oracle/parquet_oracle.sh" "$OUT/samples" || fail=1

echo "== table level: tables written by paimon write"
/usr/bin/python3 - "$BUILD/paimon" "$OUT/tables" "$SHARED" "$ORACLE_DIR" <<'PYEOF' || fail=1
import base64, collections, datetime, glob, json, math, os, random, shutil, struct, subprocess, sys
from decimal import Decimal

PAIMON, OUT, SHARED, ORACLE = sys.argv[1:5]
AVRO_DUMP = os.path.join(SHARED, 'tools/oracle/avro_dump.py')
COMPAT = os.path.join(SHARED, 'compat/tables')
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
rng = random.Random(20240605)
errors = []


def err(msg):
    errors.append(msg)
    if len(errors) <= 40:
        print('  MISMATCH ' + msg)


# ---- types: (name, paimon type json, generator kind) ----------------------------------

def T(name, typ, nullable=True):
    return {'name': name, 'type': typ if (not isinstance(typ, str) or nullable) else typ + ' NOT NULL'}


ROW_T = {'type': 'ROW', 'fields': [
    {'id': 1001, 'name': 'x', 'type': 'INT'}, {'id': 1002, 'name': 'y', 'type': 'STRING'},
    {'id': 1003, 'name': 'z', 'type': {'type': 'ROW', 'fields': [{'id': 1004, 'name': 'q', 'type': 'DOUBLE'}]}}]}


def all_fields(ts_high):
    f = [T('id', 'BIGINT', False), T('p', 'INT'), T('b', 'BOOLEAN'), T('ti', 'TINYINT'),
         T('si', 'SMALLINT'), T('i', 'INT'), T('bi', 'BIGINT'), T('f', 'FLOAT'), T('d', 'DOUBLE'),
         T('dec5', 'DECIMAL(5, 2)'), T('dec18', 'DECIMAL(18, 4)'), T('dec38', 'DECIMAL(38, 10)'),
         T('c', 'CHAR(5)'), T('vc', 'VARCHAR(20)'), T('s', 'STRING'), T('bin', 'BINARY(4)'),
         T('vb', 'VARBINARY(10)'), T('by', 'BYTES'), T('dt', 'DATE'), T('tm', 'TIME(0)'),
         T('tm3', 'TIME(3)'), T('ts0', 'TIMESTAMP(0)'), T('ts3', 'TIMESTAMP(3)'),
         T('ts6', 'TIMESTAMP(6)'), T('ltz3', 'TIMESTAMP(3) WITH LOCAL TIME ZONE'),
         T('ltz6', 'TIMESTAMP(6) WITH LOCAL TIME ZONE')]
    if ts_high:
        f += [T('ts9', 'TIMESTAMP(9)'), T('ltz9', 'TIMESTAMP(9) WITH LOCAL TIME ZONE')]
    f += [T('arr', {'type': 'ARRAY', 'element': 'INT'}), T('arrs', {'type': 'ARRAY', 'element': 'STRING'}),
          T('arr2', {'type': 'ARRAY', 'element': {'type': 'ARRAY', 'element': 'BIGINT'}}),
          T('m', {'type': 'MAP', 'key': 'STRING', 'value': 'BIGINT'}),
          T('mi', {'type': 'MAP', 'key': 'INT NOT NULL', 'value': 'STRING'}),
          T('r', ROW_T), T('ms', {'type': 'MULTISET', 'element': 'STRING'}), T('nn', 'INT', False)]
    return f


def base_type(t):
    if isinstance(t, dict):
        return t['type']
    t = t.replace(' NOT NULL', '')
    if 'WITH LOCAL TIME ZONE' in t:
        return 'LTZ'
    return t.split('(')[0]


def precision(t):
    return int(t.split('(')[1].split(')')[0].split(',')[0])


def scale(t):
    return int(t.split(',')[1].split(')')[0])


# ---- value generation: (jsonl value, canonical value) ---------------------------------
# Canonical: ints exact, floats, DECIMAL exact string, strings, binary {"hex"}, DATE
# {"days"}, TIME millis, TIMESTAMP {"ts_ns"}, ARRAY list, MAP/MULTISET dict keyed by the
# key's text, ROW dict.

UNI = ['a', 'Z', '0', ' ', 'é', 'ß', '中', '文', '😀', '"', '\\', '\n', 'x']
EPOCH = datetime.datetime(1970, 1, 1)


def text(n):
    return ''.join(rng.choice(UNI) for _ in range(n))


def ts_text(ns, digits, z):
    sec, frac = divmod(ns, 10**9)
    d = EPOCH + datetime.timedelta(seconds=sec)
    s = d.strftime('%Y-%m-%dT%H:%M:%S') if d.year >= 1000 else '%04d' % d.year + d.strftime('-%m-%dT%H:%M:%S')
    return s + '.' + ('%09d' % frac) + ('Z' if z else '')


def gen(t, i):
    bt = base_type(t)
    extreme = i % 17 == 3
    if bt == 'BOOLEAN':
        v = rng.random() < 0.5
        return v, v
    if bt in ('TINYINT', 'SMALLINT', 'INT', 'BIGINT'):
        bits = {'TINYINT': 8, 'SMALLINT': 16, 'INT': 32, 'BIGINT': 64}[bt]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        v = rng.choice([lo, hi, 0, -1]) if extreme else rng.randint(lo, hi) if i % 3 else rng.randint(max(lo, -1000), min(hi, 1000))
        return v, v
    if bt == 'FLOAT':
        v = rng.randint(-10**7, 10**7) / 64.0  # exactly representable in float32
        return v, v
    if bt == 'DOUBLE':
        v = rng.choice([1.7976931348623157e308, -2.2250738585072014e-308, 0.0]) if extreme else rng.uniform(-1e12, 1e12)
        return v, v
    if bt == 'DECIMAL':
        p, s = precision(t), scale(t)
        u = rng.choice([10**p - 1, -(10**p - 1)]) if extreme else rng.randint(-(10**p - 1), 10**p - 1) if i % 2 else rng.randint(-999, 999)
        neg, a = u < 0, str(abs(u)).rjust(s + 1, '0')
        txt = ('-' if neg else '') + (a[:-s] + '.' + a[-s:] if s else a)
        return txt, txt
    if bt == 'CHAR':
        v = text(precision(t))
        return v, v
    if bt in ('VARCHAR', 'STRING'):
        n = precision(t) if bt == 'VARCHAR' else (300 if extreme else 24)
        v = text(rng.randint(0, n))
        return v, v
    if bt in ('BINARY', 'VARBINARY', 'BYTES'):
        n = precision(t) if bt == 'BINARY' else rng.randint(0, precision(t) if bt == 'VARBINARY' else 40)
        v = bytes(rng.randrange(256) for _ in range(n))
        return base64.b64encode(v).decode(), {'hex': v.hex()}
    if bt == 'DATE':
        days = rng.choice([-719162, 2932896, 0]) if extreme else rng.randint(-30000, 40000)
        d = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
        return '%04d-%02d-%02d' % (d.year, d.month, d.day), {'days': days}
    if bt == 'TIME':
        p = precision(t)
        ms = rng.randrange(86400000)
        if p == 0:
            ms -= ms % 1000
        h, rem = divmod(ms, 3600000)
        mi, rem = divmod(rem, 60000)
        s, f = divmod(rem, 1000)
        return '%02d:%02d:%02d.%03d' % (h, mi, s, f), ms
    if bt in ('TIMESTAMP', 'LTZ'):
        p = precision(t)
        lo, hi = -2208988800 * 10**9, 4102444800 * 10**9  # 1900 .. 2100
        ns = rng.choice([lo, hi - 1, 0, -1]) if extreme else rng.randrange(lo, hi)
        ns -= ns % (10 ** (9 - p))
        return ts_text(ns, p, bt == 'LTZ'), {'ts_ns': str(ns)}
    if bt == 'ARRAY':
        out_j, out_c = [], []
        for _ in range(rng.randint(0, 4)):
            if rng.random() < 0.15:
                out_j.append(None)
                out_c.append(None)
            else:
                j, c = gen(t['element'], i)
                out_j.append(j)
                out_c.append(c)
        return out_j, out_c
    if bt in ('MAP', 'MULTISET'):
        kt = t['key'] if bt == 'MAP' else t['element']
        pairs, canon = [], {}
        for _ in range(rng.randint(0, 4)):
            kj, kc = gen(kt, i)
            if str(kc) in canon:
                continue
            if bt == 'MULTISET':
                vj = vc = rng.randint(1, 3)
            elif rng.random() < 0.15:
                vj = vc = None
            else:
                vj, vc = gen(t['value'], i)
            pairs.append([kj, vj])
            canon[str(kc)] = vc
        return pairs, canon
    if bt == 'ROW':
        j, c = {}, {}
        for f in t['fields']:
            if rng.random() < 0.15 and 'NOT NULL' not in str(f['type']):
                j[f['name']] = c[f['name']] = None
            else:
                j[f['name']], c[f['name']] = gen(f['type'], i)
        return j, c
    raise Exception('no generator for %r' % (t,))


def make_rows(fields, n, parts=3):
    rows_j, rows_c = [], {}
    for i in range(n):
        j, c = {}, {}
        for f in fields:
            name, t = f['name'], f['type']
            if name == 'id':
                j[name] = c[name] = i
            elif name == 'p':
                j[name] = c[name] = i % parts
            elif rng.random() < 0.1 and not (isinstance(t, str) and 'NOT NULL' in t):
                j[name] = c[name] = None
            else:
                j[name], c[name] = gen(t, i)
        rows_j.append(j)
        rows_c[i] = c
    return rows_j, rows_c


def run(cmd, stdin=None, cwd=None):
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        raise Exception('%s failed: %s' % (' '.join(cmd[:3]), r.stderr.strip()[-2000:]))
    return r.stdout


def create_and_write(name, fields, options, rows_j, pk=None, parts=None):
    path = os.path.join(OUT, name)
    schema = {'fields': fields, 'partitionKeys': parts or [], 'primaryKeys': pk or [], 'options': options}
    sp = path + '.schema.json'
    with open(sp, 'w') as fh:
        json.dump(schema, fh)
    run([PAIMON, 'create', path, '--schema', sp])
    run([PAIMON, 'write', path], stdin=''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in rows_j))
    if pk and name.endswith('_compacted'):
        # the same rows again, a full compaction into the top level, and expiry of the
        # level-0 snapshots: only the compacted KeyValue files stay to be checked
        run([PAIMON, 'write', path], stdin=''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in rows_j))
        run([PAIMON, 'compact', path, '--full'])
        run([PAIMON, 'expire', path, '-o', 'snapshot.num-retained.min=1', '-o', 'snapshot.num-retained.max=1'])
    return path


def data_files(path, ext):
    return sorted(f for f in glob.glob(os.path.join(path, '**', '*.' + ext), recursive=True)
                  if '/manifest/' not in f)


# ---- comparison -----------------------------------------------------------------------

def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def eq(exp, got, t, src):
    """Compares a canonical expected value with an oracle's value of type t."""
    if exp is None or got is None:
        return exp is None and got is None
    bt = base_type(t)
    if bt == 'FLOAT':
        return f32(float(exp)) == f32(float(got))
    if bt == 'DOUBLE':
        return float(exp) == float(got)
    if bt in ('TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'TIME'):
        return int(exp) == int(got)
    if bt == 'DECIMAL':
        return Decimal(exp) == Decimal(str(got))
    if bt == 'ARRAY':
        return isinstance(got, list) and len(exp) == len(got) and all(
            eq(a, b, t['element'], src) for a, b in zip(exp, got))
    if bt in ('MAP', 'MULTISET'):
        if isinstance(got, list):  # Avro array-map: records {key, value}
            got = {str(kv['key']) if not isinstance(kv['key'], dict) else json.dumps(kv['key']): kv['value'] for kv in got}
        vt = t['value'] if bt == 'MAP' else 'INT'
        return isinstance(got, dict) and set(exp) == set(str(k) for k in got) and all(
            eq(exp[k], got[k], vt, src) for k in exp)
    if bt == 'ROW':
        return isinstance(got, dict) and all(eq(exp[f['name']], got.get(f['name']), f['type'], src) for f in t['fields'])
    return exp == got


def check_rows(label, fields, expected, got_rows, src, seen):
    types = {f['name']: f['type'] for f in fields}
    for g in got_rows:
        rid = g.get('id')
        if not isinstance(rid, int) or rid not in expected:
            err('%s %s: row with unknown id %r' % (label, src, rid))
            continue
        seen[rid] += 1
        e = expected[rid]
        for name, t in types.items():
            if name not in g:
                err('%s %s row %d: column %s missing' % (label, src, rid, name))
            elif not eq(e[name], g[name], t, src):
                err('%s %s row %d col %s: expected %r got %r' % (label, src, rid, name, e[name], g[name]))


def hyparquet_rows(f):
    out = run(['node', os.path.join(SHARED, 'tools/oracle/hyparquet_read.mjs'), f], cwd=ORACLE)
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def duck_expr(name, t):
    q = '"%s"' % name
    bt = base_type(t)
    if bt in ('ARRAY', 'MAP', 'ROW', 'MULTISET'):
        return 'to_json(%s)::VARCHAR' % q
    if bt in ('TIMESTAMP', 'LTZ'):
        return 'epoch_us(%s)::VARCHAR' % q
    if bt == 'DATE':
        return "(%s - DATE '1970-01-01')" % q
    if bt == 'TIME':
        return 'round(extract(epoch from %s) * 1000)::BIGINT' % q
    if bt in ('DECIMAL', 'BIGINT', 'TINYINT', 'SMALLINT', 'INT'):
        return '%s::VARCHAR' % q
    if bt in ('BINARY', 'VARBINARY', 'BYTES'):
        return 'lower(hex(%s))' % q
    if bt == 'FLOAT':
        return '%s::DOUBLE' % q
    return q


def duckdb_rows(f, fields):
    sql = 'SELECT %s FROM read_parquet(\'%s\', hive_partitioning=false)' % (
        ', '.join('%s AS "%s"' % (duck_expr(x['name'], x['type']), x['name']) for x in fields), f.replace("'", "''"))
    out = run(['node', os.path.join(SHARED, 'tools/oracle/duckdb_parquet.mjs'), 'sql', sql], cwd=ORACLE)
    lines = out.split('\n')
    cols = lines[0].split('\t')
    rows = []
    types = {x['name']: x['type'] for x in fields}
    for l in lines[1:]:
        if not l:
            continue
        r = {}
        for c, cell in zip(cols, l.split('\t')):
            v = json.loads(cell)
            bt = base_type(types[c])
            if v is not None:
                if bt in ('ARRAY', 'MAP', 'ROW', 'MULTISET'):
                    v = json.loads(v)
                elif bt in ('BINARY', 'VARBINARY', 'BYTES'):
                    v = {'hex': v}
                elif bt == 'DATE':
                    v = {'days': int(v)}
                elif bt in ('TINYINT', 'SMALLINT', 'INT', 'BIGINT'):
                    v = int(v)
                elif bt in ('TIMESTAMP', 'LTZ'):
                    v = {'us': int(v)}
            r[c] = v
        rows.append(r)
    return rows


def duck_normalize(exp_rows, fields):
    """Expected rows as DuckDB shows them: timestamps at microseconds (INT96 nanos are
    dropped, truncating either way), nested timestamps unsupported (none generated)."""
    out = {}
    for rid, e in exp_rows.items():
        r = dict(e)
        for f in fields:
            bt = base_type(f['type'])
            if bt in ('TIMESTAMP', 'LTZ') and r[f['name']] is not None:
                r[f['name']] = {'us': int(r[f['name']]['ts_ns'])}
        out[rid] = r
    return out


def eq_duck_ts(e_ns, g_us):
    return g_us in (e_ns // 1000, -((-e_ns) // 1000))


def check_parquet_table(label, path, fields, expected, n):
    files = data_files(path, 'parquet')
    if not files:
        err('%s: no parquet data files' % label)
        return
    seen_h = collections.Counter()
    seen_d = collections.Counter()
    ts_fields = [f for f in fields if base_type(f['type']) in ('TIMESTAMP', 'LTZ')]
    other = [f for f in fields if f not in ts_fields]
    for f in files:
        check_rows(label, fields, expected, hyparquet_rows(f), 'hyparquet:' + os.path.basename(f), seen_h)
        drows = duckdb_rows(f, fields)
        check_rows(label, other, expected, [{k: v for k, v in r.items() if k not in [x['name'] for x in ts_fields]} for r in drows],
                   'duckdb:' + os.path.basename(f), seen_d)
        for r in drows:
            e = expected.get(r.get('id'))
            for tf in ts_fields:
                ev, gv = e[tf['name']] if e else None, r[tf['name']]
                if (ev is None) != (gv is None) or (ev is not None and not eq_duck_ts(int(ev['ts_ns']), gv['us'])):
                    err('%s duckdb:%s row %r col %s: expected %r got %r' % (label, os.path.basename(f), r.get('id'), tf['name'], ev, gv))
    for name, seen in (('hyparquet', seen_h), ('duckdb', seen_d)):
        if sorted(seen) != list(range(n)) or any(c != 1 for c in seen.values()):
            err('%s: %s saw %d distinct ids (%d rows), expected %d once each' % (label, name, len(seen), sum(seen.values()), n))
    print('  %s: %d parquet files, %d rows match hyparquet and DuckDB' % (label, len(files), n))


def avro_dump(f, schema=False):
    out = run(['/usr/bin/python3', AVRO_DUMP, f] + (['--schema'] if schema else []))
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    return (lines[0], lines[1:]) if schema else lines


def check_avro_table(label, path, fields, expected, n, pk):
    files = data_files(path, 'avro')
    if not files:
        err('%s: no avro data files' % label)
        return
    seen = collections.Counter()
    for f in files:
        head, rows = avro_dump(f, True)
        if head['codec'] != 'zstandard':
            err('%s %s: codec %s, Java writes zstandard' % (label, f, head['codec']))
        check_avro_schema(label, head['schema'], fields, pk)
        check_rows(label, fields, expected, rows, 'avro:' + os.path.basename(f), seen)
    if sorted(seen) != list(range(n)) or any(c != 1 for c in seen.values()):
        err('%s: python3-avro saw %d distinct ids, expected %d once each' % (label, len(seen), n))
    print('  %s: %d avro files, %d rows match python3-avro' % (label, len(files), n))


# Java's Avro schema for a Paimon type (AvroSchemaConverter, format-data.md 1.1).
def java_avro(t, rec_name):
    nullable = not (isinstance(t, str) and 'NOT NULL' in t)
    bt = base_type(t)
    if bt == 'BOOLEAN':
        s = 'boolean'
    elif bt in ('TINYINT', 'SMALLINT', 'INT'):
        s = 'int'
    elif bt == 'BIGINT':
        s = 'long'
    elif bt in ('FLOAT', 'DOUBLE'):
        s = bt.lower()
    elif bt in ('CHAR', 'VARCHAR', 'STRING'):
        s = 'string'
    elif bt in ('BINARY', 'VARBINARY', 'BYTES'):
        s = 'bytes'
    elif bt == 'DECIMAL':
        s = {'type': 'bytes', 'logicalType': 'decimal', 'precision': precision(t), 'scale': scale(t)}
    elif bt == 'DATE':
        s = {'type': 'int', 'logicalType': 'date'}
    elif bt == 'TIME':
        s = {'type': 'int', 'logicalType': 'time-millis'}
    elif bt in ('TIMESTAMP', 'LTZ'):
        unit = 'millis' if precision(t) <= 3 else 'micros'
        s = {'type': 'long', 'logicalType': ('local-timestamp-' if bt == 'LTZ' else 'timestamp-') + unit}
    elif bt == 'ARRAY':
        s = {'type': 'array', 'items': java_avro(t['element'], rec_name)}
    elif bt in ('MAP', 'MULTISET'):
        # a MULTISET is a map to a nullable INT count
        kt, vt = (t['key'], t['value']) if bt == 'MAP' else (t['element'], 'INT')
        if base_type(kt) in ('CHAR', 'VARCHAR', 'STRING'):
            s = {'type': 'map', 'values': java_avro(vt, rec_name)}
        else:
            s = {'type': 'array', 'logicalType': 'map', 'items': {
                'type': 'record', 'name': rec_name,
                'fields': [{'name': 'key', 'type': java_avro(kt, rec_name + '_key')},
                           avro_field('value', vt, rec_name)]}}
    elif bt == 'ROW':
        s = {'type': 'record', 'name': rec_name,
             'fields': [avro_field(f['name'], f['type'], rec_name) for f in t['fields']]}
    else:
        raise Exception('no Avro mapping for %r' % (t,))
    return ['null', s] if nullable else s


def avro_field(name, t, parent):
    s = java_avro(t, parent + '_' + name)
    f = {'name': name, 'type': s}
    if isinstance(s, list):
        f['default'] = None
    return f


def canon_schema(s):
    """Schema JSON with keys that matter (type, name, namespace, fields, items, values,
    logicalType, precision, scale, default) in a stable order."""
    if isinstance(s, list):
        return [canon_schema(x) for x in s]
    if isinstance(s, str):
        return s
    out = {}
    for k in ('type', 'name', 'namespace', 'logicalType', 'precision', 'scale', 'default', 'items', 'values', 'fields'):
        if k in s:
            v = s[k]
            if k == 'fields':
                v = [canon_schema(f) for f in v]
            elif k in ('type', 'items', 'values'):
                v = canon_schema(v)
            out[k] = v
    return out


def check_avro_schema(label, got, fields, pk):
    kv = []
    if pk:  # KeyValue files: _KEY_ copies, sequence number and row kind first
        types = {f['name']: f['type'] for f in fields}
        kv = [{'name': '_KEY_' + k, 'type': types[k]} for k in pk]
        kv += [{'name': '_SEQUENCE_NUMBER', 'type': 'BIGINT NOT NULL'}, {'name': '_VALUE_KIND', 'type': 'TINYINT NOT NULL'}]
    exp = {'type': 'record', 'name': 'record', 'namespace': 'org.apache.paimon.avro.generated',
           'fields': [avro_field(f['name'], f['type'], 'record') for f in kv + fields]}
    g, e = canon_schema(got), canon_schema(exp)
    if g != e:
        for gf, ef in zip(g.get('fields', []), e['fields']):
            if gf != ef:
                err('%s: Avro field %s: ours %s, Java mapping %s' % (label, ef['name'], json.dumps(gf), json.dumps(ef)))
                break
        else:
            err('%s: Avro schema differs from Java mapping: %s' % (label, json.dumps(g)[:400]))


# ---- metadata --------------------------------------------------------------------------

def sig(s):
    return json.dumps(canon_schema(s), sort_keys=True)


def java_meta_schemas():
    lists, manifests = collections.defaultdict(list), collections.defaultdict(list)
    for f in glob.glob(os.path.join(COMPAT, '*/*/*/manifest/manifest-*')):
        with open(f, 'rb') as fh:
            if fh.read(4) != b'Obj\x01':
                continue
        head, _ = avro_dump(f, True)
        (lists if os.path.basename(f).startswith('manifest-list-') else manifests)[sig(head['schema'])].append(f)
    return lists, manifests


def check_metadata(label, path, java_lists, java_manifests, expect_rows, java_snap_keys, java_schema_keys):
    data = set(os.path.basename(f) for ext in ('parquet', 'avro', 'orc') for f in data_files(path, ext))
    added, rows, deleted, sizes = set(), 0, set(), {}
    mfiles = sorted(glob.glob(os.path.join(path, 'manifest', 'manifest-*')))
    for f in mfiles:
        head, recs = avro_dump(f, True)
        is_list = os.path.basename(f).startswith('manifest-list-')
        ref = (java_lists if is_list else java_manifests).get(sig(head['schema']))
        if not ref:
            err('%s %s: Avro schema matches no Java %s in the corpus: %s' % (
                label, os.path.basename(f), 'manifest list' if is_list else 'manifest', json.dumps(head['schema'])[:300]))
        if head['codec'] != 'zstandard':
            err('%s %s: codec %s' % (label, os.path.basename(f), head['codec']))
        if is_list:
            for r in recs:
                if not os.path.exists(os.path.join(path, 'manifest', r['_FILE_NAME'])):
                    err('%s: manifest list names missing %s' % (label, r['_FILE_NAME']))
        else:
            for r in recs:
                if r['_KIND'] == 0:
                    added.add(r['_FILE']['_FILE_NAME'])
                    rows += r['_FILE']['_ROW_COUNT']
                    sizes[r['_FILE']['_FILE_NAME']] = r['_FILE']['_ROW_COUNT']
                else:
                    deleted.add(r['_FILE']['_FILE_NAME'])
    # files a compaction replaced are DELETEd later and expired from disk
    for name in deleted & added:
        added.discard(name)
        rows -= sizes[name]
    if added != data:
        err('%s: manifests add %d files, %d data files on disk' % (label, len(added), len(data)))
    if rows != expect_rows:
        err('%s: manifests count %d rows, %d written' % (label, rows, expect_rows))
    for kind, keys, pattern in (('snapshot', java_snap_keys, 'snapshot/snapshot-*'), ('schema', java_schema_keys, 'schema/schema-*')):
        for f in glob.glob(os.path.join(path, pattern)):
            d = json.load(open(f))
            for k, jt in keys.items():
                if k not in d:
                    err('%s %s: field %s missing (every Java %s file has it)' % (label, os.path.basename(f), k, kind))
                elif type(d[k]).__name__ not in jt:
                    err('%s %s: field %s is %s, Java writes %s' % (label, os.path.basename(f), k, type(d[k]).__name__, sorted(jt)))
    print('  %s: %d manifests/lists read by python3-avro, Java schemas, snapshot/schema JSON fields ok' % (label, len(mfiles)))


def java_json_keys(pattern):
    keys, types, n = collections.Counter(), collections.defaultdict(set), 0
    for f in glob.glob(os.path.join(COMPAT, '*/*/*', pattern)):
        d = json.load(open(f))
        n += 1
        keys.update(d.keys())
        for k, v in d.items():
            types[k].add(type(v).__name__)
    return {k: types[k] for k, c in keys.items() if c == n}


# ---- the tables -------------------------------------------------------------------------

N = 3000
java_lists, java_manifests = java_meta_schemas()
snap_keys = java_json_keys('snapshot/snapshot-*')
schema_keys = java_json_keys('schema/schema-*')
print('  Java references: %d manifest-list and %d manifest schema variants; snapshot fields %s' % (
    len(java_lists), len(java_manifests), ','.join(sorted(snap_keys))))

tables = [
    ('append_parquet_zstd', True, 'parquet', {'bucket': '2', 'bucket-key': 'id', 'target-file-size': '160kb'}, ['p'], None),
    ('append_parquet_snappy', True, 'parquet', {'file.compression': 'snappy', 'target-file-size': '400kb'}, [], None),
    ('append_parquet_gzip', True, 'parquet', {'file.compression': 'gzip', 'bucket': '1', 'bucket-key': 'id'}, [], None),
    ('append_parquet_lz4', True, 'parquet', {'file.compression': 'lz4'}, ['p'], None),
    ('append_parquet_none', True, 'parquet', {'file.compression': 'none'}, [], None),
    ('pk_parquet', True, 'parquet', {'bucket': '2'}, ['p'], ['id', 'p']),
    ('append_avro', False, 'avro', {'bucket': '2', 'bucket-key': 'id', 'target-file-size': '160kb'}, ['p'], None),
    ('pk_avro', False, 'avro', {'bucket': '2'}, [], ['id']),
    ('pk_parquet_compacted', True, 'parquet', {'bucket': '2'}, ['p'], ['id', 'p']),
    ('pk_avro_compacted', False, 'avro', {'bucket': '2'}, [], ['id']),
]
for name, ts_high, fmt, opts, parts, pk in tables:
    fields = all_fields(ts_high)
    if pk:
        fields = [dict(f, type=f['type'] + ' NOT NULL') if f['name'] in pk and isinstance(f['type'], str) and 'NOT NULL' not in f['type'] else f for f in fields]
    rows_j, rows_c = make_rows(fields, N)
    opts = dict(opts, **{'file.format': fmt})
    try:
        path = create_and_write(name, fields, opts, rows_j, pk=pk, parts=parts)
    except Exception as e:
        err('%s: %s' % (name, e))
        continue
    if fmt == 'parquet':
        check_parquet_table(name, path, fields, rows_c, N)
    else:
        check_avro_table(name, path, fields, rows_c, N, pk)
    check_metadata(name, path, java_lists, java_manifests, N, snap_keys, schema_keys)

# Twins of Java's Avro data files: same columns, same rows -> same schema and values.
for jname, fields, pk in (
    ('avro_all_types', [T('f0', 'BOOLEAN'), T('f1', 'TINYINT'), T('f2', 'SMALLINT'), T('f3', 'INT'),
                        T('f4', 'BIGINT'), T('f5', 'FLOAT'), T('f6', 'DOUBLE'), T('f7', 'STRING'),
                        T('f8', 'BYTES'), T('f10', {'type': 'ARRAY', 'element': 'FLOAT'}),
                        T('f11', {'type': 'ROW', 'fields': [{'id': 100, 'name': 'f0', 'type': 'BOOLEAN'},
                                                            {'id': 101, 'name': 'f1', 'type': 'BIGINT'}]}),
                        T('f12', 'TIMESTAMP(6)'), T('f13', 'DATE'), T('f14', 'DECIMAL(2, 2)'),
                        T('f15', 'DECIMAL(10, 10)'), T('f16', 'DECIMAL(19, 19)')], None),
    ('avro_with_null', [T('f0', 'STRING', False), T('f1', 'STRING', False), T('f2', 'INT'), T('f3', 'DOUBLE')], ['f0'])):
    jf = os.path.join(COMPAT, 'avro/data', jname)
    jhead, jrows = avro_dump(jf, True)
    tf = {f['name']: f['type'] for f in fields}
    rows_j = []
    for r in jrows:
        o = {}
        for k, v in r.items():
            if k == '_VALUE_KIND':
                o[k] = v  # Java's file holds deletes too
                continue
            if k.startswith('_'):
                continue
            bt = base_type(tf[k])
            if v is None:
                o[k] = None
            elif bt == 'BYTES':
                o[k] = base64.b64encode(bytes.fromhex(v['hex'])).decode()
            elif bt == 'TIMESTAMP':
                o[k] = ts_text(int(v['ts_ns']), 6, False)
            elif bt == 'DATE':
                d = datetime.date(1970, 1, 1) + datetime.timedelta(days=v['days'])
                o[k] = '%04d-%02d-%02d' % (d.year, d.month, d.day)
            else:
                o[k] = v
        rows_j.append(o)
    opts = {'file.format': 'avro', 'bucket': '1' if pk else '-1'}
    try:
        path = create_and_write('twin_' + jname, fields, opts, rows_j, pk=pk)
    except Exception as e:
        err('twin_%s: %s' % (jname, e))
        continue
    files = data_files(path, 'avro')
    ours_rows = []
    for f in files:
        head, rows = avro_dump(f, True)
        if sig(head['schema']) != sig(jhead['schema']):
            err('twin_%s: Avro schema differs from Java\'s\n    ours: %s\n    Java: %s' % (
                jname, json.dumps(canon_schema(head['schema'])), json.dumps(canon_schema(jhead['schema']))))
        ours_rows += rows
    key = lambda r: json.dumps({k: v for k, v in r.items() if k != '_SEQUENCE_NUMBER'}, sort_keys=True)
    if sorted(map(key, ours_rows)) != sorted(map(key, jrows)):
        err('twin_%s: rows differ from Java\'s:\n    ours: %s\n    Java: %s' % (
            jname, sorted(map(key, ours_rows))[:3], sorted(map(key, jrows))[:3]))
    print('  twin_%s: %d rows; Avro schema and values equal Java\'s %s' % (jname, len(jrows), jname))
    check_metadata('twin_' + jname, path, java_lists, java_manifests, len(jrows), snap_keys, schema_keys)

if errors:
    print('table level: %d MISMATCHES' % len(errors))
    sys.exit(1)
print('table level: every data file, manifest, manifest list, snapshot and schema checks out')
PYEOF

if [ $fail = 0 ]; then echo "oracle: ALL OK ($OUT)"; else echo "oracle: FAILURES ($OUT)"; exit 1; fi
