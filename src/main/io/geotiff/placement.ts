// Where a GeoTIFF's raster lies, from its georeferencing tags as GDAL reads them.
import { type Directory, loadTag, numbers } from './directory'
import { tagName, tiffError } from './tiff-structure'

/** The georeferencing tags as the file holds them, to be written unchanged beside derived grids. */
export interface GeoTags {
  pixelScale?: number[]
  tiepoint?: number[]
  transformation?: number[]
  geoKeyDirectory?: number[]
  geoDoubleParams?: number[]
  geoAsciiParams?: string
}

/** Where the raster lies: its upper-left corner and its cells' sizes (positive), north up. */
export interface Placement {
  west: number
  north: number
  cellWidth: number
  cellHeight: number
}

/**
 * The upper-left corner and cell sizes from ModelPixelScale and one ModelTiepoint, or from a
 * ModelTransformation without rotation, as GDAL's geotransform. A raster of points
 * (GTRasterTypeGeoKey 2) has its tiepoint at a cell's centre, half a cell from the corner, as GDAL
 * reads it. A positive y cell size (rows stored south first) is read flipped, north row first, and
 * its tags are given as the north-up equivalent, for the grids written beside it.
 */
export async function placementOf(shown: string, ifd: string, fd: Directory, width: number, height: number): Promise<{ placement: Placement | null; southUp: boolean; geo: GeoTags }> {
  const scale = await numbers(shown, ifd, fd, 'ModelPixelScale')
  const tie = await numbers(shown, ifd, fd, 'ModelTiepoint')
  const matrix = await numbers(shown, ifd, fd, 'ModelTransformation')
  const keys = await numbers(shown, ifd, fd, 'GeoKeyDirectory')
  const geo: GeoTags = {
    pixelScale: scale,
    tiepoint: tie,
    transformation: matrix,
    geoKeyDirectory: keys,
    geoDoubleParams: await numbers(shown, ifd, fd, 'GeoDoubleParams'),
    geoAsciiParams: ((await loadTag(shown, ifd, fd, 'GeoAsciiParams')) as string | undefined) ?? undefined,
  }
  let pointShift = 0
  if (keys) for (let i = 4; i + 3 < keys.length; i += 4) if (keys[i] === 1025 && keys[i + 1] === 0 && keys[i + 3] === 2) pointShift = 0.5
  // GDAL's geotransform: x0, dx, y0, dy (dy < 0 north up).
  let x0: number, dx: number, y0: number, dy: number
  if (scale && tie) {
    if (tie.length !== 6) throw tiffError(shown, `${ifd}, ${tagName(33922)}`, `${tie.length / 6} tiepoints; a grid is placed by one`)
    if (scale.length < 2 || !(scale[0] > 0) || !(scale[1] !== 0)) throw tiffError(shown, `${ifd}, ${tagName(33550)}`, `cell sizes ${scale.slice(0, 2).join(' × ')}; a positive width and a non-zero height expected`)
    const [i, j, , x, y] = tie
    ;[dx, dy] = [scale[0], -scale[1]]
    ;[x0, y0] = [x - i * dx, y - j * dy]
  } else if (matrix) {
    if (matrix.length !== 16) throw tiffError(shown, `${ifd}, ${tagName(34264)}`, `${matrix.length} values, 16 expected`)
    const [a, b, , d, e, f, , h] = matrix
    if (b !== 0 || e !== 0) throw tiffError(shown, `${ifd}, ${tagName(34264)}`, 'the grid is rotated or sheared; a north-up grid is read (gdalwarp makes one)')
    if (!(a > 0) || !(f !== 0)) throw tiffError(shown, `${ifd}, ${tagName(34264)}`, `cell sizes ${a} × ${f}; a positive width and a non-zero height expected`)
    ;[x0, dx, y0, dy] = [d, a, h, f]
  } else return { placement: null, southUp: false, geo }
  x0 -= pointShift * dx
  y0 -= pointShift * dy
  const southUp = dy > 0
  const p: Placement = { west: x0, north: southUp ? y0 + height * dy : y0, cellWidth: dx, cellHeight: Math.abs(dy) }
  if (![p.west, p.north, p.cellWidth, p.cellHeight].every(Number.isFinite) || !Number.isFinite(p.north - height * p.cellHeight) || !Number.isFinite(p.west + width * p.cellWidth))
    throw tiffError(shown, ifd, 'its georeferencing is not finite')
  if (southUp) {
    const shift = pointShift
    Object.assign(geo, { pixelScale: [p.cellWidth, p.cellHeight, 0], tiepoint: [0, 0, 0, p.west + shift * p.cellWidth, p.north - shift * p.cellHeight, 0], transformation: undefined })
  }
  return { placement: p, southUp, geo }
}
