// What every backend's simulation offers the job: steps on demand and the thickness grid between
// them. `serial` and `active` run on the calling thread, yielding to the event loop between slices
// of steps so a job stays cancellable and a server stays responsive.
import { throwIfAborted } from '../../../shared/cancel'
import { Band, debrisSpans, spanBuffers } from './band'
import type { LandslideInput } from './inputs'
import { carve, wallMask, wallMaskRows } from './sciddica'

/** The grid as the first step finds it: the source carved out of the DEM, wall bits per cell. */
export interface InitialState {
  rows: number
  cols: number
  z: Float64Array
  h: Float64Array
  mask: Uint8Array | null
}

export function initialState(input: LandslideInput): InitialState {
  const z = input.z.slice()
  carve(z, input.h, input.rows, input.cols)
  return { rows: input.rows, cols: input.cols, z, h: input.h.slice(), mask: wallMask(input.walls, input.rows, input.cols) }
}

/** initialState, with `turn` between its passes over the grid (each a good part of a second on a big one): for a server's jobs. */
export async function initialStateInTurns(input: LandslideInput, turn: () => Promise<void>): Promise<InitialState> {
  const z = input.z.slice()
  carve(z, input.h, input.rows, input.cols)
  await turn()
  const h = input.h.slice()
  await turn()
  const { rows, cols, walls } = input
  let mask: Uint8Array | null = null
  if (walls) {
    // A band of rows at a time: the mask is a pass over the grid's neighbours.
    mask = new Uint8Array(rows * cols)
    let any = false
    for (let i = 0; i < rows; i += MASK_BAND_ROWS) {
      if (wallMaskRows(walls, rows, cols, mask, i, i + MASK_BAND_ROWS)) any = true
      await turn()
    }
    if (!any) mask = null
  }
  return { rows, cols, z, h, mask }
}

/** Rows of the wall mask made between turns. */
const MASK_BAND_ROWS = 512

/** Rows a … b−1 of the grid as a grid of their own (views, not copies): a band with its halo rows. */
export function stateRows(state: InitialState, a: number, b: number): InitialState {
  const { cols } = state
  return {
    rows: b - a,
    cols,
    z: state.z.subarray(a * cols, b * cols),
    h: state.h.subarray(a * cols, b * cols),
    mask: state.mask && state.mask.subarray(a * cols, b * cols),
  }
}

export interface Simulation {
  /** Steps done so far. */
  readonly done: number
  /** Runs `steps` more steps; rejects with 'cancelled' when `signal` aborts (checked between slices). */
  advance(steps: number, signal?: AbortSignal): Promise<void>
  /** The thickness of every cell now, row-major (a copy, or a view valid until the next advance). */
  thickness(): Promise<Float64Array>
  dispose(): Promise<void>
}

/** Work between two yields to the event loop. */
const SLICE_MS = 25

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Runs `step` `steps` times on this thread in slices of SLICE_MS, yielding to the event loop
 * between them; rejects with 'cancelled' when `signal` aborts (checked between slices).
 */
export async function stepInSlices(steps: number, step: () => void, signal?: AbortSignal): Promise<void> {
  let left = steps
  while (left > 0) {
    throwIfAborted(signal)
    const until = performance.now() + SLICE_MS
    do {
      step()
      left--
    } while (left > 0 && performance.now() < until)
    if (left > 0) await yieldToEventLoop()
  }
}

/** `serial` (every interior cell) or `active` (the cells within reach of debris), on this thread. */
export class ThreadSimulation implements Simulation {
  done = 0
  private readonly band: Band
  protected readonly h: Float64Array
  /** Where each row's debris lies, for the active steps (null for serial). */
  protected readonly spans: Int32Array | null

  constructor(state: InitialState, active: boolean) {
    const { rows, cols } = state
    const n = rows * cols
    this.h = state.h.slice()
    this.spans = active ? spanBuffers(rows) : null
    if (this.spans) debrisSpans(this.h, rows, cols, this.spans, 0)
    const layers = { z: state.z, h: this.h, f0: new Float64Array(n), f1: new Float64Array(n), f2: new Float64Array(n), f3: new Float64Array(n), mask: state.mask }
    this.band = new Band({ rows, cols, r0: 1, r1: Math.max(1, rows - 1) }, layers, this.spans)
  }

  advance(steps: number, signal?: AbortSignal): Promise<void> {
    return stepInSlices(
      steps,
      () => {
        this.band.step(this.done & 1)
        this.done++
      },
      signal,
    )
  }

  async thickness(): Promise<Float64Array> {
    return this.h
  }

  async dispose(): Promise<void> {}
}
