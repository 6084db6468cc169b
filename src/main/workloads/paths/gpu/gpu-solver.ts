// The `gpu` backend: the matrix padded to whole 64-blocks, uploaded once, relaxed by one of the
// study's variants step after step (a parameters slot per k or round), read back. Upload,
// computation and readback are timed apart; the computation is the sum of its submits.
import { ApiError } from '../../../../shared/errors'
import type { GpuVariant } from '../../../../shared/workloads/paths/types'
import { throwIfAborted, type Binding, type Gpu } from '../../../gpu/runtime'
import { compact, fillMatrix } from '../matrix'
import type { Problem } from '../problem'
import type { SolveOptions, Solved, Solver } from '../solver'
import { GPU_ALIGN, planVariant, unsupported } from './variants'

/** Bytes between parameter slots: a uniform binding's offset must be a multiple of this. */
const SLOT_BYTES = 256

export function gpuSolver(gpu: Gpu, variant: GpuVariant, block?: number): Solver {
  const why = unsupported(gpu, variant, block)
  if (why) throw new ApiError('gpu-unavailable', why)
  return {
    backend: 'gpu',
    variant,
    ...(block !== undefined && { block }),
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      const N = Math.ceil(p.V / GPU_ALIGN) * GPU_ALIGN
      const bytes = N * N * 4
      const most = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize)
      if (bytes > most)
        throw new ApiError('invalid-input', `a ${p.V}-vertex matrix (padded to ${N}) takes ${(bytes / 2 ** 30).toFixed(2)} GiB, more than one GPU binding holds here (${(most / 2 ** 30).toFixed(2)} GiB); splitting it over several bindings is not implemented`)
      const d = new Int32Array(N * N)
      const key = paths ? new Uint32Array(N * N) : undefined
      const duplicates = fillMatrix(p, d, key, { stride: N, rows: N })
      const plan = await planVariant(gpu, variant, block, p.V, N, paths)
      throwIfAborted(signal)

      const slots = new Uint32Array((plan.steps * SLOT_BYTES) / 4)
      for (let s = 0; s < plan.steps; s++) slots.set([N, s], (s * SLOT_BYTES) / 4)
      const params = gpu.uniform('paths parameters', slots)
      const buffers: GPUBuffer[] = [params]
      try {
        const t0 = performance.now()
        const dBuf = await gpu.storage('paths distances', d, { signal })
        buffers.push(dBuf)
        // Without successors the kernels still bind a key buffer, never read.
        const keyBuf = await gpu.storage('paths keys', key ?? 4, { signal })
        buffers.push(keyBuf)
        await gpu.finish('the upload of the matrix')
        const upload_ms = performance.now() - t0

        const bind = (step: number) => (): Binding[] => [dBuf, keyBuf, { buffer: params, offset: step * SLOT_BYTES, size: 8 }]
        let compute_ms = 0
        for (let s0 = 0; s0 < plan.steps; s0 += plan.stepsPerSubmit) {
          const s1 = Math.min(plan.steps, s0 + plan.stepsPerSubmit)
          const work = []
          for (let s = s0; s < s1; s++) work.push(...plan.dispatches(s, bind(s)))
          compute_ms += await gpu.run(`paths ${variant} steps ${s0}…${s1 - 1}`, work, { signal })
          opts.progress?.(s1 / plan.steps)
        }

        const t1 = performance.now()
        await gpu.readInto(dBuf, d, { signal })
        if (key) await gpu.readInto(keyBuf, key, { signal })
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
