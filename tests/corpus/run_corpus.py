#!/usr/bin/env python3
"""Corpus harness: compares `paimon cat --format jsonl` with the expected rows of the real
Paimon tables in SHARED/compat (order-insensitive), or, with --tables-root pointing at a
corpus without expected rows (../shared/compat-holdout), checks that every table reads and
that its row counts are plausible.

Both sides are converted to one canonical form using the table's schema file (the schema
of the snapshot for --snapshot, the latest schema file for latest reads):
  expected encoding (SHARED/compat/README.md)   ours (`paimon cat` jsonl contract)
  {"days": n}                                   "YYYY-MM-DD"
  {"ts_ns": "n"} (TIMESTAMP wall clock as UTC)  "YYYY-MM-DDTHH:MM:SS[.f{p}]" (+"Z" for LTZ)
  {"hex": "..."}                                base64
  decimal strings with their scale              strings with exactly `scale` digits
  maps: objects with stringified keys           arrays of [key, value] pairs
  floats (relative tolerance 1e-6)              shortest round trip, "NaN"/"Infinity"
Our side is checked strictly against the contract (digit counts, Z suffix, base64).

Expected failures: tests/corpus/expected_failures.txt, one `NAME<whitespace>REASON` per
line, NAME being a table (`orc/pk_09`, `orc/pk_09.db/pk_09` or the expected-dir name)
optionally followed by `:CASE` (`latest`, `snapshot-3`, `branch-rt-latest`). A listed
table/case that fails is XFAIL; one that passes is XPASS and fails the run.

Exit status 1 when anything failed (including XPASS), else 0.
"""

import argparse
import base64
import binascii
import datetime
import json
import math
import os
import re
import subprocess
import sys
from decimal import Decimal, InvalidOperation

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 600


# ---- Paimon types -------------------------------------------------------------------------

class T:
    """A Paimon type: kind plus parameters."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.scale = kw.get("scale", 0)
        self.precision = kw.get("precision", 0)
        self.ltz = kw.get("ltz", False)
        self.elem = kw.get("elem")
        self.key = kw.get("key")
        self.value = kw.get("value")
        self.fields = kw.get("fields", [])  # [(name, T)]

    def __repr__(self):
        return "T(%s)" % self.kind


INT_KINDS = {"TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"}
STRING_KINDS = {"CHAR", "VARCHAR", "STRING"}
BINARY_KINDS = {"BINARY", "VARBINARY", "BYTES"}


class TypeParser:
    TOKEN = re.compile(r"\s*(`(?:[^`]|``)*`|\"(?:[^\"]|\"\")*\"|[A-Za-z_][A-Za-z0-9_]*|\d+|[(),<>:])")

    def __init__(self, text):
        self.toks = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = self.TOKEN.match(text, pos)
            if not m:
                # comments and odd characters: stop tokenizing (they follow the type)
                break
            self.toks.append(m.group(1))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def accept(self, word):
        t = self.peek()
        if t is not None and t.upper() == word:
            self.i += 1
            return True
        return False

    def params(self):
        out = []
        if self.accept("("):
            while True:
                t = self.take()
                if t is None:
                    break
                if t == ")":
                    break
                if t != ",":
                    out.append(int(t))
        return out

    def parse(self):
        word = (self.take() or "").upper()
        if word == "DOUBLE":
            self.accept("PRECISION")
        if word in INT_KINDS or word in ("BOOLEAN", "FLOAT", "DOUBLE", "DATE", "VARIANT", "BLOB"):
            t = T("INT" if word == "INTEGER" else word)
        elif word in STRING_KINDS:
            self.params()
            t = T("STRING")
        elif word in BINARY_KINDS:
            self.params()
            t = T("BINARY")
        elif word in ("DECIMAL", "DEC", "NUMERIC"):
            p = self.params()
            t = T("DECIMAL", precision=p[0] if p else 10, scale=p[1] if len(p) > 1 else 0)
        elif word == "TIME":
            p = self.params()
            t = T("TIME", precision=p[0] if p else 0)
            if self.accept("WITHOUT"):
                self.accept("TIME")
                self.accept("ZONE")
        elif word in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            p = self.params()
            ltz = word == "TIMESTAMP_LTZ"
            if self.accept("WITH"):
                self.accept("LOCAL")
                self.accept("TIME")
                self.accept("ZONE")
                ltz = True
            elif self.accept("WITHOUT"):
                self.accept("TIME")
                self.accept("ZONE")
            t = T("TIMESTAMP", precision=p[0] if p else 6, ltz=ltz)
        elif word in ("ARRAY", "MULTISET"):
            self.accept("<")
            e = self.parse()
            self.accept(">")
            t = T("ARRAY", elem=e) if word == "ARRAY" else T("MAP", key=e, value=T("INT"))
        elif word == "MAP":
            self.accept("<")
            k = self.parse()
            self.accept(",")
            v = self.parse()
            self.accept(">")
            t = T("MAP", key=k, value=v)
        elif word == "ROW":
            fields = []
            close = ">" if self.accept("<") else ")" if self.accept("(") else None
            while close and self.peek() not in (None, close):
                name = self.take()
                if name[0] in "`\"":
                    name = name[1:-1].replace(name[0] * 2, name[0])
                self.accept(":")
                fields.append((name, self.parse()))
                # optional description string is not tokenized; skip to , or close
                while self.peek() not in (None, ",", close):
                    self.take()
                self.accept(",")
            if close:
                self.accept(close)
            t = T("ROW", fields=fields)
        else:
            raise ValueError("unknown Paimon type %r" % word)
        if self.accept("NOT"):
            self.accept("NULL")
        else:
            self.accept("NULL")
        return t


def parse_type(js):
    """Paimon type from schema JSON (string or object form)."""
    if isinstance(js, str):
        return TypeParser(js).parse()
    kind = js["type"].split()[0].upper()
    if kind == "ARRAY":
        return T("ARRAY", elem=parse_type(js["element"]))
    if kind == "MULTISET":
        return T("MAP", key=parse_type(js["element"]), value=T("INT"))
    if kind == "MAP":
        return T("MAP", key=parse_type(js["key"]), value=parse_type(js["value"]))
    if kind == "ROW":
        return T("ROW", fields=[(f["name"], parse_type(f["type"])) for f in js["fields"]])
    return TypeParser(js["type"]).parse()


def load_schema(table_dir, schema_id=None):
    d = os.path.join(table_dir, "schema")
    if schema_id is None:
        ids = [int(n[len("schema-"):]) for n in os.listdir(d) if re.fullmatch(r"schema-\d+", n)]
        schema_id = max(ids)
    with open(os.path.join(d, "schema-%d" % schema_id)) as f:
        js = json.load(f)
    return js, [(fl["name"], parse_type(fl["type"])) for fl in js["fields"]]


def snapshot_json(table_dir, sid):
    with open(os.path.join(table_dir, "snapshot", "snapshot-%d" % sid)) as f:
        return json.load(f)


def snapshot_ids(table_dir):
    d = os.path.join(table_dir, "snapshot")
    if not os.path.isdir(d):
        return []
    return sorted(int(n[len("snapshot-"):]) for n in os.listdir(d) if re.fullmatch(r"snapshot-\d+", n))


# ---- dates and times (Python's calendar where it reaches, own arithmetic beyond) -----------

EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()


def days_from_civil(y, m, d):
    if 1 <= y <= 9999:
        return datetime.date(y, m, d).toordinal() - EPOCH_ORDINAL
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


class Bad:
    """A value of ours that breaks the output contract; never equal to anything."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return "<contract violation: %s>" % self.why


DATE_RE = re.compile(r"^([+-]?\d{4,})-(\d{2})-(\d{2})$")
TS_RE = re.compile(r"^([+-]?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z?)$")
TIME_RE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$")


def year_ok(s):
    """ISO 8601 as Java prints it: 4 digits for 0..9999, a sign otherwise."""
    y = int(s)
    if 0 <= y <= 9999:
        return len(s) == 4
    return s[0] in "+-" and len(s.lstrip("+-")) >= 4


def our_date(v):
    m = DATE_RE.match(v) if isinstance(v, str) else None
    if not m or not year_ok(m.group(1)):
        return Bad("DATE %r" % (v,))
    return days_from_civil(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def our_timestamp(v, t):
    m = TS_RE.match(v) if isinstance(v, str) else None
    if not m or not year_ok(m.group(1)):
        return Bad("TIMESTAMP %r" % (v,))
    frac = m.group(7) or ""
    if len(frac) != t.precision:
        return Bad("TIMESTAMP(%d) %r has %d fraction digits" % (t.precision, v, len(frac)))
    if (m.group(8) == "Z") != t.ltz:
        return Bad("TIMESTAMP%s %r" % (" WITH LOCAL TIME ZONE" if t.ltz else "", v))
    days = days_from_civil(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    secs = days * 86400 + int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
    return secs * 1000000000 + int((frac + "000000000")[:9])


def our_time(v, t):
    m = TIME_RE.match(v) if isinstance(v, str) else None
    if not m:
        return Bad("TIME %r" % (v,))
    frac = m.group(4) or ""
    if len(frac) != t.precision:
        return Bad("TIME(%d) %r" % (t.precision, v))
    secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    return secs * 1000000000 + int((frac + "000000000")[:9])


def expected_time(v):
    if isinstance(v, dict) and len(v) == 1:
        k, x = next(iter(v.items()))
        mult = {"ms": 1000000, "millis": 1000000, "us": 1000, "ns": 1, "nanos": 1, "time_ns": 1,
                "time_ms": 1000000}.get(k)
        if mult:
            return int(x) * mult
    if isinstance(v, str):
        m = TIME_RE.match(v)
        if m:
            secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            return secs * 1000000000 + int(((m.group(4) or "") + "000000000")[:9])
    if isinstance(v, int):
        return v * 1000000
    return ("unparsed", json.dumps(v))


# ---- canonical values ------------------------------------------------------------------------

class F:
    """A float compared with a relative tolerance."""

    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return repr(self.v)


def to_float(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("NaN", "Infinity", "-Infinity", "nan", "inf", "-inf"):
        return float(v.replace("Infinity", "inf"))
    return None


def canon(v, t, ours):
    """Canonical Python value of v (a JSON value) of Paimon type t."""
    if v is None:
        return None
    k = t.kind
    try:
        if k in INT_KINDS:
            if isinstance(v, bool) or not isinstance(v, int):
                return Bad("integer %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            return v
        if k in ("FLOAT", "DOUBLE"):
            f = to_float(v)
            if f is None or (ours and isinstance(v, str) and v not in ("NaN", "Infinity", "-Infinity")):
                return Bad("float %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            return F(f)
        if k == "BOOLEAN":
            if not isinstance(v, bool):
                return Bad("boolean %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            return v
        if k == "DECIMAL":
            if ours:
                if not isinstance(v, str) or not re.fullmatch(r"-?\d+" + (r"\.\d{%d}" % t.scale if t.scale else ""), v):
                    return Bad("DECIMAL(%d, %d) %r" % (t.precision, t.scale, v))
            return ("dec", Decimal(str(v)))
        if k == "STRING":
            if not isinstance(v, str):
                return Bad("string %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            return v
        if k in ("BINARY", "VARIANT", "BLOB"):
            if ours:
                if not isinstance(v, str):
                    return Bad("binary %r" % (v,))
                return ("bytes", base64.b64decode(v.encode("ascii"), validate=True))
            if isinstance(v, dict) and "hex" in v:
                return ("bytes", bytes.fromhex(v["hex"]))
            if isinstance(v, str):
                return ("bytes", v.encode("utf-8"))
            return ("unparsed", json.dumps(v))
        if k == "DATE":
            if ours:
                return our_date(v)
            if isinstance(v, dict) and "days" in v:
                return int(v["days"])
            if isinstance(v, int):
                return v
            m = DATE_RE.match(str(v))
            return days_from_civil(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else ("unparsed", json.dumps(v))
        if k == "TIME":
            return our_time(v, t) if ours else expected_time(v)
        if k == "TIMESTAMP":
            if ours:
                return our_timestamp(v, t)
            if isinstance(v, dict) and "ts_ns" in v:
                return int(v["ts_ns"])
            return ("unparsed", json.dumps(v))
        if k == "ARRAY":
            if not isinstance(v, list):
                return Bad("array %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            return ("array", tuple(canon(x, t.elem, ours) for x in v))
        if k == "MAP":
            if isinstance(v, dict) and not ours:
                pairs = [(map_key_from_string(kk, t.key), canon(vv, t.value, False)) for kk, vv in v.items()]
            elif isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 for p in v):
                pairs = [(canon(p[0], t.key, ours), canon(p[1], t.value, ours)) for p in v]
            else:
                return Bad("map %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            return ("map", tuple(sorted(pairs, key=lambda p: hkey(p[0]))))
        if k == "ROW":
            if not isinstance(v, dict):
                return Bad("row %r" % (v,)) if ours else ("unparsed", json.dumps(v))
            if ours and list(v.keys()) != [n for n, _ in t.fields]:
                return Bad("row keys %r" % (list(v.keys()),))
            return ("row", tuple(canon(v.get(n), ft, ours) for n, ft in t.fields))
    except (ValueError, TypeError, InvalidOperation, binascii.Error) as e:
        return Bad("%s %r: %s" % (k, v, e)) if ours else ("unparsed", json.dumps(v))
    return ("unparsed", json.dumps(v))


def map_key_from_string(s, kt):
    """Expected maps stringify their keys; recover the typed key."""
    try:
        if kt.kind in INT_KINDS:
            return int(s)
        if kt.kind in ("FLOAT", "DOUBLE"):
            return F(float(s))
        if kt.kind == "BOOLEAN":
            return s.lower() == "true"
        if kt.kind == "DECIMAL":
            return ("dec", Decimal(s))
        if kt.kind == "STRING":
            return s
        return canon(json.loads(s), kt, False)
    except (ValueError, TypeError, InvalidOperation):
        return ("unparsed", s)


def hkey(v):
    """Hashable, tolerance-insensitive key (floats rounded) for bucketing rows."""
    if isinstance(v, F):
        if math.isnan(v.v) or math.isinf(v.v) or v.v == 0:
            return ("f", repr(v.v).replace("-0.0", "0.0"))
        return ("f", float("%.4g" % v.v))
    if isinstance(v, Bad):
        return ("bad", id(v))
    if isinstance(v, tuple):
        return tuple(hkey(x) for x in v)
    if isinstance(v, Decimal):
        return ("d", str(v.normalize()))
    return v


def veq(a, b):
    if isinstance(a, Bad) or isinstance(b, Bad):
        return False
    if isinstance(a, F) or isinstance(b, F):
        if not (isinstance(a, F) and isinstance(b, F)):
            return False
        x, y = a.v, b.v
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        if math.isinf(x) or math.isinf(y):
            return x == y
        return x == y or abs(x - y) <= 1e-6 * max(abs(x), abs(y))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(veq(x, y) for x, y in zip(a, b))
    if type(a) is not type(b) and not (isinstance(a, (int, Decimal)) and isinstance(b, (int, Decimal))):
        return False
    return a == b


# ---- comparing row sets ------------------------------------------------------------------

def match_rows(exp, got):
    """Multiset matching with tolerance. Returns (unmatched expected, unmatched got)."""
    buckets = {}
    for i, r in enumerate(got):
        buckets.setdefault(hkey(r), []).append(i)
    used = [False] * len(got)
    left = []
    for r in exp:
        cand = buckets.get(hkey(r), [])
        hit = None
        for i in cand:
            if not used[i] and veq(r, got[i]):
                hit = i
                break
        if hit is None:
            left.append(r)
        else:
            used[hit] = True
    rest = [i for i in range(len(got)) if not used[i]]
    still = []
    for r in left:  # slow path: float rounding put the twins in different buckets
        hit = None
        for i in rest:
            if not used[i] and veq(r, got[i]):
                hit = i
                break
        if hit is None:
            still.append(r)
        else:
            used[hit] = True
    return still, [got[i] for i in range(len(got)) if not used[i]]


def show(row, names):
    def conv(v):
        if isinstance(v, F):
            return v.v
        if isinstance(v, Bad):
            return repr(v)
        if isinstance(v, tuple) and v and v[0] == "dec":
            return str(v[1])
        if isinstance(v, tuple) and v and v[0] == "bytes":
            return "0x" + v[1].hex()
        if isinstance(v, tuple):
            return [conv(x) for x in v]
        return v
    return json.dumps({n: conv(v) for n, v in zip(names, row)}, default=str)


# ---- running the CLI -----------------------------------------------------------------------

def remap_args(table_dir, schema_js):
    """--remap-path for tables whose data files live at absolute external paths."""
    ext = (schema_js.get("options") or {}).get("data-file.external-paths")
    if not ext:
        return []
    db = os.path.dirname(table_dir)
    sib = [os.path.join(db, n) for n in sorted(os.listdir(db))
           if os.path.isdir(os.path.join(db, n)) and os.path.join(db, n) != table_dir]
    if len(sib) != 1:
        return []
    out = []
    for p in ext.split(","):
        p = p.strip()
        m = re.match(r"^([A-Za-z]+):/+(.*)$", p)
        forms = {p}
        if m:
            forms.add("%s:/%s" % (m.group(1), m.group(2)))
            forms.add("%s:/%s" % (m.group(1).upper(), m.group(2)))
        for f in sorted(forms):
            out += ["--remap-path", "%s=%s" % (f.rstrip("/"), sib[0])]
    return out


def run_cat(paimon, table_dir, extra):
    cmd = [paimon, "cat", table_dir, "--format", "jsonl"] + extra
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds: %s" % (TIMEOUT, " ".join(cmd))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "exit %d: %s" % (p.returncode, msg[0] if msg else "(no message)")
    rows = []
    for n, line in enumerate(p.stdout.decode("utf-8", "strict").splitlines(), 1):
        try:
            rows.append(json.loads(line, object_pairs_hook=lambda kv: dict(kv)))
        except ValueError as e:
            return None, "line %d of output is not JSON: %s" % (n, e)
    return rows, None


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    return rows


def skipped_columns(warn_path, fields):
    """Columns whose expected values are not real (blob payloads not read)."""
    if not os.path.exists(warn_path):
        return set()
    text = open(warn_path, encoding="utf-8").read()
    skip = set()
    if "blob" in text.lower():
        skip |= {n for n, t in fields if t.kind == "BLOB"}
    for m in re.finditer(r"skip(?:ped)? columns?:?\s*([A-Za-z0-9_, ]+)", text, re.I):
        skip |= {c.strip() for c in m.group(1).split(",") if c.strip()}
    return skip


def compare_case(paimon, table_dir, exp_path, extra, fields, verbose):
    """Returns (ok, detail)."""
    names = [n for n, _ in fields]
    skip = skipped_columns(exp_path[:-len(".jsonl")] + ".warnings", fields)
    exp_rows = read_jsonl(exp_path)
    got_rows, err = run_cat(paimon, table_dir, extra)
    if err:
        return False, err
    # key order is part of the contract
    for r in got_rows:
        if list(r.keys()) != names:
            return False, "row keys %s, schema %s" % (list(r.keys()), names)
    for r in exp_rows:
        if set(r.keys()) != set(names):
            return False, "expected rows have keys %s, schema %s" % (sorted(r.keys()), names)
    keep = [(n, t) for n, t in fields if n not in skip]
    kn = [n for n, _ in keep]
    exp_c = [tuple(canon(r.get(n), t, False) for n, t in keep) for r in exp_rows]
    got_c = [tuple(canon(r.get(n), t, True) for n, t in keep) for r in got_rows]
    for row in got_c:
        for v in row:
            if isinstance(v, Bad):
                return False, "output breaks the jsonl contract: %r" % v
    miss, extra_rows = match_rows(exp_c, got_c)
    if not miss and not extra_rows:
        note = " (skipped %s)" % ",".join(sorted(skip)) if skip else ""
        return True, "%d rows%s" % (len(exp_rows), note)
    detail = "%d expected rows, got %d; %d missing, %d unexpected" % (
        len(exp_rows), len(got_rows), len(miss), len(extra_rows))
    if verbose:
        lines = [detail]
        for r in miss[:5]:
            lines.append("      - expected: " + show(r, kn))
        for r in extra_rows[:5]:
            lines.append("      + got:      " + show(r, kn))
        detail = "\n".join(lines)
    return False, detail


# ---- expected failures ---------------------------------------------------------------------

def load_xfail(path):
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        out[parts[0]] = parts[1] if len(parts) > 1 else "(no reason given)"
    return out


def table_names(rel):
    """Names under which a table may be listed: orc/x, orc/x.db/x, orc__x.db__x."""
    parts = rel.split("/")
    names = {rel, rel.replace("/", "__")}
    if len(parts) == 3:
        names.add("%s/%s" % (parts[0], parts[2]))
    return names


def xfail_reason(xfail, rel, case=None):
    for n in table_names(rel):
        key = n if case is None else "%s:%s" % (n, case)
        if key in xfail:
            return xfail[key]
    return None


# ---- modes -----------------------------------------------------------------------------------

def run_expected(args, shared):
    compat = os.path.join(shared, "compat")
    xfail = load_xfail(os.path.join(HERE, "expected_failures.txt"))
    tables = []
    with open(os.path.join(compat, "tables.tsv"), encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = header.index("table")
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if len(cells) > col and cells[col]:
                tables.append(cells[col])
    only = re.compile(args.only) if args.only else None
    passed = failed = xfailed = xpassed = 0
    for rel in tables:
        if only and not any(only.search(n) for n in table_names(rel)):
            continue
        table_dir = os.path.join(compat, "tables", rel)
        exp_dir = os.path.join(compat, "expected", rel.replace("/", "__"))
        cases = []
        try:
            latest_js, latest_fields = load_schema(table_dir)
        except (OSError, ValueError, KeyError) as e:
            print("FAIL   %s: cannot read its schema: %s" % (rel, e))
            failed += 1
            continue
        remap = remap_args(table_dir, latest_js)
        names = sorted(os.listdir(exp_dir)) if os.path.isdir(exp_dir) else []
        for n in names:
            if not n.endswith(".jsonl"):
                continue
            case = n[:-len(".jsonl")]
            try:
                if case == "latest":
                    extra, fields = [], latest_fields
                elif case.startswith("snapshot-"):
                    sid = int(case[len("snapshot-"):])
                    _, fields = load_schema(table_dir, snapshot_json(table_dir, sid)["schemaId"])
                    extra = ["--snapshot", str(sid)]
                elif case.startswith("branch-") and case.endswith("-latest"):
                    br = case[len("branch-"):-len("-latest")]
                    _, fields = load_schema(os.path.join(table_dir, "branch", "branch-" + br))
                    extra = ["--branch", br]
                else:
                    continue
            except (OSError, ValueError, KeyError) as e:
                cases.append((case, False, "cannot read schema: %s" % e))
                continue
            ok, detail = compare_case(args.paimon, table_dir, os.path.join(exp_dir, n), extra + remap,
                                      fields, args.verbose)
            cases.append((case, ok, detail))
        if not cases:
            print("FAIL   %s: no expected rows found in %s" % (rel, exp_dir))
            failed += 1
            continue
        # case-level expected failures first, then the table-level entry on what remains
        status = "PASS"
        lines = []
        table_ok = True
        case_xfail = None
        for case, ok, detail in cases:
            reason = xfail_reason(xfail, rel, case)
            if reason is not None:
                tag = "xfail" if not ok else "XPASS"
                if ok:
                    status = "FAIL"
                    xpassed += 1
                else:
                    case_xfail = "%s: %s" % (case, reason)
                lines.append("    %-22s %s: %s%s" % (case, tag, detail, "" if ok else " [expected: %s]" % reason))
                continue
            table_ok &= ok
            lines.append("    %-22s %s: %s" % (case, "ok" if ok else "FAIL", detail))
        treason = xfail_reason(xfail, rel)
        if treason is not None:
            if table_ok:
                status = "FAIL"
                tag = "XPASS"
                xpassed += 1
                note = "listed as expected failure (%s) but passes: remove it from expected_failures.txt" % treason
            else:
                tag = "XFAIL"
                note = treason
            if status != "FAIL":
                status = tag
        else:
            note = ""
            if not table_ok:
                status = "FAIL"
            elif case_xfail and status == "PASS":
                status = "XFAIL"
                note = case_xfail
        if status == "PASS":
            passed += 1
        elif status == "XFAIL":
            xfailed += 1
        else:
            failed += 1
        print("%-6s %s (%d cases)%s" % (status, rel, len(cases), (": " + note) if note else ""))
        if status != "PASS" or args.verbose:
            for ln in lines:
                print(ln)
    print("%d xfail (expected failures), %d xpass" % (xfailed, xpassed))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def find_tables(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        sd = os.path.join(dirpath, "schema")
        if os.path.isdir(sd) and any(re.fullmatch(r"schema-\d+", n) for n in os.listdir(sd)) \
                and os.path.basename(os.path.dirname(dirpath)) != "branch":
            out.append(dirpath)
            dirnames[:] = []  # branches live below the table
    return out


def run_holdout(args):
    """No expected rows: every table must read; row counts must be plausible."""
    only = re.compile(args.only) if args.only else None
    passed = failed = 0
    for table_dir in find_tables(args.tables_root):
        rel = os.path.relpath(table_dir, args.tables_root)
        if only and not only.search(rel):
            continue
        problems, notes = [], []
        try:
            js, fields = load_schema(table_dir)
        except (OSError, ValueError, KeyError) as e:
            print("FAIL   %s: cannot read its schema: %s" % (rel, e))
            failed += 1
            continue
        opts = js.get("options") or {}
        fallback = "scan.fallback-branch" in opts
        remap = remap_args(table_dir, js)
        sids = snapshot_ids(table_dir)
        for sid in [None] + sids:
            extra = [] if sid is None else ["--snapshot", str(sid)]
            rows, err = run_cat(args.paimon, table_dir, extra + remap)
            label = "latest" if sid is None else "snapshot-%d" % sid
            if err:
                problems.append("%s: %s" % (label, err))
                continue
            if sid is None and not sids:
                if rows:
                    problems.append("latest: %d rows from a table without snapshots" % len(rows))
                continue
            snap = snapshot_json(table_dir, sids[-1] if sid is None else sid)
            total = snap.get("totalRecordCount")
            if sid is None:
                _, f2 = js, fields
            else:
                _, f2 = load_schema(table_dir, snap["schemaId"])
            names = [n for n, _ in f2]
            for r in rows[:1]:
                if list(r.keys()) != names:
                    problems.append("%s: row keys %s, schema %s" % (label, list(r.keys()), names))
            for r in rows:
                for n, t in f2:
                    v = canon(r.get(n), t, True)
                    if isinstance(v, Bad):
                        problems.append("%s: output breaks the jsonl contract: %r" % (label, v))
                        break
                else:
                    continue
                break
            if total is not None and not fallback:
                if len(rows) > total:
                    problems.append("%s: %d rows but the snapshot records %d" % (label, len(rows), total))
                elif total > 0 and not rows and not js.get("primaryKeys") and \
                        snap.get("commitKind") != "OVERWRITE":
                    # (primary-key tables may legitimately read nothing: level-0 files are
                    # invisible to batch reads with deletion vectors or first-row merges)
                    problems.append("%s: no rows but the snapshot records %d" % (label, total))
            notes.append("%s %d" % (label, len(rows)))
        if problems:
            failed += 1
            print("FAIL   %s" % rel)
            for p in problems:
                print("    " + p)
        else:
            passed += 1
            print("PASS   %s (%s)" % (rel, ", ".join(notes) if args.verbose else "%d reads" % len(notes)))
    print("0 xfail (expected failures), 0 xpass")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paimon", required=True, help="path of the paimon CLI")
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "..", "shared"),
                    help="shared/ folder holding compat/")
    ap.add_argument("--tables-root", help="check a corpus without expected rows (e.g. shared/compat-holdout)")
    ap.add_argument("--only", help="regular expression selecting tables")
    ap.add_argument("--verbose", action="store_true", help="show the first mismatching rows")
    args = ap.parse_args()
    if not os.path.exists(args.paimon):
        print("paimon CLI not found: %s" % args.paimon)
        print("0 passed, 1 failed")
        return 1
    if args.tables_root:
        return run_holdout(args)
    return run_expected(args, args.shared)


if __name__ == "__main__":
    sys.exit(main())
