// The `gpu` backend: the grid's layers in GPU memory as f32, or as double-float pairs (hi, lo) of
// f32 for --precision accurate, and a variant's passes recorded for many steps into each submitted
// command buffer (one compute pass, Dawn placing the barriers), so the host's latency is paid once
// per submit rather than once per kernel.
import { ApiError } from '../../../../shared/errors'
import type { GpuVariant, RunArithmetic } from '../../../../shared/workloads/landslide/types'
import { type Dispatch, type Gpu, type Kernel, throwIfAborted } from '../../../gpu/runtime'
import { WALL_SELF } from '../sciddica'
import type { InitialState, Simulation } from '../simulation'
import { B, type DfGuard, envDfGuard, FUSED, fused2Workgroup, noDoubleFloat, type Pass, STRIDE_GROUPS, STRIDE_WG, TILE, VARIANTS } from './kernels'

/** Steps per submit by default: a hardware GPU takes thousands of dispatches a submit in stride; SwiftShader runs each on the CPU. */
export function defaultStepsPerSubmit(gpu: Gpu): number {
  return gpu.isSoftware ? 25 : 500
}

const EMPTY = 0xffffffff

/** The interior box of cells with h ≠ 0: rows i0…i1, columns j0…j1, or empty (i0 > i1). */
export function debrisBox(h: Float64Array, rows: number, cols: number): Uint32Array {
  const box = new Uint32Array([EMPTY, 0, EMPTY, 0])
  for (let i = 1; i < rows - 1; i++)
    for (let j = 1; j < cols - 1; j++)
      if (h[i * cols + j] !== 0) {
        box[0] = Math.min(box[0], i)
        box[1] = Math.max(box[1], i)
        box[2] = Math.min(box[2], j)
        box[3] = Math.max(box[3], j)
      }
  return box
}

/** Wall bits packed four cells to a word, as the shaders read them. */
function packedMask(mask: Uint8Array | null, n: number): Uint32Array {
  const words = new Uint32Array(Math.max(1, Math.ceil(n / 4)))
  if (mask) new Uint8Array(words.buffer).set(mask)
  return words
}

/** The lowest altitude of a cell that is no wall (0 when all are walls). */
export function altitudeBase(state: InitialState): number {
  let base = Infinity
  for (let k = 0; k < state.z.length; k++) if (!(state.mask && state.mask[k] & WALL_SELF) && state.z[k] < base) base = state.z[k]
  return Number.isFinite(base) ? base : 0
}

/** Altitudes relative to `base` (the lowest cell that is no wall): f32 then spends its bits on the relief. */
function relativeAltitudes(state: InitialState, base: number): Float32Array {
  const z = new Float32Array(state.z.length)
  for (let k = 0; k < z.length; k++) z[k] = state.z[k] - base
  return z
}

/**
 * f64 values as double-floats, interleaved (hi, lo): hi the nearest f32, lo the nearest f32 to the
 * rest. Exact where a value needs at most ~48 significant bits (integers, few decimals in binary);
 * otherwise within 2^-48 of it relatively.
 */
export function toDoubleFloat(values: Float64Array): Float32Array {
  const out = new Float32Array(values.length * 2)
  for (let k = 0; k < values.length; k++) {
    const hi = Math.fround(values[k])
    out[2 * k] = hi
    out[2 * k + 1] = values[k] - hi
  }
  return out
}

/** Double-float pairs (hi, lo) back to f64: hi + lo is exact in f64. */
export function fromDoubleFloat(pairs: Float32Array): Float64Array {
  const out = new Float64Array(pairs.length / 2)
  for (let k = 0; k < out.length; k++) out[k] = pairs[2 * k] + pairs[2 * k + 1]
  return out
}

/** GPU arithmetic: f32, or double-float (--precision accurate). */
export type GpuArithmetic = Exclude<RunArithmetic, 'f64'>

interface BoundPass {
  kernel: Kernel
  pass: Pass
  /** Bind groups: one, or two alternating by step parity (fused). */
  groups: GPUBindGroup[]
}

export class GpuSimulation implements Simulation {
  done = 0
  private destroyed = false
  /** Which of `h` holds the state after `done` steps (fused variants swap two). */
  private cur = 0

  private constructor(
    private readonly gpu: Gpu,
    private readonly state: InitialState,
    readonly variant: GpuVariant,
    readonly arithmetic: GpuArithmetic,
    readonly stepsPerSubmit: number,
    private readonly buffers: GPUBuffer[],
    /** The thickness, or both buffers of the fused variants (current: `cur`). */
    private readonly h: GPUBuffer[],
    private readonly passes: BoundPass[],
    private readonly args: GPUBuffer | null,
    private readonly strideGroups: number,
  ) {}

  /**
   * `strideGroups`: workgroups of the grid-stride kernels (default enough for the grid, at most
   * STRIDE_GROUPS); `arithmetic`: f32 (default) or double-float, which the tiled variants lack;
   * `dfGuard`: double-float's TwoSum guard (kernels.ts DF_GUARDS), default PARALAB_DF_GUARD's or the shader's;
   * `altitudeBase`: what f32 altitudes are relative to (default altitudeBase(state); a band of a larger grid passes the grid's);
   * `fused2Workgroup`: fused2's invocations (default kernels.ts fused2Workgroup for the device).
   */
  static async create(
    gpu: Gpu,
    state: InitialState,
    variant: GpuVariant,
    stepsPerSubmit: number,
    opts: { strideGroups?: number; arithmetic?: GpuArithmetic; dfGuard?: DfGuard; altitudeBase?: number; fused2Workgroup?: { WG_X: number; WG_Y: number } } = {},
  ): Promise<GpuSimulation> {
    const { rows, cols } = state
    const n = rows * cols
    const arithmetic = opts.arithmetic ?? 'f32'
    const df = arithmetic === 'double-float'
    const spec = VARIANTS[variant]
    const kernels = await GpuSimulation.kernels(gpu, variant, opts)
    // Four outflows a cell, f32 or double-float.
    const flowBytes = n * (df ? 32 : 16)
    if (flowBytes > gpu.limits.maxStorageBufferBindingSize)
      throw new ApiError('invalid-input', `a ${rows} × ${cols} grid needs ${flowBytes} bytes of ${arithmetic} outflows, more than this GPU binds (${gpu.limits.maxStorageBufferBindingSize})`)
    const buffers: GPUBuffer[] = []
    const keep = <T extends GPUBuffer>(b: T) => (buffers.push(b), b)
    // Double-float keeps the altitudes as they are: its ~48 bits hold the relief without a shift.
    const zValues = df ? toDoubleFloat(state.z) : relativeAltitudes(state, opts.altitudeBase ?? altitudeBase(state))
    const hValues = () => (df ? toDoubleFloat(state.h) : Float32Array.from(state.h))
    try {
      // The last word, 0, is the double-float guard's runtime zero (grid.wgsl).
      const grid = keep(gpu.uniform('landslide grid', new Uint32Array([rows, cols, n, 0])))
      const z = keep(await gpu.storage('landslide z', zValues))
      const h0 = keep(await gpu.storage('landslide h', hValues()))
      const mask = keep(await gpu.storage('landslide walls', packedMask(state.mask, n)))
      let bound: BoundPass[]
      let h: GPUBuffer[]
      let args: GPUBuffer | null = null
      if (variant === 'fused' || variant === 'fused2') {
        const h1 = keep(await gpu.storage('landslide h (other)', hValues()))
        h = [h0, h1]
        const group = (kernel: Kernel, from: GPUBuffer, to: GPUBuffer) =>
          kernel.bind({ [FUSED.grid]: grid, [FUSED.z]: z, [FUSED.hIn]: from, [FUSED.hOut]: to, [FUSED.mask]: mask })
        bound = spec.passes.map((pass, i) => ({ kernel: kernels[i], pass, groups: [group(kernels[i], h0, h1), group(kernels[i], h1, h0)] }))
      } else {
        h = [h0]
        const f = keep(await gpu.storage('landslide outflows', flowBytes))
        const resources: Record<number, GPUBuffer> = { [B.grid]: grid, [B.z]: z, [B.h]: h0, [B.f]: f, [B.mask]: mask }
        if (variant === 'active') {
          resources[B.box] = keep(await gpu.storage('landslide box', debrisBox(state.h, rows, cols)))
          resources[B.region] = keep(await gpu.storage('landslide regions', 32))
          args = keep(await gpu.storage('landslide dispatch sizes', 24, { usage: GPUBufferUsage.INDIRECT }))
          resources[B.args] = args
        }
        bound = spec.passes.map((pass, i) => ({
          kernel: kernels[i],
          pass,
          groups: [kernels[i].bind(Object.fromEntries(pass.bindings.map((b) => [b, resources[b]])))],
        }))
      }
      const strideGroups = opts.strideGroups ?? Math.min(STRIDE_GROUPS, Math.ceil(((rows - 2) * (cols - 2)) / STRIDE_WG))
      return new GpuSimulation(gpu, state, variant, arithmetic, stepsPerSubmit, buffers, h, bound, args, strideGroups)
    } catch (e) {
      for (const b of buffers) b.destroy()
      throw e
    }
  }

  /** The kernels of `variant`'s passes in `arithmetic`, compiled once per device: a job compiles them ahead of its timed runs. */
  static kernels(
    gpu: Gpu,
    variant: GpuVariant,
    opts: { arithmetic?: GpuArithmetic; dfGuard?: DfGuard; fused2Workgroup?: { WG_X: number; WG_Y: number } } = {},
  ): Promise<Kernel[]> {
    const df = opts.arithmetic === 'double-float'
    const spec = VARIANTS[variant]
    const shader = df ? spec.doubleFloat : spec.shader
    if (shader === undefined) return Promise.reject(new ApiError('invalid-argument', noDoubleFloat(variant)))
    const guard = df ? (opts.dfGuard ?? envDfGuard()) : undefined
    const constants = { ...(guard !== undefined && { DF_GUARD: guard }), ...(variant === 'fused2' && (opts.fused2Workgroup ?? fused2Workgroup(gpu.limits))) }
    return Promise.all(spec.passes.map((p) => gpu.kernel(shader, { entryPoint: p.entry, constants })))
  }

  /** Dispatches per step (fused2: one per two steps, an odd last step aside). */
  get passesPerStep(): number {
    return this.variant === 'fused2' ? 0.5 : this.passes.length
  }

  private get interior(): boolean {
    return this.state.rows > 2 && this.state.cols > 2
  }

  /**
   * Computes `steps` steps in submits of stepsPerSubmit, the next submitted while the one before
   * runs: the device never idles for the host's wait, encoding and submit between two (on a fast
   * GPU a submit of steps takes a few milliseconds, and the host's turn between two was up to a
   * third of it). A cancel is seen between submits; the one in flight is waited for first.
   */
  async advance(steps: number, signal?: AbortSignal): Promise<void> {
    let inFlight: Promise<number> | undefined
    try {
      for (let left = steps; left > 0; ) {
        throwIfAborted(signal)
        const count = Math.min(left, this.stepsPerSubmit)
        if (this.interior) {
          const run = this.gpu.run(`landslide ${this.variant} × ${count}`, this.work(count), { signal })
          run.catch(() => {}) // awaited below, once the one before it has settled
          if (inFlight) await inFlight
          inFlight = run
        }
        this.done += count
        left -= count
      }
      await inFlight
    } finally {
      // Never left running behind a failure or cancel: the caller may dispose the buffers next.
      await inFlight?.catch(() => {})
    }
  }

  /**
   * Submits `steps` steps at once (in submits of stepsPerSubmit) without waiting for them, so that
   * work queued on the device afterwards (another simulation's steps, a read) runs after them; the
   * promise settles when they are done. A rank's edge rows are computed so while its band runs.
   */
  queue(steps: number, signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    const runs: Promise<number>[] = []
    for (let left = steps; left > 0; ) {
      const count = Math.min(left, this.stepsPerSubmit)
      if (this.interior) runs.push(this.gpu.run(`landslide ${this.variant} × ${count}`, this.work(count), { signal }))
      this.done += count
      left -= count
    }
    return Promise.all(runs).then(() => {})
  }

  /**
   * Records `steps` steps into `encoder` (a compute pass per stepsPerSubmit, as queue() submits
   * them), to be submitted together with other commands: a rank's strips, their copies and the
   * readback of its edges go to the device as one command buffer.
   */
  encodeSteps(encoder: GPUCommandEncoder, steps: number): void {
    for (let left = steps; left > 0; ) {
      const count = Math.min(left, this.stepsPerSubmit)
      if (this.interior) {
        const work = this.work(count)
        if (typeof work === 'function') work(encoder)
        else this.gpu.encodeDispatches(encoder, work)
      }
      this.done += count
      left -= count
    }
  }

  /** Records a copy of `count` thickness rows of `source` (as copyRowsFrom) into `encoder`. */
  encodeCopyRowsFrom(encoder: GPUCommandEncoder, source: GpuSimulation, from: number, count: number, to: number): void {
    const bytes = this.rowBytes
    encoder.copyBufferToBuffer(source.h[source.cur], from * bytes, this.h[this.cur], to * bytes, count * bytes)
  }

  /** Records a copy of rows `first` … `first + count − 1`, as readRows() gives them, into `target` at byte `at`. */
  encodeReadRows(encoder: GPUCommandEncoder, first: number, count: number, target: GPUBuffer, at: number): void {
    encoder.copyBufferToBuffer(this.h[this.cur], first * this.rowBytes, target, at, count * this.rowBytes)
  }

  /** Queues a copy of `count` thickness rows of `source` (same device, columns and arithmetic) from its row `from` into this one's from row `to`. */
  copyRowsFrom(source: GpuSimulation, from: number, count: number, to: number): Promise<void> {
    const bytes = this.rowBytes
    const src = source.h[source.cur]
    const dst = this.h[this.cur]
    return this.gpu.run('landslide rows', (encoder) => encoder.copyBufferToBuffer(src, from * bytes, dst, to * bytes, count * bytes)).then(() => {})
  }

  /** `count` steps in one compute pass. */
  private work(count: number): readonly Dispatch[] | ((encoder: GPUCommandEncoder) => void) {
    const { rows, cols } = this.state
    const cells: [number, number] = [Math.ceil(cols / TILE), Math.ceil(rows / TILE)]
    if (this.args) {
      const args = this.args
      // Indirect dispatches: the runtime's dispatch lists have no such kind, so the pass is recorded here.
      return (encoder) => {
        const pass = encoder.beginComputePass({ label: `landslide active × ${count}` })
        for (let s = 0; s < count; s++)
          for (const p of this.passes) {
            pass.setPipeline(p.kernel.pipeline)
            pass.setBindGroup(0, p.groups[0])
            if (p.pass.launch === 'one') pass.dispatchWorkgroups(1)
            else pass.dispatchWorkgroupsIndirect(args, p.pass.launch === 'indirect-flows' ? 0 : 12)
          }
        pass.end()
      }
    }
    const list: Dispatch[] = []
    if (this.variant === 'fused2') {
      // Two steps a dispatch from h[cur] into the other buffer; an odd last step by the one-step kernel.
      for (let s = 0; s < count; s += 2) {
        const p = this.passes[count - s >= 2 ? 0 : 1]
        list.push(p.kernel.dispatch(p.groups[this.cur], cells))
        this.cur ^= 1
      }
      return list
    }
    for (let s = 0; s < count; s++)
      for (const p of this.passes) {
        const group = p.groups[(this.done + s) % p.groups.length]
        list.push(p.kernel.dispatch(group, p.pass.launch === 'stride' ? this.strideGroups : cells))
      }
    this.cur = (this.done + count) % this.h.length
    return list
  }

  /** Bytes of one row of the thickness buffer (f32, or a double-float pair per cell). */
  get rowBytes(): number {
    return this.state.cols * (this.arithmetic === 'double-float' ? 8 : 4)
  }

  /** The thickness buffer's bytes of rows `first` … `first + count − 1`, as the GPU holds them (for another band's halo). */
  readRows(first: number, count: number): Promise<ArrayBuffer> {
    return this.gpu.read(this.h[this.cur], { offset: first * this.rowBytes, size: count * this.rowBytes })
  }

  /** Overwrites rows from `first` on with bytes from readRows() of a band with the same arithmetic; ordered before later steps. */
  writeRows(first: number, bytes: ArrayBuffer): Promise<void> {
    return this.gpu.upload(this.h[this.cur], bytes, { offset: first * this.rowBytes })
  }

  async thickness(): Promise<Float64Array> {
    const values = await this.gpu.readF32(this.h[this.cur])
    return this.arithmetic === 'double-float' ? fromDoubleFloat(values) : Float64Array.from(values)
  }

  async dispose(): Promise<void> {
    if (this.destroyed) return
    this.destroyed = true
    // Work already submitted finishes first; its buffers may then go.
    await this.gpu.finish('landslide work').catch(() => {})
    for (const b of this.buffers) b.destroy()
  }
}
