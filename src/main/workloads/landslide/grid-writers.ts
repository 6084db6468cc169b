// Thickness grids for other tools: an ESRI ASCII grid with the DEM's header and a GeoTIFF with the
// DEM's georeferencing (QGIS and GDAL open both as rasters in place over the DEM), and a NumPy .npy
// array (float64, rows × columns, walls NaN).
import type { GeoTags } from '../../io/geotiff/read-raster'
import { cornerGeoTags, geoTiffPieces } from '../../io/geotiff/write-geotiff'
import { joinPieces, TextPieces } from '../../io/text-pieces'
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
  return new TextDecoder().decode(ascBytes(h, header, walls))
}

/** ascText's bytes, encoded as they are made (no text of the whole grid, nor of a row). */
export function ascBytes(h: Float64Array, header: GridHeader, walls: Uint8Array | null): Uint8Array {
  return joinPieces(ascPieces(h, header, walls))
}

/** ascText's bytes in pieces (io/text-pieces.ts), made as they are asked for. */
export function* ascPieces(h: Float64Array, header: GridHeader, walls: Uint8Array | null): Generator<Uint8Array> {
  const out = new TextPieces()
  out.put(ascHeaderText(header))
  for (let i = 0; i < header.nrows; i++) {
    putAscRow(out, h, walls, i * header.ncols, header.ncols)
    yield* out.filled()
  }
  yield* out.rest()
}

/** The header lines: the DEM's keys and values, NODATA_value −9999 (added when the DEM has none). */
export function ascHeaderText(header: GridHeader): string {
  const isNodata = (k: string) => k.toLowerCase() === 'nodata_value'
  const entries = header.entries.map(([k, v]): [string, string] => [k, isNodata(k) ? String(ASC_NODATA) : v])
  if (!entries.some(([k]) => isNodata(k))) entries.push(['NODATA_value', String(ASC_NODATA)])
  const keyWidth = Math.max(...entries.map(([k]) => k.length)) + 1
  return entries.map(([k, v]) => `${k.padEnd(keyWidth)}${v}\n`).join('')
}

const NODATA_TEXT = String(ASC_NODATA)

/** One row's line: the `cols` cells of `h` from `at` (walls, where `walls[at + j]` is set, as NODATA). */
export function putAscRow(out: TextPieces, h: Float64Array, walls: Uint8Array | null, at: number, cols: number): void {
  for (let j = 0; j < cols; j++) {
    if (j > 0) out.put(' ')
    out.put(walls?.[at + j] ? NODATA_TEXT : String(h[at + j]))
  }
  out.put('\n')
}

/** The header of a C-ordered little-endian float64 .npy (format 1.0) of shape (rows, cols). */
export function npyGridHeader(rows: number, cols: number): Uint8Array {
  const dict = `{'descr': '<f8', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`
  // Magic (6) + version (2) + length (2) + dict, padded with spaces and a newline to 64 bytes.
  const unpadded = 10 + dict.length + 1
  const headerText = dict + ' '.repeat((64 - (unpadded % 64)) % 64) + '\n'
  const out = new Uint8Array(10 + headerText.length)
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0])
  new DataView(out.buffer).setUint16(8, headerText.length, true)
  for (let i = 0; i < headerText.length; i++) out[10 + i] = headerText.charCodeAt(i)
  return out
}

/** A C-ordered little-endian float64 .npy (format 1.0) of shape (rows, cols); walls NaN. */
export function npyBytes(h: Float64Array, rows: number, cols: number, walls: Uint8Array | null): Uint8Array {
  return joinPieces(npyPieces(h, rows, cols, walls))
}

/**
 * npyBytes in pieces: the header, then the grid's own memory (no copy; little-endian machines), or
 * where it has walls a copy a piece at a time with NaN in them: a wall is no thickness, and a dry
 * cell's 0 would make numpy's sums and means count it as one (GeoTIFF and .asc write NODATA there).
 */
export function* npyPieces(h: Float64Array, rows: number, cols: number, walls: Uint8Array | null): Generator<Uint8Array> {
  yield npyGridHeader(rows, cols)
  if (!walls) {
    const data = new Uint8Array(h.buffer, h.byteOffset, h.byteLength)
    for (let at = 0; at < data.length; at += NPY_PIECE_BYTES) yield data.subarray(at, at + NPY_PIECE_BYTES)
    return
  }
  // A fresh piece each time: callers may hold every piece (joinPieces) before using them.
  for (let k0 = 0; k0 < h.length; k0 += NPY_PIECE_BYTES / 8) {
    const piece = h.slice(k0, k0 + NPY_PIECE_BYTES / 8)
    for (let k = 0; k < piece.length; k++) if (walls[k0 + k]) piece[k] = NaN
    yield new Uint8Array(piece.buffer)
  }
}

/** Bytes of the grid handed on at a time. */
const NPY_PIECE_BYTES = 16 * 2 ** 20

/**
 * The grid as a float64 GeoTIFF, in pieces: the DEM's georeferencing tags copied when the DEM was a
 * GeoTIFF (its CRS with them), else placed by the ESRI header's corner and cell size (no CRS). Dry
 * cells are 0 and walls NODATA −9999, as in the .asc.
 */
export function tifPieces(h: Float64Array, input: Pick<LandslideInput, 'rows' | 'cols' | 'header' | 'walls' | 'geo'>): Generator<Uint8Array> {
  return geoTiffPieces({ ...tifLayout(input), values: h, mask: input.walls })
}

/** The GeoTIFF's size, NODATA and georeferencing (its cells are the grid's). */
export function tifLayout(input: Pick<LandslideInput, 'rows' | 'cols' | 'header' | 'geo'>): { width: number; height: number; nodata: number; geo: GeoTags } {
  const { rows, cols, header } = input
  return { width: cols, height: rows, nodata: ASC_NODATA, geo: input.geo ?? cornerGeoTags(...ascCorner(header), header.cellsize, rows) }
}
