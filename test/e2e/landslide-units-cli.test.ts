// `paralab landslide` on grids with a CRS, as a user runs it: the CRS and the debris volume in m³ in
// the table and the envelope, a DEM in degrees refused with the gdalwarp that fixes it, and --tile
// RxC on GeoTIFFs: the tiled grid simulated (the original's run tiled, where its copies cannot
// touch), its exports placed by GDAL where the tiled grid lies, in the DEM's CRS.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readRaster } from '../../src/main/io/geotiff/read-raster'
import { writeSlope } from '../../src/main/workloads/landslide/generate-slope'
import { readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { tiledReference } from '../../src/main/workloads/landslide/tiled-grid'
import { errorLines, jsonOf, paralab } from './paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-landslide-units-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const gdal = (...args: string[]) => execFileSync('gdal_translate', ['-q', ...args], { stdio: 'pipe' })
const gdalinfo = (path: string) => JSON.parse(execFileSync('gdalinfo', ['-json', path], { encoding: 'utf8' }))
const gdalEpsg = (path: string) => execFileSync('gdalsrsinfo', ['-e', path], { encoding: 'utf8' }).trim().split('\n')[0]
const STEPS = 80
const GRIDS = () => ['--dem', at('dem.tif'), '--source', at('source.tif')]

beforeAll(async () => {
  await writeSlope(at('dem.asc'), at('source.asc'), { rows: 40, cols: 50, seed: 3, force: false })
  for (const g of ['dem', 'source']) {
    gdal('-a_srs', 'EPSG:32633', at(`${g}.asc`), at(`${g}.tif`))
    gdal('-a_srs', 'EPSG:4326', '-a_ullr', '12.38', '46.17', '12.43', '46.13', at(`${g}.asc`), at(`${g}_geo.tif`))
  }
}, 60_000)

describe('paralab landslide: CRS and volume', () => {
  it('names the CRS and reports the debris volume beside Σh in the table and the envelope', () => {
    const table = paralab(['landslide', ...GRIDS(), '--steps', String(STEPS), '--backend', 'active,serial'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toContain('40 × 50 cells (rows × columns) of 10 m')
    expect(table.stdout).toContain('CRS EPSG:32633 (WGS 84 / UTM zone 33N)')
    expect(table.stdout).toMatch(/Σh, m [\d.]+ → [\d.]+, volume, m³ [\d.]+ → [\d.]+/)
    expect(table.stdout).toMatch(/run\s+precision\s+ranks\s+ms\s+ms\/step\s+vs serial\s+Σh end, m\s+volume end, m³/)
    const r = jsonOf(paralab(['landslide', ...GRIDS(), '--steps', String(STEPS), '--backend', 'active', '--json'])).results
    expect(r.grid.crs).toEqual({ epsg: 32633, name: 'WGS 84 / UTM zone 33N' })
    expect(r.reference.volume_start).toBe(r.reference.mass_start * 100)
    expect(r.reference.volume_end).toBe(r.reference.mass_end * 100)
    expect(r.runs.active.volume_end).toBe(r.runs.active.mass_end * 100)
    expect(r.reference.volume_end).toBeGreaterThan(0)
  }, 120_000)

  it('refuses a DEM in degrees by its CRS, naming the gdalwarp that makes it metric', () => {
    const r = paralab(['landslide', '--dem', at('dem_geo.tif'), '--source', at('source_geo.tif'), '--steps', '5'])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr).join('\n')).toContain(
      `${at('dem_geo.tif')}: its CRS EPSG:4326 (WGS 84) is geographic: its cells are 0.001 degrees, not metres, and the landslide needs metres (its thresholds, the cell area, the relief): reproject it to a metric CRS first, e.g. gdalwarp -t_srs EPSG:32633 ${at('dem_geo.tif')} ${at('dem_geo-utm.tif')}`,
    )
  }, 60_000)
})

describe('paralab landslide --tile RxC', () => {
  it('runs the GeoTIFFs tiled: the original\'s run tiled, exported where the tiled grid lies, in its CRS', async () => {
    const files = { asc: at('tiled.asc'), tif: at('tiled.tif') }
    const r = jsonOf(paralab(['landslide', ...GRIDS(), '--tile', '2x3', '--steps', String(STEPS), '--backend', 'active', '--asc', files.asc, '--tif', files.tif, '--json'])).results
    expect(r.grid).toMatchObject({ rows: 80, cols: 150, tile: { rows: 2, cols: 3 }, crs: { epsg: 32633 }, files: { dem: at('dem.tif'), source: at('source.tif') } })
    const original = jsonOf(paralab(['landslide', ...GRIDS(), '--steps', String(STEPS), '--backend', 'active', '--json'])).results
    expect(r.grid.walls).toBe(6 * original.grid.walls)
    expect(r.reference.mass_start).toBeCloseTo(6 * original.reference.mass_start, 9)

    // The slope's debris stays clear of its border: the copies never touch, so the tiled run is the original's tiled.
    const input = await readLandslideInput([at('dem.tif'), at('source.tif')], [at('dem.tif'), at('source.tif')])
    const expected = await tiledReference(input, { rows: 2, cols: 3 }, STEPS)
    if (!('grid' in expected)) throw new Error(expected.touching)
    const written = await readRaster('tiled.tif', files.tif)
    const walls = written.values.filter((v) => v === -9999).length
    expect(walls).toBe(r.grid.walls)
    expect(Array.from(written.values, (v, k) => (v === -9999 ? expected.grid[k] : v))).toEqual(Array.from(expected.grid))

    // GDAL places both exports on the tiled grid: the DEM's north-west corner, extended south and east.
    const dem = gdalinfo(at('dem.tif'))
    for (const path of [files.tif, files.asc]) {
      const info = gdalinfo(path)
      expect(info.size).toEqual([150, 80])
      expect(info.geoTransform).toEqual(dem.geoTransform)
      expect(gdalEpsg(path)).toBe('EPSG:32633')
    }
  }, 180_000)

  it('refuses a tiling that is not RxC, and says --tile in the help', () => {
    const r = paralab(['landslide', ...GRIDS(), '--tile', '2x0', '--steps', '5'])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr).join('\n')).toContain('tile must be RxC with R and C whole numbers from 1 to 1024 (e.g. 12x14), got "2x0"')
    // A tiling past the cells a grid may have is refused before anything is allocated.
    const huge = paralab(['landslide', ...GRIDS(), '--tile', '1024x1024', '--steps', '5'])
    expect(huge.code).toBe(1)
    expect(errorLines(huge.stderr).join('\n')).toContain('tile 1024x1024 of the 40 × 50 grid makes 40960 × 51200 = 2097152000 cells, more than the 268435456 a grid may have')
    const help = paralab(['landslide', '--help']).stdout
    expect(help).toMatch(/--tile RxC\s+repeat the DEM and the source R times down and C across into one grid/)
    expect(paralab(['landslide', 'simulate', '--help']).stdout).toContain('--tile RxC')
  }, 60_000)
})
