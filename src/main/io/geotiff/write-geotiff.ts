// A grid as a GeoTIFF that GDAL and QGIS place where its source lies: a baseline little-endian
// TIFF of one float64 band in uncompressed strips, with the georeferencing tags (ModelPixelScale,
// ModelTiepoint or ModelTransformation, and the GeoKeys with their double and text parameters)
// copied as given and GDAL's NODATA tag. Written here because the `geotiff` package's writer
// cannot write float64 samples, GDAL_NODATA or another file's GeoKeys.
import { joinPieces } from '../text-pieces'
import type { GeoTags } from './read-raster'

export interface GeoTiffGrid {
  width: number
  height: number
  /** Row-major, north row first. */
  values: Float64Array
  /** Cells to write as `nodata` instead of their value (1 = NODATA), or null. */
  mask: Uint8Array | null
  nodata: number
  geo: GeoTags
}

/** Strips of about this many bytes, as GDAL writes them. */
const STRIP_BYTES = 64 * 1024
/** Cells converted at a time into a piece of the file. */
const PIECE_CELLS = 1 << 17

const SHORT = 3
const LONG = 4
const ASCII = 2
const DOUBLE = 12
const TYPE_BYTES: Record<number, number> = { [SHORT]: 2, [LONG]: 4, [ASCII]: 1, [DOUBLE]: 8 }

/**
 * The georeferencing of a grid known by its lower-left corner and square cells (an ESRI grid's):
 * no GeoKeys, so no CRS (as GDAL writes an .asc without .prj); cells are areas by default.
 */
export function cornerGeoTags(west: number, south: number, cellsize: number, rows: number): GeoTags {
  return { pixelScale: [cellsize, cellsize, 0], tiepoint: [0, 0, 0, west, south + rows * cellsize, 0] }
}

/** The file's bytes, in pieces (the header and directory, then the strips a piece at a time). */
export function* geoTiffPieces(grid: GeoTiffGrid): Generator<Uint8Array> {
  const { values, mask, nodata } = grid
  yield geoTiffHead(grid)
  for (let k0 = 0; k0 < values.length; k0 += PIECE_CELLS) {
    const k1 = Math.min(values.length, k0 + PIECE_CELLS)
    yield geoTiffCells(values.subarray(k0, k1), mask?.subarray(k0, k1) ?? null, nodata)
  }
}

/**
 * Everything before the cells: the header, the directory and the tags' values. The cells follow,
 * row-major from the north row, as geoTiffCells encodes them; the file is this and 8 bytes a cell.
 */
export function geoTiffHead(grid: Omit<GeoTiffGrid, 'values' | 'mask'>): Uint8Array {
  const { width, height, nodata, geo } = grid
  const rowBytes = width * 8
  const rowsPerStrip = Math.max(1, Math.min(height, Math.floor(STRIP_BYTES / rowBytes)))
  const strips = Math.ceil(height / rowsPerStrip)
  const dataBytes = width * height * 8
  const entries: { tag: number; type: number; values: number[] | string }[] = [
    { tag: 256, type: LONG, values: [width] },
    { tag: 257, type: LONG, values: [height] },
    { tag: 258, type: SHORT, values: [64] },
    { tag: 259, type: SHORT, values: [1] },
    { tag: 262, type: SHORT, values: [1] },
    { tag: 273, type: LONG, values: new Array<number>(strips).fill(0) },
    { tag: 277, type: SHORT, values: [1] },
    { tag: 278, type: LONG, values: [rowsPerStrip] },
    { tag: 279, type: LONG, values: Array.from({ length: strips }, (_, s) => Math.min(rowsPerStrip, height - s * rowsPerStrip) * rowBytes) },
    { tag: 284, type: SHORT, values: [1] },
    { tag: 339, type: SHORT, values: [3] },
  ]
  if (geo.pixelScale) entries.push({ tag: 33550, type: DOUBLE, values: geo.pixelScale })
  if (geo.tiepoint) entries.push({ tag: 33922, type: DOUBLE, values: geo.tiepoint })
  if (geo.transformation) entries.push({ tag: 34264, type: DOUBLE, values: geo.transformation })
  if (geo.geoKeyDirectory) entries.push({ tag: 34735, type: SHORT, values: geo.geoKeyDirectory })
  if (geo.geoDoubleParams) entries.push({ tag: 34736, type: DOUBLE, values: geo.geoDoubleParams })
  if (geo.geoAsciiParams !== undefined) entries.push({ tag: 34737, type: ASCII, values: nulTerminated(geo.geoAsciiParams) })
  entries.push({ tag: 42113, type: ASCII, values: `${nodata}\0` })

  // Header (8), the directory (2 + 12 per entry + 4), then the values too long for an entry, then the strips.
  const ifdBytes = 2 + entries.length * 12 + 4
  const valueBytes = (e: (typeof entries)[number]) => TYPE_BYTES[e.type] * e.values.length
  let extra = 0
  for (const e of entries) if (valueBytes(e) > 4) extra += valueBytes(e) + (valueBytes(e) & 1)
  const dataAt = 8 + ifdBytes + extra
  if (dataAt + dataBytes > 2 ** 32 - 1) throw new RangeError(`a GeoTIFF of ${width} × ${height} float64 cells needs BigTIFF`)
  const stripOffsets = entries.find((e) => e.tag === 273)!.values as number[]
  for (let s = 0; s < strips; s++) stripOffsets[s] = dataAt + s * rowsPerStrip * rowBytes

  const head = new Uint8Array(dataAt)
  const view = new DataView(head.buffer)
  head.set([0x49, 0x49, 42, 0])
  view.setUint32(4, 8, true)
  view.setUint16(8, entries.length, true)
  let out = 8 + ifdBytes
  entries.forEach((e, i) => {
    const at = 10 + i * 12
    view.setUint16(at, e.tag, true)
    view.setUint16(at + 2, e.type, true)
    view.setUint32(at + 4, e.values.length, true)
    const bytes = valueBytes(e)
    let to = at + 8
    if (bytes > 4) {
      view.setUint32(at + 8, out, true)
      to = out
      out += bytes + (bytes & 1)
    }
    for (let k = 0; k < e.values.length; k++) {
      const v = e.values[k]
      if (e.type === ASCII) head[to + k] = (v as string).charCodeAt(0)
      else if (e.type === SHORT) view.setUint16(to + 2 * k, v as number, true)
      else if (e.type === LONG) view.setUint32(to + 4 * k, v as number, true)
      else view.setFloat64(to + 8 * k, v as number, true)
    }
  })
  return head
}

/** Cells as the strips hold them: little-endian float64, `nodata` where `mask` is set; written into `into`'s buffer when it is large enough. */
export function geoTiffCells(values: Float64Array, mask: Uint8Array | null, nodata: number, into?: Uint8Array): Uint8Array {
  const piece = into && into.buffer.byteLength >= values.length * 8 ? new Uint8Array(into.buffer, 0, values.length * 8) : new Uint8Array(values.length * 8)
  const pv = new DataView(piece.buffer, 0, piece.length)
  for (let k = 0; k < values.length; k++) pv.setFloat64(k * 8, mask?.[k] ? nodata : values[k], true)
  return piece
}

/** The whole file in one buffer (for downloads; files are written from the pieces). */
export function geoTiffBytes(grid: GeoTiffGrid): Uint8Array {
  return joinPieces(geoTiffPieces(grid))
}

/** GeoAsciiParams as TIFF stores ASCII: ending in NUL (the geotiff package gives it without). */
function nulTerminated(text: string): string {
  return text.endsWith('\0') ? text : `${text}\0`
}
