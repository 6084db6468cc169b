// The SciddicaT transition, row by row, in f64, with the reference program's arithmetic in its
// order (so every backend built on these rows reproduces its output bit for bit):
//   init  z -= h where h > 0, interior cells only (the one-cell border never changes);
//   σ0    reset the four outflows;
//   σ1    outflows by the minimization algorithm of the differences, p_ε = 0.001, p_r = 0.5;
//   σ2    h += Σ inflows − Σ outflows.
// Neighbours: 0 centre, 1 north (i−1), 2 west (j−1), 3 east (j+1), 4 south (i+1); outflow n−1 goes
// to neighbour n. σ0 is folded into σ1, which writes all four outflows of every cell it visits.
// Walls (NODATA in the DEM) neither give nor receive: a wall neighbour starts out eliminated.
import { P_EPSILON, P_R } from '../../../shared/workloads/landslide/types'

/** Bits of a cell's mask: neighbour n is a wall (bit n, n = 1…4), or the cell itself is one. */
export const WALL_SELF = 32

// Module constants, so the hot loops read no import bindings.
const EPS = P_EPSILON
const RELAX = P_R

/** The four outflow layers: to north, west, east, south. */
export interface Flows {
  f0: Float64Array
  f1: Float64Array
  f2: Float64Array
  f3: Float64Array
}

/** Carves the debris out of the DEM, as the reference does once before the first step. */
export function carve(z: Float64Array, h: Float64Array, rows: number, cols: number): void {
  for (let i = 1; i < rows - 1; i++)
    for (let k = i * cols + 1, end = i * cols + cols - 1; k < end; k++) if (h[k] > 0) z[k] -= h[k]
}

/** Each cell's wall bits from the wall grid (1 = wall), or null when no interior cell touches a wall. */
export function wallMask(walls: Uint8Array | null, rows: number, cols: number): Uint8Array | null {
  if (!walls) return null
  const mask = new Uint8Array(rows * cols)
  return wallMaskRows(walls, rows, cols, mask, 1, rows - 1) ? mask : null
}

/** wallMask's bits of interior rows i0 … i1−1 into `mask`; whether any is set. */
export function wallMaskRows(walls: Uint8Array, rows: number, cols: number, mask: Uint8Array, i0: number, i1: number): boolean {
  let any = false
  for (let i = Math.max(1, i0); i < Math.min(rows - 1, i1); i++)
    for (let j = 1; j < cols - 1; j++) {
      const k = i * cols + j
      const m = (walls[k] ? WALL_SELF : 0) | (walls[k - cols] ? 2 : 0) | (walls[k - 1] ? 4 : 0) | (walls[k + 1] ? 8 : 0) | (walls[k + cols] ? 16 : 0)
      mask[k] = m
      if (m) any = true
    }
  return any
}

/**
 * σ0 + σ1 for cells k0 … k1−1 of one row (k = row × cols + column, never a border cell): the
 * outflows of each cell from its own and its neighbours' z and h.
 */
export function flowsRow(z: Float64Array, h: Float64Array, f: Flows, mask: Uint8Array | null, cols: number, k0: number, k1: number): void {
  const { f0, f1, f2, f3 } = f
  for (let k = k0; k < k1; k++) {
    let elim = mask === null ? 0 : mask[k]
    if (elim & WALL_SELF) {
      f0[k] = 0
      f1[k] = 0
      f2[k] = 0
      f3[k] = 0
      continue
    }
    const m = h[k] - EPS
    const u0 = z[k] + EPS
    const u1 = z[k - cols] + h[k - cols]
    const u2 = z[k - 1] + h[k - 1]
    const u3 = z[k + 1] + h[k + 1]
    const u4 = z[k + cols] + h[k + cols]
    let average = m
    // Eliminate every neighbour at or above the average of those left, until none is.
    for (;;) {
      average = m
      let count = 0
      if ((elim & 1) === 0) {
        average += u0
        count++
      }
      if ((elim & 2) === 0) {
        average += u1
        count++
      }
      if ((elim & 4) === 0) {
        average += u2
        count++
      }
      if ((elim & 8) === 0) {
        average += u3
        count++
      }
      if ((elim & 16) === 0) {
        average += u4
        count++
      }
      if (count !== 0) average /= count
      const before = elim
      if ((elim & 1) === 0 && average <= u0) elim |= 1
      if ((elim & 2) === 0 && average <= u1) elim |= 2
      if ((elim & 4) === 0 && average <= u2) elim |= 4
      if ((elim & 8) === 0 && average <= u3) elim |= 8
      if ((elim & 16) === 0 && average <= u4) elim |= 16
      if (elim === before) break
    }
    f0[k] = elim & 2 ? 0 : (average - u1) * RELAX
    f1[k] = elim & 4 ? 0 : (average - u2) * RELAX
    f2[k] = elim & 8 ? 0 : (average - u3) * RELAX
    f3[k] = elim & 16 ? 0 : (average - u4) * RELAX
  }
}

/** σ2 for cells k0 … k1−1 of one row: in- minus outflows, in the reference's order. */
export function updateRow(h: Float64Array, f: Flows, cols: number, k0: number, k1: number): void {
  const { f0, f1, f2, f3 } = f
  for (let k = k0; k < k1; k++) {
    let next = h[k]
    next += f3[k - cols] - f0[k]
    next += f2[k - 1] - f1[k]
    next += f1[k + 1] - f2[k]
    next += f0[k + cols] - f3[k]
    h[k] = next
  }
}

/**
 * σ2 as updateRow over columns j0 … j1−1 of the row starting at `rowStart`, also recording where
 * the row holds debris afterwards: spans[at] and spans[at + 1] become the first and last column
 * with h ≠ 0, or 1 and 0 (an empty span) when none.
 */
export function updateRowTracked(h: Float64Array, f: Flows, cols: number, rowStart: number, j0: number, j1: number, spans: Int32Array, at: number): void {
  const { f0, f1, f2, f3 } = f
  let first = -1
  let last = -1
  for (let k = rowStart + j0, end = rowStart + j1; k < end; k++) {
    let next = h[k]
    next += f3[k - cols] - f0[k]
    next += f2[k - 1] - f1[k]
    next += f1[k + 1] - f2[k]
    next += f0[k + cols] - f3[k]
    h[k] = next
    if (next !== 0) {
      if (first < 0) first = k
      last = k
    }
  }
  spans[at] = first < 0 ? 1 : first - rowStart
  spans[at + 1] = first < 0 ? 0 : last - rowStart
}
