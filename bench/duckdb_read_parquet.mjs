// DuckDB (single thread) counterpart of bench/read_parquet.c: same aggregates, median of
// RUNS runs. Usage (from a dir with node_modules/@duckdb/node-api, e.g. /tmp/oracle):
//   node duckdb_read_parquet.mjs FILE [RUNS]
//   node duckdb_read_parquet.mjs FILE RUNS THREADS LIST
// The second form is the table-level counterpart: the full-row aggregates over the data
// files named in LIST (one path a line: a table's files) with SET threads=THREADS.
import { createRequire } from 'module';
const require = createRequire(process.cwd() + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const [, , file, runsArg, threadsArg, listArg] = process.argv;
const runs = Number(runsArg || 5);
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run(`SET threads=${Number(threadsArg || 1)}`);
const q = s => "'" + s.replace(/'/g, "''") + "'";
let src = `read_parquet(${q(file)})`;
if (listArg) {
  const fs = await import('fs');
  const files = fs.readFileSync(listArg, 'utf8').split('\n').filter(l => l.length > 0);
  src = `read_parquet([${files.map(q).join(', ')}])`;
}
const schema = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`)).getRows();
const ints = schema.filter(r => ['INTEGER', 'BIGINT'].includes(r[1])).map(r => `"${r[0]}"`);
const dbls = schema.filter(r => ['DOUBLE', 'FLOAT'].includes(r[1])).map(r => `"${r[0]}"`);
const strs = schema.filter(r => r[1] === 'VARCHAR').map(r => `"${r[0]}"`);
const sum = (cols, f) => cols.length ? cols.map(c => `coalesce(sum(${f(c)}), 0)`).join(' + ') : '0';
const full = `SELECT count(*), (${sum(ints, c => `${c}::HUGEINT`)})::VARCHAR, ${sum(dbls, c => c)},
  (${sum(strs, c => `strlen(${c})`)})::VARCHAR FROM ${src}`;
const one = `SELECT count(*), sum(${dbls[0]}) FROM ${src}`;
async function median(sql) {
  const times = [];
  let row;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    row = (await con.runAndReadAll(sql)).getRows()[0];
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  return [times[Math.floor(runs / 2)], row];
}
const [tf, rf] = await median(full);
if (listArg) {
  console.log(`duckdb table threads=${threadsArg}: rows=${rf[0]} int_sum=${rf[1]} double_sum=${Number(rf[2]).toExponential(6)} string_bytes=${rf[3]} median=${tf.toFixed(3)}s`);
  console.log(`duckdb_parallel_rows_per_s=${(Number(rf[0]) / tf).toFixed(0)}`);
  process.exit(0);
}
const [t1, r1] = await median(one);
console.log(`duckdb full: rows=${rf[0]} int_sum=${rf[1]} double_sum=${Number(rf[2]).toExponential(6)} string_bytes=${rf[3]} median=${tf.toFixed(3)}s`);
console.log(`duckdb one_col: rows=${r1[0]} double_sum=${Number(r1[1]).toExponential(6)} median=${t1.toFixed(3)}s`);
console.log(`duckdb_full_rows_per_s=${(Number(rf[0]) / tf).toFixed(0)} duckdb_one_col_rows_per_s=${(Number(r1[0]) / t1).toFixed(0)}`);
