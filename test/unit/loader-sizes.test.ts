// The size boundaries of the shared loaders (CSV's ordered columns, the table parts of Parquet and
// Arrow, .npy, the statistics' datasets), checked by arithmetic at 2^29, 2^30, 2^31 and 2^32 values
// and bytes without the memory, and the thread limit they rest on, measured.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { MAX_ARRAY_ELEMENTS, MAX_COLUMN_VALUES, MAX_SHARED_BYTES, checkColumnRows, checkTableMemory } from '../../src/main/io/column-sizes'
import { Growable, MAX_COLUMN_BYTES, createOrderedColumns } from '../../src/main/io/csv/ordered-columns'
import { loadParts } from '../../src/main/io/table-parts'
import { readNpyShape } from '../../src/main/workloads/correlation/read-npy'
import { failure } from '../helpers/failure'

const refusal = (f: () => void) => failure((async () => f())())
const dir = mkdtempSync(join(tmpdir(), 'paralab-sizes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Posts a view of `buffer` to a thread that writes its first and last value; what the thread saw. */
async function writeFromThread(buffer: SharedArrayBuffer, values: number): Promise<{ length?: number; error?: string; first: number; last: number }> {
  const view = new Float64Array(buffer, 0, values)
  const w = new Worker(
    `const { parentPort } = require('node:worker_threads')
     parentPort.on('messageerror', (e) => parentPort.postMessage({ error: String(e) }))
     parentPort.on('message', (col) => { if (col.length) { col[0] = 11; col[col.length - 1] = 42 } parentPort.postMessage({ length: col.length }) })`,
    { eval: true },
  )
  try {
    const seen = await new Promise<{ length?: number; error?: string }>((resolve) => {
      w.once('message', resolve)
      w.postMessage(view)
    })
    return { ...seen, first: view[0], last: view[values - 1] }
  } finally {
    await w.terminate()
  }
}

describe('the shared-buffer limit (address space only: one page is written)', () => {
  it('a column buffer of MAX_COLUMN_BYTES reaches a thread whole; one of 2^32 bytes does not (Node 20)', async () => {
    expect(MAX_COLUMN_BYTES).toBe(2 ** 32 - 8)
    expect(MAX_COLUMN_BYTES).toBeLessThanOrEqual(MAX_SHARED_BYTES)
    const ok = new Growable(0, { maxByteLength: MAX_COLUMN_BYTES })
    ok.grow(MAX_COLUMN_BYTES)
    expect(await writeFromThread(ok, MAX_COLUMN_VALUES)).toEqual({ length: 2 ** 29 - 1, first: 11, last: 42 })
    // What a column of exactly 2^29 values was: its writes never landed.
    const over = new Growable(0, { maxByteLength: 2 ** 32 })
    over.grow(2 ** 32)
    const lost = await writeFromThread(over, 2 ** 29)
    expect(lost.first === 11 && lost.last === 42).toBe(false)
  }, 30_000)
})

describe('rows a column holds', () => {
  it.each([2 ** 29 - 1, 2 ** 29 - 8, 1])('%d rows are held', (rows) => expect(() => checkColumnRows('t.parquet', rows)).not.toThrow())
  it.each([2 ** 29, 2 ** 30, 2 ** 31, 2 ** 31 - 1 + 2 ** 29, 2 ** 32, 2 ** 53])('%d rows are refused, naming the size', async (rows) => {
    const e = await refusal(() => checkColumnRows('t.parquet', rows))
    expect(e.code).toBe('invalid-input')
    expect(e.message).toContain(`t.parquet: ${rows} rows`)
    expect(e.message).toContain(`${2 ** 29 - 1} values`)
  })

  it('the CSV loader\'s ordered columns never make a buffer threads cannot be handed', () => {
    for (const [columns, maxValues] of [
      [1, 2 ** 29],
      [1, 2 ** 30],
      [1, 2 ** 32],
      [3, 2 ** 28],
      [3, 2 ** 29 - 1],
      [40_000, 1000],
      [2, 2 ** 31],
    ]) {
      const oc = createOrderedColumns(columns, 1, maxValues)
      expect(oc.capacity).toBeLessThanOrEqual(2 ** 29 - 1)
      for (const b of oc.buffers) expect(b.maxByteLength).toBeLessThanOrEqual(MAX_SHARED_BYTES)
      expect(oc.perBuffer * oc.capacity * 8).toBeLessThanOrEqual(MAX_SHARED_BYTES)
    }
  })
})

describe('memory for a table\'s columns, before any is allocated', () => {
  it('3 × 2^27 rows in 8 columns on a 23 GB machine: refused naming the need and what is available', async () => {
    const e = await refusal(() => checkTableMemory('rle.parquet', 3 * 2 ** 27, 8, 23e9))
    expect(e.message).toBe('rle.parquet: 8 columns of 402653184 rows need about 26 GB of memory as f64; 23 GB are available')
    expect(() => checkTableMemory('rle.parquet', 3 * 2 ** 27, 7, 23e9)).not.toThrow()
  })

  const parts = (rows: number) => ({
    path: 'claims.parquet',
    bytes: 608,
    header: ['a', 'b', 'c'],
    columns: ['a', 'b', 'c'],
    worker: 'no-such-worker',
    task: 'none',
    parts: [{ rowStart: 0, rows, bytes: 608 }],
    payload: () => ({}),
  })

  it('loadParts refuses metadata claiming more than the memory holds, before any thread starts', async () => {
    const e = await failure(loadParts({ ...parts(3 * 2 ** 27), memory: 8e9 }))
    expect(e.code).toBe('invalid-input')
    expect(e.message).toBe('claims.parquet: 3 columns of 402653184 rows need about 9.66 GB of memory as f64; 8.00 GB are available')
  })

  it.each([2 ** 29, 2 ** 30, 2 ** 31, 2 ** 32])('loadParts refuses %d rows (a column past 2^32 − 8 bytes) naming them', async (rows) => {
    const e = await failure(loadParts({ ...parts(rows), memory: 1e15 }))
    expect(e.message).toContain(`claims.parquet: ${rows} rows`)
  })
})

describe('.npy shapes', () => {
  const npy = (name: string, shape: string, descr = '<f8') => {
    let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`
    header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n'
    const b = Buffer.alloc(10 + header.length + 64)
    b.write('\x93NUMPY', 0, 'latin1')
    b[6] = 1
    b.writeUInt16LE(header.length, 8)
    b.write(header, 10, 'latin1')
    writeFileSync(join(dir, name), b)
    return join(dir, name)
  }

  it.each([
    ['(65536, 65537)', 2 ** 32 + 2 ** 16],
    ['(2, 2147483648)', 2 ** 32],
  ])('shape %s: past what an array holds is refused naming the values', async (shape, elements) => {
    const path = npy(`big${elements}.npy`, shape)
    const e = await failure(readNpyShape(path, 'rows'))
    if (elements > MAX_ARRAY_ELEMENTS) expect(e.message).toBe(`${path}: shape ${shape.replace(' ', ' ')} announces ${elements} values; an array holds at most ${2 ** 32} (2^32)`)
    else expect(e.message).toMatch(/truncated: shape .* needs 34359738368 bytes of data; the file holds 64/)
  })

  it.each(['(2, 268435456)', '(536870912, 1)', '(1073741824, 2)'])('shape %s is refused by what the file holds', async (shape) => {
    const path = npy('claims.npy', shape, '<f4')
    const e = await failure(readNpyShape(path, 'rows'))
    expect(e.message).toContain('truncated')
    expect(e.message).toContain('the file holds 64')
  })
})
