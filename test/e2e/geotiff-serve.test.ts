// GeoTIFF grids under `paralab serve`: a 2480 × 3050 LZW GeoTIFF DEM read block by block (and then
// refused with a source off its grid, so that the job is all reading) and a deflate bomb, while pings
// are answered within 1 s; both refused as invalid input naming what is wrong. The listing of the data
// folder marks a 3-band TIFF as refused, with the reader's reason.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectApi, jobWhilePinging, type ApiClient } from '../helpers/api-client'
import { startServe, type ServeProcess } from '../helpers/serve'
import { floatRaster, tiffBytes } from '../helpers/tiff-bytes'

const STUDY = join(__dirname, '../../../shared/data/landslide')
let root: string
let data: string
let serve: ServeProcess
let api: ApiClient

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'paralab-geotiff-serve-'))
  data = join(root, 'data')
  mkdirSync(data)
  const header = readFileSync(join(STUDY, 'tessina_header.txt'), 'utf8')
  writeFileSync(join(root, 'dem.asc'), header + readFileSync(join(STUDY, 'tessina_dem.txt'), 'utf8'))
  writeFileSync(join(root, 'source.asc'), header + readFileSync(join(STUDY, 'tessina_source.txt'), 'utf8'))
  execFileSync('gdal_translate', ['-q', '-ot', 'Float32', '-co', 'COMPRESS=LZW', '-outsize', '500%', '500%', join(root, 'dem.asc'), join(data, 'large-dem.tif')])
  execFileSync('gdal_translate', ['-q', '-ot', 'Float32', '-co', 'COMPRESS=LZW', join(root, 'source.asc'), join(data, 'source.tif')])
  // 64 MiB of zeros deflated into the one strip of a 64 × 64 float64 raster (32 KiB).
  writeFileSync(join(data, 'bomb.tif'), (() => {
    const bomb = deflateSync(Buffer.alloc(64 * 2 ** 20), { level: 9 })
    return tiffBytes(floatRaster(64, 64, 64, 8, bomb.length), bomb)
  })())
  execFileSync('gdal_translate', ['-q', '-b', '1', '-b', '1', '-b', '1', join(root, 'dem.asc'), join(data, 'rgb.tif')])
  serve = await startServe(['--data', data])
  api = await connectApi(serve)
}, 120_000)
afterAll(async () => {
  api?.close()
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

const pinged = (params: Record<string, unknown>) => jobWhilePinging(api, 'landslide', params, 180_000)

describe('GeoTIFF grids under serve', () => {
  it('the data folder\'s listing says which TIFF the reader refuses, and why (the chooser\'s tooltip)', async () => {
    const folder = await api.call<{ files: { name: string; content?: string; refused?: string }[] }>('browseData', data)
    const byName = Object.fromEntries(folder.files.map((f) => [f.name, f]))
    expect(byName['rgb.tif']).toMatchObject({ content: 'tiff', refused: 'IFD at byte 8, SamplesPerPixel (277): the raster has 3 bands; a grid is read from a single-band raster (gdal_translate -b 1 makes one)' })
    expect(byName['source.tif'].refused).toBeUndefined()
    expect(byName['bomb.tif'].refused).toBeUndefined()
  })

  it('a 2480 × 3050 LZW GeoTIFF DEM is read while pings are answered within 1 s', async () => {
    const { end, worst } = await pinged({ grids: [join(data, 'large-dem.tif'), join(data, 'source.tif')], steps: 1, backends: ['active'], repeat: 1 })
    expect(end.type).toBe('failed')
    expect(end.error).toEqual({
      code: 'invalid-input',
      message: `the source ${join(data, 'source.tif')} does not lie on the DEM ${join(data, 'large-dem.tif')}'s grid: size 610 × 496, the DEM's 3050 × 2480 (rows × columns); cell size 10, the DEM's 2`,
    })
    expect(worst).toBeLessThan(1000)
  }, 180_000)

  it('a deflate bomb is refused as invalid input naming the file and the strip, pings answered meanwhile', async () => {
    const bomb = join(data, 'bomb.tif')
    const { end, worst } = await pinged({ grids: [bomb, join(data, 'source.tif')], steps: 1, backends: ['active'], repeat: 1 })
    expect(end.type).toBe('failed')
    expect(end.error.code).toBe('invalid-input')
    expect(end.error.message).toMatch(new RegExp(`^${bomb.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: IFD at byte 8, strip 0 \\(\\d+ bytes at byte \\d+\\): expands past the 32768 bytes its IFD announces`))
    expect(worst).toBeLessThan(1000)
  }, 60_000)
})
