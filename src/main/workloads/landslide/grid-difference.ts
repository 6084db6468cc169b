// B − A of two final thickness grids on one grid, a block of whole rows at a time (so two grids of
// 400 MB each are never in memory): the exact statistics over every cell, then the difference
// reduced to a map for drawing. A cell is a wall in a run where its walls say so or its value is
// NaN (the kept .npy's walls; any value that is not a finite number is no thickness): walls
// compare as walls, never as 0 m of debris.
import type { DifferenceMap, GridDifferenceStats } from '../../../shared/grid-difference'
import type { MapWindow } from '../../../shared/workloads/landslide/map-frame'
import { debrisVolume, P_EPSILON } from '../../../shared/workloads/landslide/types'
import { squareWindow } from './grid-stats'

/** Map cells a side at most of the difference map. */
export const DIFFERENCE_SIDE = 256

/** Rows of both grids from one place: values, and walls (1 a wall) where the grid has any. */
export interface RowBlock {
  /** The first row's index in the grid. */
  row0: number
  a: Float64Array
  aWalls: Uint8Array | null
  b: Float64Array
  bWalls: Uint8Array | null
}

const isWall = (v: number, walls: Uint8Array | null, k: number) => !(v - v === 0) || (walls !== null && walls[k] === 1)

/** The statistics of B − A, added to a block of rows at a time, and the box of the cells that differ. */
export class DifferenceStats {
  private sumA = 0
  private sumB = 0
  private deltaSum = 0
  private compared = 0
  private differing = 0
  private over = 0
  private maxAbs = 0
  private at: GridDifferenceStats['at'] = null
  private walls = { both: 0, onlyA: 0, onlyB: 0 }
  /** Rows and columns of the cells that differ (values, or walls in one run only), ends excluded. */
  private box = { i0: Infinity, i1: -Infinity, j0: Infinity, j1: -Infinity }

  constructor(
    private readonly cols: number,
    /** |B − A| beyond which a cell counts as differing by more than a trace: the model's p_ε. */
    private readonly threshold = P_EPSILON,
  ) {}

  add({ row0, a, aWalls, b, bWalls }: RowBlock): void {
    const { cols } = this
    for (let k = 0; k < a.length; k++) {
      const va = a[k]
      const vb = b[k]
      const wa = isWall(va, aWalls, k)
      const wb = isWall(vb, bWalls, k)
      if (wa && wb) {
        this.walls.both++
        continue
      }
      let delta: number
      if (wa || wb) {
        if (wa) this.walls.onlyA++
        else this.walls.onlyB++
        delta = wa ? vb : -va
      } else {
        this.compared++
        delta = vb - va
        const size = Math.abs(delta)
        if (delta !== 0) {
          this.differing++
          if (size > this.threshold) this.over++
          if (size > this.maxAbs) {
            this.maxAbs = size
            this.at = { row: row0 + Math.floor(k / cols), col: k % cols, delta }
          }
        }
      }
      if (!wa) this.sumA += va
      if (!wb) this.sumB += vb
      this.deltaSum += delta
      if (delta !== 0 || wa !== wb) {
        const i = row0 + Math.floor(k / cols)
        const j = k % cols
        if (i < this.box.i0) this.box.i0 = i
        if (i + 1 > this.box.i1) this.box.i1 = i + 1
        if (j < this.box.j0) this.box.j0 = j
        if (j + 1 > this.box.j1) this.box.j1 = j + 1
      }
    }
  }

  /** The statistics, with the volumes of a grid of `cellsize` m cells (Σh × a cell's area, as the run's results have them). */
  stats(cellsize: number): GridDifferenceStats {
    return {
      sum: [this.sumA, this.sumB],
      volume: [debrisVolume(this.sumA, cellsize), debrisVolume(this.sumB, cellsize)],
      delta: { sum: this.deltaSum, volume: debrisVolume(this.deltaSum, cellsize) },
      compared: this.compared,
      differing: this.differing,
      over: this.over,
      threshold: this.threshold,
      maxAbs: this.maxAbs,
      at: this.at,
      walls: { ...this.walls },
    }
  }

  /**
   * The map's window: the smallest square around the cells that differ (and a margin of two cells),
   * at most DIFFERENCE_SIDE map cells a side; the whole grid when none differ.
   */
  window(rows: number, most = DIFFERENCE_SIDE): MapWindow {
    const { i0, i1, j0, j1 } = this.box
    if (i1 < 0) return squareWindow(0, rows, 0, this.cols, most)
    return squareWindow(i0 - 2, i1 + 2, j0 - 2, j1 + 2, most)
  }
}

/** B − A reduced over a window: each map cell the difference of greatest magnitude over its block's compared cells. */
export class DifferenceMapper {
  private readonly values: Float64Array
  /** 1 where the block holds a compared cell. */
  private readonly seen: Uint8Array
  private readonly wallsDiffer: Uint8Array

  constructor(
    private readonly window: MapWindow,
    private readonly cols: number,
  ) {
    const cells = window.size * window.size
    this.values = new Float64Array(cells)
    this.seen = new Uint8Array(cells)
    this.wallsDiffer = new Uint8Array(cells)
  }

  /** Rows `row0` … of both grids (whole rows); those outside the window are passed over. */
  add({ row0, a, aWalls, b, bWalls }: RowBlock): void {
    const { row0: w0, col0, size, block } = this.window
    const rows = a.length / this.cols
    const [j0, j1] = [Math.max(0, col0), Math.min(this.cols, col0 + size * block)]
    for (let r = Math.max(0, w0 - row0); r < Math.min(rows, w0 + size * block - row0); r++) {
      const mapRow = Math.floor((row0 + r - w0) / block) * size
      for (let j = j0; j < j1; j++) {
        const k = r * this.cols + j
        const at = mapRow + Math.floor((j - col0) / block)
        const wa = isWall(a[k], aWalls, k)
        const wb = isWall(b[k], bWalls, k)
        if (wa !== wb) this.wallsDiffer[at] = 1
        if (wa || wb) continue
        const delta = b[k] - a[k]
        if (!this.seen[at] || Math.abs(delta) > Math.abs(this.values[at])) this.values[at] = delta
        this.seen[at] = 1
      }
    }
  }

  map(): DifferenceMap {
    const values: (number | null)[] = Array.from(this.values, (v, k) => (this.seen[k] ? Number(v.toPrecision(6)) : null))
    const wallsDiffer: number[] = []
    this.wallsDiffer.forEach((w, k) => w && wallsDiffer.push(k))
    return { ...this.window, values, wallsDiffer }
  }
}
