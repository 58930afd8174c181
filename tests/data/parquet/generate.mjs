// Regenerates the small Parquet fixtures of tests/unit/format/test_parquet.c with DuckDB
// (an independent writer) and records DuckDB's own reading of the files as the expected
// rows (flat.jsonl / nested.jsonl, shared by the files of each kind: one JSON array per
// row, one element per column, in the canonical form the test renders:
// DATE as epoch days, TIMESTAMP as epoch in the file's unit, TIME as millis, DECIMAL as a
// string, BLOB as upper-case hex, MAP as an object).
// Usage (after /work/shared/tools/oracle/setup_oracles.sh):
//   cd /tmp/oracle && node <repo>/tests/data/parquet/generate.mjs <repo>/tests/data/parquet [corpus-dir]
import { createRequire } from 'module';
import { writeFileSync } from 'fs';
import { basename } from 'path';
const require = createRequire(process.cwd() + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const [, , outDir, corpus] = process.argv;
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run('SET threads=1');

const N = 200;
// Flat columns: nulls, dictionary and plain strings, every numeric width, decimals of each
// physical kind, dates, times and timestamps of three units.
const flat = `SELECT i::BIGINT AS id,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 7 - 3000)::INT END AS i32,
  (i % 100 - 50)::TINYINT AS i8, (i * 13 % 30000 - 15000)::SMALLINT AS i16,
  (i * 1.25 - 100)::DOUBLE AS f64, CASE WHEN i % 9 = 0 THEN NULL ELSE (i / 8.0)::FLOAT END AS f32,
  CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END AS flag,
  CASE WHEN i % 11 = 0 THEN NULL ELSE 'cat-' || (i % 17) END AS dict_s,
  md5(i::VARCHAR)[1:(i % 20)] AS plain_s,
  (((i * 37 % 100000) - 50000) / 100)::DECIMAL(9,2) AS d9,
  (((i * 7919) - 4000000) / 7)::DECIMAL(18,4) AS d18,
  CASE WHEN i % 4 = 0 THEN NULL ELSE ((i - 600)::DECIMAL(38,10) * 123456789.123)::DECIMAL(38,10) END AS d38,
  DATE '1960-01-01' + (i * 17)::INT AS dt,
  TIME '00:00:00' + INTERVAL (i * 71234567) MICROSECOND AS tm,
  TIMESTAMP '1965-03-04 05:06:07.123456' + INTERVAL (i * 123456789) MICROSECOND AS ts_us,
  (TIMESTAMP '1969-12-31 23:59:58' + INTERVAL (i * 1001) MILLISECOND)::TIMESTAMP_MS AS ts_ms,
  (TIMESTAMP '2001-01-01' + INTERVAL (i * 977) MICROSECOND)::TIMESTAMP_NS AS ts_ns,
  CASE WHEN i % 6 = 0 THEN NULL ELSE from_hex(lpad(to_hex(i * 40503 % 65536), 4, '0')) END AS bin
FROM range(${N}) t(i)`;
const row = cols => `SELECT '[' || concat_ws(',', ${cols.map(c => `coalesce(to_json(${c}), 'null')`).join(', ')}) || ']'`;
const flatCanon = row(['id', 'i32', 'i8', 'i16', 'f64', 'f32', 'flag', 'dict_s', 'plain_s',
  'd9::VARCHAR', 'd18::VARCHAR', 'd38::VARCHAR', "date_diff('day', DATE '1970-01-01', dt)",
  "epoch_us(DATE '1970-01-01' + tm) // 1000", 'epoch_us(ts_us)', 'epoch_ms(ts_ms)', 'epoch_ns(ts_ns)',
  'hex(bin)']);
// Nested columns: nulls at every level, empty lists, lists of lists, lists of structs, maps.
const nested = `SELECT i AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i END,
        'b': 'n' || i, 'c': CASE WHEN i % 5 = 0 THEN NULL ELSE [i, NULL, i + 1] END} END AS st,
  CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN [] ELSE
        [j for j in range(i % 6)] || [NULL::BIGINT] END AS l,
  [[k, k * 2] for k in range(i % 3)] || CASE WHEN i % 2 = 0 THEN [NULL, []] ELSE [] END AS ll,
  CASE WHEN i % 5 = 1 THEN NULL ELSE MAP(['k' || (i % 3), 'z'], [i, CASE WHEN i % 2 = 0 THEN NULL ELSE -i END]) END AS m,
  [{'x': k, 'y': CASE WHEN k = 1 THEN NULL ELSE 'v' || k END} for k in range(i % 4)] AS ls
FROM range(${N}) t(i)`;
const nestedCanon = row(['id', 'st', 'l', 'll', 'm', 'ls']);

async function write(name, sql, opts) {
  const path = `${outDir}/${name}.parquet`;
  await con.run(`COPY (${sql}) TO '${path}' (FORMAT parquet, ${opts})`);
  return path;
}
async function expect(path, canon, out) {
  const r = await con.runAndReadAll(`${canon} FROM read_parquet('${path}')`);
  writeFileSync(`${outDir}/${out}.jsonl`, r.getRows().map(x => x[0]).join('\n') + '\n');
}
const files = [
  ['flat_v1_zstd', flat, 'COMPRESSION zstd, ROW_GROUP_SIZE 64', flatCanon, 'flat'],
  ['flat_v1_snappy', flat, 'COMPRESSION snappy, ROW_GROUP_SIZE 100', flatCanon, 'flat'],
  ['flat_v1_gzip', flat, 'COMPRESSION gzip', flatCanon, 'flat'],
  ['flat_v1_lz4raw', flat, 'COMPRESSION lz4_raw', flatCanon, 'flat'],
  ['flat_v2_zstd', flat, 'COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE 70', flatCanon, 'flat'],
  ['flat_v2_none', flat, 'COMPRESSION uncompressed, PARQUET_VERSION V2', flatCanon, 'flat'],
  ['nested_v1_zstd', nested, 'COMPRESSION zstd, ROW_GROUP_SIZE 50', nestedCanon, 'nested'],
  ['nested_v2_snappy', nested, 'COMPRESSION snappy, PARQUET_VERSION V2', nestedCanon, 'nested'],
];
for (const [name, sql, opts, canon, out] of files) await expect(await write(name, sql, opts), canon, out);
// Several row groups (DuckDB's smallest is 2048 rows); the test checks the values against
// this formula: id = i, i32 = NULL when i % 5 = 0 else i % 100, s = 'v' || i % 10, l = [i % 3].
await write('multi_rg', `SELECT i::BIGINT AS id, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 100 END::INT AS i32,
  'v' || (i % 10) AS s, [i % 3] AS l FROM range(5000) t(i)`, 'COMPRESSION zstd, ROW_GROUP_SIZE 2048');
files.push(['multi_rg']);
// DELTA_BYTE_ARRAY (DuckDB does not write it): hyparquet-writer, a second independent
// writer; the expected rows are still DuckDB's reading of the file.
const { parquetWriteBuffer } = await import(process.cwd() + '/node_modules/hyparquet-writer/src/index.js');
const dbaStrings = [];
for (let i = 0; i < 300; i++) dbaStrings.push(i % 7 === 0 ? null : 'prefix-' + Math.floor(i / 10) + '-' + 'x'.repeat(i % 5) + i);
writeFileSync(`${outDir}/dba_hyparquet.parquet`, Buffer.from(parquetWriteBuffer({ columnData: [
  { name: 's', data: dbaStrings, type: 'STRING', encoding: 'DELTA_BYTE_ARRAY' },
  { name: 'n', data: dbaStrings.map((_, i) => BigInt(i * 1000 - 7)), type: 'INT64', encoding: 'DELTA_BINARY_PACKED' }] })));
await expect(`${outDir}/dba_hyparquet.parquet`, row(['s', 'n']), 'dba');
files.push(['dba_hyparquet']);
// Expected rows of the nested corpus files (read in place from ../shared by the test).
if (corpus) {
  const r = await con.runAndReadAll(`SELECT file FROM glob('${corpus}/**/*.parquet')`);
  for (const [f] of r.getRows()) {
    const s = await con.runAndReadAll(`SELECT count(*) FROM parquet_schema('${f}') WHERE type IS NULL AND name NOT IN ('paimon_schema', 'schema')`);
    if (Number(s.getRows()[0][0]) === 0) continue; // flat: parquet_rows.py is the oracle
    const rows = await con.runAndReadAll(`SELECT to_json(t) FROM read_parquet('${f}', hive_partitioning=false) t`);
    const rel = f.slice(corpus.length + 1).replace(/\//g, '__').replace(/\.parquet$/, '.jsonl');
    writeFileSync(`${outDir}/corpus/${rel}`, rows.getRows().map(x => x[0]).join('\n') + '\n');
  }
}
for (const [name] of files) {
  const m = await con.runAndReadAll(`SELECT DISTINCT path_in_schema, compression, encodings FROM parquet_metadata('${outDir}/${name}.parquet') ORDER BY ALL`);
  console.log(name, JSON.stringify(m.getRows().map(r => r.slice(1).join(':')).filter((v, i, a) => a.indexOf(v) === i)));
}
