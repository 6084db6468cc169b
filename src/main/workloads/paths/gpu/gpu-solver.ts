// The `gpu` backend: the matrix padded to whole 64-blocks, uploaded once, relaxed by one of the
// study's variants step after step (a parameters slot per k or round), read back. Upload,
// computation and readback are timed apart; the computation is the sum of its submits. A matrix
// beyond one binding (2 GiB on an H100) goes in bands of rows, one binding each, up to four.
import { ApiError } from '../../../../shared/errors'
import type { GpuVariant } from '../../../../shared/workloads/paths/types'
import { throwIfAborted, type Binding, type Gpu } from '../../../gpu/runtime'
import { compact, fillMatrix } from '../matrix'
import type { Problem } from '../problem'
import type { SolveOptions, Solved, Solver } from '../solver'
import { GPU_ALIGN, planVariant, unsupported } from './variants'

/** Bytes between parameter slots: a uniform binding's offset must be a multiple of this. */
const SLOT_BYTES = 256
/** Bindings of distances (and of keys) the kernels declare. */
export const MAX_BANDS = 4

export interface GpuSolverOptions {
  /** Bytes one binding may hold, below the device's limit (tests split small matrices with it). */
  maxBindingBytes?: number
}

/** Rows per band (whole 64-blocks) and the number of bands of an N × N int32 matrix, or null when it needs more than MAX_BANDS. */
export function bandsOf(N: number, maxBindingBytes: number): { rows: number; bands: number } | null {
  const rows = Math.floor(maxBindingBytes / (N * 4) / GPU_ALIGN) * GPU_ALIGN
  if (rows === 0) return null
  const bands = Math.ceil(N / rows)
  return bands <= MAX_BANDS ? { rows: Math.min(rows, N), bands } : null
}

const size = (bytes: number) => (bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${Number((bytes / 2 ** 20).toPrecision(2))} MiB`)

export function gpuSolver(gpu: Gpu, variant: GpuVariant, block?: number, options: GpuSolverOptions = {}): Solver {
  const why = unsupported(gpu, variant, block)
  if (why) throw new ApiError('gpu-unavailable', why)
  return {
    backend: 'gpu',
    variant,
    ...(block !== undefined && { block }),
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      const N = Math.ceil(p.V / GPU_ALIGN) * GPU_ALIGN
      const most = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize, options.maxBindingBytes ?? Infinity)
      const split = bandsOf(N, most)
      if (!split)
        throw new ApiError('invalid-input', `a ${p.V}-vertex matrix (padded to ${N}) takes ${size(N * N * 4)}: more than ${MAX_BANDS} GPU bindings of ${size(most)} hold`)
      const d = new Int32Array(N * N)
      const key = paths ? new Uint32Array(N * N) : undefined
      const duplicates = fillMatrix(p, d, key, { stride: N, rows: N })
      const plan = await planVariant(gpu, variant, block, p.V, N, paths, split.bands > 1 ? split.rows : undefined)
      throwIfAborted(signal)

      const slots = new Uint32Array((plan.steps * SLOT_BYTES) / 4)
      for (let s = 0; s < plan.steps; s++) slots.set([N, s], (s * SLOT_BYTES) / 4)
      const params = gpu.uniform('paths parameters', slots)
      const buffers: GPUBuffer[] = [params]
      const band = (m: Int32Array | Uint32Array, b: number) => m.subarray(b * split.rows * N, Math.min(N, (b + 1) * split.rows) * N)
      try {
        const t0 = performance.now()
        const dBufs: GPUBuffer[] = []
        const keyBufs: GPUBuffer[] = []
        for (let b = 0; b < split.bands; b++) {
          dBufs.push(await gpu.storage(`paths distances ${b}`, band(d, b), { signal }))
          buffers.push(dBufs[b])
          if (key) {
            keyBufs.push(await gpu.storage(`paths keys ${b}`, band(key, b), { signal }))
            buffers.push(keyBufs[b])
          }
        }
        // Bindings without a band (and the keys without successors) hold a word each, never read:
        // writable bindings of one dispatch may not share a buffer.
        const spare = async (label: string) => {
          const buf = await gpu.storage(label, 4)
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
        await gpu.finish('the upload of the matrix')
        const upload_ms = performance.now() - t0

        const bind = (step: number) => (): Binding[] => [...dBound, ...keyBound, { buffer: params, offset: step * SLOT_BYTES, size: 8 }]
        let compute_ms = 0
        for (let s0 = 0; s0 < plan.steps; s0 += plan.stepsPerSubmit) {
          const s1 = Math.min(plan.steps, s0 + plan.stepsPerSubmit)
          const work = []
          for (let s = s0; s < s1; s++) work.push(...plan.dispatches(s, bind(s)))
          compute_ms += await gpu.run(`paths ${variant} steps ${s0}…${s1 - 1}`, work, { signal })
          opts.progress?.(s1 / plan.steps)
        }

        const t1 = performance.now()
        for (let b = 0; b < split.bands; b++) {
          await gpu.readInto(dBufs[b], band(d, b), { signal })
          if (key) await gpu.readInto(keyBufs[b], band(key, b), { signal })
        }
        const readback_ms = performance.now() - t1
        return {
          d: compact(d, p.V, N),
          key: key && compact(key, p.V, N),
          duplicates,
          compute_ms,
          upload_ms,
          readback_ms,
          bytes: plan.bytes,
        }
      } finally {
        for (const b of buffers) b.destroy()
      }
    },
    async dispose() {},
  }
}
