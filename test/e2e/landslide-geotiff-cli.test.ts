// The command line with GeoTIFF grids: `paralab generate slope` writes the example's slope as
// GeoTIFFs or .asc grids, `paralab landslide --dem x.tif --source y.tif` runs on them (the same md5
// as on the .asc pair), and `--tif` writes the final thickness that GDAL reads where the DEM lies.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../helpers/serve'

const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const paralab = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 })

describe('paralab with GeoTIFF grids', () => {
  it('generate slope writes the same grid as GeoTIFF and .asc; landslide --dem/--source gives one md5 on both; --tif is read by GDAL', () => {
    expect(paralab('generate', 'slope', at('dem.tif'), at('source.tif'), '--rows', '60', '--cols', '80', '--seed', '7')).toContain('60 × 80 cells')
    paralab('generate', 'slope', at('dem.asc'), at('source.asc'), '--rows', '60', '--cols', '80', '--seed', '7')
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', at('dem.tif')], { encoding: 'utf8' }))
    expect(info.geoTransform).toEqual([500000, 10, 0, 4000600, 0, -10])
    expect(info.bands[0]).toMatchObject({ type: 'Float64', noDataValue: -9999 })

    const run = (ext: string, ...extra: string[]) =>
      JSON.parse(paralab('landslide', '--dem', at(`dem.${ext}`), '--source', at(`source.${ext}`), '--steps', '200', '--backend', 'active', '--json', ...extra)).results.reference.md5
    const md5 = run('asc')
    expect(run('tif', '--tif', at('final.tif'), '--asc', at('final.asc'))).toBe(md5)
    execFileSync('gdal_translate', ['-q', '-of', 'AAIGrid', at('final.tif'), at('back.asc')])
    const cells = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => /^\s*[-+\d.]/.test(l)).join(' ').trim().split(/\s+/).map(Number)
    expect(cells(at('back.asc'))).toEqual(cells(at('final.asc')))
    expect(JSON.parse(execFileSync('gdalinfo', ['-json', at('final.tif')], { encoding: 'utf8' })).geoTransform).toEqual(info.geoTransform)
  }, 120_000)

  it('names --tif in the help, and refuses a text file named .tif by its content', () => {
    expect(paralab('landslide', '--help')).toMatch(/--tif FILE\s+write the reference run's final thickness as a float64 GeoTIFF/)
    expect(paralab('landslide', 'simulate', '--help')).toContain('--frames-as F')
    expect(() => execFileSync(process.execPath, [CLI, 'generate', 'slope', at('dem.asc'), at('x.tif')], { stdio: 'pipe' })).toThrow(/exists \(use --force/)
    execFileSync('cp', [at('dem.asc'), at('text.tif')])
    let stderr = ''
    try {
      execFileSync(process.execPath, [CLI, 'landslide', '--dem', at('text.tif'), '--source', at('source.tif'), '--steps', '1'], { stdio: 'pipe' })
    } catch (e) {
      stderr = String((e as { stderr: Buffer }).stderr)
    }
    expect(stderr).toContain(`${at('text.tif')}: not a TIFF file (its content is text), though its name ends in .tif`)
  }, 60_000)
})
