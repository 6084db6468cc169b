// What the job reports about a thickness grid: its totals at a sample (mass, flooded and active
// cells, deepest debris), the f32 grid's deviation from the f64 one, and thickness maps reduced
// for drawing around where the debris went.
import { P_EPSILON, type GridDeviation, type ThicknessMap } from '../../../shared/workloads/landslide/types'
import { maxOf, minOf } from '../../../shared/extent'

export interface GridSample {
  mass: number
  flooded: number
  max_thickness: number
  active: number
}

/** Totals of `h`; `walls` (1 = wall) are left out of the active cells. */
export function sampleGrid(h: ArrayLike<number>, rows: number, cols: number, walls: Uint8Array | null): GridSample {
  let mass = 0
  let flooded = 0
  let max = 0
  let active = 0
  for (let k = 0; k < rows * cols; k++) {
    const v = h[k]
    mass += v
    if (v > P_EPSILON) flooded++
    if (v > max) max = v
  }
  // Interior cells holding debris or bordering one (what the active backends update).
  for (let i = 1; i < rows - 1; i++)
    for (let j = 1; j < cols - 1; j++) {
      const k = i * cols + j
      if (walls?.[k]) continue
      if (h[k] !== 0 || (i > 1 && h[k - cols] !== 0) || (j > 1 && h[k - 1] !== 0) || (j < cols - 2 && h[k + 1] !== 0) || (i < rows - 2 && h[k + cols] !== 0)) active++
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
 * Maps of the snapshots over one square window: the smallest square around every snapshot's
 * debris (plus a margin of two cells), centred on it, reduced to at most MAP_SIDE cells a side.
 */
export function thicknessMaps(snapshots: Snapshot[], gridRows: number, gridCols: number): ThicknessMap[] {
  const full = snapshots.filter((s) => s.rows > 0)
  if (full.length === 0) return snapshots.map((s) => ({ step: s.step, row0: 0, col0: 0, size: 1, block: Math.max(gridRows, gridCols), values: [null] }))
  const i0 = minOf(full.map((s) => s.i0)) - 2
  const i1 = maxOf(full.map((s) => s.i0 + s.rows)) + 2
  const j0 = minOf(full.map((s) => s.j0)) - 2
  const j1 = maxOf(full.map((s) => s.j0 + s.cols)) + 2
  const side = Math.max(i1 - i0, j1 - j0)
  const row0 = i0 - Math.floor((side - (i1 - i0)) / 2)
  const col0 = j0 - Math.floor((side - (j1 - j0)) / 2)
  const block = Math.ceil(side / MAP_SIDE)
  const size = Math.ceil(side / block)
  return snapshots.map((s) => {
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
  })
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
