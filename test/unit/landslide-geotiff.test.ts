// GeoTIFF grids for the landslide, against GDAL: the Tessina grids converted by gdal_translate (float64,
// float32 and int16, which hold them exactly; none, deflate, LZW, PackBits; strips and tiles;
// predictors; big-endian; BigTIFF) give the md5 of the study's text files, and the --tif output read
// back by GDAL equals the .asc output, placed where the DEM lies. Hostile files are refused naming
// the file and the place in it, before memory beyond the raster's own is taken.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDeflate } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Backend } from '../../src/main/backend/backend'
import { readRaster } from '../../src/main/io/geotiff/read-raster'
import { cornerGeoTags, geoTiffPieces } from '../../src/main/io/geotiff/write-geotiff'
import { ENGINES } from '../../src/main/workloads'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { simulate } from '../../src/main/workloads/landslide/simulate'
import { DATA, DOUBLE, floatRaster, LONG, tiffBytes } from '../helpers/tiff-bytes'
import { watchEventLoop } from '../helpers/event-loop'

const STUDY = join(__dirname, '../../../shared/data/landslide')
const TESSINA_MD5_4000 = '8ed78fa13180c12b4d8aeec7ce6a362a'
const STEPS = 150
const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)
const gdal = (...args: string[]) => execFileSync('gdal_translate', ['-q', ...args], { stdio: 'pipe' })
const gdalinfo = (path: string) => JSON.parse(execFileSync('gdalinfo', ['-json', path], { encoding: 'utf8' }))
const study = ['tessina_header.txt', 'tessina_dem.txt', 'tessina_source.txt'].map((f) => join(STUDY, f))

/** md5 of `steps` steps of the active backend on these grids. */
async function md5(dem: string, source: string, steps = STEPS, header?: string): Promise<string> {
  return (await simulate({ header, dem, source, steps, backend: 'active', variant: 'fused', ranks: 1, force: false })).md5
}

// Each conversion of the DEM and the source: gdal_translate's options, both grids holding integers (0 … 1400) exactly.
const VARIANTS: Record<string, string[]> = {
  'float64, strips, uncompressed': ['-ot', 'Float64'],
  'float32, deflate, floating-point predictor': ['-ot', 'Float32', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3'],
  'int16, LZW, horizontal predictor': ['-ot', 'Int16', '-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=2'],
  'float64, tiled, PackBits': ['-ot', 'Float64', '-co', 'TILED=YES', '-co', 'COMPRESS=PACKBITS'],
  'int32, tiled, deflate': ['-ot', 'Int32', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=128', '-co', 'BLOCKYSIZE=64', '-co', 'COMPRESS=DEFLATE'],
  'uint16, LZW, big-endian': ['-ot', 'UInt16', '-co', 'COMPRESS=LZW', '-co', 'ENDIANNESS=BIG'],
  // Horizontal differencing of the floats' bit patterns (the floating-point predictor is refused in big-endian files).
  'float32, tiled, LZW, horizontal predictor, big-endian BigTIFF': ['-ot', 'Float32', '-co', 'BIGTIFF=YES', '-co', 'TILED=YES', '-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=2', '-co', 'ENDIANNESS=BIG'],
}
const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-')

let textMd5: string
beforeAll(async () => {
  const [header, dem, source] = study.map((p) => readFileSync(p, 'utf8'))
  writeFileSync(at('dem.asc'), header + dem)
  writeFileSync(at('source.asc'), header + source)
  for (const [name, options] of Object.entries(VARIANTS)) {
    gdal(...options, at('dem.asc'), at(`dem-${slug(name)}.tif`))
    gdal(...options, at('source.asc'), at(`source-${slug(name)}.tif`))
  }
  textMd5 = await md5(study[1], study[2], STEPS, study[0])
}, 60_000)

describe('GeoTIFF grids converted by GDAL from the study\'s text files', () => {
  it.each(Object.keys(VARIANTS))('%s: the same md5 as the text files', async (name) => {
    expect(await md5(at(`dem-${slug(name)}.tif`), at(`source-${slug(name)}.tif`))).toBe(textMd5)
  })

  it('a DEM as GeoTIFF with its source as .asc (and the other way round): the same md5', async () => {
    const tif = slug('int16, LZW, horizontal predictor')
    expect(await md5(at(`dem-${tif}.tif`), at('source.asc'))).toBe(textMd5)
    expect(await md5(at('dem.asc'), at(`source-${tif}.tif`))).toBe(textMd5)
  })

  it('all 4000 steps of the study on int16 + tiled float32 GeoTIFFs give its published md5', async () => {
    expect(await md5(at(`dem-${slug('int16, LZW, horizontal predictor')}.tif`), at(`source-${slug('float32, tiled, LZW, horizontal predictor, big-endian BigTIFF')}.tif`), 4000)).toBe(TESSINA_MD5_4000)
  }, 60_000)

  it('reads the grid\'s place, cell size and NODATA (walls) as the .asc gives them', async () => {
    const input = await readLandslideInput([at('dem-float64-strips-uncompressed.tif'), at('source-float64-strips-uncompressed.tif')], [at('dem-float64-strips-uncompressed.tif'), at('source-float64-strips-uncompressed.tif')])
    const text = await readLandslideInput(study, study)
    expect(input).toMatchObject({ rows: 610, cols: 496, wallCount: text.wallCount, header: { xllcorner: 0, yllcorner: 0, cellsize: 10, nodata: 0 } })
    expect(input.z).toEqual(text.z)
    expect(input.h).toEqual(text.h)
  })
})

describe('--tif: the final thickness as a GeoTIFF that GDAL reads back', () => {
  /** The .asc GDAL makes of a GeoTIFF, values and header. */
  const ascOf = (tif: string) => {
    gdal('-of', 'AAIGrid', tif, `${tif}.asc`)
    return readFileSync(`${tif}.asc`, 'utf8')
  }
  // The cells of an .asc: every line after the header (whose lines begin with a key).
  const values = (asc: string) => asc.split('\n').filter((l) => /^\s*[-+\d.]/.test(l)).join(' ').trim().split(/\s+/).map(Number)

  it('from GeoTIFF inputs with a CRS: GDAL reads the values of the .asc output, the DEM\'s geotransform, CRS and NODATA -9999', async () => {
    gdal('-ot', 'Float32', '-a_srs', 'EPSG:32632', '-a_ullr', '1700000', '5106100', '1704960', '5100000', at('dem.asc'), at('dem-utm.tif'))
    gdal('-ot', 'Float32', '-a_srs', 'EPSG:32632', '-a_ullr', '1700000', '5106100', '1704960', '5100000', at('source.asc'), at('source-utm.tif'))
    const written = await simulate({ dem: at('dem-utm.tif'), source: at('source-utm.tif'), steps: STEPS, backend: 'active', variant: 'fused', ranks: 1, asc: at('out-utm.asc'), tif: at('out-utm.tif'), force: false })
    expect(written.md5).toBe(textMd5)
    const info = gdalinfo(at('out-utm.tif'))
    const dem = gdalinfo(at('dem-utm.tif'))
    expect(info.geoTransform).toEqual(dem.geoTransform)
    expect(info.coordinateSystem.wkt).toBe(dem.coordinateSystem.wkt)
    expect(info.stac['proj:epsg']).toBe(32632)
    expect(info.bands[0]).toMatchObject({ type: 'Float64', noDataValue: -9999 })
    const asc = readFileSync(at('out-utm.asc'), 'utf8')
    const back = values(ascOf(at('out-utm.tif')))
    expect(back).toEqual(values(asc))
    expect(back.filter((v) => v === -9999).length).toBe((await readLandslideInput(study, study)).wallCount)
  }, 30_000)

  it('from .asc inputs: a GeoTIFF at the .asc\'s origin and cell size, no CRS, equal to the .asc output', async () => {
    await simulate({ dem: at('dem.asc'), source: at('source.asc'), steps: STEPS, backend: 'active', variant: 'fused', ranks: 1, asc: at('out.asc'), tif: at('out.tif'), force: false })
    const info = gdalinfo(at('out.tif'))
    expect(info.geoTransform).toEqual([0, 10, 0, 6100, 0, -10])
    expect(info.coordinateSystem).toBeUndefined()
    expect(info.bands[0]).toMatchObject({ type: 'Float64', noDataValue: -9999 })
    expect(values(ascOf(at('out.tif')))).toEqual(values(readFileSync(at('out.asc'), 'utf8')))
    // And Paralab reads its own GeoTIFF back: the same cells.
    const r = await readRaster('out.tif', at('out.tif'))
    expect(Array.from(r.values)).toEqual(values(readFileSync(at('out.asc'), 'utf8')))
  }, 30_000)

  it('the dashboard\'s download of a job on GeoTIFF inputs: final.tif on the DEM\'s grid and CRS, the values of final.asc', async () => {
    const backend = new Backend({ engines: ENGINES })
    const grids = [at('dem-utm.tif'), at('source-utm.tif')]
    const env = await backend.jobs.result(backend.startJob('landslide', { grids, steps: STEPS, backends: ['active'], repeat: 1 } as never))
    const r = env.results as LandslideResult
    expect(r.reference.md5).toBe(textMd5)
    expect(r.grid).toMatchObject({ rows: 610, cols: 496, cellsize: 10, xllcorner: 1700000, yllcorner: 5100000 })
    const file = (name: string) => backend.renderResultFile({ workload: 'landslide', results: r, file: name, fileName: name })
    const tif = await file('final.tif')
    expect(tif.mime).toBe('image/tiff')
    writeFileSync(at('download.tif'), tif.bytes)
    expect(gdalinfo(at('download.tif')).geoTransform).toEqual(gdalinfo(at('dem-utm.tif')).geoTransform)
    expect(gdalinfo(at('download.tif')).stac['proj:epsg']).toBe(32632)
    expect(values(ascOf(at('download.tif')))).toEqual(values(new TextDecoder().decode((await file('final.asc')).bytes)))
  }, 60_000)

  it('frames as GeoTIFFs (--frames-as tif): each read back by GDAL on the DEM\'s grid', async () => {
    const frames = at('frames')
    execFileSync('mkdir', [frames])
    await simulate({ dem: at('dem.asc'), source: at('source.asc'), steps: 20, backend: 'active', variant: 'fused', ranks: 1, frames: { every: 10, dir: frames, as: 'tif' }, force: false })
    for (const step of ['00', '10', '20']) expect(gdalinfo(join(frames, `h-${step}.tif`)).geoTransform).toEqual([0, 10, 0, 6100, 0, -10])
  })
})

describe('hostile GeoTIFFs: refused naming the file and the place', () => {
  const refused = (dem: string, source = at('source-float64-strips-uncompressed.tif')) => readLandslideInput([dem, source], [dem, source])

  it('a truncated file: the strip past the end', async () => {
    copyFileSync(at('dem-float64-strips-uncompressed.tif'), at('cut.tif'))
    truncateSync(at('cut.tif'), Math.floor(statSync(at('cut.tif')).size / 2))
    await expect(refused(at('cut.tif'))).rejects.toThrow(/cut\.tif: IFD at byte \d+, strip \d+: its 7936 bytes at byte \d+ run past the end of the file/)
  })

  it('a text file named .tif: not a TIFF', async () => {
    copyFileSync(at('dem.asc'), at('text.tif'))
    await expect(refused(at('text.tif'))).rejects.toThrow('text.tif: not a TIFF file (its content is text), though its name ends in .tif')
  })

  it('a GeoTIFF among three files (the study\'s header is for its text grids)', async () => {
    const files = [study[0], at('dem-float64-strips-uncompressed.tif'), study[2]]
    await expect(readLandslideInput(files, files)).rejects.toThrow('with a GeoTIFF grid, landslide needs two grids, the DEM and the source (the study\'s header file is for its text grids); got 3 files')
  })

  it('an IFD offset past the end of the file', async () => {
    writeFileSync(at('ifd.tif'), tiffBytes(floatRaster(2, 2, 32, 1, 16), new Uint8Array(16), { ifdOffset: 99_999 }))
    await expect(refused(at('ifd.tif'))).rejects.toThrow(/ifd\.tif: IFD at byte 99999: lies past the end of the file \(\d+ bytes\)/)
  })

  it('a tag whose values lie past the end', async () => {
    const bytes = tiffBytes(floatRaster(2, 2, 32, 1, 16), new Uint8Array(16))
    // ModelTiepoint's 6 doubles: its count made a million.
    const entry = 10 + 11 * 12
    expect(bytes.readUInt16LE(entry)).toBe(33922)
    bytes.writeUInt32LE(1_000_000, entry + 4)
    writeFileSync(at('tag.tif'), bytes)
    await expect(refused(at('tag.tif'))).rejects.toThrow('tag.tif: IFD at byte 8, ModelTiepoint (33922): its 1000000 values (8000000 bytes at byte')
  })

  it('10⁶ × 10⁶ cells announced by a file of a few hundred bytes: refused before allocating (RSS bound)', async () => {
    writeFileSync(at('huge.tif'), tiffBytes(floatRaster(1_000_000, 1_000_000, 32, 8, 64), new Uint8Array(64)))
    // Within the cell limit but past what its bytes can hold, even inflated 1032 to 1.
    writeFileSync(at('big.tif'), tiffBytes(floatRaster(16384, 16384, 32, 8, 64), new Uint8Array(64)))
    const rss = process.memoryUsage().rss
    await expect(refused(at('huge.tif'))).rejects.toThrow('huge.tif: IFD at byte 8: announces 1000000 × 1000000 cells, more than the 268435456 a raster may have here')
    await expect(refused(at('big.tif'))).rejects.toThrow('big.tif: IFD at byte 8, strip 0: holds 64 bytes, which deflate cannot expand to the 1073741824 its IFD announces')
    expect(process.memoryUsage().rss - rss).toBeLessThan(32 * 2 ** 20)
  })

  it('a deflate bomb: a strip inflating far past the bytes announced stops there (RSS bound)', async () => {
    // 128 MiB of zeros deflated (~130 KB), in a strip of a 64 × 64 float64 raster (32 KiB).
    const parts: Buffer[] = []
    const z = createDeflate({ level: 9 })
    z.on('data', (b: Buffer) => parts.push(b))
    const done = new Promise((resolve) => z.on('end', resolve))
    const zeros = Buffer.alloc(2 ** 20)
    for (let i = 0; i < 128; i++) z.write(zeros)
    z.end()
    await done
    const bomb = Buffer.concat(parts)
    writeFileSync(at('bomb.tif'), tiffBytes(floatRaster(64, 64, 64, 8, bomb.length), bomb))
    const rss = process.memoryUsage().rss
    await expect(refused(at('bomb.tif'))).rejects.toThrow(/bomb\.tif: IFD at byte 8, strip 0 \(\d+ bytes at byte \d+\): expands past the 32768 bytes its IFD announces/)
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 2 ** 20)
  })

  it('a 3-band raster', async () => {
    gdal('-b', '1', '-b', '1', '-b', '1', at('dem.asc'), at('rgb.tif'))
    await expect(refused(at('rgb.tif'))).rejects.toThrow('rgb.tif: IFD at byte 8, SamplesPerPixel (277): the raster has 3 bands; a grid is read from a single-band raster')
  })

  it('non-square cells: both sizes named', async () => {
    gdal('-a_ullr', '0', '12200', '4960', '0', at('dem.asc'), at('tall.tif'))
    await expect(refused(at('tall.tif'))).rejects.toThrow('tall.tif: its cells are not square: 10 wide and 20 high (map units)')
  })

  it('a source not on the DEM\'s grid: what differs named', async () => {
    gdal('-a_ullr', '10', '6110', '4970', '10', at('source.asc'), at('moved.tif'))
    gdal('-srcwin', '0', '0', '496', '600', at('source.asc'), at('short.tif'))
    const dem = at('dem-float64-strips-uncompressed.tif')
    await expect(readLandslideInput([dem, at('moved.tif')], [dem, at('moved.tif')])).rejects.toThrow(`the source ${at('moved.tif')} does not lie on the DEM ${dem}'s grid: lower-left corner (10, 10), the DEM's (0, 0)`)
    await expect(readLandslideInput([dem, at('short.tif')], [dem, at('short.tif')])).rejects.toThrow(`the source ${at('short.tif')} does not lie on the DEM ${dem}'s grid: size 600 × 496, the DEM's 610 × 496 (rows × columns); lower-left corner (0, 100), the DEM's (0, 0)`)
  })

  it('an unsupported compression (JPEG) named', async () => {
    gdal('-ot', 'Byte', '-scale', '-co', 'COMPRESS=JPEG', at('dem.asc'), at('jpeg.tif'))
    await expect(refused(at('jpeg.tif'))).rejects.toThrow('jpeg.tif: IFD at byte 8, Compression (259): compression JPEG (7) is not supported: uncompressed, deflate, LZW, ZSTD or PackBits are')
  })

  it('a strip count that does not fit the size, and a raster without georeferencing', async () => {
    const entries = floatRaster(4, 4, 32, 1, 64)
    entries.find((e) => e.tag === 278)!.values = [1]
    writeFileSync(at('strips.tif'), tiffBytes(entries, new Uint8Array(64)))
    await expect(refused(at('strips.tif'))).rejects.toThrow('strips.tif: IFD at byte 8, StripOffsets (273): 1 values for the 4 strips of 4 × 4 cells in 4 × 1 strips')
    writeFileSync(at('plain.tif'), tiffBytes(floatRaster(4, 4, 32, 1, 64).filter((e) => e.tag < 33000), new Uint8Array(64)))
    await expect(refused(at('plain.tif'))).rejects.toThrow('plain.tif: has no georeferencing (ModelPixelScale and ModelTiepoint, or ModelTransformation)')
  })

  it('corrupt LZW and deflate data name the strip', async () => {
    writeFileSync(at('lzw.tif'), tiffBytes(floatRaster(4, 4, 32, 5, 8), Buffer.from([0x80, 0x40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])))
    await expect(refused(at('lzw.tif'))).rejects.toThrow(/lzw\.tif: IFD at byte 8, strip 0 \(8 bytes at byte \d+\): /)
    writeFileSync(at('zip.tif'), tiffBytes(floatRaster(4, 4, 32, 8, 8), Buffer.from('notzlib!')))
    await expect(refused(at('zip.tif'))).rejects.toThrow(/zip\.tif: IFD at byte 8, strip 0 \(8 bytes at byte \d+\): is not valid deflate data/)
  })

  it('a ModelTransformation places the grid; a rotated one is refused', async () => {
    const placed = (matrix: number[]) => [...floatRaster(2, 2, 64, 1, 32).filter((e) => e.tag < 33000), { tag: 34264, type: DOUBLE, values: matrix }]
    const cells = new Uint8Array(new Float64Array([5, 4, 3, 2]).buffer)
    writeFileSync(at('matrix.tif'), tiffBytes(placed([5, 0, 0, 100, 0, -5, 0, 210, 0, 0, 1, 0, 0, 0, 0, 1]), cells))
    expect((await readRaster('matrix.tif', at('matrix.tif'))).placement).toEqual({ west: 100, north: 210, cellWidth: 5, cellHeight: 5 })
    writeFileSync(at('rotated.tif'), tiffBytes(placed([5, 1, 0, 100, 1, -5, 0, 210, 0, 0, 1, 0, 0, 0, 0, 1]), cells))
    await expect(readRaster('rotated.tif', at('rotated.tif'))).rejects.toThrow('rotated.tif: IFD at byte 8, ModelTransformation (34264): the grid is rotated or sheared; a north-up grid is read')
  })

  it('a NaN NODATA (as GDAL writes float grids) makes walls', async () => {
    const text = await readLandslideInput(study, study)
    const z = text.z.map((v, k) => (text.walls![k] ? NaN : v))
    writeFileSync(at('nan.tif'), Buffer.concat([...geoTiffPieces({ width: 496, height: 610, values: z, mask: null, nodata: NaN, geo: cornerGeoTags(0, 0, 10, 610) })]))
    expect(gdalinfo(at('nan.tif')).bands[0].noDataValue).toBe('NaN')
    const input = await readLandslideInput([at('nan.tif'), at('source.asc')], [at('nan.tif'), at('source.asc')])
    expect(input.wallCount).toBe(text.wallCount)
    expect(input.z.every(Number.isFinite)).toBe(true)
    expect(await md5(at('nan.tif'), at('source.asc'))).toBe(textMd5)
  })

  it('wrong-typed values: a negative thickness names its cell', async () => {
    const entries = floatRaster(2, 2, 64, 1, 32)
    const values = new Float64Array([0, 1, -2, 0])
    writeFileSync(at('neg-dem.tif'), tiffBytes(entries, new Uint8Array(new Float64Array([5, 4, 3, 2]).buffer)))
    writeFileSync(at('neg.tif'), tiffBytes(entries, new Uint8Array(values.buffer)))
    await expect(readLandslideInput([at('neg-dem.tif'), at('neg.tif')], [at('neg-dem.tif'), at('neg.tif')])).rejects.toThrow(`${at('neg.tif')}: row 2, column 1: negative thickness -2`)
    expect(LONG).toBe(4)
    expect(DATA).toBe(-1)
  })
})

describe('reading while a server answers', () => {
  it('a large LZW raster is decoded in slices: the event loop never waits a second', async () => {
    gdal('-ot', 'Float32', '-co', 'COMPRESS=LZW', '-outsize', '500%', '500%', at('dem.asc'), at('large.tif'))
    const loop = watchEventLoop()
    let longest = 0
    try {
      const r = await readRaster('large.tif', at('large.tif'))
      expect(r.width * r.height).toBe(2480 * 3050)
    } finally {
      longest = loop.stop()
    }
    expect(longest).toBeLessThan(1000)
  }, 60_000)
})
