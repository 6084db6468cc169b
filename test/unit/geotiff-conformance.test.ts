// Every GeoTIFF of ../shared/corpora/geotiff read by the landslide's reader of a grid (rasterGrid,
// the function that reads a DEM) and compared with GDAL run at test time: `gdal_translate -of ENVI
// -ot Float64` for the cells, `-b mask` for the NODATA cells, `gdalinfo -json` for the geotransform.
// A file is either equal cell by cell (exact) with the same placement (corner and cell size to 1e-9
// of a cell), or refused with a message naming the file and the feature; the refused ones are listed
// here with their reasons (docs/formats.md lists the same).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { rasterGrid } from '../../src/main/workloads/landslide/raster-input'
import { cellsDiffering, gdalReading, maskDiffering } from '../helpers/gdal-raster'

const CORPUS = join(__dirname, '../../../shared/corpora/geotiff')
const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-conformance-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const files = (function walk(d: string): string[] {
  return readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : /\.tiff?$/i.test(n) ? [join(d, n)] : []))
})(CORPUS).sort()

/** The refusals expected, by path under the corpus: what each message must say. */
const REFUSED: Record<string, string> = {
  'cogeotiff+rio-cogeo/tests/fixtures/cog_band_tags.tif': 'its band is scaled (scale 0.0001, offset 1000 in GDAL_METADATA)',
  'cogeotiff+rio-cogeo/tests/fixtures/image_with_offsets.tif': 'its band is scaled (scale 0.0001, offset 1000 in GDAL_METADATA)',
  'cogeotiff+rio-cogeo/tests/fixtures/dataset_namespace_metadata.tif': 'the raster has 3 bands',
  'cogeotiff+rio-cogeo/tests/fixtures/image_web.tif': 'the raster has 3 bands',
  'cogeotiff+rio-cogeo/tests/fixtures/image_webp.tif': 'the raster has 3 bands',
  'cogeotiff+rio-cogeo/tests/fixtures/validate/image_rioCOG_gdal3.1.tif': 'the raster has 3 bands',
  'gdal-generated/cf32.tif': '64-bit complex floating point samples are not read',
  'gdal-generated/f32_nonsquare.tif': 'its cells are not square: 10 wide and 20 high',
  'gdal-generated/u8_jpeg.tif': 'compression JPEG (7) is not supported',
  'rasterio+rasterio/tests/data/RGBA.uint16.tif': 'the raster has 4 bands',
  'rasterio+rasterio/tests/data/all-nodata.tif': 'the raster has 4 bands',
  'rasterio+rasterio/tests/data/alpha.tif': 'the raster has 4 bands',
  'rasterio+rasterio/tests/data/cogeo.tif': 'the raster has 3 bands',
  'rasterio+rasterio/tests/data/corrupt.tif': 'the raster has 3 bands',
  'rasterio+rasterio/tests/data/goes.tif': 'the raster has 3 bands',
  'rasterio+rasterio/tests/data/green.tif': 'the raster has 3 bands',
  'rasterio+rasterio/tests/data/rgb3.tif': 'the raster has 3 bands',
  'rasterio+rasterio/tests/data/rotated.tif': 'the grid is rotated or sheared',
}

describe('GeoTIFF conformance: every file of the corpus read as GDAL reads it, or refused by name', () => {
  const outcome: Record<string, string> = {}

  it.each(files.map((f) => [relative(CORPUS, f)]))('%s', async (name) => {
    const path = join(CORPUS, name)
    let grid: Awaited<ReturnType<typeof rasterGrid>>
    try {
      grid = await rasterGrid(name, path)
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
      expect(e.message.startsWith(`${name}: `), e.message).toBe(true)
      outcome[name] = e.message
      expect(e.message).toContain(REFUSED[name] ?? '(read, not refused)')
      return
    }
    outcome[name] = 'read'
    const g = gdalReading(path, join(dir, name.replace(/[^\w.-]+/g, '_')))
    expect([grid.rows, grid.cols]).toEqual([g.h, g.w])
    // Placement: GDAL's geotransform; a south-up grid (positive y size) is read north row first.
    const southUp = g.gt[5] > 0
    const cell = Math.abs(g.gt[5])
    expect(Math.abs(grid.cellsize - g.gt[1])).toBeLessThanOrEqual(1e-9 * cell)
    expect(Math.abs(grid.cellsize - cell)).toBeLessThanOrEqual(1e-9 * cell)
    expect(Math.abs(grid.west - g.gt[0])).toBeLessThanOrEqual(1e-9 * cell)
    expect(Math.abs(grid.south - (southUp ? g.gt[3] : g.gt[3] + g.h * g.gt[5]))).toBeLessThanOrEqual(1e-9 * cell)
    // Cells: exact (NaN equal to NaN); NODATA where GDAL's mask says so.
    expect(cellsDiffering(grid.values, g), 'cells that differ from GDAL').toBe(0)
    expect(maskDiffering(grid.values, grid.nodata, g), 'cells whose NODATA differs from GDAL\'s mask').toBe(0)
  }, 30_000)

  it('refuses exactly the files listed, and reads every other', () => {
    expect(Object.keys(outcome).length).toBe(files.length)
    expect(Object.keys(outcome).filter((f) => outcome[f] !== 'read').sort()).toEqual(Object.keys(REFUSED).sort())
  })
})
