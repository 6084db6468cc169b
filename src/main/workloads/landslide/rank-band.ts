// A rank's band of rows as run-ranks.ts drives it, the same whether it computes on this thread
// (halo-band.ts) or on the rank's GPU (gpu/gpu-halo-band.ts).
import { HaloBand } from './halo-band'
import { GpuHaloBand } from './gpu/gpu-halo-band'
import { type RankGpu } from './gpu/rank-gpu'
import type { RankArray } from '../../ranks/wire'

/** A rank's band as run-ranks drives it: on this thread (HaloBand) or on the rank's GPU (GpuHaloBand). */
export interface RankBand {
  done: number
  advance(steps: number, signal?: AbortSignal): Promise<void>
  /**
   * Rows `want` (each [first, count], or undefined) as they will be after `edgeSteps` steps, computed
   * first; then `steps` steps of the band, which run while the caller sends those rows on (`edges`
   * resolves before the band's steps begin).
   */
  block(edgeSteps: number, steps: number, want: ([number, number] | undefined)[], signal?: AbortSignal): Promise<{ edges: Promise<(RankArray | undefined)[]>; done: Promise<void> }>
  /** Readies what block() needs for these rows (the GPU's strips), ahead of the timed steps. */
  prepare(edgeSteps: number, want: ([number, number] | undefined)[]): Promise<void>
  /** Rows for a neighbour's halo, in the band's own format. */
  readHalo(first: number, count: number): Promise<RankArray>
  writeHalo(first: number, rows: RankArray): Promise<void>
  /** Rows of h in f64. */
  readRows(first: number, count: number): Promise<Float64Array>
  dispose(): Promise<void>
}

export function cpuBand(band: HaloBand): RankBand {
  return {
    get done() {
      return band.done
    },
    set done(step: number) {
      band.done = step
    },
    advance: (steps, signal) => band.advance(steps, signal),
    async block(edgeSteps, steps, want, signal) {
      const rows: (Float64Array | undefined)[] = []
      for (const w of want) rows.push(w && (await band.edgeRows(w[0], w[1], edgeSteps)))
      // The band's steps start on the next turn of the event loop, once the caller has sent the rows.
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => band.advance(steps, signal))
      done.catch(() => {})
      return { edges: Promise.resolve(rows), done }
    },
    prepare: async () => {},
    readHalo: async (first, count) => band.readRows(first, count),
    writeHalo: async (first, rows) => band.writeRows(first, rows as Float64Array),
    readRows: async (first, count) => band.readRows(first, count),
    dispose: async () => {},
  }
}

export function gpuBand(band: GpuHaloBand, device: RankGpu): RankBand {
  return {
    get done() {
      return band.done
    },
    set done(step: number) {
      band.done = step
    },
    advance: (steps, signal) => band.advance(steps, signal),
    block: (edgeSteps, steps, want, signal) => band.block(edgeSteps, steps, want, signal),
    prepare: (edgeSteps, want) => band.prepare(edgeSteps, want),
    readHalo: (first, count) => band.readRaw(first, count),
    writeHalo: (first, rows) => band.writeRaw(first, rows as Uint8Array),
    readRows: (first, count) => band.readRows(first, count),
    dispose: async () => {
      await band.dispose()
      device.close()
    },
  }
}
