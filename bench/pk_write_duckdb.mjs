// DuckDB (single thread) counterpart of bench/pk_write.c: latest row per key (arg_max by
// the arrival column v1) over the same rows in one Parquet file; median of RUNS runs of
// process CPU time (the machine is shared; wall time is printed too).
// Usage (from a dir with node_modules/@duckdb/node-api, e.g. /tmp/oracle):
//   node pk_write_duckdb.mjs FILE ROWS [RUNS]
import { createRequire } from 'module';
const require = createRequire(process.cwd() + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const [, , file, rowsArg, runsArg] = process.argv;
const rows = Number(rowsArg);
const runs = Number(runsArg || 3);
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run('SET threads=1');
const q = s => "'" + s.replace(/'/g, "''") + "'";
const sql = `SELECT count(*), sum(v2)::HUGEINT::VARCHAR, sum(v3) FROM (
  SELECT k, arg_max(v2, v1) AS v2, arg_max(v3, v1) AS v3, arg_max(v4, v1) AS v4
  FROM read_parquet(${q(file)}) GROUP BY k)`;
const cpu = [], wall = [];
let row;
for (let i = 0; i < runs; i++) {
  const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
  row = (await con.runAndReadAll(sql)).getRows()[0];
  const c = process.cpuUsage(c0);
  wall.push(Number(process.hrtime.bigint() - t0) / 1e9);
  cpu.push((c.user + c.system) / 1e6);
}
cpu.sort((a, b) => a - b);
wall.sort((a, b) => a - b);
const tc = cpu[Math.floor(runs / 2)], tw = wall[Math.floor(runs / 2)];
console.log(`duckdb: out_rows=${row[0]} sum_v2=${row[1]} sum_v3=${Number(row[2]).toExponential(6)} dedup_cpu=${tc.toFixed(3)}s dedup_wall=${tw.toFixed(3)}s`);
console.log(`duckdb_dedup_rows_per_s=${(rows / tc).toFixed(0)}`);
