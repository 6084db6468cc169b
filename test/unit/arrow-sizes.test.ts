// The Arrow loader's size boundaries, by arithmetic and by small files whose metadata announce
// them (no test needs the memory): tables of 2^29 rows and more, and buffers at 2^31 and 2^32 bytes,
// are refused naming the size, before anything of that size is allocated.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tableFromArrays, tableToIPC } from 'apache-arrow'
import { afterAll, describe, expect, it } from 'vitest'
import { checkColumnRows, checkTableMemory, MAX_COLUMN_VALUES } from '../../src/main/io/column-sizes'
import { readArrowStructure } from '../../src/main/io/arrow/structure'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-arrow-sizes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const TB = 2 ** 40

describe('Arrow table sizes', () => {
  it('holds 2^29 − 1 rows a column; refuses 2^29, 2^30, 2^31 and 2^32 rows naming the count', () => {
    expect(MAX_COLUMN_VALUES).toBe(2 ** 29 - 1)
    expect(() => checkColumnRows('t.arrow', 2 ** 29 - 1)).not.toThrow()
    for (const rows of [2 ** 29, 2 ** 30, 2 ** 31, 2 ** 32, 2 ** 53])
      expect(() => checkColumnRows('t.arrow', rows)).toThrow(`t.arrow: ${rows} rows (${rows * 8} bytes a column as f64); a column holds at most ${2 ** 29 - 1} values`)
  })

  it('refuses columns past the memory available, naming both sizes', () => {
    // 4 columns of 2^28 rows: 2^33 bytes (8.6 GB) as doubles.
    expect(() => checkTableMemory('t.arrow', 2 ** 28, 4, 2 ** 33)).not.toThrow()
    expect(() => checkTableMemory('t.arrow', 2 ** 28, 4, 2 ** 33 - 1)).toThrow('t.arrow: 4 columns of 268435456 rows need about 8.59 GB of memory as f64; 8.59 GB are available')
  })
})

describe('Arrow batches announcing sizes their file does not hold', () => {
  const rows = 40
  const bytes = tableToIPC(tableFromArrays({ x: Float64Array.from({ length: rows }, (_, k) => k) }), 'stream')
  const u64 = (v: bigint) => new Uint8Array(new BigUint64Array([v]).buffer)
  const indexOf = (needle: Uint8Array, from = 0) => Buffer.from(bytes).indexOf(Buffer.from(needle), from)
  const patched = (name: string, edits: [number, bigint][]) => {
    const out = Buffer.from(bytes)
    for (const [at, v] of edits) out.set(u64(v), at)
    const path = join(dir, name)
    writeFileSync(path, out)
    return path
  }

  it.each([2n ** 29n, 2n ** 31n, 2n ** 32n])('%s rows: refused by the bytes of the body, before allocation', async (n) => {
    // The batch's length and its column's node length, both 40, set to n.
    const length = indexOf(u64(40n))
    const node = indexOf(u64(40n), length + 8)
    expect(length).toBeGreaterThan(0)
    expect(node).toBeGreaterThan(length)
    const e = await failure(readArrowStructure(patched(`rows-${n}.arrows`, [[length, n], [node, n]])))
    expect(e.message).toMatch(new RegExp(`rows-${n}\\.arrows \\(message at byte \\d+\\): the metadata cannot be read \\(column "x" holds 320 bytes of values for ${n} rows of 8 bytes\\)$`))
  })

  it.each([
    ['offset', 2n ** 31n],
    ['offset', 2n ** 32n],
    ['length', 2n ** 31n],
    ['length', 2n ** 32n],
    ['length', 2n ** 64n - 1n],
  ] as const)('a values buffer whose %s is %s: refused naming its bytes, not wrapped', async (field, n) => {
    // The values buffer: offset 0 (after an empty validity buffer at 0), length 320.
    const at = indexOf(new Uint8Array([...u64(0n), ...u64(320n)]), indexOf(new Uint8Array([...u64(0n), ...u64(0n)])) + 16)
    expect(at).toBeGreaterThan(0)
    const e = await failure(readArrowStructure(patched(`buffer-${field}-${n}.arrows`, [[field === 'offset' ? at : at + 8, n]])))
    expect(e.message).toMatch(/\(message at byte \d+\): the metadata cannot be read \(the values of column "x": -?\d+ bytes at byte \d+, past a body of 320 bytes\)$/)
  })
})
