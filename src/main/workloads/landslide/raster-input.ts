// The landslide's input when a grid is a GeoTIFF: the DEM and the source as single-band rasters
// (or one of them an .asc), which must lie on one grid — the same size, origin and square cells —
// because the automaton pairs them cell by cell. NODATA in the DEM makes walls, in the source no
// debris; every message names the file and, for a cell, its row and column.
import { ApiError } from '../../../shared/errors'
import { crsText, type GridCrs } from '../../../shared/workloads/landslide/types'
import { crsOf, utmZoneEpsg } from '../../io/geotiff/crs'
import { readRaster, type GeoTags, type Raster } from '../../io/geotiff/read-raster'
import { inTurns } from '../../workers/in-turns'
import { ascCorner, gridError, MAX_VALUE, parseGridRows, parseHeader, type GridHeader } from './esri-grid'
import type { LandslideInput } from './landslide-input'

/** A grid as read, before it becomes a DEM or a source. */
interface GridFile {
  shown: string
  rows: number
  cols: number
  /** Lower-left corner and the side of a (square) cell. */
  west: number
  south: number
  cellsize: number
  nodata: number | null
  values: Float64Array
  geo?: GeoTags
  /** What the GeoKeys state (a projected CRS in metres); absent for an .asc or a GeoTIFF without GeoKeys. */
  crs?: GridCrs
}

/** Cells sizes or corners closer than this (relative to a cell) are the same: GDAL prints 15 digits. */
const SAME = 1e-9

/** A GeoTIFF as a grid of square cells, or refused naming what it lacks. */
export async function rasterGrid(shown: string, path: string, signal?: AbortSignal): Promise<GridFile> {
  const r: Raster = await readRaster(shown, path, { signal })
  if (!r.placement) throw new ApiError('invalid-input', `${shown}: has no georeferencing (ModelPixelScale and ModelTiepoint, or ModelTransformation), so its cell size is unknown`)
  const { west, north, cellWidth, cellHeight } = r.placement
  const south = north - r.height * cellHeight
  // The CRS first: cells in degrees are refused as such, square or not.
  const crs = metricCrs(shown, r.geo, { west, north, south, east: west + r.width * cellWidth, cellsize: cellWidth })
  if (Math.abs(cellWidth - cellHeight) > SAME * Math.max(cellWidth, cellHeight))
    throw new ApiError('invalid-input', `${shown}: its cells are not square: ${cellWidth} wide and ${cellHeight} high (map units); the automaton needs square cells (gdalwarp -tr makes them)`)
  return { shown, rows: r.height, cols: r.width, west, south, cellsize: cellWidth, nodata: r.nodata, values: r.values, geo: r.geo, ...crs }
}

/**
 * The GeoKeys' CRS when its cells are metres, as the automaton's p_ε and the volume in m³ take them;
 * a geographic CRS (cells in degrees), a geocentric one or a projected one in other units is refused
 * by name, with the gdalwarp that makes the grid metric (a UTM zone from the grid's middle where its
 * coordinates are longitudes and latitudes).
 */
function metricCrs(shown: string, geo: GeoTags, at: { west: number; north: number; south: number; east: number; cellsize: number }): { crs?: GridCrs } {
  const crs = crsOf(geo)
  const named = crsText(crs)
  const warp = (epsg: number | null) => `gdalwarp -t_srs EPSG:${epsg ?? '<a UTM zone or national metric grid>'} ${shown} ${shown.replace(/(\.tiff?)?$/i, '-utm$1')}`
  if (crs.kind === 'geographic') {
    const zone = utmZoneEpsg((at.west + at.east) / 2, (at.north + at.south) / 2)
    throw new ApiError(
      'invalid-input',
      `${shown}: its CRS ${named} is geographic: its cells are ${Number(at.cellsize.toPrecision(6))} degrees, not metres, and the landslide needs metres (its thresholds, the cell area, the relief): reproject it to a metric CRS first, e.g. ${warp(zone)}${zone !== null ? ` (the UTM zone of its middle)` : ''}, and the source likewise`,
    )
  }
  if (crs.kind === 'geocentric') throw new ApiError('invalid-input', `${shown}: its CRS ${named} is geocentric, not a map grid in metres: reproject it first, e.g. ${warp(null)}`)
  if (crs.kind === 'projected' && crs.unit?.metres !== 1)
    throw new ApiError('invalid-input', `${shown}: its CRS ${named} is in ${crs.unit?.name ?? 'an unknown unit'}, not metres, and the landslide needs metres: reproject it first, e.g. ${warp(null)}`)
  return crs.kind === 'unknown' ? {} : { crs: { epsg: crs.epsg, name: crs.name } }
}

/** An ESRI ASCII grid (with its header) as a grid, its corner from xllcenter where it gives centres. */
export async function ascGrid(shown: string, lines: string[]): Promise<GridFile> {
  const { header, next } = parseHeader(shown, lines)
  const values = await inTurns(parseGridRows(shown, lines, next, header, { nodata: header.nodata }))
  const [west, south] = ascCorner(header)
  return { shown, rows: header.nrows, cols: header.ncols, west, south, cellsize: header.cellsize, nodata: header.nodata, values }
}

const isNodata = (nodata: number | null) => (nodata === null ? () => false : Number.isNaN(nodata) ? (v: number) => Number.isNaN(v) : (v: number) => v === nodata)

function cellError(file: string, k: number, cols: number, message: string): ApiError {
  return gridError(file, undefined, `row ${Math.floor(k / cols) + 1}, column ${(k % cols) + 1}: ${message}`)
}

/** The DEM and the source as the automaton's input; they must share one grid. In slices (a row each), so a server goes on answering. */
export function rasterInput(dem: GridFile, source: GridFile, signal?: AbortSignal): Promise<LandslideInput> {
  return inTurns(rasterInputRows(dem, source), signal)
}

function* rasterInputRows(dem: GridFile, source: GridFile): Generator<void, LandslideInput> {
  const differs: string[] = []
  const tol = SAME * dem.cellsize
  if (dem.rows !== source.rows || dem.cols !== source.cols) differs.push(`size ${source.rows} × ${source.cols}, the DEM's ${dem.rows} × ${dem.cols} (rows × columns)`)
  if (Math.abs(dem.west - source.west) > tol || Math.abs(dem.south - source.south) > tol)
    differs.push(`lower-left corner (${source.west}, ${source.south}), the DEM's (${dem.west}, ${dem.south})`)
  if (Math.abs(dem.cellsize - source.cellsize) > tol) differs.push(`cell size ${source.cellsize}, the DEM's ${dem.cellsize}`)
  if (dem.crs && source.crs && (dem.crs.epsg !== source.crs.epsg || dem.crs.name !== source.crs.name)) differs.push(`CRS ${crsText(source.crs)}, the DEM's ${crsText(dem.crs)}`)
  if (differs.length) throw new ApiError('invalid-input', `the source ${source.shown} does not lie on the DEM ${dem.shown}'s grid: ${differs.join('; ')}`)

  const { rows, cols } = dem
  const n = rows * cols
  const z = dem.values
  const demNodata = isNodata(dem.nodata)
  let walls: Uint8Array | null = null
  let wallCount = 0
  for (let k = 0; k < n; k++) {
    if (k % cols === 0) yield
    const v = z[k]
    if (demNodata(v)) {
      walls ??= new Uint8Array(n)
      walls[k] = 1
      wallCount++
      // A wall's altitude is never used; a NaN NODATA is kept out of the arithmetic all the same.
      if (!Number.isFinite(v)) z[k] = 0
    } else if (!(Math.abs(v) <= MAX_VALUE)) throw cellError(dem.shown, k, cols, `${v} is out of range (at most ${MAX_VALUE} in magnitude)`)
  }
  const h = source.values
  const sourceNodata = isNodata(source.nodata)
  for (let k = 0; k < n; k++) {
    if (k % cols === 0) yield
    const v = h[k]
    if (sourceNodata(v)) h[k] = 0
    else if (!(Math.abs(v) <= MAX_VALUE)) throw cellError(source.shown, k, cols, `${v} is out of range (at most ${MAX_VALUE} in magnitude)`)
    else if (v < 0) throw cellError(source.shown, k, cols, `negative thickness ${v}`)
  }
  const header: GridHeader = {
    ncols: cols,
    nrows: rows,
    xllcorner: dem.west,
    yllcorner: dem.south,
    cellsize: dem.cellsize,
    nodata: dem.nodata,
    entries: [
      ['ncols', String(cols)],
      ['nrows', String(rows)],
      ['xllcorner', String(dem.west)],
      ['yllcorner', String(dem.south)],
      ['cellsize', String(dem.cellsize)],
      ...(dem.nodata !== null ? [['NODATA_value', String(dem.nodata)] as [string, string]] : []),
    ],
  }
  return { rows, cols, header, z, h, walls, wallCount, files: { dem: dem.shown, source: source.shown }, ...(dem.geo && { geo: dem.geo }), ...((dem.crs ?? source.crs) && { crs: dem.crs ?? source.crs }) }
}
