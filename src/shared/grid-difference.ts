// Two runs' final grids set against each other, B − A (the API's compareGrids): the backend reads
// both grids from the files the runs kept, computes the statistics exactly over every cell, and
// sends the difference reduced to a map for drawing; the full grids never cross the wire.

/** The grid both runs are on: its shape, cell size (m), south-west corner and CRS. */
export interface CommonGrid {
  rows: number
  cols: number
  cellsize: number
  xllcorner: number
  yllcorner: number
  crs?: { epsg: number | null; name: string }
}

/**
 * The statistics of B − A over the full grids. A cell is a wall (NODATA) in a run where its DEM has
 * none or its value is NaN: a wall is compared as a wall, never as 0. The values are the workload's
 * quantity on the grid (the landslide's debris thickness h, in m).
 */
export interface GridDifferenceStats {
  /** Σ of each run's values over its own cells, walls left out (the landslide's mass Σh, m), A then B. */
  sum: [number, number]
  /** Each run's sum × a cell's area (the landslide's debris volume, m³), A then B. */
  volume: [number, number]
  /** Σ(B − A) cell by cell, a cell that is a wall in one run only counting the other's value; and it × a cell's area. */
  delta: { sum: number; volume: number }
  /** Cells that are walls in neither run: those whose values are compared. */
  compared: number
  /** Of them, cells whose values differ at all, and by more than `threshold`. */
  differing: number
  over: number
  threshold: number
  /** max |B − A| over the compared cells (0 when none differ), and the first cell, in row order, where it is reached. */
  maxAbs: number
  at: { row: number; col: number; delta: number } | null
  /** Cells that are walls in both runs, in A only, and in B only. */
  walls: { both: number; onlyA: number; onlyB: number }
}

/**
 * B − A reduced for drawing: a square window of the grid (around where the grids differ, or the
 * whole grid when they do not), each map cell a block of block × block grid cells.
 */
export interface DifferenceMap {
  row0: number
  col0: number
  size: number
  block: number
  /**
   * Row-major: per map cell the difference of greatest magnitude, sign kept, over its block's
   * compared cells (to 6 significant digits); null where the block holds none (walls, or beyond the grid).
   */
  values: (number | null)[]
  /** Map cells whose block holds a cell that is a wall in one run only. */
  wallsDiffer: number[]
}

/** A run the comparison lacks a grid of: which, and why. */
export interface MissingGrid {
  run: 'A' | 'B'
  id: string
  reason: string
}

export type GridComparison =
  | { outcome: 'compared'; grid: CommonGrid; stats: GridDifferenceStats; map: DifferenceMap }
  /** The grids differ in shape, cell size, place or CRS: nothing is resampled, each way they differ is said. */
  | { outcome: 'incomparable'; reasons: string[] }
  /** A run kept no grid to compare, or one that cannot be read. */
  | { outcome: 'missing'; runs: MissingGrid[] }
