#!/usr/bin/env python3
"""Incremental reads on the real tables of SHARED/compat (issue 22 acceptance).

For every corpus table with more than one snapshot and every pair of consecutive
snapshots (N-1, N), `paimon cat TABLE --incremental N-1,N` is checked against the
expected rows per snapshot (SHARED/compat/expected/<table>/snapshot-N.jsonl):

  diff  (--incremental-mode diff): the difference of the expected merged states.
        Primary-key tables: each changed key once, +I (new key), +U (new value),
        -D (key gone). Append tables: the multiset difference, +I / -D.
  delta (--incremental-mode delta): append tables: the rows snapshot N added, i.e. the
        multiset difference exp[N] - exp[N-1] when N is an APPEND snapshot (nothing may
        disappear), nothing for COMPACT / OVERWRITE snapshots. Primary-key tables: the
        records N added, applied in order to exp[N-1] with the table's merge engine,
        give exp[N]. On tables whose batch reads skip level 0 (deletion vectors,
        first-row) a visible state is complete only where nothing sits in level 0 (before
        the first snapshot and after each compaction); there the check runs between
        consecutive such snapshots over the delta of the range.
  auto: equals delta (no corpus table has a changelog producer), changelog: empty.

Rows of older snapshots are mapped into the current schema by field id (columns whose
type changed are left out of the comparison, and said so). Values are compared in the
canonical form of tests/corpus/run_corpus.py.

Exit status 1 when any check failed.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
import run_corpus as rc  # noqa: E402


def schema_fields(table_dir, sid):
    js, _ = rc.load_schema(table_dir, sid)
    return js, [(f["id"], f["name"], rc.parse_type(f["type"])) for f in js["fields"]]


def cat(paimon, table_dir, extra):
    cmd = [paimon, "cat", table_dir, "--format", "jsonl"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.decode("utf-8", "replace").strip())
    return [json.loads(l) for l in p.stdout.decode("utf-8").splitlines() if l.strip()], None


class Table:
    def __init__(self, compat, rel):
        self.rel = rel
        self.dir = os.path.join(compat, "tables", rel)
        self.exp_dir = os.path.join(compat, "expected", rel.replace("/", "__"))
        self.js, self.fields = schema_fields(self.dir, None)
        self.remap = rc.remap_args(self.dir, self.js)
        self.pks = self.js.get("primaryKeys") or []
        self.opts = self.js.get("options") or {}
        self.skip = set()
        for n in os.listdir(self.exp_dir):
            if n.endswith(".warnings"):
                self.skip |= rc.skipped_columns(os.path.join(self.exp_dir, n),
                                                [(nm, t) for _, nm, t in self.fields])
        self.snaps = rc.snapshot_ids(self.dir)
        self.incomparable = set()
        self.cache = {}

    def kind(self, sid):
        return rc.snapshot_json(self.dir, sid)["commitKind"]

    def expected(self, sid):
        """Canonical rows of snapshot sid in the current schema: tuples over self.cols."""
        if sid in self.cache:
            return self.cache[sid]
        if sid == 0:
            self.cache[sid] = []
            return []
        _, old = schema_fields(self.dir, rc.snapshot_json(self.dir, sid)["schemaId"])
        by_id = {i: (n, t) for i, n, t in old}
        for i, n, t in self.fields:
            if i in by_id and repr(by_id[i][1].__dict__) != repr(t.__dict__):
                self.incomparable.add(n)
        rows = []
        for r in rc.read_jsonl(os.path.join(self.exp_dir, "snapshot-%d.jsonl" % sid)):
            out = []
            for i, n, t in self.fields:
                if i not in by_id:
                    out.append(None)  # added since: null
                else:
                    on, ot = by_id[i]
                    out.append(rc.canon(r.get(on), ot, False))
            rows.append(out)
        self.cache[sid] = rows
        return rows

    def keep(self):
        return [k for k, (_, n, _) in enumerate(self.fields)
                if n not in self.skip and n not in self.incomparable]

    def project(self, rows):
        ks = self.keep()
        return [tuple(r[k] for k in ks) for r in rows]

    def ours(self, paimon, a, b, mode):
        rows, err = cat(paimon, self.dir, ["--incremental", "%d,%d" % (a, b),
                                           "--incremental-mode", mode] + self.remap)
        if err:
            return None, err
        names = [n for _, n, _ in self.fields]
        out = []
        for r in rows:
            kind = r.pop("_VALUE_KIND", "+I")
            if list(r.keys()) != names:
                return None, "row keys %s, schema %s" % (list(r.keys()), names)
            vals = [rc.canon(r[n], t, True) for _, n, t in self.fields]
            for v in vals:
                if isinstance(v, rc.Bad):
                    return None, "output breaks the jsonl contract: %r" % v
            out.append((kind, vals))
        return out, None

    def key_idx(self):
        names = [n for _, n, _ in self.fields]
        return [names.index(p) for p in self.pks]


def same(exp, got):
    miss, extra = rc.match_rows(exp, got)
    return not miss and not extra, (miss, extra)


def by_key(t, rows):
    ki = t.key_idx()
    return {rc.hkey(tuple(r[k] for k in ki)): r for r in rows}


def diff_expected(t, a, b):
    """[(kind, row)] of the expected states' difference."""
    ea, eb = t.expected(a), t.expected(b)
    if not t.pks:
        pa, pb = t.project(ea), t.project(eb)
        gone, new = rc.match_rows(pa, pb)
        return [("-D", r) for r in gone] + [("+I", r) for r in new]
    ma, mb = by_key(t, ea), by_key(t, eb)
    out = []
    for k, r in mb.items():
        if k not in ma:
            out.append(("+I", r))
        elif not same(t.project([ma[k]]), t.project([r]))[0]:
            out.append(("+U", r))
    for k, r in ma.items():
        if k not in mb:
            out.append(("-D", r))
    return [(kd, t.project([r])[0]) for kd, r in out]


def apply_changes(t, state, changes):
    """exp state (rows) + ordered (kind, row) records under the table's merge engine."""
    engine = t.opts.get("merge-engine", "deduplicate")
    ignore_delete = str(t.opts.get("ignore-delete", t.opts.get("partial-update.ignore-delete",
                                                                 "false"))).lower() == "true"
    ki = t.key_idx()
    m = {}
    for r in state:
        m[rc.hkey(tuple(r[k] for k in ki))] = list(r)
    for kind, r in changes:
        k = rc.hkey(tuple(r[i] for i in ki))
        if kind in ("-D", "-U"):
            if not ignore_delete and engine != "first-row":
                m.pop(k, None)
            continue
        if engine == "partial-update" and k in m:
            m[k] = [v if v is not None else o for v, o in zip(r, m[k])]
        elif engine == "first-row" and k in m:
            continue
        else:
            m[k] = list(r)
    return list(m.values())


def check_pair(paimon, t, a, b, verbose):
    """[(case, ok, detail)] for the range (a, b]."""
    res = []
    diff, err = t.ours(paimon, a, b, "diff")
    t.expected(a), t.expected(b)  # fills incomparable
    if err:
        res.append(("diff", False, err))
    else:
        exp = [(k,) + r for k, r in diff_expected(t, a, b)]
        got = [(k,) + tuple(t.project([v])[0]) for k, v in diff]
        ok, (miss, extra) = same(exp, got)
        res.append(("diff", ok, "%d changes" % len(exp) if ok else
                    "%d expected, got %d; missing %s; unexpected %s" %
                    (len(exp), len(got), miss[:3], extra[:3])))
    delta, err = t.ours(paimon, a, b, "delta")
    if err:
        res.append(("delta", False, err))
        return res
    if not t.pks:
        appends = [s for s in range(a + 1, b + 1) if t.kind(s) == "APPEND"]
        if appends == list(range(a + 1, b + 1)):
            gone, new = rc.match_rows(t.project(t.expected(a)), t.project(t.expected(b)))
            exp = new if not gone else None
        elif not appends:
            exp = []
        else:
            exp = None
        got = [tuple(t.project([v])[0]) for k, v in delta]
        kinds = {k for k, _ in delta}
        if exp is None:
            res.append(("delta", True, "mixed range: %d rows, not checked" % len(got)))
        else:
            ok = same(exp, got)[0] and kinds <= {"+I"}
            res.append(("delta", ok, "%d rows" % len(got) if ok else
                        "expected %d rows, got %d (%s)" % (len(exp), len(got), sorted(kinds))))
    else:
        state = apply_changes(t, t.expected(a), [(k, v) for k, v in delta])
        ok, (miss, extra) = same(t.project(t.expected(b)), t.project(state))
        res.append(("delta", ok, "%d records" % len(delta) if ok else
                    "applied %d records: missing %s; unexpected %s" %
                    (len(delta), miss[:3], extra[:3])))
    auto, err = t.ours(paimon, a, b, "auto")
    if err:
        res.append(("auto", False, err))
    else:
        ok = same([(k,) + tuple(v) for k, v in delta], [(k,) + tuple(v) for k, v in auto])[0]
        res.append(("auto", ok, "= delta" if ok else "differs from delta"))
    cl, err = t.ours(paimon, a, b, "changelog")
    res.append(("changelog", not err and cl == [], err or "%d rows (no producer)" % len(cl or [])))
    return res


def level0_hidden(t):
    o = {k: str(v).lower() for k, v in t.opts.items()}
    return bool(t.pks) and (o.get("deletion-vectors.enabled") == "true" or
                            o.get("merge-engine") == "first-row")


def complete_snapshots(t):
    """Snapshots whose batch read shows every row: before the first, and each COMPACT
    snapshot (with deletion vectors or first-row, every compaction moves all level-0 files
    up: Java's lookup-style compaction of such tables always picks level 0)."""
    return [0] + [s for s in t.snaps if t.kind(s) == "COMPACT"]


def main():
    paimon, shared = sys.argv[1], sys.argv[2]
    verbose = "-v" in sys.argv
    compat = os.path.join(shared, "compat")
    rels = []
    with open(os.path.join(compat, "tables.tsv"), encoding="utf-8") as f:
        hdr = f.readline().rstrip("\n").split("\t")
        ci, si = hdr.index("table"), hdr.index("snapshots")
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) > si and c[si].isdigit() and int(c[si]) > 1:
                rels.append(c[ci])
    failed = checked = 0
    for rel in rels:
        t = Table(compat, rel)
        if level0_hidden(t):
            ends = complete_snapshots(t)
            pairs = list(zip(ends, ends[1:]))
            # diff is checked on every consecutive pair all the same
            diff_pairs = [(s - 1, s) for s in t.snaps if s - 1 >= 0]
        else:
            pairs = [(s - 1, s) for s in t.snaps]
            diff_pairs = []
        results = []
        for a, b in pairs:
            for case, ok, detail in check_pair(paimon, t, a, b, verbose):
                results.append(("%d,%d %s" % (a, b, case), ok, detail))
        for a, b in diff_pairs:
            if (a, b) in pairs:
                continue
            for case, ok, detail in check_pair(paimon, t, a, b, verbose):
                if case == "delta":
                    continue  # incomplete visible states: checked over complete ends above
                results.append(("%d,%d %s" % (a, b, case), ok, detail))
        bad = [r for r in results if not r[1]]
        checked += len(results)
        failed += len(bad)
        note = " (not compared: %s)" % ",".join(sorted(t.incomparable)) if t.incomparable else ""
        print("%s %s: %d checks%s" % ("FAIL" if bad else "PASS", rel, len(results), note))
        for case, ok, detail in results:
            if not ok or verbose:
                print("    %s %s: %s" % ("ok  " if ok else "FAIL", case, detail))
    print("%d checks, %d failed" % (checked, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
