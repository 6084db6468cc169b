// A rank's band on its GPU: the band's rows (own and 2·S halo rows on each side) as a grid of their
// own on one device (halo-band.ts says why that is exact), with the halo rows moved between ranks
// as the GPU holds them (f32, or double-float pairs), so an exchange never rounds.
//
// Overlap (block): the rows the neighbours need after the next steps are computed first, on small
// strips of the band (halo-band.ts edgeStrip says why a strip gives them exactly), and read back
// while the band's own steps run: the device's queue runs the strips, their copy to the host, then
// the band, so the host sends the edges while the GPU computes the rest.
import { type Gpu, throwIfAborted } from '../../../gpu/runtime'
import type { GpuVariant } from '../../../../shared/workloads/landslide/types'
import type { InitialState } from '../simulation'
import { edgeStrip } from '../halo-band'
import { fromDoubleFloat, type GpuArithmetic, GpuSimulation } from './gpu-simulation'

type Options = { arithmetic: GpuArithmetic; altitudeBase: number }

export class GpuHaloBand {
  /** Strips by their rows `lo:hi`, made on first use. */
  private readonly strips = new Map<string, GpuSimulation>()
  /** Readback buffers of the blocks' edge rows: all made, and those free for the next block. */
  private readonly readbacks: GPUBuffer[] = []
  private readonly idle: GPUBuffer[] = []

  private constructor(
    private readonly sim: GpuSimulation,
    private readonly gpu: Gpu,
    private readonly state: InitialState,
    private readonly opts: Options,
  ) {}

  /**
   * `state`: the band's rows; `altitudeBase`: the whole grid's (altitudeBase of the full state), so
   * that f32 altitudes are the same numbers in every rank as in a run on one device.
   */
  static async create(
    gpu: Gpu,
    state: InitialState,
    variant: GpuVariant,
    stepsPerSubmit: number,
    opts: Options,
  ): Promise<GpuHaloBand> {
    return new GpuHaloBand(await GpuSimulation.create(gpu, state, variant, stepsPerSubmit, opts), gpu, state, opts)
  }

  /**
   * Queues, in this order, the strips giving rows `want` (each [first, count]) after `edgeSteps`
   * steps, their copy to the host, and `steps` steps of the band; `edges` resolves with the rows
   * (as readRaw gives them), `done` once the band's steps are done. Two submits a block: the
   * strips' copies, steps and readback in one command buffer (mapped as soon as it is done), the
   * band's steps in the next (a map waits for everything submitted before it, so they cannot share one).
   */
  async block(edgeSteps: number, steps: number, want: ([number, number] | undefined)[], signal?: AbortSignal): Promise<{ edges: Promise<(Uint8Array | undefined)[]>; done: Promise<void> }> {
    throwIfAborted(signal)
    const parts: { strip: GpuSimulation; lo: number; hi: number; first: number; count: number; at: number }[] = []
    let bytes = 0
    for (const w of want) {
      if (!w) continue
      const { lo, hi } = edgeStrip(w[0], w[1], edgeSteps, this.state.rows)
      parts.push({ strip: await this.strip(lo, hi), lo, hi, first: w[0], count: w[1], at: bytes })
      bytes += w[1] * this.sim.rowBytes
    }
    let edges: Promise<(Uint8Array | undefined)[]> = Promise.resolve(want.map(() => undefined))
    if (parts.length > 0) {
      const readback = this.readback(bytes)
      const record = (encoder: GPUCommandEncoder) => {
        for (const p of parts) {
          p.strip.encodeCopyRowsFrom(encoder, this.sim, p.lo, p.hi - p.lo, 0)
          p.strip.encodeSteps(encoder, edgeSteps)
          p.strip.encodeReadRows(encoder, p.first - p.lo, p.count, readback, p.at)
        }
      }
      // Submitted before this returns (runAndRead submits synchronously), so ahead of the band's steps.
      const read = this.gpu.runAndRead('landslide edges', record, readback, { bytes, signal })
      edges = read
        .then(({ words }) => {
          let k = 0
          return want.map((w) => {
            if (!w) return undefined
            const p = parts[k++]
            return new Uint8Array(words.buffer, p.at, p.count * this.sim.rowBytes)
          })
        })
        .finally(() => this.idle.push(readback))
    }
    const done = this.sim.queue(steps, signal)
    // Both are awaited by the caller; a failure must not also surface as unhandled.
    done.catch(() => {})
    edges.catch(() => {})
    return { edges, done }
  }

  /** A mappable buffer of at least `bytes` for a block's edge rows: one idle since its last block, or a new one. */
  private readback(bytes: number): GPUBuffer {
    const i = this.idle.findIndex((b) => b.size >= bytes)
    if (i >= 0) return this.idle.splice(i, 1)[0]
    const b = this.gpu.buffer(bytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'landslide edges (readback)')
    this.readbacks.push(b)
    return b
  }

  /** Makes the strips that block() will use for these rows and steps ahead of the timed steps. */
  async prepare(edgeSteps: number, want: ([number, number] | undefined)[]): Promise<void> {
    for (const w of want) if (w) await this.strip(...Object.values(edgeStrip(w[0], w[1], edgeSteps, this.state.rows)) as [number, number])
  }

  private async strip(lo: number, hi: number): Promise<GpuSimulation> {
    const key = `${lo}:${hi}`
    let strip = this.strips.get(key)
    if (!strip) {
      const { cols } = this.state
      const rows = (a: { subarray(b: number, e: number): any }) => a.subarray(lo * cols, hi * cols)
      const sub: InitialState = { rows: hi - lo, cols, z: rows(this.state.z), h: rows(this.state.h), mask: this.state.mask && rows(this.state.mask) }
      strip = await GpuSimulation.create(this.gpu, sub, this.sim.variant, this.sim.stepsPerSubmit, this.opts)
      this.strips.set(key, strip)
    }
    return strip
  }

  get done(): number {
    return this.sim.done
  }

  set done(step: number) {
    this.sim.done = step
  }

  get stepsPerSubmit(): number {
    return this.sim.stepsPerSubmit
  }

  get passesPerStep(): number {
    return this.sim.passesPerStep
  }

  advance(steps: number, signal?: AbortSignal): Promise<void> {
    return this.sim.advance(steps, signal)
  }

  /** Rows `first` … `first + count − 1` as the GPU holds them, for a neighbour's halo. */
  async readRaw(first: number, count: number): Promise<Uint8Array> {
    return new Uint8Array(await this.sim.readRows(first, count))
  }

  /** Overwrites rows from `first` on with another rank's readRaw(); ordered before later steps. */
  writeRaw(first: number, rows: Uint8Array): Promise<void> {
    const copy = rows.byteOffset === 0 && rows.byteLength === rows.buffer.byteLength ? (rows.buffer as ArrayBuffer) : rows.slice().buffer
    return this.sim.writeRows(first, copy)
  }

  /** Rows `first` … `first + count − 1` of h in f64 (exact: f32 and double-float pairs widen without rounding). */
  async readRows(first: number, count: number): Promise<Float64Array> {
    const values = new Float32Array(await this.sim.readRows(first, count))
    return this.sim.arithmetic === 'double-float' ? fromDoubleFloat(values) : Float64Array.from(values)
  }

  async dispose(): Promise<void> {
    for (const strip of this.strips.values()) await strip.dispose()
    await this.sim.dispose()
    for (const b of this.readbacks) b.destroy()
  }
}
