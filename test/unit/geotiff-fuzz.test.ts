// Hostile GeoTIFFs: seeded mutations (flipped bytes, truncations, counts and offsets set to 0, 2²⁹,
// 2³¹ − 1, 2³², …) of small files GDAL writes at set-up — strips and tiles; none, deflate, LZW,
// PackBits and ZSTD; predictors 2 and 3; big-endian; BigTIFF — each ending in a result or a refusal
// naming the file, within time and memory bounds. A mutated file read is compared with GDAL's
// reading of the same bytes (the first few a file, GDAL being slow to start), and must be one GDAL
// reads too. A cancel ends a long read — inside one large block, whatever its compression — within
// a second.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readRaster, type Raster } from '../../src/main/io/geotiff/read-raster'
import { cleanOutcome, fuzzParams, mutate, mutationArb } from '../helpers/fuzz'
import { cellsDiffering, gdalReading } from '../helpers/gdal-raster'

const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-fuzz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const gdal = (...args: string[]) => execFileSync('gdal_translate', ['-q', ...args], { stdio: 'pipe' })

/** Small GeoTIFFs in the layouts GDAL offers, from one 23 × 17 grid with NODATA. */
const SOURCES: Record<string, string[]> = {
  'float32 strips': ['-ot', 'Float32', '-co', 'BLOCKYSIZE=5'],
  'float64 tiles, deflate': ['-ot', 'Float64', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16', '-co', 'COMPRESS=DEFLATE'],
  'int16 LZW, predictor 2, big-endian': ['-ot', 'Int16', '-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=2', '-co', 'ENDIANNESS=BIG', '-co', 'BLOCKYSIZE=4'],
  'float32 tiles, ZSTD, predictor 3': ['-ot', 'Float32', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16', '-co', 'COMPRESS=ZSTD', '-co', 'PREDICTOR=3'],
  'uint16 BigTIFF, LZW': ['-ot', 'UInt16', '-co', 'BIGTIFF=YES', '-co', 'COMPRESS=LZW', '-co', 'BLOCKYSIZE=8'],
  'uint8 PackBits, sparse': ['-ot', 'Byte', '-co', 'COMPRESS=PACKBITS', '-co', 'SPARSE_OK=TRUE', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16'],
}
const slug = (name: string) => name.replace(/\W+/g, '-')
const sources: Record<string, Buffer> = {}
const references: Record<string, Raster> = {}
/** GDAL comparisons of mutated files read, per source. */
const GDAL_CHECKS = 2

beforeAll(async () => {
  const rows: string[] = []
  for (let r = 0; r < 17; r++) rows.push(Array.from({ length: 23 }, (_, c) => (r < 16 && c < 16 && r % 5 !== 1 ? 0 : (r * 7 + c * 3) % 50)).join(' '))
  writeFileSync(at('grid.asc'), `ncols 23\nnrows 17\nxllcorner 0\nyllcorner 0\ncellsize 2\nNODATA_value 0\n${rows.join('\n')}\n`)
  for (const [name, options] of Object.entries(SOURCES)) {
    gdal(...options, at('grid.asc'), at(`${slug(name)}.tif`))
    sources[name] = readFileSync(at(`${slug(name)}.tif`))
    references[name] = await readRaster(name, at(`${slug(name)}.tif`))
    expect(cellsDiffering(references[name].values, gdalReading(at(`${slug(name)}.tif`), at(slug(name))))).toBe(0)
  }
}, 60_000)

describe('mutated GeoTIFFs end in a result or a refusal naming the file', () => {
  it.each(Object.keys(SOURCES))('%s', async (name) => {
    const bytes = sources[name]
    let checked = 0
    let read = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(mutationArb(bytes.length, 8), async (mutations) => {
        const mutated = mutate(bytes, mutations)
        const path = at(`${slug(name)}-mutated.tif`)
        writeFileSync(path, mutated)
        const outcome = await cleanOutcome(name, () => readRaster(name, path), { ms: 5000, bytes: 256 * 2 ** 20 })
        if ('refused' in outcome) return void refused++
        read++
        const r = outcome.ok
        expect(r.values.length).toBe(r.width * r.height)
        if (Buffer.compare(Buffer.from(mutated), bytes) === 0) expect(cellsDiffering(r.values, gdalReading(at(`${slug(name)}.tif`), at('same')))).toBe(0)
        else if (checked < GDAL_CHECKS) {
          checked++
          let g
          try {
            g = gdalReading(path, at(`${slug(name)}-gdal`))
          } catch (e) {
            throw new Error(`${name}: read after ${fc.stringify(mutations)}, which GDAL refuses (${(e as Error).message.split('\n')[0]})`)
          }
          expect([r.height, r.width]).toEqual([g.h, g.w])
          expect(cellsDiffering(r.values, g), `cells read other than GDAL after ${fc.stringify(mutations)}`).toBe(0)
        }
      }),
      fuzzParams(),
    )
    // The mutations reach both ends: some files are still read, others refused.
    expect(refused).toBeGreaterThan(0)
    expect(read).toBeGreaterThan(0)
  }, 120_000)
})

describe('a cancel ends a read within a second, inside one large block', () => {
  beforeAll(() => {
    gdal('-ot', 'Float32', '-outsize', '2000%', '2000%', '-r', 'bilinear', at('grid.asc'), at('big-source.tif'))
  }, 60_000)

  it.each([
    ['deflate', ['-co', 'COMPRESS=DEFLATE']],
    ['LZW', ['-co', 'COMPRESS=LZW']],
    ['ZSTD', ['-co', 'COMPRESS=ZSTD']],
    ['PackBits', ['-co', 'COMPRESS=PACKBITS']],
  ])('%s', async (name, options) => {
    const path = at(`one-strip-${name}.tif`)
    // 20 times the grid each way, then 4 times again: 1840 × 1360 float32 cells (10 MB) in one strip.
    gdal(...options, '-co', 'BLOCKYSIZE=1360', '-outsize', '400%', '400%', at('big-source.tif'), path)
    // The cancel comes a third of the way into an uncancelled read of the same file, timed here,
    // so it falls inside the one block however fast this machine decodes it.
    const t = performance.now()
    const whole = await readRaster(name, path)
    const full = performance.now() - t
    expect(whole.width * whole.height).toBe(1840 * 1360)
    const controller = new AbortController()
    const reading = readRaster(name, path, { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, full / 3))
    const t0 = performance.now()
    controller.abort()
    await expect(reading).rejects.toThrow('cancelled')
    expect(performance.now() - t0).toBeLessThan(1000)
  }, 60_000)
})
