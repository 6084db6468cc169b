// The study's MPI scheme on worker threads: the grid split into row bands, one per thread, each
// with a halo row above and below, exchanged every step through shared memory. A step is
//   barrier · copy the neighbours' edge rows of h into the halo rows · outflows of own rows ·
//   barrier · copy the neighbours' edge outflows toward this band · update own rows,
// so each thread computes exactly the cells the single thread would, from the same values: the
// result is the same bits for any number of bands.
import { Band, bandRows, spanBuffers } from './band'

/** Where band `index`'s layers live: one shared buffer of six f64 layers (z, h, f0…f3) and its wall bits. */
export interface BandMemory {
  r0: number
  r1: number
  layers: SharedArrayBuffer
  mask: SharedArrayBuffer | null
}

/** One thread's share of `steps` steps. */
export interface BandTask {
  rows: number
  cols: number
  index: number
  bands: BandMemory[]
  /** Two Int32 words: arrivals and generation. */
  barrier: SharedArrayBuffer
  /** Span buffers of the active steps, or null. */
  spans: SharedArrayBuffer | null
  steps: number
  /** Step parity of the first step (which span buffer holds the current spans). */
  parity: number
}

export const LAYER_NAMES = ['z', 'h', 'f0', 'f1', 'f2', 'f3'] as const

/** Bytes of one band's layers. */
export function bandLayerBytes(memory: Pick<BandMemory, 'r0' | 'r1'>, cols: number): number {
  return LAYER_NAMES.length * bandRows(memory) * cols * 8
}

/** Views of a band's six layers. */
export function layerViews(memory: BandMemory, cols: number): Record<(typeof LAYER_NAMES)[number], Float64Array> {
  const n = bandRows(memory) * cols
  const views = {} as Record<(typeof LAYER_NAMES)[number], Float64Array>
  LAYER_NAMES.forEach((name, i) => (views[name] = new Float64Array(memory.layers, i * n * 8, n)))
  return views
}

/** Spins this many times before sleeping: a neighbour on another core usually arrives within them. */
const SPINS = 2000

/** Waits until all `parties` threads have arrived (sense by generation, so it can be reused at once). */
export function barrier(state: Int32Array, parties: number): void {
  const generation = Atomics.load(state, 1)
  if (Atomics.add(state, 0, 1) === parties - 1) {
    Atomics.store(state, 0, 0)
    Atomics.add(state, 1, 1)
    Atomics.notify(state, 1)
    return
  }
  for (let i = 0; i < SPINS; i++) if (Atomics.load(state, 1) !== generation) return
  while (Atomics.load(state, 1) === generation) Atomics.wait(state, 1, generation)
}

/** Runs a band's share of the steps; every band of the run must run its task at the same time. */
export function runBand(task: BandTask): void {
  const { rows, cols, index, bands } = task
  const own = bands[index]
  const views = layerViews(own, cols)
  const mask = own.mask ? new Uint8Array(own.mask) : null
  const band = new Band({ rows, cols, r0: own.r0, r1: own.r1 }, { ...views, mask }, task.spans ? spanBuffers(rows, task.spans) : null)
  const state = new Int32Array(task.barrier)
  const parties = bands.length
  const last = (bandRows(own) - 1) * cols
  // The neighbours' edge rows: the north band's last own row, the south band's first.
  const north = index > 0 ? layerViews(bands[index - 1], cols) : null
  const northEdge = north ? (bandRows(bands[index - 1]) - 2) * cols : 0
  const south = index < parties - 1 ? layerViews(bands[index + 1], cols) : null
  const southEdge = cols
  let parity = task.parity
  for (let s = 0; s < task.steps; s++) {
    barrier(state, parties)
    if (north) views.h.set(north.h.subarray(northEdge, northEdge + cols), 0)
    if (south) views.h.set(south.h.subarray(southEdge, southEdge + cols), last)
    band.flowsAll(parity)
    barrier(state, parties)
    // What the updates read across the edges: the north row's outflow south (f3), the south row's outflow north (f0).
    if (north) views.f3.set(north.f3.subarray(northEdge, northEdge + cols), 0)
    if (south) views.f0.set(south.f0.subarray(southEdge, southEdge + cols), last)
    band.updateAll(parity)
    parity ^= 1
  }
}
