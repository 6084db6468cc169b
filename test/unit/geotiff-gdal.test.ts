// GeoTIFFs as GDAL writes them every day, compared with GDAL's reading: sparse tiles and strips
// (never written: NODATA, or 0 without one), ZSTD, south-up grids (a positive y cell size). Then
// what a hostile file may claim: a tile far larger than its raster decodes only the rows that hold
// the raster's cells, off the event loop, in bounded time and memory, and a cancel ends it; a
// fractional ImageWidth is named with its value; sizes at 2²⁹, 2³¹ − 1 and 2³² cells and bytes,
// tile counts, strip byte counts and BigTIFF's 64-bit offsets are refused naming the size, before
// anything is allocated for them.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDeflate } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkCells, readRaster } from '../../src/main/io/geotiff/read-raster'
import { entryIntegers, tiffStructure } from '../../src/main/io/geotiff/tiff-structure'
import { rasterGrid } from '../../src/main/workloads/landslide/raster-input'
import { cellsDiffering, gdalReading, maskDiffering } from '../helpers/gdal-raster'
import { DATA, DOUBLE, LONG, SHORT, tiffBytes, type TiffEntry } from '../helpers/tiff-bytes'
import { watchEventLoop } from '../helpers/event-loop'

const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-gdal-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const gdal = (...args: string[]) => execFileSync('gdal_translate', ['-q', ...args], { stdio: 'pipe' })

/** The byte counts of a TIFF's blocks, as its IFD holds them. */
async function blockCounts(path: string): Promise<number[]> {
  const f = await open(path)
  try {
    const s = await tiffStructure(path, f, (await f.stat()).size)
    return Array.from((await entryIntegers(f, s, s.entries.some((e) => e.tag === 325) ? 325 : 279))!)
  } finally {
    await f.close()
  }
}

/** Reads `name` as the landslide does and as GDAL does: equal cells, NODATA and placement. */
async function sameAsGdal(name: string): Promise<void> {
  const grid = await rasterGrid(name, at(name))
  const g = gdalReading(at(name), at(`${name}.gdal`))
  expect([grid.rows, grid.cols]).toEqual([g.h, g.w])
  expect(cellsDiffering(grid.values, g)).toBe(0)
  expect(maskDiffering(grid.values, grid.nodata, g)).toBe(0)
  expect(grid.west).toBe(g.gt[0])
  expect(grid.south).toBe(g.gt[5] > 0 ? g.gt[3] : g.gt[3] + g.h * g.gt[5])
}

beforeAll(() => {
  // A 70 × 50 grid of 10 m cells whose upper-left 32 × 32 cells are NODATA (-9999), or 0 in the copy without one.
  const rows: string[] = []
  for (let r = 0; r < 50; r++) rows.push(Array.from({ length: 70 }, (_, c) => (r < 32 && c < 32 ? -9999 : 100 + r * 0.5 + c * 0.25)).join(' '))
  const header = 'ncols 70\nnrows 50\nxllcorner 1000\nyllcorner 2000\ncellsize 10\n'
  writeFileSync(at('grid.asc'), `${header}NODATA_value -9999\n${rows.join('\n')}\n`)
  writeFileSync(at('zeros.asc'), `${header}${rows.join('\n').replaceAll('-9999', '0')}\n`)
})

describe('GeoTIFFs as GDAL writes them', () => {
  it('sparse tiles (SPARSE_OK): never written, read as NODATA — walls — as GDAL reads them', async () => {
    gdal('-ot', 'Float32', '-co', 'SPARSE_OK=TRUE', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16', at('grid.asc'), at('sparse-tiles.tif'))
    expect((await blockCounts(at('sparse-tiles.tif'))).filter((n) => n === 0).length).toBe(4)
    await sameAsGdal('sparse-tiles.tif')
    const grid = await rasterGrid('sparse-tiles.tif', at('sparse-tiles.tif'))
    expect(grid.nodata).toBe(-9999)
    expect(grid.values.filter((v) => v === -9999).length).toBe(32 * 32)
  })

  it('sparse strips without NODATA: read as 0, as GDAL reads them', async () => {
    // A strip is left unwritten where all its rows are zero: rows 0–15 of the grid made so (strips 0 and 1).
    const zeroRows = readFileSync(at('zeros.asc'), 'utf8').split('\n').map((l, i) => (i >= 5 && i < 5 + 16 ? l.replace(/[-\d.]+/g, '0') : l)).join('\n')
    writeFileSync(at('zero-rows.asc'), zeroRows)
    gdal('-ot', 'Int16', '-co', 'SPARSE_OK=TRUE', '-co', 'BLOCKYSIZE=8', '-co', 'COMPRESS=DEFLATE', at('zero-rows.asc'), at('sparse-strips.tif'))
    expect((await blockCounts(at('sparse-strips.tif'))).filter((n) => n === 0).length).toBe(2)
    await sameAsGdal('sparse-strips.tif')
    expect((await rasterGrid('sparse-strips.tif', at('sparse-strips.tif'))).nodata).toBeNull()
  })

  it.each([
    ['float32, strips', ['-ot', 'Float32']],
    ['float32, tiled, floating-point predictor', ['-ot', 'Float32', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=32', '-co', 'BLOCKYSIZE=16', '-co', 'PREDICTOR=3']],
    ['int16, horizontal predictor, big-endian', ['-ot', 'Int16', '-co', 'PREDICTOR=2', '-co', 'ENDIANNESS=BIG']],
    ['float64, BigTIFF, level 19', ['-ot', 'Float64', '-co', 'BIGTIFF=YES', '-co', 'ZSTD_LEVEL=19']],
  ])('ZSTD (%s): as GDAL reads it', async (name, options) => {
    const file = `zstd-${name.replace(/\W+/g, '-')}.tif`
    gdal(...options, '-co', 'COMPRESS=ZSTD', at('grid.asc'), at(file))
    expect((await readRaster(file, at(file))).compression).toBe('ZSTD')
    await sameAsGdal(file)
  })

  it('a south-up grid (positive y cell size, gdal_translate -a_ullr): read north row first, placed where GDAL places it', async () => {
    // Upper-left y below lower-right y: GDAL writes the rows south first.
    gdal('-ot', 'Float32', '-a_ullr', '1000', '2000', '1700', '2500', at('grid.asc'), at('south-up.tif'))
    gdal('-ot', 'Float32', '-a_ullr', '1000', '2500', '1700', '2000', at('grid.asc'), at('north-up.tif'))
    expect(gdalReading(at('south-up.tif'), at('su')).gt[5]).toBe(10)
    await sameAsGdal('south-up.tif')
    const south = await rasterGrid('south-up.tif', at('south-up.tif'))
    const north = await rasterGrid('north-up.tif', at('north-up.tif'))
    expect([south.west, south.south, south.cellsize]).toEqual([1000, 2000, 10])
    // The same file rows, placed upside down: its north row is the other's south row.
    expect(Array.from(south.values.subarray(0, 70))).toEqual(Array.from(north.values.subarray(49 * 70)))
    // Its tags, written beside derived grids, say north up.
    expect(south.geo).toMatchObject({ pixelScale: [10, 10, 0], tiepoint: [0, 0, 0, 1000, 2500, 0], transformation: undefined })
  })
})

/** A float32 raster of `width` × `height` in tiles of `tile` × `tileHigh`, each tile's bytes `data`. */
function tiledRaster(width: number, height: number, tile: number, tileHigh: number, compression: number, counts: number[]): TiffEntry[] {
  return [
    { tag: 256, type: LONG, values: [width] },
    { tag: 257, type: LONG, values: [height] },
    { tag: 258, type: SHORT, values: [32] },
    { tag: 259, type: SHORT, values: [compression] },
    { tag: 262, type: SHORT, values: [1] },
    { tag: 277, type: SHORT, values: [1] },
    { tag: 322, type: LONG, values: [tile] },
    { tag: 323, type: LONG, values: [tileHigh] },
    { tag: 324, type: LONG, values: counts.map(() => DATA) },
    { tag: 325, type: LONG, values: counts },
    { tag: 339, type: SHORT, values: [3] },
    { tag: 33550, type: DOUBLE, values: [10, 10, 0] },
    { tag: 33922, type: DOUBLE, values: [0, 0, 0, 0, height * 10, 0] },
  ]
}

/** Deflate of a 16384² float32 tile: its first 3 rows hold 1…3 in the first 3 cells, the rest zeros (1 GiB). */
async function hugeTile(): Promise<Buffer> {
  const parts: Buffer[] = []
  const z = createDeflate({ level: 1, chunkSize: 1 << 20 })
  z.on('data', (b: Buffer) => parts.push(b))
  const done = new Promise((resolve) => z.on('end', resolve))
  const row = Buffer.alloc(16384 * 4)
  for (let r = 0; r < 3; r++) {
    const first = Buffer.alloc(16384 * 4)
    for (let c = 0; c < 3; c++) first.writeFloatLE(r * 3 + c + 1, c * 4)
    z.write(first)
  }
  const zeros = Buffer.alloc(2 ** 24)
  for (let k = 0; k < (2 ** 30 - 3 * row.length) / zeros.length; k++) await new Promise((resolve) => z.write(zeros, resolve))
  z.write(Buffer.alloc((2 ** 30 - 3 * row.length) % zeros.length))
  z.end()
  await done
  return Buffer.concat(parts)
}

describe('a block far larger than its raster', () => {
  let tile: Buffer
  beforeAll(async () => {
    tile = await hugeTile()
    writeFileSync(at('huge-tile.tif'), tiffBytes(tiledRaster(3, 3, 16384, 16384, 8, [tile.length]), tile))
  }, 120_000)

  it('a 3 × 3 raster in one 16 384² deflate tile: its 3 rows decoded, not 1 GiB; the event loop answers; memory bounded', async () => {
    const loop = watchEventLoop()
    let longest = 0
    const rss = process.memoryUsage().rss
    const t0 = performance.now()
    try {
      const r = await readRaster('huge-tile.tif', at('huge-tile.tif'))
      expect(Array.from(r.values)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    } finally {
      longest = loop.stop()
    }
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(longest).toBeLessThan(500)
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 2 ** 20)
  })

  it('a tile whose rows over a 3 × 3 raster take more than the slack is refused naming the sizes, before decoding', async () => {
    writeFileSync(at('wide-tile.tif'), tiffBytes(tiledRaster(3, 3, 2 ** 24, 16, 8, [tile.length]), tile))
    await expect(readRaster('wide-tile.tif', at('wide-tile.tif'))).rejects.toThrow(
      'wide-tile.tif: IFD at byte 8, tile 0: 16777216 × 16 cells of which 3 × 3 lie in the raster: its rows there take 201326592 bytes, more than 16777216 beyond the raster\'s cells',
    )
  })

  it('a cancel ends the decoding of a large raster within a second', async () => {
    gdal('-ot', 'Float64', '-co', 'COMPRESS=LZW', '-outsize', '4000%', '4000%', at('grid.asc'), at('large.tif'))
    const controller = new AbortController()
    const read = readRaster('large.tif', at('large.tif'), { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const t0 = performance.now()
    controller.abort()
    await expect(read).rejects.toThrow('cancelled')
    expect(performance.now() - t0).toBeLessThan(1000)
  }, 60_000)
})

describe('what a tag may claim', () => {
  const base = (w: number, h: number, extra: TiffEntry[] = []) => {
    const entries: TiffEntry[] = [
      { tag: 256, type: LONG, values: [w] },
      { tag: 257, type: LONG, values: [h] },
      { tag: 258, type: SHORT, values: [32] },
      { tag: 259, type: SHORT, values: [1] },
      { tag: 262, type: SHORT, values: [1] },
      { tag: 273, type: LONG, values: [DATA] },
      { tag: 277, type: SHORT, values: [1] },
      { tag: 278, type: LONG, values: [h] },
      { tag: 279, type: LONG, values: [64] },
      { tag: 339, type: SHORT, values: [3] },
    ]
    for (const e of extra) entries.splice(entries.findIndex((x) => x.tag === e.tag), 1, e)
    return tiffBytes(entries, new Uint8Array(64))
  }
  const refusal = async (name: string, bytes: Uint8Array) => {
    writeFileSync(at(name), bytes)
    const rss = process.memoryUsage().rss
    const e = await readRaster(name, at(name)).then(() => null, (x: Error) => x)
    expect(process.memoryUsage().rss - rss).toBeLessThan(32 * 2 ** 20)
    return e?.message
  }

  it('a fractional ImageWidth names the file, the tag and the value', async () => {
    expect(await refusal('frac.tif', base(4, 4, [{ tag: 256, type: DOUBLE, values: [3.5] }]))).toBe('frac.tif: IFD at byte 8, ImageWidth (256): 3.5 (field type DOUBLE) is not a count: a whole SHORT or LONG is')
  })

  it('2³¹ − 1 and 2³² − 1 cells, 2²⁹ cells past the memory available: refused naming the size', async () => {
    expect(await refusal('wide.tif', base(2 ** 31 - 1, 1))).toBe('wide.tif: IFD at byte 8: announces 2147483647 × 1 cells, more than the 268435456 a raster may have here')
    expect(await refusal('tall.tif', base(65535, 65537))).toBe('tall.tif: IFD at byte 8: announces 65535 × 65537 cells, more than the 268435456 a raster may have here')
    // The arithmetic at the boundaries, with the limits as given: no memory needed.
    expect(() => checkCells('x.tif', 'IFD at byte 8', 2 ** 15, 2 ** 14, 2 ** 32, 4e9)).toThrow('x.tif: IFD at byte 8: announces 32768 × 16384 cells, 4.3 GB as float64; 4.0 GB are available')
    expect(() => checkCells('x.tif', 'IFD at byte 8', 2 ** 16, 2 ** 16, 2 ** 32, 1e12)).not.toThrow()
    expect(() => checkCells('x.tif', 'IFD at byte 8', 2 ** 16, 2 ** 16 + 1, 2 ** 32, 1e12)).toThrow('announces 65536 × 65537 cells, more than the 4294967296')
    expect(() => checkCells('x.tif', 'IFD at byte 8', 2 ** 14, 2 ** 14, 2 ** 28, 4e9)).not.toThrow()
    expect(() => checkCells('x.tif', 'IFD at byte 8', 2 ** 14, 2 ** 14 + 1, 2 ** 28, 4e9)).toThrow('more than the 268435456')
  })

  it('a strip of 2³² − 1 bytes, a strip at byte 0, a tile count short of 2²⁸ tiles: refused before allocating', async () => {
    expect(await refusal('count.tif', base(4, 4, [{ tag: 279, type: LONG, values: [2 ** 32 - 1] }]))).toMatch(/^count\.tif: IFD at byte 8, strip 0: its 4294967295 bytes at byte \d+ run past the end of the file \(\d+ bytes\)$/)
    expect(await refusal('zero.tif', base(4, 4, [{ tag: 273, type: LONG, values: [0] }]))).toBe('zero.tif: IFD at byte 8, strip 0: its 64 bytes at byte 0 lie in the file\'s header')
    const tiles = tiffBytes(tiledRaster(2 ** 14, 2 ** 14, 1, 1, 1, [64]), new Uint8Array(64))
    expect(await refusal('tiles.tif', tiles)).toBe('tiles.tif: IFD at byte 8, TileOffsets (324): 1 values for the 268435456 tiles of 16384 × 16384 cells in 1 × 1 tiles')
  })

  it('BigTIFF: 64-bit strip offsets at 2³², 2⁵³ and 2⁶⁴ − 1 are refused as past the end', async () => {
    gdal('-ot', 'Float32', '-co', 'BIGTIFF=YES', at('grid.asc'), at('big.tif'))
    const bytes = readFileSync(at('big.tif'))
    const f = await open(at('big.tif'))
    const s = await tiffStructure('big.tif', f, bytes.length)
    await f.close()
    const offsets = s.entries.find((e) => e.tag === 273)!
    expect([s.bigTiff, offsets.type]).toEqual([true, 16])
    for (const v of [2n ** 32n, 2n ** 53n, 2n ** 64n - 1n]) {
      const b = Buffer.from(bytes)
      b.writeBigUInt64LE(v, offsets.at)
      const message = await refusal('big64.tif', b)
      if (v < 2n ** 53n) expect(message).toMatch(new RegExp(`^big64\\.tif: IFD at byte 16, strip 0: its \\d+ bytes at byte ${v} run past the end of the file`))
      else expect(message).toBe(`big64.tif: IFD at byte 16, StripOffsets (273): value 0, ${v}, is past any file's size (2^53 bytes)`)
    }
  })
})
