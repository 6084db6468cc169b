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
// refuse (NaN, ±∞, no rows), refused naming the file and the feature.
// Needs out/ (`npm run build`): the loader's threads run there.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { binaryTableColumns, loadTable } from '../../src/main/io/table-loader'
import { ApiError } from '../../src/shared/errors'
import { builtTables } from '../helpers/parquet-encodings'
import { arrowTables, duckdbTables, polarsTables, type WrittenTable } from '../helpers/table-writers'
import { sameDoubles } from '../helpers/same-doubles'

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

/** Reads every file; the report lists each, and the test fails on any that is not read (or refused) as it must. */
async function sweep(tables: WrittenTable[]): Promise<void> {
  expect(tables.length).toBeGreaterThan(0)
  const problems: string[] = []
  const lines: string[] = []
  for (const t of tables) {
    const t0 = performance.now()
    const p = await problem(t)
    if (p) problems.push(`${t.name} (${t.path}): ${p}`)
    lines.push(`${p ? 'WRONG  ' : t.refused ? 'refused' : 'equal  '} ${(performance.now() - t0).toFixed(0).padStart(5)} ms  ${t.name}${p ? `: ${p}` : ''}`)
  }
  console.log(lines.join('\n'))
  expect(problems).toEqual([])
}

describe('tables from common writers, read equal to each writer\'s own reading', () => {
  it('DuckDB: every codec, Parquet v1 and v2, small row groups, dictionaries off and everywhere, every numeric type at its extremes', async () => {
    await sweep(await duckdbTables(dir))
  }, 60_000)

  it('Polars: Parquet in every codec with and without statistics, on many small pages; Arrow IPC files and streams, uncompressed, LZ4 and ZSTD', async () => {
    await sweep(await polarsTables(dir))
  }, 60_000)

  it('Arrow JS: files and streams of several batches, one empty, dictionary-encoded columns grown by deltas and replaced', async () => {
    await sweep(arrowTables(dir))
  }, 60_000)

  it('pages built one by one: data pages v2 in each codec, deltas across pages, BYTE_STREAM_SPLIT, delta-encoded decimals', async () => {
    await sweep(builtTables(dir))
  }, 60_000)
})
