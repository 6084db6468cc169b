// The DEM's CRS, against GDAL: grids given a CRS by gdal_translate are read with it (a projected
// one in metres), refused by name when their cells are degrees (the study's Tessina grid with
// -a_srs EPSG:4326 -a_ullr …, as a user made it) or feet, and named in every grid written from the
// run: the GeoTIFF keeps the GeoKeys, the .asc gets a .prj that GDAL identifies by its EPSG code, and
// the .npy (read back by numpy) holds NaN on the walls.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { crsOf, utmZoneEpsg } from '../../src/main/io/geotiff/crs'
import { readRaster } from '../../src/main/io/geotiff/read-raster'
import { prjPathBeside, prjText } from '../../src/shared/prj'
import { writeSlope } from '../../src/main/workloads/landslide/generate-slope'
import { gridSummary, readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { simulate } from '../../src/main/workloads/landslide/simulate'
import { Backend } from '../../src/main/backend/backend'
import { ENGINES } from '../../src/main/workloads'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { landslideCompared } from '../../src/shared/workloads/landslide/compare'
import { frameSvg } from '../../src/shared/workloads/landslide/thickness-frame'

const STUDY = join(__dirname, '../../../shared/data/landslide')
const dir = mkdtempSync(join(tmpdir(), 'paralab-crs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const gdal = (...args: string[]) => execFileSync('gdal_translate', ['-q', ...args], { stdio: 'pipe' })
/** The EPSG code GDAL identifies a file's CRS as. */
const gdalEpsg = (path: string) => execFileSync('gdalsrsinfo', ['-e', path], { encoding: 'utf8' }).trim().split('\n')[0]
const read = (dem: string, source: string) => readLandslideInput([at(dem), at(source)], [at(dem), at(source)])

beforeAll(async () => {
  await writeSlope(at('dem.asc'), at('source.asc'), { rows: 40, cols: 50, seed: 3, force: false })
  for (const [name, srs] of [['utm', 'EPSG:32633'], ['utm32', 'EPSG:32632'], ['ftus', 'EPSG:2263']]) {
    gdal('-a_srs', srs, at('dem.asc'), at(`dem-${name}.tif`))
    gdal('-a_srs', srs, at('source.asc'), at(`source-${name}.tif`))
  }
  gdal(at('dem.asc'), at('dem-none.tif'))
  // The study's grid as a user gave it a geographic CRS, the recipe that made "cells of 0.0001 m".
  writeFileSync(at('tessina-dem.asc'), readFileSync(join(STUDY, 'tessina_header.txt'), 'utf8') + readFileSync(join(STUDY, 'tessina_dem.txt'), 'utf8'))
  writeFileSync(at('tessina-source.asc'), readFileSync(join(STUDY, 'tessina_header.txt'), 'utf8') + readFileSync(join(STUDY, 'tessina_source.txt'), 'utf8'))
  gdal(at('tessina-dem.asc'), at('dem.tif'))
  gdal(at('tessina-source.asc'), at('source.tif'))
  gdal('-a_srs', 'EPSG:4326', '-a_ullr', '12.38', '46.17', '12.4296', '46.109', at('dem.tif'), at('dem_geo.tif'))
  gdal('-a_srs', 'EPSG:4326', '-a_ullr', '12.38', '46.17', '12.4296', '46.109', at('source.tif'), at('source_geo.tif'))
}, 60_000)

describe('a GeoTIFF\'s CRS from its GeoKeys', () => {
  it('reads the kind, EPSG code, name and linear unit GDAL wrote', async () => {
    const crs = async (name: string) => crsOf((await readRaster(name, at(name))).geo)
    expect(await crs('dem-utm.tif')).toEqual({ kind: 'projected', epsg: 32633, name: 'WGS 84 / UTM zone 33N', unit: { code: 9001, metres: 1, name: 'metre' } })
    expect(await crs('dem_geo.tif')).toMatchObject({ kind: 'geographic', epsg: 4326, name: 'WGS 84' })
    expect(await crs('dem-ftus.tif')).toMatchObject({ kind: 'projected', epsg: 2263, unit: { code: 9003, name: 'US survey foot' } })
    expect((await crs('dem-ftus.tif')).unit?.metres).toBeCloseTo(0.3048006096, 9)
    expect(await crs('dem-none.tif')).toEqual({ kind: 'unknown', epsg: null, name: 'unknown' })
    // Keys that point past their parameters, or lie about their count, are left unread.
    expect(crsOf({ geoKeyDirectory: [1, 1, 0, 1000, 1024, 0, 1, 1, 3073, 34737, 500, 9999, 3076, 34736, 1, 77, 3072, 0, 1, 32632] })).toEqual({
      kind: 'projected',
      epsg: 32632,
      name: 'EPSG:32632',
      unit: { code: 9001, metres: 1, name: 'metre' },
    })
    expect(crsOf({ geoKeyDirectory: [1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 32767], geoAsciiParams: '' })).toEqual({ kind: 'geographic', epsg: null, name: 'user-defined' })
    expect(crsOf({ geoKeyDirectory: [1, 1] })).toEqual({ kind: 'unknown', epsg: null, name: 'unknown' })
    expect([utmZoneEpsg(12.4, 46.1), utmZoneEpsg(-81, 35), utmZoneEpsg(151.2, -33.9), utmZoneEpsg(180, 0), utmZoneEpsg(12400, 46)]).toEqual([32633, 32617, 32756, 32660, null])
  })
})

describe('the landslide\'s grids and their CRS', () => {
  it('refuses a DEM in degrees by its CRS, with the gdalwarp to its UTM zone', async () => {
    const refusal = read('dem_geo.tif', 'source_geo.tif')
    await expect(refusal).rejects.toThrow(`${at('dem_geo.tif')}: its CRS EPSG:4326 (WGS 84) is geographic: its cells are`)
    await expect(refusal).rejects.toThrow(`degrees, not metres`)
    await expect(refusal).rejects.toThrow(`gdalwarp -t_srs EPSG:32633 ${at('dem_geo.tif')} ${at('dem_geo-utm.tif')} (the UTM zone of its middle), and the source likewise`)
  })

  it('refuses a CRS in feet, and a source in another CRS than the DEM\'s', async () => {
    await expect(read('dem-ftus.tif', 'source-ftus.tif')).rejects.toThrow(`${at('dem-ftus.tif')}: its CRS EPSG:2263 (NAD83 / New York Long Island (ftUS)) is in US survey foot, not metres`)
    await expect(read('dem-utm.tif', 'source-utm32.tif')).rejects.toThrow(
      `does not lie on the DEM ${at('dem-utm.tif')}'s grid: CRS EPSG:32632 (WGS 84 / UTM zone 32N), the DEM's EPSG:32633 (WGS 84 / UTM zone 33N)`,
    )
  })

  it('names a projected CRS in the results, and "unknown" for ESRI grids and GeoTIFFs without GeoKeys', async () => {
    expect(gridSummary(await read('dem-utm.tif', 'source-utm.tif')).crs).toEqual({ epsg: 32633, name: 'WGS 84 / UTM zone 33N' })
    // One grid with a CRS and one without: the CRS of the one that has it.
    expect(gridSummary(await read('dem.asc', 'source-utm.tif')).crs).toEqual({ epsg: 32633, name: 'WGS 84 / UTM zone 33N' })
    expect(gridSummary(await read('dem.asc', 'source.asc')).crs).toEqual({ epsg: null, name: 'unknown' })
    expect(gridSummary(await read('dem-none.tif', 'source.asc')).crs).toEqual({ epsg: null, name: 'unknown' })
  })

  it('writes the CRS into the .tif\'s GeoKeys and a .prj beside the .asc, the walls NaN in the .npy', async () => {
    const files = { asc: at('final.asc'), tif: at('final.tif'), npy: at('final.npy') }
    const summary = await simulate({ dem: at('dem-utm.tif'), source: at('source-utm.tif'), steps: 60, backend: 'active', variant: 'fused', ranks: 1, force: false, ...files })
    expect(summary.written).toEqual([files.asc, at('final.prj'), files.npy, files.tif])
    expect(summary.crs).toEqual({ epsg: 32633, name: 'WGS 84 / UTM zone 33N' })
    expect(summary.volume_end).toBe(summary.mass_end * 100)
    expect(gdalEpsg(files.asc)).toBe('EPSG:32633')
    expect(gdalEpsg(files.tif)).toBe('EPSG:32633')
    // numpy: NaN exactly on the DEM's NODATA cells, the .asc's values everywhere else.
    const np = JSON.parse(
      execFileSync('python3', ['-c', `import numpy as np, json, sys
h = np.load(sys.argv[1]); a = np.loadtxt(sys.argv[2], skiprows=6)
print(json.dumps({"dtype": str(h.dtype), "shape": h.shape, "nan": int(np.isnan(h).sum()), "nan_is_wall": bool((np.isnan(h) == (a == -9999)).all()), "same": bool((h[~np.isnan(h)] == a[a != -9999]).all()), "sum": float(np.nansum(h))}))`, files.npy, files.asc], { encoding: 'utf8' }),
    )
    const input = await read('dem-utm.tif', 'source-utm.tif')
    expect(input.wallCount).toBeGreaterThan(0)
    expect(np).toMatchObject({ dtype: 'float64', shape: [40, 50], nan: input.wallCount, nan_is_wall: true, same: true })
    expect(np.sum).toBeCloseTo(summary.mass_end, 9)
  })

  it('writes no .prj where the CRS is unknown, and refuses a stale .prj before the run', async () => {
    const summary = await simulate({ dem: at('dem.asc'), source: at('source.asc'), steps: 5, backend: 'active', variant: 'fused', ranks: 1, force: false, asc: at('plain.asc') })
    expect(summary.written).toEqual([at('plain.asc')])
    expect(summary.crs).toEqual({ epsg: null, name: 'unknown' })
    writeFileSync(at('again.prj'), 'stale')
    await expect(simulate({ dem: at('dem.asc'), source: at('source.asc'), steps: 5, backend: 'active', variant: 'fused', ranks: 1, force: false, asc: at('again.asc') })).rejects.toThrow(
      `${at('again.prj')} exists (use --force to overwrite)`,
    )
  })
})

describe('the dashboard\'s downloads', () => {
  it('give the .asc its .prj, which GDAL identifies; a run of ESRI grids has none to give', async () => {
    const backend = new Backend({ engines: ENGINES })
    const envelope = (dem: string, source: string) => backend.jobs.result(backend.startJob('landslide', { grids: [at(dem), at(source)], steps: 20, backends: ['active'], repeat: 1 } as never))
    const job = async (dem: string, source: string) => (await envelope(dem, source)).results as LandslideResult
    const utmEnvelope = await envelope('dem-utm.tif', 'source-utm.tif')
    const utm = utmEnvelope.results as LandslideResult
    // Compare checks the volume beside the mass.
    const checks = landslideCompared(utmEnvelope as never)[0].checks
    expect(checks.find((c) => c.name === 'volume')?.value).toMatch(/^[\d.,e+]+ m³$/)
    expect(checks.map((c) => c.name)).toEqual(['arithmetic', 'md5', 'mass', 'volume'])
    for (const file of ['final.asc', 'final.prj']) writeFileSync(at(`download-${file}`.replace('final.', 'grid.')), (await backend.renderResultFile({ workload: 'landslide', results: utm, file, fileName: file })).bytes)
    expect(gdalEpsg(at('download-grid.asc'))).toBe('EPSG:32633')
    const plain = await job('dem.asc', 'source.asc')
    await expect(backend.renderResultFile({ workload: 'landslide', results: plain, file: 'final.prj', fileName: 'final.prj' })).rejects.toThrow(
      'this run\'s CRS, unknown, is not one Paralab can write as a .prj (UTM zones on WGS 84, ETRS89 and NAD83); final.tif carries it',
    )
  }, 60_000)
})

describe('the map names the CRS', () => {
  it('under its coordinates, "unknown" where the grid has none', () => {
    const frame = (crs?: { epsg: number | null; name: string }) =>
      frameSvg({ steps: 1, maps: [{ step: 1, row0: 0, col0: 0, size: 2, block: 1, values: [null, 0.5, null, null] }], grid: { rows: 2, cols: 2, cellsize: 10, xllcorner: 500000, yllcorner: 5000000, ...(crs && { crs }) } }, 0)
    expect(frame({ epsg: 32633, name: 'WGS 84 / UTM zone 33N' })).toContain('x, y (m; CRS EPSG:32633 (WGS 84 / UTM zone 33N))')
    expect(frame()).toContain('x, y (m; CRS unknown)')
  })
})

describe('.prj text for UTM zones', () => {
  it.each([32633, 32601, 32660, 32733, 25832, 26917])('EPSG:%i is identified again by GDAL', (code) => {
    const asc = at(`z${code}.asc`)
    writeFileSync(asc, 'ncols 2\nnrows 2\nxllcorner 500000\nyllcorner 5000000\ncellsize 10\n1 2\n3 4\n')
    writeFileSync(prjPathBeside(asc), prjText(code)!)
    expect(gdalEpsg(asc)).toBe(`EPSG:${code}`)
  })

  it('has none for systems it cannot spell out, and names the .prj as GDAL does', () => {
    expect([prjText(3035), prjText(4326), prjText(32661), prjText(null)]).toEqual([null, null, null, null])
    expect([prjPathBeside('/d/final.asc'), prjPathBeside('/d.x/final'), prjPathBeside('out.txt')]).toEqual(['/d/final.prj', '/d.x/final.prj', 'out.prj'])
  })
})
