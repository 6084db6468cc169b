// The `gpu` backend: the matrix padded to whole 64-blocks (and tiles), uploaded once, relaxed by one
// of the study's variants step after step (a parameters slot per k or round), read back. Upload,
// computation and readback are timed apart; the computation is the sum of its submits. A matrix
// beyond one binding (2 GiB on an H100) goes in bands of rows, one binding each, up to four. The
// device's buffers are made before the host's matrix is filled, so a graph the GPU cannot hold is
// refused before any work, naming the sizes.
import { ApiError } from '../../../../shared/errors'
import type { GpuVariant } from '../../../../shared/workloads/paths/types'
import { median, throwIfAborted, warmUp, type Binding, type Dispatch, type Gpu } from '../../../gpu/runtime'
import { roundCheckpoints } from '../checkpoint'
import { compact, fillMatrix } from '../matrix'
import { f32Unusable, fromF32 } from '../real'
import type { Problem } from '../problem'
import type { SolveOptions, Solved, Solver } from '../solver-contract'
import { DEFAULT_TUNED_SHAPE, parseTunedShape, type TunedShape } from './tuned-shapes'
import { GPU_ALIGN, bandHeight, paddedSide, planVariant, unsupported } from './variants'
import { pushAll } from '../../../../shared/extent'

/** Wall time a submit of 'timed' steps aims at: short enough for cancel and progress, long enough that submits cost little. */
export const SUBMIT_MS = 200

/** Steps of the next submit: one first, then as many as took SUBMIT_MS at the pace of the submits so far. */
export function nextSubmitSteps(done: number, ms: number, left: number): number {
  if (done === 0) return Math.min(1, left)
  return Math.max(1, Math.min(left, Math.floor((SUBMIT_MS * done) / Math.max(ms, 1e-3))))
}

/** Bytes between parameter slots: a uniform binding's offset must be a multiple of this. */
const SLOT_BYTES = 256
/** Bindings of distances (and of keys) the kernels declare. */
export const MAX_BANDS = 4

export interface GpuSolverOptions {
  /** Bytes one binding may hold, below the device's limit (tests split small matrices with it). */
  maxBindingBytes?: number
  /** A tile shape of the tuned variant's min-plus phase 3 (tuned-shapes.ts); without one, DEFAULT_TUNED_SHAPE. */
  shape?: string
}

/** Rows per band (whole 64-blocks) and the number of bands of an N × N int32 matrix, or null when it needs more than MAX_BANDS. */
export function bandsOf(N: number, maxBindingBytes: number): { rows: number; bands: number } | null {
  // Whole 64-blocks: a block's rows never straddle two bindings.
  const rows = Math.floor(maxBindingBytes / (N * 4) / GPU_ALIGN) * GPU_ALIGN
  if (rows === 0) return null
  const bands = Math.ceil(N / rows)
  return bands <= MAX_BANDS ? { rows: Math.min(rows, N), bands } : null
}

export const size = (bytes: number) => (bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${Number((bytes / 2 ** 20).toPrecision(2))} MiB`)

/** An N × N matrix in this process's memory, or an error naming its size when it cannot be had. */
function hostMatrix<T extends Int32Array | Uint32Array>(Type: new (words: number) => T, N: number, V: number, what: string): T {
  try {
    return new Type(N * N)
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    throw new ApiError('invalid-input', `a ${V}-vertex graph (padded to ${N}): the ${what} matrix of ${size(N * N * 4)} cannot be allocated in this process (${e.message})`)
  }
}

export function gpuSolver(gpu: Gpu, variant: GpuVariant, block?: number, options: GpuSolverOptions = {}): Solver {
  // The tuned variant's phase 3 tile (without successors): the one asked for, else the default.
  const shape: TunedShape | undefined = variant === 'tuned' ? parseTunedShape(options.shape ?? DEFAULT_TUNED_SHAPE) : undefined
  if (options.shape !== undefined && variant !== 'tuned') throw new ApiError('invalid-argument', `a tile shape (${options.shape}) is for the tuned variant, not ${variant}`)
  const why = unsupported(gpu, variant, block, shape)
  if (why) throw new ApiError('gpu-unavailable', why)
  const most = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize, options.maxBindingBytes ?? Infinity)
  return {
    backend: 'gpu',
    variant,
    ...(block !== undefined && { block }),
    ...(options.shape !== undefined && { shape: options.shape }),
    async compile(p: Problem, paths: boolean): Promise<void> {
      const N = paddedSide(p.V)
      const split = bandsOf(N, most)
      // A matrix no bindings hold: solve says so.
      if (split) await planVariant(gpu, variant, block, p.V, N, paths, split.bands > 1 ? split.rows : undefined, shape, p.real !== undefined)
    },
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      const refused = f32Unusable(p)
      if (refused) throw refused
      const N = paddedSide(p.V)
      const split = bandsOf(N, most)
      if (!split)
        throw new ApiError('invalid-input', `a ${p.V}-vertex matrix (padded to ${N}) takes ${size(N * N * 4)}: more than ${MAX_BANDS} GPU bindings of ${size(most)} hold`)
      const buffers: GPUBuffer[] = []
      const rowsOf = (b: number) => bandHeight(N, split.rows, b)
      const band = (m: Int32Array | Uint32Array, b: number) => m.subarray(b * split.rows * N, (b * split.rows + rowsOf(b)) * N)
      try {
        const dBufs: GPUBuffer[] = []
        const keyBufs: GPUBuffer[] = []
        const matrices = paths ? 2 : 1
        for (let b = 0; b < split.bands; b++)
          for (const [what, list] of [['distances', dBufs], ['keys', keyBufs]] as const) {
            if (what === 'keys' && !paths) continue
            try {
              list.push(await gpu.storage(`paths ${what} ${b}`, rowsOf(b) * N * 4))
            } catch (e) {
              const err = ApiError.from(e)
              if (!err.message.includes('out of GPU memory')) throw err
              throw new ApiError(
                'invalid-input',
                `a ${p.V}-vertex graph (padded to ${N}) needs ${size(N * N * 4 * matrices)} of GPU memory (${paths ? 'distances and path keys' : 'distances'}, ${split.bands * matrices} buffers); the device could not allocate ${what} band ${b} (${size(rowsOf(b) * N * 4)}): ${err.message}`,
              )
            }
            buffers.push(list[list.length - 1])
          }
        // Bindings without a band (and the keys without successors) hold a vec4 each, never read:
        // writable bindings of one dispatch may not share a buffer.
        const spare = async (label: string) => {
          const buf = await gpu.storage(label, 16)
          buffers.push(buf)
          return buf
        }
        const bound = async (bufs: GPUBuffer[], what: string) => {
          const out = [...bufs]
          while (out.length < MAX_BANDS) out.push(await spare(`paths unused ${what} binding ${out.length}`))
          return out
        }
        const dBound = await bound(dBufs, 'distances')
        const keyBound = await bound(keyBufs, 'keys')
        const plan = await planVariant(gpu, variant, block, p.V, N, paths, split.bands > 1 ? split.rows : undefined, shape, p.real !== undefined)
        throwIfAborted(signal)
        const slots = new Uint32Array((plan.steps * SLOT_BYTES) / 4)
        for (let s = 0; s < plan.steps; s++) slots.set([N, s], (s * SLOT_BYTES) / 4)
        const params = gpu.uniform('paths parameters', slots)
        buffers.push(params)

        const d = hostMatrix(Int32Array, N, p.V, 'distances')
        const key = paths ? hostMatrix(Uint32Array, N, p.V, 'path keys') : undefined
        const duplicates = fillMatrix(p, d, key, { stride: N, rows: N })
        // Checkpoints (the tuned variant: a step is a round): resumed, the rounds done come from
        // the checkpoint, over the graph's matrix (its padding stays as filled).
        const checkpoints = opts.checkpoint && roundCheckpoints(opts.checkpoint)
        if (checkpoints && variant !== 'tuned') throw new ApiError('invalid-argument', `checkpoints are of the tuned variant's rounds, not ${variant}'s steps`)
        const view = { V: p.V, S: N, d, ...(key && { key }) }
        await checkpoints?.load(view, signal)
        const readBack = async () => {
          for (let b = 0; b < split.bands; b++) {
            await gpu.readInto(dBufs[b], band(d, b), { signal })
            if (key) await gpu.readInto(keyBufs[b], band(key, b), { signal })
          }
        }
        const t0 = performance.now()
        for (let b = 0; b < split.bands; b++) {
          await gpu.upload(dBufs[b], band(d, b), { signal })
          if (key) await gpu.upload(keyBufs[b], band(key, b), { signal })
        }
        await gpu.finish('the upload of the matrix')
        const upload_ms = performance.now() - t0

        const bind = (step: number) => (): Binding[] => [...dBound, ...keyBound, { buffer: params, offset: step * SLOT_BYTES, size: 8 }]
        const compute = async (progress?: (fraction: number) => void): Promise<number> => {
          let ms = 0
          const from = checkpoints?.from ?? 0
          for (let s0 = from; s0 < plan.steps; ) {
            const n = plan.stepsPerSubmit === 'timed' ? nextSubmitSteps(s0 - from, ms, plan.steps - s0) : plan.stepsPerSubmit
            let s1 = Math.min(plan.steps, s0 + n)
            // A submit ends at the next checkpoint, so that the matrix can be read back there.
            if (checkpoints) for (let s = s0 + 1; s < s1; s++) if (checkpoints.due(s, plan.steps)) s1 = s
            const work: Dispatch[] = []
            for (let s = s0; s < s1; s++) pushAll(work, plan.dispatches(s, bind(s)))
            ms += await gpu.run(`paths ${variant} steps ${s0}…${s1 - 1}`, work, { signal })
            // Read back and written apart from the compute time (gpu.run times the submit alone).
            await checkpoints?.after(s1, plan.steps, async () => (await readBack(), view))
            progress?.(s1 / plan.steps)
            s0 = s1
          }
          return ms
        }
        let compute_ms: number
        let compute_runs_ms: number[] | undefined
        if (opts.timing) {
          // Each computation starts from the uploaded matrix, copied back on the device: the GPU
          // stays busy between them, as it does not while a host uploads (its clock would drop).
          const matrices = [...dBufs, ...keyBufs]
          const kept: GPUBuffer[] = []
          for (const m of matrices) {
            kept.push(await gpu.storage(`${m.label} as uploaded`, m.size))
            buffers.push(kept[kept.length - 1])
          }
          const copy = (from: GPUBuffer[], to: GPUBuffer[]) => (enc: GPUCommandEncoder) => from.forEach((f, i) => enc.copyBufferToBuffer(f, 0, to[i], 0, f.size))
          await gpu.run('paths: keep the uploaded matrix', copy(matrices, kept), { signal })
          const fresh = () => gpu.run('paths: restore the uploaded matrix', copy(kept, matrices), { signal })
          await warmUp(
            async () => {
              await compute()
              await fresh()
            },
            opts.timing.warmupMs,
            signal,
          )
          compute_runs_ms = []
          for (let r = 0; r < opts.timing.repeat; r++) {
            if (r > 0) await fresh()
            compute_runs_ms.push(await compute(r === opts.timing.repeat - 1 ? opts.progress : undefined))
          }
          compute_ms = median(compute_runs_ms)
        } else {
          compute_ms = await compute(opts.progress)
        }

        const t1 = performance.now()
        await readBack()
        const readback_ms = performance.now() - t1
        // Real weights: f32 bits of reweighted distances, returned as f64 in the graph's own weights.
        const distances = compact(d, p.V, N)
        return {
          d: p.real ? fromF32(distances, p.V, p.potential) : distances,
          ...(p.real && { arithmetic: 'f32' as const, side: N }),
          key: key && compact(key, p.V, N),
          duplicates,
          compute_ms,
          ...(compute_runs_ms && { compute_runs_ms }),
          upload_ms,
          readback_ms,
          bytes: plan.bytes,
          ...(checkpoints && { checkpoints: checkpoints.report() }),
        }
      } finally {
        for (const b of buffers) b.destroy()
      }
    },
    async dispose() {},
  }
}
