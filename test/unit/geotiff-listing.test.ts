// The dashboard's chooser greys out a TIFF the GeoTIFF reader will refuse, before Run: the data
// folders' listing carries the refusal found by the reader's own checks of the header and IFD (no
// block read), the very message the reader gives, as the tooltip.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DataAccess } from '../../src/main/backend/data-files'
import { readRaster, tiffRefusal } from '../../src/main/io/geotiff/read-raster'
import { canRead, unreadableText } from '../../src/renderer/data-files'
import { floatRaster, tiffBytes } from '../helpers/tiff-bytes'

const STUDY = join(__dirname, '../../../shared/data/landslide')
const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-listing-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const gdal = (...args: string[]) => execFileSync('gdal_translate', ['-q', ...args], { stdio: 'pipe' })
const landslide = { workload: 'landslide', extensions: ['txt', 'asc', 'tif', 'tiff'] }

beforeAll(() => {
  const header = readFileSync(join(STUDY, 'tessina_header.txt'), 'utf8')
  writeFileSync(at('dem.asc'), header + readFileSync(join(STUDY, 'tessina_dem.txt'), 'utf8'))
  gdal('-ot', 'Float32', at('dem.asc'), at('dem.tif'))
  gdal('-b', '1', '-b', '1', '-b', '1', at('dem.asc'), at('rgb.tif'))
  gdal('-ot', 'Byte', '-scale', '-co', 'COMPRESS=JPEG', at('dem.asc'), at('jpeg.tif'))
  // 256 MiB of zeros deflated into the strip of a 64 × 64 float64 raster: only decoding finds it out.
  const bomb = deflateSync(Buffer.alloc(256 * 2 ** 20), { level: 1 })
  writeFileSync(at('bomb.tif'), tiffBytes(floatRaster(64, 64, 64, 8, bomb.length), bomb))
})

describe('a TIFF the reader refuses, in the data folders\' listing', () => {
  it('the refusal is the reader\'s own message, without the file\'s name; a readable TIFF has none', async () => {
    for (const name of ['rgb.tif', 'jpeg.tif']) {
      const refused = await tiffRefusal(at(name))
      expect(refused).toBeDefined()
      await expect(readRaster(at(name), at(name))).rejects.toThrow(`${at(name)}: ${refused}`)
    }
    expect(await tiffRefusal(at('rgb.tif'))).toBe('IFD at byte 8, SamplesPerPixel (277): the raster has 3 bands; a grid is read from a single-band raster (gdal_translate -b 1 makes one)')
    expect(await tiffRefusal(at('jpeg.tif'))).toMatch(/^IFD at byte \d+, Compression \(259\): compression JPEG \(7\) is not supported/)
    expect(await tiffRefusal(at('dem.tif'))).toBeUndefined()
  })

  it('reads no block: a deflate bomb\'s header passes in bounded time and memory', async () => {
    const rss = process.memoryUsage().rss
    const t0 = performance.now()
    expect(await tiffRefusal(at('bomb.tif'))).toBeUndefined()
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(process.memoryUsage().rss - rss).toBeLessThan(32 * 2 ** 20)
  })

  it('the listing carries it; the chooser greys the file out with it as the reason', async () => {
    const folder = await new DataAccess([dir]).folder(dir)
    const byName = Object.fromEntries(folder.files.map((f) => [f.name, f]))
    expect(byName['rgb.tif']).toMatchObject({ content: 'tiff', refused: await tiffRefusal(at('rgb.tif')) })
    expect(byName['jpeg.tif'].refused).toContain('compression JPEG (7)')
    expect(byName['dem.tif'].content).toBe('tiff')
    expect(byName['dem.tif'].refused).toBeUndefined()
    expect(canRead(landslide, byName['dem.tif'])).toBe(true)
    expect(canRead(landslide, byName['rgb.tif'])).toBe(false)
    expect(unreadableText(landslide, byName['rgb.tif'])).toBe(byName['rgb.tif'].refused)
  })
})
