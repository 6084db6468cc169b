// Arrow's own integration files (apache/arrow-testing, ../shared/corpora/arrow) through the
// project's loader, every numeric column compared with the integration JSON beside each file
// (batches of columns with VALIDITY and DATA; 64-bit integers and decimals as strings). Equal means
// exactly equal as doubles: integers as the correctly rounded double of the integer, float32 as
// the double of the float32 (Math.fround of the JSON's text), decimals as the correctly rounded
// double of "digits e-scale" — tolerance 0. A file not read equal must be refused with a message
// naming it and the feature; the refused files are listed below with their reasons. The fuzzers'
// corrupt files (fuzz-file/, fuzz-stream/) must each be read or refused cleanly, within bounds.
// Needs out/ (`npm run build`): the loader's threads run there.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { loadArrow, readArrowColumns } from '../../src/main/io/arrow/load-arrow'
import { binaryTableColumns, loadTable, tableFormat } from '../../src/main/io/table-loader'
import { ApiError } from '../../src/shared/errors'
import { cleanOutcome } from '../helpers/fuzz'

const ROOT = '../shared/corpora/arrow/apache+arrow-testing'
const files = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    .sort()
const INTEGRATION = files('integration').filter((f) => f.endsWith('.arrow_file') || f.endsWith('.stream'))
const FUZZ = [...files('fuzz-file'), ...files('fuzz-stream')]

/** Streams of the format before Arrow 0.15 (no 0xFFFFFFFF continuation marker): not known by their content, so read here through the Arrow reader itself. */
const LEGACY_STREAMS = ['integration/0.14.1/generated_dictionary.stream', 'integration/0.14.1/generated_primitive.stream']

/** Files refused, with the reason (the message after the file's name). */
const REFUSED: Record<string, string> = {
  'integration/1.0.0-bigendian/generated_primitive_zerolength': ': no data rows',
  'integration/1.0.0-littleendian/generated_duplicate_fieldnames': ' (schema): columns 1 and 2 are both named "ints"; rename one of them',
  'integration/1.0.0-littleendian/generated_primitive_no_batches': ': no data rows',
  'integration/cpp-21.0.0/generated_primitive_zerolength': ': no data rows',
}
/** What the numeric-typed columns the loader leaves out hold: none is. */
const COLUMNS_LEFT_OUT: string[] = []

interface JsonType {
  name: string
  bitWidth?: number
  isSigned?: boolean
  precision?: string | number
  scale?: number
}
interface JsonField {
  name: string
  /** A dictionary-encoded field's type is its values'. */
  type: JsonType
  dictionary?: { id: number }
}
interface JsonColumn {
  name: string
  VALIDITY?: number[]
  DATA?: (number | string)[]
}
interface JsonFile {
  schema: { fields: JsonField[] }
  batches: { count: number; columns: JsonColumn[] }[]
  dictionaries?: { id: number; data: { count: number; columns: JsonColumn[] } }[]
}

const numericJson = (t: JsonType) => t.name === 'int' || t.name === 'floatingpoint' || t.name === 'decimal'

/** A JSON column's values as the loader must give them, and its nulls (a dictionary-encoded column's DATA are indexes into its dictionary's). */
function expected(field: JsonField, json: JsonFile, k: number): { values: number[]; missing: number } {
  const values: number[] = []
  let missing = 0
  const dictionary = field.dictionary && json.dictionaries!.filter((d) => d.id === field.dictionary!.id).flatMap((d) => d.data.columns[0].DATA!.map((v, i) => (d.data.columns[0].VALIDITY?.[i] === 0 ? null : v)))
  for (const batch of json.batches) {
    const col = batch.columns[k]
    for (let i = 0; i < batch.count; i++) {
      const v = dictionary ? dictionary[Number(col.DATA![i])] : col.DATA![i]
      if (col.VALIDITY?.[i] === 0 || v === null) {
        missing++
        continue
      }
      const t = field.type
      if (t.name === 'decimal') values.push(Number(`${v}e${-(t.scale ?? 0)}`))
      else if (t.name === 'int') values.push(Number(BigInt(v)))
      else values.push(t.precision === 'SINGLE' ? Math.fround(Number(v)) : Number(v))
    }
  }
  return { values, missing }
}

describe('Arrow integration files (apache/arrow-testing)', () => {
  const refused: Record<string, string> = {}
  const leftOut = new Set<string>()
  let columnsCompared = 0

  it.each(INTEGRATION)('%s: read equal to its JSON, or refused naming the feature', async (name) => {
    const path = join(ROOT, name)
    const legacy = LEGACY_STREAMS.includes(name)
    expect(await tableFormat(path)).toBe(legacy ? 'csv' : 'arrow')
    const json = JSON.parse(gunzipSync(readFileSync(path.replace(/\.(arrow_file|stream)$/, '.json.gz'))).toString()) as JsonFile
    try {
      const kinds = legacy ? await readArrowColumns(path) : null
      const cols = legacy ? { names: kinds!.map((c) => c.name), numeric: kinds!.filter((c) => !c.holds).map((c) => c.name) } : (await binaryTableColumns(path))!
      expect(cols.names).toEqual(json.schema.fields.map((f) => f.name))
      // Every column of numbers is read, or left out naming what it holds.
      const other = new Map((kinds ?? (await readArrowColumns(path))).map((c) => [c.name, c.holds]))
      json.schema.fields.forEach((f) => {
        if (numericJson(f.type) && !cols.numeric.includes(f.name)) leftOut.add(other.get(f.name)!)
        else expect(cols.numeric.includes(f.name)).toBe(numericJson(f.type))
      })
      if (cols.numeric.length === 0) return
      const table = await (legacy ? loadArrow : loadTable)(path, { columns: cols.numeric, threads: 2 })
      json.schema.fields.forEach((f, k) => {
        if (!cols.numeric.includes(f.name)) return
        const want = expected(f, json, k)
        const got = table.columns[f.name]
        expect(got.missing, `${f.name} nulls`).toBe(want.missing)
        expect(Array.from(got.values), f.name).toEqual(want.values)
        columnsCompared++
      })
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
      expect(e.message.startsWith(path)).toBe(true)
      refused[name.replace(/\.(arrow_file|stream)$/, '')] = e.message.slice(path.length)
    }
  })

  it('the refused files, with their reasons, and the columns left out', () => {
    expect(refused).toEqual(REFUSED)
    expect([...leftOut].sort()).toEqual(COLUMNS_LEFT_OUT)
    expect(columnsCompared).toBeGreaterThanOrEqual(300)
  })

  it('big-endian files read as their values, not byte-swapped (file and stream)', async () => {
    // The recipe: read byte-swapped, int32_nonnullable had a mean of 4.87e7.
    const mean = (v: ArrayLike<number>) => Array.from(v).reduce((s, x) => s + x, 0) / v.length
    const json = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'integration/1.0.0-bigendian/generated_primitive.json.gz'))).toString()) as JsonFile
    const k = json.schema.fields.findIndex((f) => f.name === 'int32_nonnullable')
    const want = mean(expected(json.schema.fields[k], json, k).values)
    expect(want).toBeCloseTo(-4.8e6, -5)
    for (const form of ['arrow_file', 'stream']) {
      const t = await loadTable(join(ROOT, `integration/1.0.0-bigendian/generated_primitive.${form}`), { columns: ['int32_nonnullable', 'float64_nonnullable'] })
      expect(mean(t.columns.int32_nonnullable.values)).toBe(want)
      expect(t.columns.float64_nonnullable.values[0]).toBe(471.617)
    }
  })
})

const PLACE = /^ \((message at byte \d+|record batch \d+(, column "[^"]*")?|footer|schema|byte \d+)\): /

describe('Arrow fuzzers\' corrupt files (apache/arrow-testing)', () => {
  it.each(FUZZ)('%s: read, or refused naming the file, within 10 s and 256 MiB', async (name) => {
    const path = join(ROOT, name)
    // Each is an Arrow file or stream by origin: read through the Arrow reader, whatever its content looks like.
    const outcome = await cleanOutcome(
      path,
      async () => {
        const numeric = (await readArrowColumns(path)).filter((c) => !c.holds).map((c) => c.name)
        return numeric.length ? (await loadArrow(path, { columns: numeric, threads: 1 })).rows : 0
      },
      { ms: 10_000, bytes: 256 * 2 ** 20 },
    )
    // A refusal names the file and the place: a message's byte, a record batch, the footer or the schema.
    if ('refused' in outcome) expect(outcome.refused.message.startsWith(`${path} (`) && PLACE.test(outcome.refused.message.slice(path.length))).toBe(true)
  })
})
