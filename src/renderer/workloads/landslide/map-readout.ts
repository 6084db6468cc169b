// What the thickness map holds under the pointer: the map cell, the grid cells it stands for, its map
// coordinates, the debris thickness (the deepest of the block, as drawn) and the ground's elevation
// (the block's mean), so a value read off an aggregated map is never taken for one grid cell's; and
// what the difference of two runs' grids holds there (its largest |Δh|, walls in one run only).
import type { CommonGrid, DifferenceMap } from '../../../shared/grid-difference'
import type { MapWindow } from '../../../shared/workloads/landslide/map-frame'
import { pointCoordinates } from '../../../shared/workloads/landslide/map-view'
import type { LandslideGrid, LandslideResult } from '../../../shared/workloads/landslide/types'

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

/** Where map point (u, w) lies: its map cell, the grid cells that cell covers and its map coordinates. */
export interface MapCell {
  row: number
  col: number
  /** The map cell's index in the map's values, row-major. */
  k: number
  rows: [number, number]
  cols: [number, number]
  x: number
  y: number
}

/** The map cell of `window` at map point (u, w), in map cells from the window's top-left; null off the window or beyond the grid. */
export function mapCellAt(grid: Pick<LandslideGrid, 'rows' | 'cols' | 'cellsize' | 'xllcorner' | 'yllcorner'>, window: MapWindow, u: number, w: number): MapCell | null {
  const [row, col] = [Math.floor(w), Math.floor(u)]
  if (row < 0 || col < 0 || row >= window.size || col >= window.size) return null
  const i0 = window.row0 + row * window.block
  const j0 = window.col0 + col * window.block
  const rows: [number, number] = [Math.max(0, i0), Math.min(grid.rows, i0 + window.block) - 1]
  const cols: [number, number] = [Math.max(0, j0), Math.min(grid.cols, j0 + window.block) - 1]
  if (rows[1] < rows[0] || cols[1] < cols[0]) return null
  return { row, col, k: row * window.size + col, rows, cols, ...pointCoordinates(grid, window, u, w) }
}

/** The read-out of map `index` at map point (u, w), in map cells from the window's top-left; null off the window or beyond the grid. */
export function mapReadout(result: Pick<LandslideResult, 'grid' | 'maps' | 'hillshade'>, index: number, u: number, w: number): MapReadout | null {
  const map = result.maps[index]
  const cell = map && mapCellAt(result.grid, map, u, w)
  if (!cell) return null
  const { row, col, k, rows, cols, x, y } = cell
  const relief = result.hillshade
  const fits = relief && relief.size === map.size && relief.block === map.block && relief.row0 === map.row0 && relief.col0 === map.col0
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

/** What the difference map holds under the pointer. */
export interface DifferenceReadout extends MapCell {
  /** B − A of greatest magnitude over the block's compared cells, m; null where it holds none. */
  delta: number | null
  /** The block holds a cell that is a wall in one run only. */
  oneWall: boolean
  block: number
}

/** The difference map's read-out at map point (u, w); null off the window or beyond the grid. */
export function differenceReadout(source: { grid: CommonGrid; map: DifferenceMap }, u: number, w: number): DifferenceReadout | null {
  const { grid, map } = source
  const cell = mapCellAt(grid, map, u, w)
  if (!cell) return null
  return { ...cell, delta: map.values[cell.k] ?? null, oneWall: map.wallsDiffer.includes(cell.k), block: map.block }
}
