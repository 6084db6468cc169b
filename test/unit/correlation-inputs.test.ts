// Reading series for the correlation workload: CSV in both layouts, .npy 1.0 and 2.0 of <f4 and <f8
// in both layouts (as NumPy writes them: header padded to 64 bytes), the .npy writer's round trip,
// and every bad input the issue names, each an error naming the place.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { checkMatrixFits, checkMatrixWritable } from '../../src/main/workloads/correlation/limits'
import { loadSeries } from '../../src/main/workloads/correlation/load-series'
import { writeMatrixCsv, writeMatrixFile, writeMatrixNpy } from '../../src/main/workloads/correlation/write-matrix-file'
import { npyHeader, parseNpyHeader } from '../../src/main/workloads/correlation/npy'

const dir = mkdtempSync(join(tmpdir(), 'paralab-correlation-inputs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

const load = (path: string, layout: 'columns' | 'rows' = 'columns') => loadSeries(path, path, { layout, precision: 'f64' })

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

/** A .npy file exactly as NumPy 1.x/2.x writes one: magic, version, little-endian header length, dict padded with spaces to a multiple of 64, a line feed. */
function numpyFile(descr: string, shape: number[], data: Float64Array | Float32Array, opts: { version?: 1 | 2; fortran?: boolean } = {}): Uint8Array {
  const version = opts.version ?? 1
  const dict = `{'descr': '${descr}', 'fortran_order': ${opts.fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`
  const pre = version === 1 ? 10 : 12
  const total = Math.ceil((pre + dict.length + 1) / 64) * 64
  const header = Buffer.alloc(total, 0x20)
  header.write('\x93NUMPY', 0, 'latin1')
  header[6] = version
  header[7] = 0
  if (version === 1) header.writeUInt16LE(total - pre, 8)
  else header.writeUInt32LE(total - pre, 8)
  header.write(dict, pre, 'latin1')
  header[total - 1] = 0x0a
  return Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)])
}

describe('CSV', () => {
  it('reads a series per column under a header', async () => {
    const { series, format } = await load(file('cols.csv', 'a,b,c\n1,2,3\n4,5.5,-6\n7,8,9e1\n'))
    expect(format).toBe('csv')
    expect(series.names).toEqual(['a', 'b', 'c'])
    expect([series.m, series.n]).toEqual([3, 3])
    expect(Array.from(series.values)).toEqual([1, 4, 7, 2, 5.5, 8, 3, -6, 90])
  })

  it('reads a series per row, its name first, quoted fields and blank lines allowed', async () => {
    const { series } = await load(file('rows.csv', 'x,1,2,3\n\n"y, the second",4,5,6\r\nz,7,8,9\n'), 'rows')
    expect(series.names).toEqual(['x', 'y, the second', 'z'])
    expect(Array.from(series.values)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(Array.from(series.constant)).toEqual([0, 0, 0])
  })

  it('flags a constant series', async () => {
    const { series } = await load(file('constant.csv', 'a,b\n1,2\n1,3\n1,4\n'))
    expect(Array.from(series.constant)).toEqual([1, 0])
  })

  it.each([
    ['columns', 'a,b\n1,2\n3,x\n', 'bad-cell.csv:3:2: column "b": "x" is not a number'],
    ['columns', 'a,b\n1,2\n3,\n4,5\n', 'empty-cell.csv:3:2: column "b" is empty; every cell must hold a number'],
    ['columns', 'a\n1\n2\n', 'one-series.csv: 1 series; correlation needs at least 2'],
    ['columns', 'a,b\n1,2\n', 'one-sample.csv: series of 1 sample; correlation needs at least 2'],
    ['rows', 'p,1,2,3\nq,4,5\n', 'ragged.csv:2: series "q" has 2 values; series "p" (line 1) has 3'],
    ['rows', 'p,1,2\nq,4,zz\n', 'rows-bad.csv:2:3: series "q", column 3: "zz" is not a number'],
    ['rows', 'p,1,2\nq,4, \n', 'rows-empty.csv:2:3: series "q", column 3 is empty'],
    ['rows', 'name,t0,t1\np,1,2\n', 'header.csv:1:2: series "name", column 2: "t0" is not a number (the rows layout has no header line)'],
    ['rows', 'p,1,2\np,3,4\n', 'twice.csv:2: series "p" is named already on line 1'],
    ['rows', 'p,1,2\n', 'one-row.csv: 1 series; correlation needs at least 2'],
  ] as const)('%s layout: refuses %j naming the place', async (layout, content, message) => {
    const name = message.split(':')[0]
    const e = await failure(load(file(name, content), layout))
    expect(e.code).toBe('invalid-input')
    expect(e.message).toContain(message)
    expect(e.message).toContain(join(dir, name))
  })

  it('reads the accelerometer sample without its timestamp column, and refuses that column when asked for it', async () => {
    const sample = resolve(__dirname, '../../../shared/data/accelerometer/ACC_016_head.csv')
    const loaded = await loadSeries(sample, sample, { layout: 'columns', precision: 'f64' })
    expect(loaded.series.names).toEqual(['acc_x', 'acc_y', 'acc_z'])
    expect(loaded.leftOut).toEqual(['datetime'])
    const e = await failure(loadSeries(sample, sample, { layout: 'columns', precision: 'f64', columns: ['datetime', 'acc_x'] }))
    expect(e.message).toMatch(/ACC_016_head\.csv:2:1: column "datetime": "2020-[^"]+" is not a number/)
  })
})

describe('.npy', () => {
  const data = Float64Array.from({ length: 12 }, (_, i) => i * 1.5 - 4)

  it('reads <f8 and <f4, versions 1.0 and 2.0, as NumPy writes them, in both layouts', async () => {
    const rows = await load(file('rows.npy', numpyFile('<f8', [3, 4], data)), 'rows')
    expect([rows.series.m, rows.series.n, rows.format]).toEqual([3, 4, 'npy'])
    expect(rows.series.names).toEqual(['s0', 's1', 's2'])
    expect(Array.from(rows.series.values)).toEqual(Array.from(data))
    // Columns: file row k is sample k of every series.
    const cols = await load(file('cols.npy', numpyFile('<f4', [3, 4], Float32Array.from(data), { version: 2 })))
    expect([cols.series.m, cols.series.n]).toEqual([4, 3])
    expect(Array.from(cols.series.values)).toEqual([0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11].map((i) => data[i]))
  })

  it.each([
    ['dtype.npy', () => numpyFile('<i4', [2, 2], new Float32Array(4)), 'dtype <i4; only little-endian floats <f4 (float32) and <f8 (float64) are read'],
    ['big-endian.npy', () => numpyFile('>f8', [2, 2], new Float64Array(4)), 'dtype >f8'],
    ['fortran.npy', () => numpyFile('<f8', [2, 2], new Float64Array(4), { fortran: true }), 'Fortran order'],
    ['rank.npy', () => numpyFile('<f8', [2, 2, 2], new Float64Array(8)), 'a 3-D array of shape (2, 2, 2); a 2-D array is read'],
    ['truncated.npy', () => numpyFile('<f8', [3, 4], new Float64Array(11)), 'truncated: shape (3, 4) of <f8 needs 96 bytes of data; the file holds 88'],
    ['nan.npy', () => numpyFile('<f8', [2, 3], Float64Array.of(1, 2, 3, 4, NaN, 6)), 'series 1 (s1), sample 1 is NaN'],
    ['text.npy', () => new TextEncoder().encode('a,b\n1,2\n'), 'not a NumPy .npy file'],
    ['one-sample.npy', () => numpyFile('<f8', [3, 1], new Float64Array(3)), 'series of 1 sample; correlation needs at least 2'],
  ] as const)('refuses %s', async (name, bytes, message) => {
    const e = await failure(load(file(name, bytes()), 'rows'))
    expect(e.code).toBe('invalid-input')
    expect(e.message).toContain(message)
  })

  it('writes headers NumPy reads: padded so the data starts at a multiple of 64, parsed back', () => {
    for (const shape of [[3, 4], [65_536, 70_000]]) {
      const h = npyHeader('<f8', shape)
      expect(h.length % 64).toBe(0)
      expect(h[h.length - 1]).toBe(0x0a)
      const parsed = parseNpyHeader('x.npy', h)
      expect(parsed).toEqual({ version: 1, descr: '<f8', fortranOrder: false, shape, dataOffset: h.length })
    }
  })

  it('round-trips a matrix through --matrix, <f8 and <f4, and never over an existing file', async () => {
    const m = 3
    const r = Float64Array.of(1, 0.5, NaN, 0.5, 1, -0.25, NaN, -0.25, 1)
    const path = join(dir, 'matrix.npy')
    expect(await writeMatrixNpy(path, r, m)).toEqual({ path, bytes: 128 + 72, dtype: '<f8' })
    const bytes = new Uint8Array(readFileSync(path))
    expect(parseNpyHeader(path, bytes)).toEqual({ version: 1, descr: '<f8', fortranOrder: false, shape: [3, 3], dataOffset: 128 })
    // NaN is a matrix cell (a constant series) though no input value: compare the raw data.
    expect(new Float64Array(bytes.buffer.slice(128))).toEqual(r)
    await expect(writeMatrixNpy(path, r, m)).rejects.toThrow('exists')
    const path32 = join(dir, 'matrix32.npy')
    expect((await writeMatrixNpy(path32, Float32Array.from(r), m)).dtype).toBe('<f4')
    expect(new Float32Array(new Uint8Array(readFileSync(path32)).buffer.slice(128))).toEqual(Float32Array.from(r))
  })
})

describe('the matrix as CSV', () => {
  it('names both sides, leaves undefined r empty, writes f32 in its shortest digits', async () => {
    const r = Float64Array.of(1, 0.5, NaN, 0.5, 1, -0.25, NaN, -0.25, 1)
    const path = join(dir, 'matrix.csv')
    const written = await writeMatrixFile(path, r, 3, ['a', 'b,c', '=d'])
    const text = readFileSync(path, 'utf8')
    expect(text).toBe(`r,a,"b,c",'=d\na,1,0.5,\n"b,c",0.5,1,-0.25\n'=d,,-0.25,1\n`)
    expect(written).toEqual({ path, bytes: text.length, dtype: '<f8' })
    const path32 = join(dir, 'matrix32.csv')
    await writeMatrixCsv(path32, Float32Array.from([1, 0.1, 0.1, 1]), 2, ['x', 'y'])
    expect(readFileSync(path32, 'utf8')).toBe('r,x,y\nx,1,0.1\ny,0.1,1\n')
  })

  // 1 500 series: a 2.25 M-cell matrix, ~45 MB of text, held a piece at a time.
  it('streams a matrix of 1 500 series (what it holds at a time: csv-matrix.test.ts)', async () => {
    const m = 1500
    const r = new Float64Array(m * m).map((_, k) => Math.sin(k) / 3)
    const path = join(dir, 'big.csv')
    const { bytes } = await writeMatrixCsv(path, r, m, Array.from({ length: m }, (_, i) => `s${i}`))
    expect(bytes).toBeGreaterThan(40e6)
    const lines = readFileSync(path, 'latin1').split('\n')
    expect(lines.length).toBe(m + 2)
    expect(Number(lines[2].split(',')[3])).toBe(r[m + 2])
  })
})

describe('sizes', () => {
  it('refuses a matrix that memory cannot hold, saying how much it needs', () => {
    expect(() => checkMatrixFits('big.npy', 100_000, 10, 'f64')).toThrow(/big\.npy: 100000 series make a 100000 × 100000 matrix/)
    expect(() => checkMatrixFits('big.npy', 50_000, 100, 'f64', 8e9)).toThrow(
      'big.npy: 50000 series of 100 samples need about 40 GB of memory (the 50000 × 50000 f64 matrix takes 20 GB); 8.00 GB are available',
    )
    expect(() => checkMatrixFits('ok.npy', 1000, 100, 'f32', 8e9)).not.toThrow()
  })

  it('refuses a matrix file the disk cannot take, or that is no .npy', async () => {
    await expect(checkMatrixWritable(join(dir, 'm.npy'), 2 ** 24, 'f64')).rejects.toThrow(/the 16777216 × 16777216 f64 matrix needs [\d.]+ GB; [\d.]+ GB are free there/)
    await expect(checkMatrixWritable(join(dir, 'm.txt'), 3, 'f64')).rejects.toThrow('must end in .npy or .csv')
    await expect(checkMatrixWritable(join(dir, 'no/such/m.npy'), 3, 'f64')).rejects.toThrow('does not exist')
  })
})
