// The relief under the debris: the DEM's hillshade by Horn's method (the one GDAL and ArcGIS use),
// computed once per job over the thickness maps' window and reduced to their resolution, so the
// dashboard and the exported images draw the flow over the terrain it runs down.
import type { LandslideHillshade, ThicknessMap } from '../../../shared/workloads/landslide/types'

/** The sun of the usual hillshade: from the north-west, 45° above the horizon. */
export const SUN = { azimuth: 315, altitude: 45 } as const

/** The sun's terms of the hillshade: cos of its zenith angle, and its direction times sin of it. */
function sunTerms(sun: { azimuth: number; altitude: number }): { cosZenith: number; east: number; south: number } {
  const zenith = ((90 - sun.altitude) * Math.PI) / 180
  // The azimuth as an angle from east, counter-clockwise.
  const azimuth = (((450 - sun.azimuth) % 360) * Math.PI) / 180
  return { cosZenith: Math.cos(zenith), east: Math.sin(zenith) * Math.cos(azimuth), south: Math.sin(zenith) * Math.sin(azimuth) }
}

/**
 * cos zenith · cos slope + sin zenith · sin slope · cos(azimuth − aspect), with the slope and the
 * aspect (ESRI's atan2(dz/dy, −dz/dx)) written through the gradient: no trigonometry per cell.
 */
function shadeOf(dzdx: number, dzdy: number, t: ReturnType<typeof sunTerms>): number {
  const shade = (t.cosZenith - dzdx * t.east + dzdy * t.south) / Math.sqrt(1 + dzdx * dzdx + dzdy * dzdy)
  return 255 * Math.max(0, shade)
}

/**
 * The hillshade of cell (i, j), 0 (in shadow) … 255 (facing the sun), rows running north to south.
 * A neighbour beyond the grid or on a wall counts as the cell itself, so edges and the rims of
 * NODATA areas get a slope from the cells that exist.
 */
export function hornShade(
  z: ArrayLike<number>,
  rows: number,
  cols: number,
  walls: Uint8Array | null,
  cellsize: number,
  i: number,
  j: number,
  sun: { azimuth: number; altitude: number } = SUN,
): number {
  return shadeAt(z, rows, cols, walls, 1 / (8 * cellsize), i, j, sunTerms(sun))
}

function wallNear(walls: Uint8Array, k: number, cols: number): boolean {
  return (walls[k - cols - 1] | walls[k - cols] | walls[k - cols + 1] | walls[k - 1] | walls[k + 1] | walls[k + cols - 1] | walls[k + cols] | walls[k + cols + 1]) !== 0
}

/** `z` may hold rows from `first` on only (z[0] is row `first`'s first cell): the rows around i. */
function shadeAt(z: ArrayLike<number>, rows: number, cols: number, walls: Uint8Array | null, scale: number, i: number, j: number, t: ReturnType<typeof sunTerms>, first = 0): number {
  const k = i * cols + j
  const o = k - first * cols
  let a: number, b: number, c: number, d: number, f: number, g: number, h: number, n: number
  if (i > 0 && i < rows - 1 && j > 0 && j < cols - 1 && !(walls && wallNear(walls, k, cols))) {
    // Inside the grid away from walls: every neighbour exists (the common case, kept fast).
    a = z[o - cols - 1]
    b = z[o - cols]
    c = z[o - cols + 1]
    d = z[o - 1]
    f = z[o + 1]
    g = z[o + cols - 1]
    h = z[o + cols]
    n = z[o + cols + 1]
  } else {
    const at = (di: number, dj: number): number => {
      const ii = i + di
      const jj = j + dj
      if (ii < 0 || ii >= rows || jj < 0 || jj >= cols) return z[o]
      const kk = ii * cols + jj
      return walls?.[kk] ? z[o] : z[kk - first * cols]
    }
    a = at(-1, -1)
    b = at(-1, 0)
    c = at(-1, 1)
    d = at(0, -1)
    f = at(0, 1)
    g = at(1, -1)
    h = at(1, 0)
    n = at(1, 1)
  }
  // Rises to the east and to the south (rows run southwards).
  const dzdx = (c + 2 * f + n - (a + 2 * d + g)) * scale
  const dzdy = (g + 2 * h + n - (a + 2 * b + c)) * scale
  return shadeOf(dzdx, dzdy, t)
}

/**
 * The hillshade over the maps' window, one value per map cell: the mean over its block's grid
 * cells that hold an elevation, rounded; null where the block holds only walls or lies beyond the
 * grid. Only the window's cells are shaded, so a large grid costs no more than its window.
 */
export function hillshadeMap(
  z: ArrayLike<number>,
  rows: number,
  cols: number,
  walls: Uint8Array | null,
  cellsize: number,
  window: Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>,
  /** The initial thickness, when `z` is the DEM as read: it is carved out (z − h where h > 0, interior cells) a band of rows at a time, no copy of the grid. */
  source?: Float64Array,
): LandslideHillshade {
  const { row0, col0, size, block } = window
  const sun = sunTerms(SUN)
  const scale = 1 / (8 * cellsize)
  const values: (number | null)[] = new Array(size * size).fill(null)
  let band: Float64Array | null = null
  for (let r = 0; r < size; r++) {
    // The carved rows around this row of blocks (one beyond on each side), when carving.
    const first = Math.max(0, row0 + r * block - 1)
    let zr: ArrayLike<number> = z
    if (source) {
      const last = Math.min(rows, row0 + (r + 1) * block + 1)
      band = band && band.length >= (last - first) * cols ? band : new Float64Array((last - first) * cols)
      band.set((z as Float64Array).subarray(first * cols, last * cols))
      for (let i = Math.max(1, first); i < Math.min(rows - 1, last); i++)
        for (let k = i * cols + 1, end = i * cols + cols - 1; k < end; k++) if (source[k] > 0) band[k - first * cols] -= source[k]
      zr = band
    }
    for (let c = 0; c < size; c++) {
      let sum = 0
      let count = 0
      const i1 = Math.min(rows, row0 + (r + 1) * block)
      const j1 = Math.min(cols, col0 + (c + 1) * block)
      for (let i = Math.max(0, row0 + r * block); i < i1; i++)
        for (let j = Math.max(0, col0 + c * block); j < j1; j++) {
          if (walls?.[i * cols + j]) continue
          sum += shadeAt(zr, rows, cols, walls, scale, i, j, sun, source ? first : 0)
          count++
        }
      if (count > 0) values[r * size + c] = Math.round(sum / count)
    }
  }
  return { row0, col0, size, block, azimuth: SUN.azimuth, altitude: SUN.altitude, values }
}

/**
 * The ground's elevation over the maps' window, one value per map cell: the mean of `z` (the DEM
 * with the source carved out, as the simulation sees it) over its block's grid cells that are not
 * walls, rounded to 1 cm; null where the block holds only walls or lies beyond the grid.
 */
export function elevationMap(
  z: ArrayLike<number>,
  rows: number,
  cols: number,
  walls: Uint8Array | null,
  window: Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>,
): (number | null)[] {
  const { row0, col0, size, block } = window
  const values: (number | null)[] = new Array(size * size).fill(null)
  for (let r = 0; r < size; r++)
    for (let c = 0; c < size; c++) {
      let sum = 0
      let count = 0
      const i1 = Math.min(rows, row0 + (r + 1) * block)
      const j1 = Math.min(cols, col0 + (c + 1) * block)
      for (let i = Math.max(0, row0 + r * block); i < i1; i++)
        for (let j = Math.max(0, col0 + c * block); j < j1; j++) {
          if (walls?.[i * cols + j]) continue
          sum += z[i * cols + j]
          count++
        }
      if (count > 0) values[r * size + c] = Math.round((sum / count) * 100) / 100
    }
  return values
}

/** The relief record of a run's results: the hillshade and the ground's elevation over the maps' window. */
export function reliefMap(
  z: ArrayLike<number>,
  rows: number,
  cols: number,
  walls: Uint8Array | null,
  cellsize: number,
  window: Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>,
): LandslideHillshade {
  return { ...hillshadeMap(z, rows, cols, walls, cellsize, window), elevation: elevationMap(z, rows, cols, walls, window) }
}
