// Property-based fuzzing of the Arrow reader (test/helpers/fuzz.ts): mutations of small valid
// files — the file and the stream form, written at set-up by apache-arrow — each read through the
// loader's threads must end in a table (its counts consistent, the original's values when the
// mutation changed nothing) or a refusal naming the file, within 10 s and 256 MiB. Then every
// 8-byte word of the files set to a boundary count, and a cancel ending a read within a second.
// Needs out/ (`npm run build`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Field, Float64, makeData, RecordBatch, RecordBatchStreamWriter, Schema, Struct, tableFromArrays, tableToIPC } from 'apache-arrow'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadArrow } from '../../src/main/io/arrow/load-arrow'
import { ApiError } from '../../src/shared/errors'
import { readArrowStructure } from '../../src/main/io/arrow/structure'
import { cleanOutcome, FUZZ_RUNS, fuzzParams, mutate, mutationArb } from '../helpers/fuzz'

const dir = mkdtempSync(join(tmpdir(), 'paralab-arrow-fuzz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const COLUMNS = ['i', 'l', 'x']
const ROWS = 64

const valid: Record<string, Uint8Array> = {}
let reference: Record<string, number[]>

beforeAll(() => {
  const range = Array.from({ length: ROWS }, (_, k) => k)
  const table = tableFromArrays({
    i: Int32Array.from(range, (k) => k * 1000 - 7),
    l: BigInt64Array.from(range, (k) => BigInt(k) * 3_000_000_000n - 5n),
    x: Float64Array.from(range, (k) => k / 7),
  })
  // Two batches, so that counts and offsets of a second message are mutated too.
  const two = table.slice(0, 40).concat(table.slice(40))
  valid['file'] = tableToIPC(two, 'file')
  valid['stream'] = tableToIPC(two, 'stream')
  reference = { i: range.map((k) => k * 1000 - 7), l: range.map((k) => Number(BigInt(k) * 3_000_000_000n - 5n)), x: range.map((k) => k / 7) }
})

let n = 0
async function outcome(bytes: Uint8Array) {
  const path = join(dir, `case-${n++}.arrow`)
  writeFileSync(path, bytes)
  try {
    return await cleanOutcome(path, () => loadArrow(path, { columns: COLUMNS, threads: 1 }), { ms: 10_000, bytes: 256 * 2 ** 20 })
  } finally {
    rmSync(path, { force: true })
  }
}

describe('Arrow reader under mutations', () => {
  it.each(['file', 'stream'])('the %s form reads as written', async (form) => {
    const r = await outcome(valid[form])
    expect('ok' in r && COLUMNS.map((c) => Array.from(r.ok.columns[c].values))).toEqual(COLUMNS.map((c) => reference[c]))
  })

  it.each(['file', 'stream'])('mutated %s forms end in a table or a clean refusal', async (form) => {
    const bytes = valid[form]
    await fc.assert(
      fc.asyncProperty(mutationArb(bytes.length, 8), async (mutations) => {
        const mutated = mutate(bytes, mutations)
        const r = await outcome(mutated)
        if (!('ok' in r)) return
        for (const c of COLUMNS) expect(r.ok.columns[c].values.length + r.ok.columns[c].missing).toBe(r.ok.rows)
        if (mutated.length === bytes.length && mutated.every((b, k) => b === bytes[k])) for (const c of COLUMNS) expect(Array.from(r.ok.columns[c].values)).toEqual(reference[c])
      }),
      fuzzParams(Math.ceil(FUZZ_RUNS / 2)),
    )
  }, Math.max(120_000, FUZZ_RUNS * 1000))

  it.each(['file', 'stream'])('every 8-byte word of the %s form set to a boundary count: a table or a clean refusal', async (form) => {
    const bytes = valid[form]
    const path = join(dir, `valid.${form}`)
    writeFileSync(path, bytes)
    // The words of the metadata (the values in the batches' bodies are numbers, not counts).
    const bodies = (await readArrowStructure(path)).batches.map((b) => [b.bodyStart, b.end])
    const values = [2n ** 29n, 2n ** 31n - 1n, 2n ** 32n, 2n ** 63n - 1n]
    let refused = 0
    for (let at = 0; at + 8 <= bytes.length; at += 8)
      for (const value of bodies.some(([s, e]) => at >= s && at < e) ? [] : values) {
        const r = await outcome(mutate(bytes, [{ kind: 'u64', at, value, little: true }]))
        if ('refused' in r) refused++
      }
    expect(refused).toBeGreaterThan(0)
  }, 300_000)
})

describe('cancelling an Arrow read', () => {
  it('ends the read within a second, while messages are walked or batches read', async () => {
    // 20 000 small batches: the walk over the messages takes longer than the cancel's delay.
    const schema = new Schema([new Field('v', new Float64(), false)])
    const writer = new RecordBatchStreamWriter()
    const values = Float64Array.from({ length: 50 }, (_, k) => k)
    for (let b = 0; b < 20_000; b++)
      writer.write(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 50, children: [makeData({ type: new Float64(), length: 50, data: values })] })))
    writer.finish()
    const path = join(dir, 'many.arrows')
    writeFileSync(path, writer.toUint8Array(true))
    for (const delay of [50, 400]) {
      const ac = new AbortController()
      const t0 = performance.now()
      const read = loadArrow(path, { columns: ['v'], signal: ac.signal, threads: 2 })
      setTimeout(() => ac.abort(), delay)
      const e = await read.then(() => undefined, (err: unknown) => err)
      expect(e).toBeInstanceOf(ApiError)
      expect((e as ApiError).code).toBe('cancelled')
      expect(performance.now() - t0 - delay).toBeLessThan(1000)
    }
  }, 60_000)
})
