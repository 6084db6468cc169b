// The landslide's files: ESRI ASCII grids and the study's header/DEM/source files read with errors
// that name the file, line and column; the reference output format byte for byte (C's "%f"); the
// .asc and .npy writers, read back.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseGrid, parseHeader, splitLines } from '../../src/main/workloads/landslide/esri-grid'
import { ascBytes, ascText, npyBytes } from '../../src/main/workloads/landslide/grid-writers'
import { parseLandslideInput, readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { formatF, md5Hex, referenceText } from '../../src/main/workloads/landslide/reference-format'

const DATA = join(__dirname, '../../../shared/data/landslide')
const dir = mkdtempSync(join(tmpdir(), 'paralab-landslide-grids-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const text = (shown: string, content: string) => ({ shown, lines: splitLines(content) })
const HEADER = 'ncols\t\t3\nnrows\t\t3\nxllcorner\t0.0\nyllcorner\t0.0\ncellsize\t10.0\nNODATA_value\t-9999\n'
const asc = (rows: string) => HEADER.replace(/\t+/g, ' ') + rows

describe('reading grids', () => {
  it('reads the study\'s toy grid: its header (tabs), the DEM and the source, the header found among the three wherever it is', async () => {
    const files = ['test_dem.txt', 'test_header.txt', 'test_source.txt'].map((f) => join(DATA, f))
    const input = await readLandslideInput(files, files)
    expect(input).toMatchObject({ rows: 10, cols: 5, wallCount: 0, walls: null, files: { header: files[1], dem: files[0], source: files[2] } })
    expect(input.header).toMatchObject({ ncols: 5, nrows: 10, cellsize: 10, nodata: 0 })
    expect(input.z[5 * 5 + 2]).toBe(2)
    expect(Array.from({ length: 10 }, (_, i) => input.h[i * 5])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('reads two .asc grids with headers separated by spaces; NODATA in the DEM makes walls, in the source no debris', () => {
    const dem = asc('1 2 3\n4 -9999 6\n7 8 9\n')
    const source = asc('0 0 0\n0 -9999 0.5\n0 0 0\n')
    const input = parseLandslideInput([text('dem.asc', dem), text('src.asc', source)])
    expect(input.wallCount).toBe(1)
    expect(Array.from(input.walls!)).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0])
    expect(Array.from(input.h)).toEqual([0, 0, 0, 0, 0, 0.5, 0, 0, 0])
    expect(input.files).toEqual({ dem: 'dem.asc', source: 'src.asc' })
  })

  it('names both sizes when the grids differ', () => {
    const small = asc('1 2 3\n4 5 6\n7 8 9\n')
    const wide = small.replace('ncols 3', 'ncols 4').replace(/\n(\d) (\d) (\d)/g, '\n$1 $2 $3 0')
    expect(() => parseLandslideInput([text('dem.asc', small), text('src.asc', wide)])).toThrow(
      'the grids differ in size: the DEM dem.asc is 3 × 3 (rows × columns), the source src.asc is 3 × 4 (rows × columns)',
    )
  })

  it('names a missing header key, a bad value and an unknown key', () => {
    const lines = (s: string) => splitLines(s)
    expect(() => parseHeader('h.txt', lines(HEADER.replace('cellsize\t10.0\n', '')))).toThrow('h.txt: the header has no cellsize')
    expect(() => parseHeader('h.txt', lines(HEADER.replace('nrows\t\t3', 'nrows\t\tthree')))).toThrow('h.txt:2: nrows must be a positive whole number, got "three"')
    expect(() => parseHeader('h.txt', lines(HEADER.replace('cellsize\t10.0', 'cellsize\t-1')))).toThrow('h.txt:5: cellsize must be a positive number, got "-1"')
    expect(() => parseHeader('h.txt', lines(HEADER.replace('xllcorner\t0.0', 'xllcorner\t0.0abc')))).toThrow('h.txt:3: xllcorner must be a number, got "0.0abc"')
    expect(() => parseHeader('h.txt', lines('colour 3\n' + HEADER))).toThrow('h.txt:1: unknown header key "colour"')
  })

  it('names the line of a row with too few or too many values, and of rows too many; the count of rows too few', () => {
    const header = { ncols: 3, nrows: 2 }
    expect(() => parseGrid('g.txt', splitLines('1 2 3\n4 5\n'), 0, header)).toThrow('g.txt:2: 2 values in this row, the header\'s ncols is 3')
    expect(() => parseGrid('g.txt', splitLines('1 2 3 4\n'), 0, header)).toThrow('g.txt:1: more than ncols 3 values in this row')
    expect(() => parseGrid('g.txt', splitLines('1 2 3\n4 5 6\n7 8 9\n'), 0, header)).toThrow('g.txt:3: more rows than the header\'s nrows 2')
    expect(() => parseGrid('g.txt', splitLines('1 2 3\n'), 0, header)).toThrow('g.txt: 1 rows, the header\'s nrows is 2')
    // Blank lines and CRLF endings are fine.
    expect(Array.from(parseGrid('g.txt', splitLines('\r\n1\t2 3\r\n\r\n4 5 6  \r\n'), 0, header))).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('names the line and column of a value that is no number, and of a negative thickness', () => {
    const dem = asc('1 2 3\n4 5 6\n7 8 9\n')
    expect(() => parseLandslideInput([text('dem.asc', dem.replace('4 5 6', '4 5x 6')), text('src.asc', asc('0 0 0\n0 0 0\n0 0 0\n'))])).toThrow('dem.asc:8:3: "5x" is not a number')
    expect(() => parseLandslideInput([text('dem.asc', dem), text('src.asc', asc('0 0 0\n0 0  -0.5\n0 0 0\n'))])).toThrow('src.asc:8:6: negative thickness -0.5')
  })

  it('refuses, before allocating, a header announcing more cells than the file holds, and values whose sums would overflow', () => {
    expect(() => parseGrid('g.txt', splitLines('1 2 3\n4 5 6\n'), 0, { ncols: 1e9, nrows: 2 })).toThrow('g.txt: its longest row has room for at most 3 values, the header\'s ncols is 1000000000')
    expect(() => parseGrid('g.txt', splitLines('1 2 3\n4 5 6\n'), 0, { ncols: 3, nrows: 1e9 })).toThrow('g.txt: 2 rows, the header\'s nrows is 1000000000')
    const dem = asc('1 2 3\n4 5 6\n7 8 9\n')
    const source = text('src.asc', asc('0 0 0\n0 1 0\n0 0 0\n'))
    expect(() => parseLandslideInput([text('dem.asc', dem.replace('4 5 6', '4 1e308 6')), source])).toThrow('dem.asc:8:3: "1e308" is out of range (at most 1000000000000 in magnitude)')
    expect(() => parseLandslideInput([text('dem.asc', dem), text('src.asc', asc('0 0 0\n0 1e400 0\n0 0 0\n'))])).toThrow('src.asc:8:3: "1e400" is out of range')
  })

  it('asks for the header when a grid has none, and for one header among three files', () => {
    const bare = '1 2 3\n4 5 6\n7 8 9\n'
    expect(() => parseLandslideInput([text('dem.txt', bare), text('src.asc', asc(bare))])).toThrow('dem.txt: has no header: give the header file too')
    expect(() => parseLandslideInput([text('a.asc', asc(bare)), text('b.asc', asc(bare)), text('c.asc', asc(bare))])).toThrow('of three files, one must be the header (a file without a grid): none is')
    expect(() => parseLandslideInput([text('a.asc', asc(bare))])).toThrow('got 1 file')
  })
})

describe('the reference output format', () => {
  it('prints as C\'s %f: six decimals, exact ties to even, negative zero signed', () => {
    expect(formatF(0)).toBe('0.000000')
    expect(formatF(-0)).toBe('-0.000000')
    expect(formatF(1234.5)).toBe('1234.500000')
    expect(formatF(1e-7)).toBe('0.000000')
    expect(formatF(-1e-7)).toBe('-0.000000')
    expect(formatF(0.1234565)).toBe('0.123456') // no tie in binary: the double lies just below …65
    // Exact binary ties: odd multiples of 1/128 (printf rounds them to even, toFixed would round up).
    expect(formatF(1 / 128)).toBe('0.007812')
    expect(formatF(3 / 128)).toBe('0.023438')
    expect(formatF(-1 / 128)).toBe('-0.007812')
    expect(formatF(1 + 5 / 128)).toBe('1.039062')
    expect(formatF(2 / 128)).toBe('0.015625')
  })

  it('writes each value followed by two spaces and a newline after each row', () => {
    const h = new Float64Array([0, 0.5, 1, 2.25])
    expect(referenceText(h, 2, 2)).toBe('0.000000  0.500000  \n1.000000  2.250000  \n')
    expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e')
  })
})

describe('writing grids for other tools', () => {
  it('writes an .asc with the DEM\'s header that reads back to the same values, walls as NODATA', () => {
    const dem = asc('1 2 3\n4 -9999 6\n7 8 9\n')
    const input = parseLandslideInput([text('dem.asc', dem), text('src.asc', asc('0 0 0\n0 0 0\n0 0 0\n'))])
    const h = new Float64Array([0, 0.1 + 0.2, 1 / 3, 1e-20, 0, 5, 1234.5678, 0, 2])
    const out = ascText(h, input.header, input.walls)
    // The dashboard's download: the same text, encoded a row at a time.
    expect(new TextDecoder().decode(ascBytes(h, input.header, input.walls))).toBe(out)
    expect(out.split('\n').slice(0, 6)).toEqual(['ncols        3', 'nrows        3', 'xllcorner    0.0', 'yllcorner    0.0', 'cellsize     10.0', 'NODATA_value -9999'])
    const lines = splitLines(out)
    const { header, next } = parseHeader('out.asc', lines)
    expect(header).toMatchObject({ ncols: 3, nrows: 3, cellsize: 10, nodata: -9999 })
    const back = parseGrid('out.asc', lines, next, header)
    expect(Array.from(back)).toEqual([0, 0.1 + 0.2, 1 / 3, 1e-20, -9999, 5, 1234.5678, 0, 2])
  })

  it('writes dry cells as 0 and walls as NODATA_value -9999 whatever the DEM\'s NODATA (the study\'s 0.0), so a GIS reads dry cells as data', () => {
    const zeroNodata = HEADER.replace('-9999', '0.0').replace(/\t+/g, ' ')
    const input = parseLandslideInput([text('dem.asc', zeroNodata + '1 2 3\n4 0.0 6\n7 8 9\n'), text('src.asc', asc('0 0 0\n0 0 0\n0 0 0\n'))])
    expect(input.wallCount).toBe(1)
    const out = ascText(new Float64Array([0, 0.5, 0, 0, 0, 2, 0, 0, 0]), input.header, input.walls)
    expect(out.split('\n')[5]).toBe('NODATA_value -9999')
    expect(out.split('\n').slice(6, 9)).toEqual(['0 0.5 0', '0 -9999 2', '0 0 0'])
    // Without a NODATA key in the DEM's header (no walls then), the key is added all the same.
    const bare = parseLandslideInput([text('dem.asc', HEADER.replace(/NODATA_value.*\n/, '').replace(/\t+/g, ' ') + '1 2 3\n4 5 6\n7 8 9\n'), text('src.asc', asc('0 0 0\n0 0 0\n0 0 0\n'))])
    expect(ascText(new Float64Array(9), bare.header, bare.walls).split('\n')[5]).toBe('NODATA_value -9999')
  })

  it('writes a .npy NumPy reads: magic, version 1.0, a 64-byte aligned header, float64 values', () => {
    const h = new Float64Array([1.5, -2, 3e-9, 4, 5, 6])
    const bytes = npyBytes(h, 2, 3, null)
    const file = join(dir, 'h.npy')
    writeFileSync(file, bytes)
    expect(Array.from(bytes.subarray(0, 8))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0])
    const headerLength = bytes[8] | (bytes[9] << 8)
    expect((10 + headerLength) % 64).toBe(0)
    const header = new TextDecoder().decode(bytes.subarray(10, 10 + headerLength))
    expect(header).toMatch(/^\{'descr': '<f8', 'fortran_order': False, 'shape': \(2, 3\), \} *\n$/)
    expect(Array.from(new Float64Array(bytes.slice(10 + headerLength).buffer))).toEqual(Array.from(h))
  })
})
