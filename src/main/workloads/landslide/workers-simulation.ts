// `workers` and `workers-active`: the interior rows split into bands, one per worker thread, each
// band's layers (and its halo rows) in shared memory that the neighbours read their halos from.
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { WorkerPool } from '../../workers/pool'
import { bandRows, debrisSpans, spanBuffers, spanBytes } from './band'
import { type BandMemory, type BandTask, bandLayerBytes, layerViews } from './band-exchange'
import { WALL_SELF } from './sciddica'
import type { InitialState, Simulation } from './simulation'

/**
 * Splits the interior rows into `count` bands of about equal work: each row weighs its cells that
 * are no wall, plus one (walls cost nothing, but every row costs its loop). Every band gets a row.
 */
export function splitRows(rows: number, cols: number, mask: Uint8Array | null, count: number): { r0: number; r1: number }[] {
  const weight = new Float64Array(rows)
  let total = 0
  for (let i = 1; i < rows - 1; i++) {
    let w = 1
    for (let j = 1; j < cols - 1; j++) if (!mask || !(mask[i * cols + j] & WALL_SELF)) w++
    weight[i] = w
    total += w
  }
  const out: { r0: number; r1: number }[] = []
  let r0 = 1
  let before = 0
  for (let b = 0; b < count; b++) {
    let r1 = r0 + 1
    before += weight[r0]
    // Up to this band's share of the work, leaving a row for each band after it.
    const share = (total * (b + 1)) / count
    while (r1 < rows - 1 - (count - 1 - b) && before + weight[r1] / 2 <= share) before += weight[r1++]
    if (b === count - 1) r1 = rows - 1
    out.push({ r0, r1 })
    r0 = r1
  }
  return out
}

export class WorkersSimulation implements Simulation {
  done = 0
  /** Bands in use: the ranks asked for, at most one per interior row. */
  readonly ranks: number
  private readonly bands: BandMemory[]
  private readonly spans: SharedArrayBuffer | null
  private readonly barrier = new SharedArrayBuffer(8)
  private readonly out: Float64Array
  private pool: WorkerPool | null = null

  constructor(
    private readonly state: InitialState,
    ranks: number,
    active: boolean,
  ) {
    const { rows, cols } = state
    this.ranks = Math.max(0, Math.min(ranks, rows - 2))
    this.out = state.h.slice()
    this.bands = splitRows(rows, cols, state.mask, this.ranks).map((bounds) => {
      const memory: BandMemory = { ...bounds, layers: new SharedArrayBuffer(bandLayerBytes(bounds, cols)), mask: null }
      // Global rows r0−1 … r1 (the halo rows included) of z, h and the wall bits.
      const from = (bounds.r0 - 1) * cols
      const to = (bounds.r1 + 1) * cols
      const views = layerViews(memory, cols)
      views.z.set(state.z.subarray(from, to))
      views.h.set(state.h.subarray(from, to))
      if (state.mask) {
        memory.mask = new SharedArrayBuffer(bandRows(bounds) * cols)
        new Uint8Array(memory.mask).set(state.mask.subarray(from, to))
      }
      return memory
    })
    this.spans = active ? new SharedArrayBuffer(spanBytes(rows)) : null
    if (this.spans) debrisSpans(state.h, rows, cols, spanBuffers(rows, this.spans), 0)
  }

  async advance(steps: number, signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    if (steps <= 0 || this.ranks === 0) {
      this.done += steps
      return
    }
    this.pool ??= new WorkerPool('landslide-worker', this.ranks)
    const pool = this.pool
    // Terminating the threads stops them at once, wherever they wait.
    const onAbort = () => void pool.terminate()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const task = (index: number): BandTask => ({
        rows: this.state.rows,
        cols: this.state.cols,
        index,
        bands: this.bands,
        barrier: this.barrier,
        spans: this.spans,
        steps,
        parity: this.done & 1,
      })
      // Every band must run at once (they meet at barriers): the pool has a thread per band.
      await Promise.all(this.bands.map((_, b) => pool.run('advance', task(b))))
    } catch (e) {
      // A thread that failed leaves the others waiting at a barrier: stop them all.
      await pool.terminate()
      this.pool = null
      throwIfAborted(signal)
      throw e instanceof ApiError ? e : ApiError.from(e)
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    this.done += steps
  }

  async thickness(): Promise<Float64Array> {
    const { cols } = this.state
    for (const band of this.bands) {
      const h = layerViews(band, cols).h
      this.out.set(h.subarray(cols, (bandRows(band) - 1) * cols), band.r0 * cols)
    }
    return this.out
  }

  async dispose(): Promise<void> {
    await this.pool?.terminate()
    this.pool = null
  }
}
