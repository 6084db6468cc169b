// A band of grid rows and its steps: the whole interior on one thread (serial, active), or one row
// band per worker (workers, workers-active) with a halo row above and below. A band's layers hold
// global rows r0−1 … r1 (local row = global row − r0 + 1); its own rows are r0 … r1−1.
//
// Active cells: `spans` keeps, per global row, the first and last column holding debris (h ≠ 0),
// in two buffers that alternate by step parity (read one, write the other). A cell with h = 0
// whose neighbours all have h = 0 neither gives (m = h − p_ε < 0 leaves no neighbour below the
// average) nor receives, so the active backends visit, per row, only the columns within reach:
// updates over the debris spans of rows i−1…i+1 widened by one column, outflows over those of rows
// i−2…i+2 widened by two, which covers every outflow an update reads. Results are the same bits.
//
// Walls never change, so every backend visits, per row, only the columns from the first to the
// last cell that is no wall (on the Tessina grid, a quarter of the cells).
import { flowsRow, type Flows, updateRow, updateRowTracked, WALL_SELF } from './sciddica'

export interface BandLayers extends Flows {
  z: Float64Array
  h: Float64Array
  /** Wall bits per cell (sciddica.ts), or null. */
  mask: Uint8Array | null
}

export interface BandShape {
  rows: number
  cols: number
  r0: number
  r1: number
}

/** Rows of a band's layers: its own and a halo row on each side. */
export function bandRows(shape: Pick<BandShape, 'r0' | 'r1'>): number {
  return shape.r1 - shape.r0 + 2
}

/** An empty span: first > last. */
const EMPTY_FIRST = 1
const EMPTY_LAST = 0

/**
 * Per global row, the first and last column with h ≠ 0 (interior cells), into buffer `parity` of
 * `spans`; the other buffer starts with every row empty (the steps overwrite its interior rows).
 */
export function debrisSpans(h: Float64Array, rows: number, cols: number, spans: Int32Array, parity: number): void {
  const base = parity * 2 * rows
  const other = (1 - parity) * 2 * rows
  for (let i = 0; i < rows; i++) {
    let first = -1
    let last = -1
    if (i > 0 && i < rows - 1)
      for (let j = 1; j < cols - 1; j++)
        if (h[i * cols + j] !== 0) {
          if (first < 0) first = j
          last = j
        }
    spans[base + 2 * i] = first < 0 ? EMPTY_FIRST : first
    spans[base + 2 * i + 1] = first < 0 ? EMPTY_LAST : last
    spans[other + 2 * i] = EMPTY_FIRST
    spans[other + 2 * i + 1] = EMPTY_LAST
  }
}

/** Two span buffers of `rows` rows. */
export function spanBuffers(rows: number, memory?: SharedArrayBuffer): Int32Array {
  return memory ? new Int32Array(memory, 0, 4 * rows) : new Int32Array(4 * rows)
}

export function spanBytes(rows: number): number {
  return 16 * rows
}

export class Band {
  readonly rows: number
  readonly cols: number
  readonly r0: number
  readonly r1: number
  /** Where the span of the reach is left by reach(). */
  private reachFirst = 0
  private reachLast = -1
  /** Per own row (from r0), the first and last interior column that is no wall; first > last when all are. */
  private readonly cells: Int32Array

  constructor(
    shape: BandShape,
    readonly layers: BandLayers,
    /** Span buffers (spanBuffers) for the active steps, global rows; null for full steps. */
    readonly spans: Int32Array | null,
  ) {
    this.rows = shape.rows
    this.cols = shape.cols
    this.r0 = shape.r0
    this.r1 = shape.r1
    this.cells = new Int32Array(2 * Math.max(0, this.r1 - this.r0))
    const { mask } = layers
    for (let i = this.r0; i < this.r1; i++) {
      const start = this.rowStart(i)
      let first = 1
      let last = this.cols - 2
      if (mask) {
        while (first <= last && mask[start + first] & WALL_SELF) first++
        while (last >= first && mask[start + last] & WALL_SELF) last--
      }
      this.cells[2 * (i - this.r0)] = first
      this.cells[2 * (i - this.r0) + 1] = last
    }
  }

  /** Index of global row `i`'s first cell in the band's layers. */
  rowStart(i: number): number {
    return (i - this.r0 + 1) * this.cols
  }

  /** One whole step, when this band is the whole interior (no neighbour to exchange with). */
  step(parity: number): void {
    const { r0, r1 } = this
    // One pass with the update a row behind the outflows: row i's new h is written after row
    // i+1's outflows, the last to read its old h.
    if (r1 > r0) this.flows(r0, parity)
    for (let i = r0; i < r1; i++) {
      if (i + 1 < r1) this.flows(i + 1, parity)
      this.update(i, parity)
    }
  }

  /** Outflows of every own row (a worker's first half-step). */
  flowsAll(parity: number): void {
    for (let i = this.r0; i < this.r1; i++) this.flows(i, parity)
  }

  /** Updates of every own row (a worker's second half-step, after the halo's outflows arrived). */
  updateAll(parity: number): void {
    for (let i = this.r0; i < this.r1; i++) this.update(i, parity)
  }

  private flows(i: number, parity: number): void {
    const { z, h, mask } = this.layers
    const start = this.rowStart(i)
    if (this.reach(i, 2, parity)) flowsRow(z, h, this.layers, mask, this.cols, start + this.reachFirst, start + this.reachLast + 1)
  }

  private update(i: number, parity: number): void {
    const start = this.rowStart(i)
    const within = this.reach(i, 1, parity)
    if (!this.spans) {
      if (within) updateRow(this.layers.h, this.layers, this.cols, start + this.reachFirst, start + this.reachLast + 1)
      return
    }
    const out = (1 - parity) * 2 * this.rows + 2 * i
    if (within) updateRowTracked(this.layers.h, this.layers, this.cols, start, this.reachFirst, this.reachLast + 1, this.spans, out)
    else {
      // Nothing within reach: the row stays without debris.
      this.spans[out] = EMPTY_FIRST
      this.spans[out + 1] = EMPTY_LAST
    }
  }

  /**
   * Sets reachFirst…reachLast to the columns of row i to visit: its cells that are no wall, and for
   * the active steps only those within `d` cells of debris (rows i−d … i+d). False when none.
   */
  private reach(i: number, d: number, parity: number): boolean {
    let first = this.cells[2 * (i - this.r0)]
    let last = this.cells[2 * (i - this.r0) + 1]
    if (this.spans) {
      const spans = this.spans
      const base = parity * 2 * this.rows
      let a = this.cols
      let b = -1
      for (let r = Math.max(1, i - d), end = Math.min(this.rows - 2, i + d); r <= end; r++) {
        const lo = spans[base + 2 * r]
        const hi = spans[base + 2 * r + 1]
        if (lo <= hi) {
          if (lo < a) a = lo
          if (hi > b) b = hi
        }
      }
      if (a - d > first) first = a - d
      if (b + d < last) last = b + d
    }
    this.reachFirst = first
    this.reachLast = last
    return first <= last
  }
}
