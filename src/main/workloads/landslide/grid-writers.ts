// Thickness grids for other tools: an ESRI ASCII grid with the DEM's header and a GeoTIFF with the
// DEM's georeferencing (QGIS and GDAL open both as rasters in place over the DEM), and a NumPy .npy
// array (float64, rows × columns).
import { cornerGeoTags, geoTiffPieces } from '../../io/geotiff/write-geotiff'
import { ascCorner, type GridHeader } from './esri-grid'
import type { LandslideInput } from './inputs'

/** What a thickness `.asc` writes for walls: a value no thickness (≥ 0) takes. */
export const ASC_NODATA = -9999

/**
 * The grid as an `.asc` file: the DEM's header keys and values as it wrote them, then one row per
 * line, values in the shortest form that reads back to the same double. Dry cells are 0 and walls
 * are NODATA_value −9999: the DEM's own NODATA (the study's is 0.0) would make a GIS read every dry
 * cell as no data.
 */
export function ascText(h: Float64Array, header: GridHeader, walls: Uint8Array | null): string {
  return [...ascLines(h, header, walls)].join('')
}

/**
 * ascText's bytes, encoded a row at a time: no text of the whole grid is made, so a grid of
 * millions of cells costs its file's bytes and one row's text.
 */
export function ascBytes(h: Float64Array, header: GridHeader, walls: Uint8Array | null): Uint8Array {
  const encoder = new TextEncoder()
  const rows: Uint8Array[] = []
  for (const text of ascLines(h, header, walls)) rows.push(encoder.encode(text))
  const out = new Uint8Array(rows.reduce((n, r) => n + r.length, 0))
  let at = 0
  for (const r of rows) {
    out.set(r, at)
    at += r.length
  }
  return out
}

/** The header, then each row's line, made as they are asked for. */
function* ascLines(h: Float64Array, header: GridHeader, walls: Uint8Array | null): Generator<string> {
  const { nrows, ncols } = header
  const isNodata = (k: string) => k.toLowerCase() === 'nodata_value'
  const entries = header.entries.map(([k, v]): [string, string] => [k, isNodata(k) ? String(ASC_NODATA) : v])
  if (!entries.some(([k]) => isNodata(k))) entries.push(['NODATA_value', String(ASC_NODATA)])
  const keyWidth = Math.max(...entries.map(([k]) => k.length)) + 1
  yield entries.map(([k, v]) => `${k.padEnd(keyWidth)}${v}\n`).join('')
  const nodata = String(ASC_NODATA)
  const row: string[] = new Array(ncols)
  for (let i = 0; i < nrows; i++) {
    for (let j = 0; j < ncols; j++) {
      const k = i * ncols + j
      row[j] = walls?.[k] ? nodata : String(h[k])
    }
    yield row.join(' ') + '\n'
  }
}

/** A C-ordered little-endian float64 .npy (format 1.0) of shape (rows, cols). */
export function npyBytes(h: Float64Array, rows: number, cols: number): Uint8Array {
  const dict = `{'descr': '<f8', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`
  // Magic (6) + version (2) + length (2) + dict, padded with spaces and a newline to 64 bytes.
  const unpadded = 10 + dict.length + 1
  const headerText = dict + ' '.repeat((64 - (unpadded % 64)) % 64) + '\n'
  const out = new Uint8Array(10 + headerText.length + h.length * 8)
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0])
  new DataView(out.buffer).setUint16(8, headerText.length, true)
  for (let i = 0; i < headerText.length; i++) out[10 + i] = headerText.charCodeAt(i)
  const data = new DataView(out.buffer, 10 + headerText.length)
  for (let k = 0; k < h.length; k++) data.setFloat64(k * 8, h[k], true)
  return out
}

/**
 * The grid as a float64 GeoTIFF, in pieces: the DEM's georeferencing tags copied when the DEM was a
 * GeoTIFF (its CRS with them), else placed by the ESRI header's corner and cell size (no CRS). Dry
 * cells are 0 and walls NODATA −9999, as in the .asc.
 */
export function tifPieces(h: Float64Array, input: Pick<LandslideInput, 'rows' | 'cols' | 'header' | 'walls' | 'geo'>): Generator<Uint8Array> {
  const { rows, cols, header } = input
  const geo = input.geo ?? cornerGeoTags(...ascCorner(header), header.cellsize, rows)
  return geoTiffPieces({ width: cols, height: rows, values: h, mask: input.walls, nodata: ASC_NODATA, geo })
}
