// What the job reports about a thickness grid: its totals at a sample (mass, flooded and active
// cells, deepest debris), the f32 grid's deviation from the f64 one, and thickness maps reduced
// for drawing around where the debris went.
import { P_EPSILON, type GridDeviation, type LandslideSeries, type ThicknessMap } from '../../../shared/workloads/landslide/types'
import { maxOf, minOf } from '../../../shared/extent'
import type { MapWindow } from '../../../shared/workloads/landslide/map-frame'

export interface GridSample {
  mass: number
  flooded: number
  max_thickness: number
  active: number
}

/**
 * Totals of `h`; `walls` (1 = wall) are left out of the active cells. One pass over the grid for
 * the sums, noting each row's span of debris; the active cells are then counted only around those
 * spans (a cell is active when it or a neighbour holds debris), so a sample of a big grid with a
 * small slide costs one pass, not a neighbourhood test of every cell.
 */
export function sampleGrid(h: ArrayLike<number>, rows: number, cols: number, walls: Uint8Array | null): GridSample {
  let mass = 0
  let flooded = 0
  let max = 0
  // Each row's first and last column holding h ≠ 0 (first > last: none).
  const first = new Int32Array(rows).fill(cols)
  const last = new Int32Array(rows).fill(-1)
  for (let i = 0, k = 0; i < rows; i++) {
    let j0 = cols
    let j1 = -1
    for (let j = 0; j < cols; j++, k++) {
      const v = h[k]
      if (v === 0) continue
      mass += v
      if (v > P_EPSILON) flooded++
      if (v > max) max = v
      if (j0 === cols) j0 = j
      j1 = j
    }
    first[i] = j0
    last[i] = j1
  }
  // Interior cells holding debris or bordering one (what the active backends update).
  let active = 0
  for (let i = 1; i < rows - 1; i++) {
    // Only the row itself and the interior rows beside it count as neighbours.
    let from = first[i]
    let to = last[i]
    if (i > 1) (from = Math.min(from, first[i - 1])), (to = Math.max(to, last[i - 1]))
    if (i < rows - 2) (from = Math.min(from, first[i + 1])), (to = Math.max(to, last[i + 1]))
    if (from > to) continue
    for (let j = Math.max(1, from - 1); j <= Math.min(cols - 2, to + 1); j++) {
      const k = i * cols + j
      if (walls?.[k]) continue
      if (h[k] !== 0 || (i > 1 && h[k - cols] !== 0) || (j > 1 && h[k - 1] !== 0) || (j < cols - 2 && h[k + 1] !== 0) || (i < rows - 2 && h[k + cols] !== 0)) active++
    }
  }
  return { mass, flooded, max_thickness: max, active }
}

export function gridDeviation(got: ArrayLike<number>, reference: ArrayLike<number>): GridDeviation {
  let maxAbs = 0
  let over = 0
  let gotMass = 0
  let refMass = 0
  for (let k = 0; k < reference.length; k++) {
    const d = Math.abs(got[k] - reference[k])
    if (d > maxAbs || Number.isNaN(d)) maxAbs = Number.isNaN(d) ? Infinity : d
    if (!(d <= 1e-3)) over++
    gotMass += got[k]
    refMass += reference[k]
  }
  return { max_abs: maxAbs, cells_over_1mm: over, mass_error: gotMass - refMass }
}

/** Map cells per side at most. */
export const MAP_SIDE = 64

/** The debris of one sample: its bounding box and the thickness inside it. */
export interface Snapshot {
  step: number
  i0: number
  j0: number
  rows: number
  cols: number
  h: Float32Array
}

/** The box around the cells with h ≠ 0, and their thickness (an empty box when there is none). */
export function snapshot(step: number, h: ArrayLike<number>, rows: number, cols: number): Snapshot {
  let i0 = rows
  let i1 = -1
  let j0 = cols
  let j1 = -1
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++)
      if (h[i * cols + j] !== 0) {
        if (i < i0) i0 = i
        i1 = i
        if (j < j0) j0 = j
        if (j > j1) j1 = j
      }
  if (i1 < 0) return { step, i0: 0, j0: 0, rows: 0, cols: 0, h: new Float32Array(0) }
  const box = { rows: i1 - i0 + 1, cols: j1 - j0 + 1 }
  const out = new Float32Array(box.rows * box.cols)
  for (let i = 0; i < box.rows; i++) for (let j = 0; j < box.cols; j++) out[i * box.cols + j] = h[(i0 + i) * cols + j0 + j]
  return { step, i0, j0, ...box, h: out }
}

/**
 * The maps' window: the smallest square around every snapshot's debris (plus a margin of two
 * cells), centred on it, reduced to at most MAP_SIDE cells a side; null when no snapshot holds debris.
 */
export function thicknessWindow(snapshots: Snapshot[], gridRows: number, gridCols: number): MapWindow | null {
  let i0 = Infinity
  let i1 = -Infinity
  let j0 = Infinity
  let j1 = -Infinity
  for (const s of snapshots) {
    if (s.rows === 0) continue
    i0 = Math.min(i0, s.i0 - 2)
    i1 = Math.max(i1, s.i0 + s.rows + 2)
    j0 = Math.min(j0, s.j0 - 2)
    j1 = Math.max(j1, s.j0 + s.cols + 2)
  }
  if (i1 < 0) return null
  return squareWindow(i0, i1, j0, j1, MAP_SIDE)
}

/** The smallest square around rows i0 … i1 − 1 and columns j0 … j1 − 1, centred on them, at most `most` map cells a side. */
export function squareWindow(i0: number, i1: number, j0: number, j1: number, most: number): MapWindow {
  const side = Math.max(1, i1 - i0, j1 - j0)
  const block = Math.ceil(side / most)
  return { row0: i0 - Math.floor((side - (i1 - i0)) / 2), col0: j0 - Math.floor((side - (j1 - j0)) / 2), size: Math.ceil(side / block), block }
}

/** One snapshot's map over `window` (null: no snapshot holds debris, one cell for the whole grid). */
export function thicknessMapOf(s: Snapshot, window: MapWindow | null, gridRows = 0, gridCols = 0): ThicknessMap {
  if (!window) return { step: s.step, row0: 0, col0: 0, size: 1, block: Math.max(gridRows, gridCols), values: [null] }
  const { row0, col0, size, block } = window
  const values: (number | null)[] = new Array(size * size).fill(null)
  for (let i = 0; i < s.rows; i++)
    for (let j = 0; j < s.cols; j++) {
      const v = s.h[i * s.cols + j]
      if (v === 0) continue
      const at = Math.floor((s.i0 + i - row0) / block) * size + Math.floor((s.j0 + j - col0) / block)
      const shown = Math.round(v * 1e4) / 1e4
      const was = values[at]
      if (was === null || shown > was) values[at] = shown
    }
  return { step: s.step, row0, col0, size, block, values }
}

/** Maps of the snapshots over one square window (thicknessWindow). */
export function thicknessMaps(snapshots: Snapshot[], gridRows: number, gridCols: number): ThicknessMap[] {
  const window = thicknessWindow(snapshots, gridRows, gridCols)
  return snapshots.map((s) => thicknessMapOf(s, window, gridRows, gridCols))
}

/** The thickness of `h` over a map window at `block` grid cells per map cell: each the deepest of its block; null where no debris lies. */
export function thicknessMapIn(step: number, h: ArrayLike<number>, rows: number, cols: number, window: Pick<ThicknessMap, 'row0' | 'col0' | 'size' | 'block'>): ThicknessMap {
  const { row0, col0, size, block } = window
  const values: (number | null)[] = new Array(size * size).fill(null)
  for (let i = Math.max(0, row0); i < Math.min(rows, row0 + size * block); i++)
    for (let j = Math.max(0, col0); j < Math.min(cols, col0 + size * block); j++) {
      const v = h[i * cols + j]
      if (v === 0) continue
      const at = Math.floor((i - row0) / block) * size + Math.floor((j - col0) / block)
      const shown = Math.round(v * 1e4) / 1e4
      const was = values[at]
      if (was === null || shown > was) values[at] = shown
    }
  return { step, row0, col0, size, block, values }
}

/** A sample of the grid at `step` appended to the series. */
export function appendSample(series: LandslideSeries, step: number, h: ArrayLike<number>, rows: number, cols: number, walls: Uint8Array | null): void {
  const s = sampleGrid(h, rows, cols, walls)
  series.step.push(step)
  series.mass.push(s.mass)
  series.flooded.push(s.flooded)
  series.max_thickness.push(s.max_thickness)
  series.active.push(s.active)
}
