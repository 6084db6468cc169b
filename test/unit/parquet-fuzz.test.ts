// Hostile Parquet files: seeded mutations of small files DuckDB writes at set-up (dictionary, plain
// and version 2 pages), each ending in DuckDB's reading of the same mutated file or a refusal naming
// the file, within time and memory bounds; and files built from the recipes of attacks seen (a
// schema announcing 2^31 − 1 children, a schema 200 000 deep, a megabyte decimal, run-length
// encoding announcing more rows than memory holds), each refused within seconds, and a cancel that
// ends a long read within a second.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { loadTable } from '../../src/main/io/table-loader'
import { duckdb, lit, sql } from '../helpers/duckdb'
import { cleanOutcome, FUZZ_RUNS, fuzzParams, mutate, mutationArb } from '../helpers/fuzz'
import { failure } from '../helpers/failure'
import { dataPage, dictionaryPage, ENCODING, parquetFile, rleRun, TYPE, type ColumnSpec, type SchemaSpec } from '../helpers/parquet-build'
import { Thrift } from '../../src/main/io/parquet/write-parquet'

const dir = mkdtempSync(join(tmpdir(), 'paralab-parquet-fuzz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const write = (name: string, bytes: Uint8Array) => {
  writeFileSync(at(name), bytes)
  return at(name)
}

const COLUMNS = ['i', 'l', 'd', 'm']
const QUERY = (rows: number) =>
  `SELECT (range % 5)::INTEGER AS i, CASE WHEN range % 7 = 3 THEN NULL ELSE range * 1000003 END::BIGINT AS l, range / 8 AS d, ((range % 11) * 1.25)::DECIMAL(9,2) AS m FROM range(${rows})`
/** Small files as DuckDB writes them: dictionary pages (its default), plain doubles, and version 2 pages. */
const SOURCES: Record<string, string> = {
  dict: `COPY (${QUERY(300)}) TO '%s' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 150)`,
  plain: `COPY (${QUERY(200)}) TO '%s' (FORMAT parquet, COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 1)`,
  v2: `COPY (${QUERY(200)}) TO '%s' (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2)`,
}
const sources: Record<string, Buffer> = {}

/** DuckDB's reading of a file's columns (non-null values as doubles, nulls counted), or its error. */
async function reference(path: string): Promise<{ values: number[]; nulls: number }[] | { error: string }> {
  try {
    const reader = await (await duckdb()).runAndReadAll(`SELECT ${COLUMNS.map((c) => `${c}::VARCHAR`).join(', ')} FROM read_parquet(${lit(path)})`)
    const rows = reader.getRows()
    return COLUMNS.map((_, k) => {
      const values: number[] = []
      let nulls = 0
      for (const row of rows) row[k] === null ? nulls++ : values.push(Number(row[k]))
      return { values, nulls }
    })
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] }
  }
}

beforeAll(async () => {
  for (const [name, copy] of Object.entries(SOURCES)) {
    await sql(copy.replace('%s', at(`${name}.parquet`)))
    sources[name] = readFileSync(at(`${name}.parquet`))
  }
}, 60_000)

describe('mutated Parquet files', () => {
  // Mutations read by DuckDB whose numbers were read here too: equal, counted per source.
  const agreed: Record<string, number> = {}
  afterAll(() => console.log(`mutations read equal to DuckDB: ${JSON.stringify(agreed)}`))

  it.each(Object.keys(SOURCES))('a %s file, mutated, reads as DuckDB reads it or is refused naming the file', async (name) => {
    const original = sources[name]
    expect(original.length).toBeLessThan(8192)
    const ref = await reference(at(`${name}.parquet`))
    expect(ref).not.toHaveProperty('error')
    agreed[name] = 0
    let n = 0
    await fc.assert(
      fc.asyncProperty(mutationArb(original.length, 4), async (mutations) => {
        const path = write(`${name}-${n++ % 4}.parquet`, mutate(original, mutations))
        const outcome = await cleanOutcome(path, () => loadTable(path, { columns: COLUMNS, threads: 1 }), { ms: 10_000, bytes: 256 * 2 ** 20 })
        if ('refused' in outcome) return
        // Numbers were read: DuckDB reads the same file to the same numbers.
        const theirs = await reference(path)
        expect(theirs, `${path}: read here, refused by DuckDB`).not.toHaveProperty('error')
        COLUMNS.forEach((c, k) => {
          const col = outcome.ok.columns[c]
          const want = (theirs as { values: number[]; nulls: number }[])[k]
          expect(col.missing, `${c}: nulls`).toBe(want.nulls)
          expect(Array.from(col.values), `${c}: values`).toEqual(want.values)
        })
        agreed[name]++
      }),
      fuzzParams(Math.ceil(FUZZ_RUNS / 6)),
    )
  }, 600_000)
})

/** Ends within `ms` with a refusal naming the file; returns its message. */
async function refusedWithin(path: string, ms: number, columns = ['v']): Promise<string> {
  const t0 = performance.now()
  const outcome = await cleanOutcome(path, () => loadTable(path, { columns, threads: 1 }), { ms, bytes: 256 * 2 ** 20 })
  expect(outcome, 'refused').toHaveProperty('refused')
  expect(performance.now() - t0).toBeLessThan(ms)
  return (outcome as { refused: ApiError }).refused.message
}

const V: ColumnSpec = { name: 'v', type: TYPE.DOUBLE }
const plainDoubles = (values: number[]) => {
  const b = Buffer.alloc(8 * values.length)
  values.forEach((v, i) => b.writeDoubleLE(v, 8 * i))
  return dataPage(values.length, ENCODING.PLAIN, b)
}

describe('Parquet attack recipes', () => {
  it('a schema element announcing 2^31 − 1 children (a 24 KB file) is refused at once, naming the count', async () => {
    const filler: SchemaSpec[] = Array.from({ length: 2000 }, (_, k) => ({ name: `f${k}`, type: TYPE.INT32 }))
    const schema: SchemaSpec[] = [{ name: 'schema', children: 2 }, V, { name: 'g', children: 2 ** 31 - 1 }, ...filler]
    const path = write('children.parquet', parquetFile([V], [{ rows: 2, pages: [[plainDoubles([1, 2])]] }], { schema }))
    expect(readFileSync(path).length).toBeLessThan(32_000)
    expect(await refusedWithin(path, 5000)).toBe(`${path} (footer, schema element 2): "g" announces 2147483647 children; the schema has 2000 elements after it`)
  }, 30_000)

  it('a schema nested 200 000 deep is refused naming the depth bound', async () => {
    const chain: SchemaSpec[] = Array.from({ length: 200_000 }, (_, k) => ({ name: `g${k}`, children: 1 }))
    const schema: SchemaSpec[] = [{ name: 'schema', children: 2 }, V, ...chain, { name: 'leaf', type: TYPE.DOUBLE }]
    const path = write('deep.parquet', parquetFile([V], [{ rows: 2, pages: [[plainDoubles([1, 2])]] }], { schema }))
    expect(await refusedWithin(path, 5000)).toBe(`${path} (footer, schema element 101): the schema nests deeper than 100 levels`)
  }, 30_000)

  it('footer structures nested 100 000 deep are refused naming the depth bound, before they are parsed', async () => {
    const t = new Thrift().int(1, 1)
    let body = Buffer.alloc(0)
    const deep = 100_000
    // Field 7 of each structure is a structure, 100 000 times; then their STOPs.
    body = Buffer.concat([t.end().subarray(0, -1), Buffer.alloc(deep, 0x7c), Buffer.alloc(deep + 1, 0)])
    const tail = Buffer.alloc(8)
    tail.writeUInt32LE(body.length, 0)
    tail.write('PAR1', 4, 'latin1')
    const path = write('thrift-deep.parquet', Buffer.concat([Buffer.from('PAR1'), body, tail]))
    expect(await refusedWithin(path, 5000)).toBe(`${path} (footer): the metadata cannot be read: structures nested deeper than 64 levels`)
  }, 30_000)

  it('a FIXED_LEN_BYTE_ARRAY decimal of 2 MB a value is refused naming its width, not decoded a byte at a time', async () => {
    const width = 2 * 2 ** 20
    const dec: ColumnSpec = { name: 'v', type: TYPE.FIXED_LEN_BYTE_ARRAY, typeLength: width, decimal: { scale: 2, precision: 38 } }
    const body = Buffer.alloc(width, 0x7f)
    const path = write('flba.parquet', parquetFile([dec], [{ rows: 1, pages: [[dataPage(1, ENCODING.PLAIN, body)]] }]))
    expect(await refusedWithin(path, 5000)).toBe(`${path}: column "v" holds decimals of ${width} bytes (at most 32 are read), not numbers`)
  }, 30_000)

  /** Row groups of `rows` rows each, every column one dictionary page of one entry and an RLE run of all its rows. */
  function runFile(name: string, columns: number, groups: number, rows: number, numRows?: number): string {
    const cols: ColumnSpec[] = Array.from({ length: columns }, (_, k) => ({ name: `c${k}`, type: TYPE.DOUBLE }))
    const page = () => [dictionaryPage(1, Buffer.alloc(8)), dataPage(rows, ENCODING.RLE_DICTIONARY, Buffer.concat([Buffer.from([0]), rleRun(rows, 0, 0)]))]
    return write(name, parquetFile(cols, Array.from({ length: groups }, () => ({ rows, pages: cols.map(page) })), { numRows }))
  }

  it('run-length encoding announcing more rows than memory holds is refused before anything is allocated, naming the sizes', async () => {
    // Three row groups of 2^27 rows (as 335 bytes did), in as many columns as exceed the memory available.
    const columns = Math.ceil(process.availableMemory() / (3 * 2 ** 27 * 8)) + 1
    const path = runFile('runs.parquet', columns, 3, 2 ** 27)
    expect(readFileSync(path).length).toBeLessThan(400 * columns)
    const message = await refusedWithin(path, 5000, Array.from({ length: columns }, (_, k) => `c${k}`))
    expect(message).toMatch(new RegExp(`runs\\.parquet: ${columns} columns of 402653184 rows need about [\\d.]+ GB of memory as f64; [\\d.]+ GB are available$`))
  }, 30_000)

  it('row counts that do not reconcile (footer against row groups, a chunk against its row group) are refused', async () => {
    const lying = runFile('rows.parquet', 1, 2, 100, 2 ** 27)
    expect(await refusedWithin(lying, 5000, ['c0'])).toBe(`${lying} (footer): the file announces 134217728 rows; its row groups hold 200`)
    const cols: ColumnSpec[] = [{ name: 'c0', type: TYPE.DOUBLE }]
    const chunk = write('chunk.parquet', parquetFile(cols, [{ rows: 2, pages: [[plainDoubles([1, 2])]] }], { chunkValues: 2 ** 27 }))
    expect(await refusedWithin(chunk, 5000, ['c0'])).toBe(`${chunk} (row group 0, column "c0"): the column chunk announces 134217728 values for the row group's 2 rows`)
  }, 30_000)

  it('a schema element without a name is refused naming the element', async () => {
    const schema: SchemaSpec[] = [{ name: 'schema', children: 1 }, { name: undefined, type: TYPE.DOUBLE }]
    const path = write('nameless.parquet', parquetFile([V], [{ rows: 2, pages: [[plainDoubles([1, 2])]] }], { schema }))
    expect(await refusedWithin(path, 5000)).toBe(`${path} (footer, schema element 1): the element has no name`)
  }, 30_000)

  it('two columns of one name are refused naming both positions', async () => {
    const cols: ColumnSpec[] = [V, { name: 'w', type: TYPE.DOUBLE }, { name: 'v', type: TYPE.DOUBLE }]
    const path = write('names.parquet', parquetFile(cols, [{ rows: 2, pages: cols.map(() => [plainDoubles([1, 2])]) }]))
    expect(await refusedWithin(path, 5000)).toBe(`${path} (footer, schema): columns 1 and 3 are both named "v"; rename one of them`)
  }, 30_000)

  it('a cancel ends a long read within a second', async () => {
    // 2^27 rows of one column from a few hundred bytes: a gigabyte to fill, seconds of work.
    const path = runFile('long.parquet', 1, 8, 2 ** 24)
    const controller = new AbortController()
    const t0 = performance.now()
    const read = loadTable(path, { columns: ['c0'], threads: 1, signal: controller.signal })
    setTimeout(() => controller.abort(), 300)
    const e = await failure(read)
    expect(e.code).toBe('cancelled')
    expect(performance.now() - t0).toBeLessThan(1300)
  }, 30_000)
})
