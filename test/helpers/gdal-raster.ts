// GDAL's reading of a raster's first band, for comparing Paralab's GeoTIFF reader with it: the cells
// as float64 in the file's row order (`gdal_translate -of ENVI -ot Float64`), the NODATA mask
// (`-b mask`: 0 where GDAL sees no data) and the geotransform (`gdalinfo -json`).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

export interface GdalReading {
  w: number
  h: number
  cells: Float64Array
  mask: Uint8Array
  gt: number[]
}

export function gdalReading(path: string, scratch: string): GdalReading {
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  const [w, h] = info.size as [number, number]
  execFileSync('gdal_translate', ['-q', '-b', '1', '-ot', 'Float64', '-of', 'ENVI', path, `${scratch}.f64`], { stdio: 'ignore' })
  execFileSync('gdal_translate', ['-q', '-b', 'mask', '-of', 'ENVI', path, `${scratch}.mask`], { stdio: 'ignore' })
  const raw = readFileSync(`${scratch}.f64`)
  const cells = new Float64Array(raw.buffer, raw.byteOffset, w * h)
  // GDAL 3.6 reads SampleFormat 2 bytes as Byte with PIXELTYPE=SIGNEDBYTE: their values are signed.
  if (info.bands[0].metadata?.IMAGE_STRUCTURE?.PIXELTYPE === 'SIGNEDBYTE') for (let k = 0; k < cells.length; k++) if (cells[k] > 127) cells[k] -= 256
  return { w, h, cells, mask: readFileSync(`${scratch}.mask`), gt: info.geoTransform as number[] }
}

/** Cells of `values` (north row first) that differ from GDAL's (NaN equals NaN), a south-up file's rows flipped. */
export function cellsDiffering(values: Float64Array, g: GdalReading): number {
  const southUp = g.gt[5] > 0
  let differ = 0
  for (let r = 0; r < g.h; r++) {
    const from = (southUp ? g.h - 1 - r : r) * g.w
    for (let c = 0; c < g.w; c++) {
      const a = values[r * g.w + c]
      const b = g.cells[from + c]
      if (!Object.is(a, b) && !(Number.isNaN(a) && Number.isNaN(b))) differ++
    }
  }
  return differ
}

/** Cells whose NODATA (by `nodata`) differs from GDAL's mask. */
export function maskDiffering(values: Float64Array, nodata: number | null, g: GdalReading): number {
  const southUp = g.gt[5] > 0
  const isNodata = nodata === null ? () => false : Number.isNaN(nodata) ? (v: number) => Number.isNaN(v) : (v: number) => v === nodata
  let differ = 0
  for (let r = 0; r < g.h; r++) {
    const from = (southUp ? g.h - 1 - r : r) * g.w
    for (let c = 0; c < g.w; c++) if (isNodata(values[r * g.w + c]) !== (g.mask[from + c] === 0)) differ++
  }
  return differ
}
