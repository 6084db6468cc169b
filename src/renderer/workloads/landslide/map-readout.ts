// What the thickness map holds under the pointer: the map cell, the grid cells it stands for, its map
// coordinates, the debris thickness (the deepest of the block, as drawn) and the ground's elevation
// (the block's mean), so a value read off an aggregated map is never taken for one grid cell's.
import { pointCoordinates } from '../../../shared/workloads/landslide/map-view'
import type { LandslideResult } from '../../../shared/workloads/landslide/types'

export interface MapReadout {
  /** The map cell, row and column in the map's window. */
  row: number
  col: number
  /** The grid cells it covers, first and last (cut to the grid). */
  rows: [number, number]
  cols: [number, number]
  /** The pointer's map coordinates, in the grid's CRS units. */
  x: number
  y: number
  /** Debris thickness, m: the deepest of the block's grid cells; 0 where none lies. */
  h: number
  /** Whether the block holds only NODATA walls. */
  wall: boolean
  /** The ground's mean elevation over the block, m; null where not recorded (older runs) or walls only. */
  elevation: number | null
  block: number
}

/** The read-out of map `index` at map point (u, w), in map cells from the window's top-left; null off the window or beyond the grid. */
export function mapReadout(result: Pick<LandslideResult, 'grid' | 'maps' | 'hillshade'>, index: number, u: number, w: number): MapReadout | null {
  const map = result.maps[index]
  if (!map) return null
  const [row, col] = [Math.floor(w), Math.floor(u)]
  if (row < 0 || col < 0 || row >= map.size || col >= map.size) return null
  const { grid } = result
  const i0 = map.row0 + row * map.block
  const j0 = map.col0 + col * map.block
  const rows: [number, number] = [Math.max(0, i0), Math.min(grid.rows, i0 + map.block) - 1]
  const cols: [number, number] = [Math.max(0, j0), Math.min(grid.cols, j0 + map.block) - 1]
  if (rows[1] < rows[0] || cols[1] < cols[0]) return null
  const k = row * map.size + col
  const relief = result.hillshade
  const fits = relief && relief.size === map.size && relief.block === map.block && relief.row0 === map.row0 && relief.col0 === map.col0
  const { x, y } = pointCoordinates(grid, map, u, w)
  return {
    row,
    col,
    rows,
    cols,
    x,
    y,
    h: map.values[k] ?? 0,
    wall: !!fits && relief.values[k] === null,
    elevation: fits ? (relief.elevation?.[k] ?? null) : null,
    block: map.block,
  }
}
