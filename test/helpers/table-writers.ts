// Small tables written by the writers Paralab's users have (DuckDB, Polars, Arrow JS) with every
// option that changes what their files hold — codecs, format versions and encodings, row groups and
// pages, dictionaries, record batches — and each writer's own reading of them, the reference a
// reader must equal. The numbers reach the ends of each type: integer extremes, 2^53 + 1, ±0,
// subnormals, the largest doubles and decimals, nulls and columns of nulls only.
import { join } from 'node:path'
import pl from 'nodejs-polars'
import {
  compressionRegistry,
  CompressionType,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  RecordBatch,
  RecordBatchFileWriter,
  Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  vectorFromArray,
  Vector,
  type DataType,
} from 'apache-arrow'
import { readFileSync, writeFileSync } from 'node:fs'
import { duckdbColumns, duckdbNumericColumns, lit, sql, type ColumnReference } from './duckdb'
import { lz4Frame } from './lz4-encode'

/** A file written for the sweep, and how to read it as its writer does. */
export interface WrittenTable {
  /** The writer and its options. */
  name: string
  path: string
  /** The writer's own reading of its numeric columns. */
  reference: () => Promise<Record<string, ColumnReference>>
  /** What the refusal must say, for a file holding what the readers refuse (NaN, ±∞, no rows). */
  refused?: RegExp
}

/** A reference of values read back by a library: null a null, bigints as the double their exact value rounds to. */
function collect(values: Iterable<unknown>): ColumnReference {
  const out: ColumnReference = { values: [], nulls: 0 }
  for (const v of values) {
    if (v === null || v === undefined) out.nulls++
    else out.values.push(typeof v === 'bigint' ? Number(v) : (v as number))
  }
  return out
}

// —— DuckDB: COPY … TO parquet ——

/** Every numeric type DuckDB writes, at its extremes, with nulls; a few columns of few values (dictionaries); two of nulls only; booleans. */
const DUCKDB_TABLE = `SELECT
  CASE WHEN i % 7 = 3 THEN NULL ELSE ((i * 37) % 256 - 128)::TINYINT END AS i8,
  ((i * 911) % 65536 - 32768)::SMALLINT AS i16,
  (CASE i % 5 WHEN 0 THEN -2147483648 WHEN 1 THEN 2147483647 ELSE (i * 1000003) % 2147483647 - 1073741823 END)::INTEGER AS i32,
  (CASE WHEN i % 11 = 4 THEN NULL WHEN i % 6 = 0 THEN -9223372036854775808 WHEN i % 6 = 1 THEN 9223372036854775807
        WHEN i % 6 = 2 THEN 9007199254740993 WHEN i % 6 = 3 THEN -9007199254740993 ELSE i * 1234567890123 - 3000000000000000 END)::BIGINT AS i64,
  (CASE i % 4 WHEN 0 THEN '170141183460469231731687303715884105727'::HUGEINT WHEN 1 THEN '-170141183460469231731687303715884105727'::HUGEINT
        WHEN 2 THEN 9007199254740993::HUGEINT ELSE i::HUGEINT * 12345678901234567890123 END) AS i128,
  (CASE i % 3 WHEN 0 THEN '340282366920938463463374607431768211455'::UHUGEINT WHEN 1 THEN 9007199254740993::UHUGEINT ELSE i::UHUGEINT * 98765432109876543210 END) AS u128,
  ((i * 7) % 256)::UTINYINT AS u8,
  ((i * 4099) % 65536)::USMALLINT AS u16,
  (CASE i % 3 WHEN 0 THEN 4294967295 ELSE (i * 2654435761) % 4294967296 END)::UINTEGER AS u32,
  (CASE WHEN i % 13 = 5 THEN NULL WHEN i % 5 = 0 THEN '18446744073709551615'::UBIGINT WHEN i % 5 = 1 THEN 9007199254740993::UBIGINT
        WHEN i % 5 = 2 THEN '9223372036854775808'::UBIGINT ELSE i::UBIGINT * 4000000000000000 END) AS u64,
  (CASE i % 6 WHEN 0 THEN '-0.0'::FLOAT WHEN 1 THEN '3.4028235e38'::FLOAT WHEN 2 THEN '-3.4028235e38'::FLOAT WHEN 3 THEN '1.4e-45'::FLOAT ELSE (i / 3)::FLOAT END) AS f32,
  (CASE WHEN i % 9 = 8 THEN NULL WHEN i % 6 = 0 THEN '-0.0'::DOUBLE WHEN i % 6 = 1 THEN 1.7976931348623157e308 WHEN i % 6 = 2 THEN -1.7976931348623157e308
        WHEN i % 6 = 3 THEN 5e-324 ELSE i / 7 END)::DOUBLE AS f64,
  ((((i * 37) % 19999) - 9999) / 100)::DECIMAL(4,2) AS d4,
  (((i * 62710561) % 1999999999 - 999999999) / 1000)::DECIMAL(9,3) AS d9,
  (CASE i % 4 WHEN 0 THEN '99999999999999.9999' WHEN 1 THEN '-99999999999999.9999' ELSE ((i * 123456789011 - 277777775274750) / 10000)::VARCHAR END)::DECIMAL(18,4) AS d18,
  (CASE WHEN i % 10 = 7 THEN NULL WHEN i % 4 = 0 THEN '9999999999999999999999999999.9999999999' WHEN i % 4 = 1 THEN '-9999999999999999999999999999.9999999999'
        ELSE ((i::HUGEINT * 98765432109876543)::DECIMAL(38,10) + ((i * 104729) % 10000000000)::DECIMAL(18,0) * 0.0000000001::DECIMAL(11,10)) * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) END)::DECIMAL(38,10) AS d38,
  (i % 5)::BIGINT AS k64,
  (CASE WHEN i % 4 = 0 THEN NULL ELSE i % 3 END)::SMALLINT AS k16,
  ((i % 3) * 0.25)::DOUBLE AS kf,
  NULL::DOUBLE AS n64,
  NULL::INTEGER AS n32,
  i % 2 = 0 AS b
FROM range(3000) t(i)`

const duckdbReference = (path: string) => async () => duckdbColumns(path, await duckdbNumericColumns(path))

async function duckdbFile(dir: string, name: string, query: string, options: string, refused?: RegExp): Promise<WrittenTable> {
  const path = join(dir, `duckdb-${name}.parquet`)
  await sql(`COPY (${query}) TO ${lit(path)} (FORMAT parquet, ${options})`)
  return { name: `DuckDB ${options}`, path, reference: duckdbReference(path), refused }
}

export async function duckdbTables(dir: string): Promise<WrittenTable[]> {
  await sql(`CREATE OR REPLACE TEMP TABLE sweep AS ${DUCKDB_TABLE}`)
  const files: Promise<WrittenTable>[] = []
  // Each codec once, each format version with four (a page's codec is the same whatever the version
  // encodes); brotli, at DuckDB's slow highest quality, on the first 2 500 rows (two row groups).
  const codecs = { V1: ['uncompressed', 'snappy', 'gzip', 'brotli'], V2: ['uncompressed', 'zstd', 'lz4', 'lz4_raw'] }
  for (const [version, list] of Object.entries(codecs))
    for (const codec of list) files.push(duckdbFile(dir, `${version}-${codec}`, `FROM sweep${codec === 'brotli' ? ' LIMIT 2500' : ''}`, `PARQUET_VERSION ${version}, COMPRESSION ${codec}, ROW_GROUP_SIZE 2048`))
  for (const version of ['V1', 'V2']) {
    // Dictionaries off (PLAIN, or the delta and byte-stream-split encodings), and for every column.
    files.push(duckdbFile(dir, `${version}-no-dictionary`, 'FROM sweep', `PARQUET_VERSION ${version}, COMPRESSION zstd, DICTIONARY_SIZE_LIMIT 0`))
    files.push(duckdbFile(dir, `${version}-dictionaries`, 'FROM sweep', `PARQUET_VERSION ${version}, COMPRESSION snappy, DICTIONARY_COMPRESSION_RATIO_THRESHOLD 0`))
  }
  const special = (name: string, value: string, type: string, options: string, refused: RegExp) =>
    files.push(duckdbFile(dir, name, `SELECT CASE WHEN i = 100 THEN '${value}'::${type} ELSE i / 4 END::${type} AS x FROM range(300) t(i)`, options, refused))
  special('nan', 'nan', 'DOUBLE', 'PARQUET_VERSION V2', /\(row group 0, column "x", page \d+\): row 101: NaN is not a number/)
  special('inf', 'inf', 'FLOAT', 'PARQUET_VERSION V1', /\(row group 0, column "x", page \d+\): row 101: Infinity is out of range/)
  special('dictionary-inf', '-inf', 'DOUBLE', 'PARQUET_VERSION V1, DICTIONARY_COMPRESSION_RATIO_THRESHOLD 0', /\(row group 0, column "x", page \d+\): row 101: -Infinity is out of range/)
  files.push(duckdbFile(dir, 'empty', 'SELECT 1::INTEGER AS x WHERE false', 'PARQUET_VERSION V2', /: no data rows/))
  return Promise.all(files)
}

// —— Polars: Parquet (sinkParquet, writeParquet) and Arrow IPC (writeIPC, writeIPCStream) ——

/** Polars' integer and float types at their extremes, nulls in some, one column of few values, one of nulls only. */
function polarsFrame(n: number): pl.DataFrame {
  const f = <T>(make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i))
  const ends = <T>(i: number, lo: T, hi: T, v: T) => (i % 97 === 0 ? lo : i % 89 === 0 ? hi : v)
  const df = pl.DataFrame({
    i8: Int8Array.from(f((i) => ends(i, -128, 127, ((i * 37) % 256) - 128))),
    i16: Int16Array.from(f((i) => ends(i, -32768, 32767, ((i * 911) % 65536) - 32768))),
    i32: Int32Array.from(f((i) => ends(i, -(2 ** 31), 2 ** 31 - 1, (i * 1000003) % 2147483647))),
    i64: BigInt64Array.from(f((i) => (i % 5 === 0 ? -(2n ** 63n) : i % 5 === 1 ? 2n ** 63n - 1n : i % 5 === 2 ? 2n ** 53n + 1n : BigInt(i) * 1234567890123n))),
    u8: Uint8Array.from(f((i) => ends(i, 0, 255, (i * 7) % 256))),
    u16: Uint16Array.from(f((i) => ends(i, 0, 65535, (i * 4099) % 65536))),
    u32: Uint32Array.from(f((i) => ends(i, 0, 2 ** 32 - 1, (i * 2654435761) % 2 ** 32))),
    u64: BigUint64Array.from(f((i) => (i % 5 === 0 ? 2n ** 64n - 1n : i % 5 === 1 ? 2n ** 53n + 1n : i % 5 === 2 ? 2n ** 63n : BigInt(i) * 4000000000000000n))),
    f32: Float32Array.from(f((i) => [-0, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, i / 3][i % 5])),
    f64: Float64Array.from(f((i) => [-0, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53 + 2, i / 7][i % 6])),
    k32: Int32Array.from(f((i) => i % 4)),
  })
  // Nulls through Polars' own expressions, so each column keeps its type.
  const withNulls = (name: string, every: number) => pl.when(pl.col('row').modulo(every).eq(3)).then(pl.lit(null)).otherwise(pl.col(name)).alias(name)
  return df
    .withColumn(pl.Series('row', Int32Array.from(f((i) => i))))
    .withColumns(withNulls('i8', 7), withNulls('i64', 11), withNulls('u64', 13), withNulls('f64', 9), withNulls('k32', 5))
    .drop('row')
    .withColumn(pl.Series('n64', f(() => null), pl.Float64))
}

const polarsReference = (df: () => pl.DataFrame) => async () => {
  const read = df()
  const out: Record<string, ColumnReference> = {}
  for (const name of read.columns) if (/^(U?Int(8|16|32|64)|Float(32|64)|Decimal)$/.test(read.getColumn(name).dtype.variant)) out[name] = collect(read.getColumn(name).toArray() as unknown[])
  return out
}

export async function polarsTables(dir: string): Promise<WrittenTable[]> {
  const frame = polarsFrame(3000)
  const files: WrittenTable[] = []
  const sink = { syncOnClose: 'all', maintainOrder: true, mkdir: true }
  for (const compression of ['uncompressed', 'snappy', 'gzip', 'brotli', 'lz4', 'zstd'])
    for (const statistics of compression === 'uncompressed' || compression === 'zstd' ? [true, false] : [true]) {
      const path = join(dir, `polars-${compression}-${statistics ? 'stats' : 'nostats'}.parquet`)
      // Row groups of 1000 rows, pages of about 1 KiB: many pages after each dictionary.
      await frame.lazy().sinkParquet(path, { compression, statistics, rowGroupSize: 1000, dataPagesizeLimit: 1024, sinkOptions: sink }).collect()
      files.push({ name: `Polars sinkParquet ${compression}, statistics ${statistics}`, path, reference: polarsReference(() => pl.readParquet(path)) })
    }
  const whole = join(dir, 'polars-writeParquet.parquet')
  frame.writeParquet(whole, { compression: 'zstd' })
  files.push({ name: 'Polars writeParquet zstd', path: whole, reference: polarsReference(() => pl.readParquet(whole)) })
  // Three record batches (chunks that are not rechunked), one of them empty.
  const chunked = frame.slice(0, 1200).vstack(frame.slice(1200, 0)).vstack(frame.slice(1200, 1800))
  for (const compression of ['uncompressed', 'lz4', 'zstd'] as const) {
    const file = join(dir, `polars-${compression}.arrow`)
    chunked.writeIPC(file, { compression })
    // Polars reads its IPC files back from their bytes (from the path, it finds no footer).
    files.push({ name: `Polars writeIPC ${compression}`, path: file, reference: polarsReference(() => pl.readIPC(readFileSync(file))) })
    const stream = join(dir, `polars-${compression}.arrows`)
    chunked.writeIPCStream(stream, { compression })
    files.push({ name: `Polars writeIPCStream ${compression}`, path: stream, reference: polarsReference(() => pl.readIPCStream(readFileSync(stream))) })
  }
  const empty = join(dir, 'polars-empty.arrow')
  frame.slice(0, 0).writeIPC(empty)
  files.push({ name: 'Polars writeIPC of no rows', path: empty, reference: polarsReference(() => pl.readIPC(readFileSync(empty))), refused: /: no data rows/ })
  return files
}

// —— Apache Arrow JS: tableToIPC (file and stream) ——

const ARROW_TYPES: [string, () => DataType, (i: number) => number | bigint][] = [
  ['i8', () => new Int8(), (i) => ((i * 37) % 256) - 128],
  ['u8', () => new Uint8(), (i) => (i * 7) % 256],
  ['i16', () => new Int16(), (i) => ((i * 911) % 65536) - 32768],
  ['u16', () => new Uint16(), (i) => (i * 4099) % 65536],
  ['i32', () => new Int32(), (i) => [-(2 ** 31), 2 ** 31 - 1, i * 1000003][i % 3]],
  ['u32', () => new Uint32(), (i) => [2 ** 32 - 1, 0, (i * 2654435761) % 2 ** 32][i % 3]],
  ['i64', () => new Int64(), (i) => [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, BigInt(i) * -1234567890123n][i % 4]],
  ['u64', () => new Uint64(), (i) => [2n ** 64n - 1n, 2n ** 53n + 1n, 2n ** 63n, BigInt(i) * 4000000000000000n][i % 4]],
  ['f32', () => new Float32(), (i) => [-0, 3.4028234663852886e38, 1.401298464324817e-45, i / 3][i % 4]],
  ['f64', () => new Float64(), (i) => [-0, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, i / 7][i % 5]],
]

/** A record batch of `rows` rows from row `start`: every numeric type (nulls every 7th row), two dictionary-encoded columns and a column of nulls only. */
function arrowBatch(schema: Schema, start: number, rows: number, dictionaries: [Vector, Vector]): RecordBatch {
  const at = (i: number) => start + i
  const children = ARROW_TYPES.map(([, type, value], k) => vectorFromArray(Array.from({ length: rows }, (_, i) => (at(i) % 7 === k % 7 ? null : value(at(i)))), type()).data[0])
  const dictionaryColumn = (field: Field, dictionary: Vector, index: (i: number) => number | null) => {
    const values = Array.from({ length: rows }, (_, i) => index(at(i)))
    const valid = values.map((v) => v !== null)
    const type = field.type as Dictionary
    const indexes = values.map((v) => v ?? 0)
    const data = type.indices.bitWidth === 8 ? Uint8Array.from(indexes) : Int32Array.from(indexes)
    return makeData({ type, length: rows, nullCount: valid.filter((v) => !v).length, nullBitmap: bitmap(valid), data, dictionary })
  }
  const [dictF64, dictI64] = dictionaries
  children.push(dictionaryColumn(schema.fields[ARROW_TYPES.length], dictF64, (i) => (i % 11 === 2 ? null : i % dictF64.length)))
  children.push(dictionaryColumn(schema.fields[ARROW_TYPES.length + 1], dictI64, (i) => (i * 5) % dictI64.length))
  children.push(vectorFromArray(new Array(rows).fill(null), new Float64()).data[0])
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows, children }))
}

/** Arrow JS's reading of IPC bytes: every column (all are numbers). */
const arrowReference = (bytes: Uint8Array) => async () => {
  const read = tableFromIPC(bytes)
  return Object.fromEntries(read.schema.fields.map((f) => [f.name, collect(read.getChild(f.name)!)]))
}

function bitmap(valid: boolean[]): Uint8Array {
  const bits = new Uint8Array(Math.ceil(valid.length / 8))
  valid.forEach((v, i) => v && (bits[i >> 3] |= 1 << (i & 7)))
  return bits
}

export function arrowTables(dir: string): WrittenTable[] {
  const f64 = new Dictionary(new Float64(), new Int32(), 0)
  const i64 = new Dictionary(new Int64(), new Uint8(), 1)
  const schema = new Schema([...ARROW_TYPES.map(([name, type]) => new Field(name, type(), true)), new Field('dict_f64', f64, true), new Field('dict_i64', i64, true), new Field('nulls', new Float64(), true)])
  // Dictionaries that grow by deltas (their first chunk shared), one with a null entry.
  const f0 = vectorFromArray([0.5, -0, null, 1e300], new Float64()).data[0]
  const f1 = vectorFromArray([2.25, -7.125, Number.MAX_VALUE], new Float64()).data[0]
  const g0 = vectorFromArray([-(2n ** 63n), 2n ** 53n + 1n], new Int64()).data[0]
  const g1 = vectorFromArray([2n ** 63n - 1n, 12345678901234567n], new Int64()).data[0]
  const grown: [Vector, Vector][] = [
    [new Vector([f0]), new Vector([g0])],
    [new Vector([f0, f1]), new Vector([g0, g1])],
  ]
  const batches = [arrowBatch(schema, 0, 700, grown[0]), arrowBatch(schema, 700, 0, grown[0]), arrowBatch(schema, 700, 900, grown[1]), arrowBatch(schema, 1600, 500, grown[1])]
  // A stream may replace a dictionary: a last batch with dictionaries of their own.
  const replaced: [Vector, Vector] = [new Vector([vectorFromArray([-1.5, 3e-310], new Float64()).data[0]]), new Vector([vectorFromArray([-5n, 2n ** 60n + 3n, 7n], new Int64()).data[0]])]
  const files: WrittenTable[] = []
  const write = (name: string, table: Table, form: 'file' | 'stream', refused?: RegExp) => {
    const path = join(dir, `arrow-js-${name}.${form === 'file' ? 'arrow' : 'arrows'}`)
    const bytes = tableToIPC(table, form)
    writeFileSync(path, bytes)
    files.push({ name: `Arrow JS tableToIPC ${form}: ${name}`, path, reference: arrowReference(bytes), refused })
  }
  write('batches-and-deltas', new Table(schema, batches), 'file')
  // Compressed, Arrow JS states each buffer's compressed length where the format (and Arrow C++'s
  // reader) has its length uncompressed: refused, naming that.
  compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: (data) => lz4Frame(data, { linked: true, checksums: true }) })
  const compressed = join(dir, 'arrow-js-lz4.arrow')
  writeFileSync(compressed, RecordBatchFileWriter.writeAll(new Table(schema, batches), { compressionType: CompressionType.LZ4_FRAME }).toUint8Array(true))
  files.push({ name: 'Arrow JS RecordBatchFileWriter, LZ4 frames', path: compressed, reference: arrowReference(tableToIPC(new Table(schema, batches), 'file')), refused: /\(message at byte \d+\): the dictionary of column "dict_f64": the compressed (values|validity bitmap) state the length of their compressed bytes \(\d+\), not their length uncompressed/ })
  write('batches-and-deltas', new Table(schema, batches), 'stream')
  write('replaced-dictionaries', new Table(schema, [...batches, arrowBatch(schema, 2100, 300, replaced)]), 'stream')
  write('no-batches', new Table(schema), 'file', /: no data rows/)
  const special = new Schema([new Field('x', new Float64(), false)])
  const column = (values: number[]) => new RecordBatch(special, makeData({ type: new Struct(special.fields), length: values.length, children: [vectorFromArray(values, new Float64()).data[0]] }))
  write('nan', new Table(special, [column([1, 2]), column([3, NaN])]), 'file', /\(record batch 1, column "x"\): row 4: NaN is not a number/)
  write('infinity', new Table(special, [column([1, -Infinity])]), 'stream', /\(record batch 0, column "x"\): row 2: -Infinity is out of range/)
  return files
}
