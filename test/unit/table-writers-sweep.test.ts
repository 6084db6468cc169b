// The Parquet and Arrow IPC readers over the space of files common writers produce, as a class:
// DuckDB (every codec, Parquet v1 and v2 encodings, small row groups, dictionaries off and
// everywhere), Polars (Parquet in every codec, with and without statistics, many small pages;
// Arrow IPC files and streams, uncompressed, LZ4 and ZSTD, several record batches), Arrow JS (files
// and streams, dictionary-encoded columns growing by deltas or replaced, an empty batch) and
// pages built one by one for what those do not write (data pages v2 in each codec, deltas across
// many pages, BYTE_STREAM_SPLIT of integers and decimals, delta-encoded decimal byte arrays).
// Every file is written at set-up in a temporary folder (test/helpers/table-writers.ts,
// parquet-encodings.ts) and read through the loader (binaryTableColumns, loadTable, as stats and
// correlation read it): each numeric column equal to its writer's own reading, value for value and
// bit for bit (integers past 2^53 as the double their exact value rounds to; −0 is not 0), its
// nulls counted as missing, no numeric column left out; or, for a file holding what the readers
// refuse (NaN, ±∞, no rows, Arrow JS's compressed buffers), refused naming the file and the feature.
// Each writer's files are checked to hold the codecs and encodings the test names.
// Needs out/ (`npm run build`): the loader's threads run there.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readArrowStructure } from '../../src/main/io/arrow/structure'
import { binaryTableColumns, loadTable, tableFormat } from '../../src/main/io/table-loader'
import { ApiError } from '../../src/shared/errors'
import { duckdb, lit } from '../helpers/duckdb'
import { builtTables } from '../helpers/parquet-encodings'
import { arrowTables, duckdbTables, polarsTables, type WrittenTable } from '../helpers/table-writers'
import { sameDoubles } from '../helpers/same-doubles'
import { lz4Frame } from '../helpers/lz4-encode'
import { lz4Frame as lz4FrameRead, xxh32 } from '../../src/main/io/lz4'

const dir = mkdtempSync(join(tmpdir(), 'paralab-table-writers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** What is wrong with the loader's reading of a file, or undefined when it reads (or refuses) as it must. */
async function problem(t: WrittenTable): Promise<string | undefined> {
  let cols: Awaited<ReturnType<typeof binaryTableColumns>>
  let table: Awaited<ReturnType<typeof loadTable>>
  try {
    cols = await binaryTableColumns(t.path)
    table = await loadTable(t.path, { columns: cols!.numeric, threads: 2 })
  } catch (e) {
    if (!(e instanceof ApiError)) throw e
    if (!t.refused) return `refused: ${e.message}`
    if (!e.message.startsWith(t.path) || !t.refused.test(e.message)) return `refused, but not naming the file and ${t.refused}: ${e.message}`
    return undefined
  }
  if (t.refused) return `read, where a refusal matching ${t.refused} was due`
  const reference = await t.reference()
  const numeric = Object.keys(reference)
  if (cols!.numeric.join() !== numeric.join()) return `numeric columns ${cols!.numeric.join()}; the writer's: ${numeric.join()}`
  for (const name of numeric) {
    const got = table.columns[name]
    if (got.missing !== reference[name].nulls) return `column ${name}: ${got.missing} nulls; the writer's reading has ${reference[name].nulls}`
    const differs = sameDoubles(got.values, reference[name].values)
    if (differs) return `column ${name}: ${differs}`
  }
  return undefined
}

/**
 * What a file's layout holds, as its metadata states it: a Parquet file's codecs and its column
 * chunks' encodings (DuckDB's parquet_metadata); an Arrow file's codecs, record batches (empty
 * ones) and dictionary batches (deltas, replacements).
 */
async function layout(path: string): Promise<string[]> {
  if ((await tableFormat(path)) === 'parquet') {
    const rows = (await (await duckdb()).runAndReadAll(`SELECT DISTINCT compression, encodings FROM parquet_metadata(${lit(path)})`)).getRows()
    return rows.flatMap(([codec, encodings]) => [`parquet ${codec}`, ...String(encodings).split(', ').map((e) => `parquet ${e}`)])
  }
  const s = await readArrowStructure(path)
  return [
    ...s.batches.map((b) => `arrow ${b.codec}`),
    ...(s.batches.length > 1 ? ['arrow record batches'] : []),
    ...(s.batches.some((b) => b.rows === 0) ? ['arrow empty record batch'] : []),
    ...s.dictionaries.map((d, k) => (d.isDelta ? 'arrow dictionary delta' : s.dictionaries.slice(0, k).some((e) => e.id === d.id) ? 'arrow dictionary replaced' : 'arrow dictionary')),
  ]
}

/** Reads every file; the report lists each, and the test fails on any that is not read (or refused) as it must. Returns what the files' layouts hold. */
async function sweep(tables: WrittenTable[]): Promise<Set<string>> {
  expect(tables.length).toBeGreaterThan(0)
  const problems: string[] = []
  const lines: string[] = []
  const held = new Set<string>()
  for (const t of tables) {
    const t0 = performance.now()
    const p = await problem(t)
    if (p) problems.push(`${t.name} (${t.path}): ${p}`)
    lines.push(`${p ? 'WRONG  ' : t.refused ? 'refused' : 'equal  '} ${(performance.now() - t0).toFixed(0).padStart(5)} ms  ${t.name}${p ? `: ${p}` : ''}`)
    if (!t.refused) for (const what of await layout(t.path)) held.add(what)
  }
  console.log([...lines, `layouts: ${[...held].sort().join(', ')}`].join('\n'))
  expect(problems).toEqual([])
  return held
}

const holds = (held: Set<string>, wanted: string[]) => expect(wanted.filter((w) => !held.has(w))).toEqual([])

describe('tables from common writers, read equal to each writer\'s own reading', () => {
  it('DuckDB: every codec, Parquet v1 and v2, small row groups, dictionaries off and everywhere, every numeric type at its extremes', async () => {
    const held = await sweep(await duckdbTables(dir))
    holds(held, ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4_RAW', 'PLAIN', 'PLAIN_DICTIONARY', 'RLE_DICTIONARY', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT'].map((w) => `parquet ${w}`))
  }, 60_000)

  it('Polars: Parquet in every codec with and without statistics, on many small pages; Arrow IPC files and streams, uncompressed, LZ4 and ZSTD', async () => {
    const held = await sweep(await polarsTables(dir))
    holds(held, [...['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4_RAW', 'PLAIN', 'RLE_DICTIONARY'].map((w) => `parquet ${w}`), 'arrow none', 'arrow lz4', 'arrow zstd', 'arrow record batches'])
  }, 60_000)

  it('Arrow JS: files and streams of several batches, one empty, dictionary-encoded columns grown by deltas and replaced', async () => {
    const held = await sweep(arrowTables(dir))
    holds(held, ['arrow none', 'arrow record batches', 'arrow empty record batch', 'arrow dictionary', 'arrow dictionary delta', 'arrow dictionary replaced'])
  }, 60_000)

  it('pages built one by one: data pages v2 in each codec, deltas across pages, BYTE_STREAM_SPLIT, delta-encoded decimals', async () => {
    const held = await sweep(builtTables(dir))
    holds(held, ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'LZ4', 'LZ4_RAW', 'PLAIN', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT', 'DELTA_BYTE_ARRAY', 'DELTA_LENGTH_BYTE_ARRAY'].map((w) => `parquet ${w}`))
  }, 60_000)

  it('LZ4 as its format defines it: xxHash32 gives its published values; frames linked or not, with their checksums, read; a checksum that does not match is refused', () => {
    const text = (t: string) => new TextEncoder().encode(t)
    const hash = (b: Uint8Array) => xxh32(b, 0, b.length)
    expect([hash(text('')), hash(text('a')), hash(text('abc')), hash(text('Nobody inspects the spammish repetition'))]).toEqual([0x02cc5d05, 0x550d7456, 0x32d153ff, 0xe2293b2f])
    // 300 KB of numbers in text repeating every 500: matches within blocks, overlapping ones, and (linked) into the block before.
    const data = text(Array.from({ length: 40_000 }, (_, i) => `${i % 500},${(i * 3) % 500}`).join(";"))
    expect(data.length).toBeGreaterThan(3 * 65536)
    for (const linked of [true, false])
      for (const checksums of [true, false]) {
        const frame = lz4Frame(data, { linked, checksums })
        expect(frame.length).toBeLessThan(data.length / 2)
        expect(Buffer.from(lz4FrameRead(frame, data.length)).equals(Buffer.from(data))).toBe(true)
      }
    const frame = lz4Frame(data, { linked: true, checksums: true })
    const corrupt = (at: number) => {
      const copy = frame.slice()
      copy[at] ^= 1
      return () => lz4FrameRead(copy, data.length)
    }
    expect(corrupt(frame.length - 1)).toThrow(/content checksum does not match/)
    expect(corrupt(frame.length - 9)).toThrow(/block checksum does not match|LZ4 data is corrupt|expands/)
    expect(corrupt(5)).toThrow(/header checksum does not match/)
    expect(() => lz4FrameRead(frame, data.length - 1)).toThrow(/expands past the \d+ bytes announced/)
  })
})
