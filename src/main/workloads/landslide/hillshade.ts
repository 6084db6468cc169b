// The relief under the debris: the DEM's hillshade by Horn's method (the one GDAL and ArcGIS use),
// computed once per job over the thickness maps' window and reduced to their resolution, so the
// dashboard and the exported images draw the flow over the terrain it runs down.
import type { LandslideHillshade, ThicknessMap } from '../../../shared/workloads/landslide/types'

/** The sun of the usual hillshade: from the north-west, 45° above the horizon. */
export const SUN = { azimuth: 315, altitude: 45 } as const

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
  const k = i * cols + j
  const at = (di: number, dj: number): number => {
    const ii = i + di
    const jj = j + dj
    if (ii < 0 || ii >= rows || jj < 0 || jj >= cols) return z[k]
    const kk = ii * cols + jj
    return walls?.[kk] ? z[k] : z[kk]
  }
  const a = at(-1, -1)
  const b = at(-1, 0)
  const c = at(-1, 1)
  const d = at(0, -1)
  const f = at(0, 1)
  const g = at(1, -1)
  const h = at(1, 0)
  const n = at(1, 1)
  // Rises to the east and to the south (rows run southwards).
  const dzdx = (c + 2 * f + n - (a + 2 * d + g)) / (8 * cellsize)
  const dzdy = (g + 2 * h + n - (a + 2 * b + c)) / (8 * cellsize)
  const slope = Math.atan(Math.hypot(dzdx, dzdy))
  // The direction the slope faces, as an angle from east counter-clockwise (ESRI's formula).
  const aspect = Math.atan2(dzdy, -dzdx)
  const zenith = ((90 - sun.altitude) * Math.PI) / 180
  const azimuth = (((450 - sun.azimuth) % 360) * Math.PI) / 180
  const shade = Math.cos(zenith) * Math.cos(slope) + Math.sin(zenith) * Math.sin(slope) * Math.cos(azimuth - aspect)
  return 255 * Math.max(0, shade)
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
): LandslideHillshade {
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
          sum += hornShade(z, rows, cols, walls, cellsize, i, j)
          count++
        }
      if (count > 0) values[r * size + c] = Math.round(sum / count)
    }
  return { row0, col0, size, block, azimuth: SUN.azimuth, altitude: SUN.altitude, values }
}
