// f32 FMA throughput: a register-bound kernel (shaders/device/fma_f32.wgsl) timed over batches.
import { ApiError } from '../../../shared/errors'
import { type Gpu, timeBatches } from '../../gpu/runtime'

/** Scalar fmas per loop trip per thread in fma_f32.wgsl: 16 vec4 fmas. */
export const FMAS_PER_TRIP = 64
/** Chain operands: x ← x·a + b. With a = 1, b = 1 every value is a small integer, exact in f32. */
const A = 1
const B = 1

export interface FmaOptions {
  workgroupSize: number
  workgroups: number
  /** Loop trips per thread. */
  iters: number
  repeats: number
  targetBatchMs: number
  maxBatch: number
  signal?: AbortSignal
  onRepeat?(done: number, GFLOP_per_s: number): void
}

export interface FmaResult {
  GFLOP_per_s: number
  /** FLOP of one dispatch (2 per fma). */
  flops: number
  dispatchesPerBatch: number
  /** Threads whose results were compared with the host's evaluation. */
  checkedThreads: number[]
}

export async function measureFma(gpu: Gpu, o: FmaOptions): Promise<FmaResult> {
  const { workgroupSize: wg, workgroups, iters } = o
  if (wg > gpu.limits.maxComputeInvocationsPerWorkgroup || wg > gpu.limits.maxComputeWorkgroupSizeX || wg < 1)
    throw new ApiError('invalid-argument', `fma: workgroup size ${wg} exceeds the device's ${gpu.limits.maxComputeInvocationsPerWorkgroup}`)
  if (workgroups < 1 || workgroups > gpu.limits.maxComputeWorkgroupsPerDimension)
    throw new ApiError('invalid-argument', `fma: ${workgroups} workgroups outside 1…${gpu.limits.maxComputeWorkgroupsPerDimension}`)
  // Chain values reach 1055 + 2·iters, summed 8 at a time: stay below 2^24 to stay exact.
  if (!Number.isInteger(iters) || iters < 1 || 8 * (1055 + 2 * iters) >= 2 ** 24)
    throw new ApiError('invalid-argument', `fma: iters must be an integer in 1…${Math.floor((2 ** 24 / 8 - 1055) / 2) - 1}, got ${iters}`)
  const threads = wg * workgroups
  const flops = threads * iters * FMAS_PER_TRIP * 2

  const kernel = await gpu.kernel('device/fma_f32', { constants: { WG: wg, ITERS: iters } })
  const out = await gpu.storage('fma results', threads * 16)
  const params = gpu.uniform('fma params', new Float32Array([A, A, A, A, B, B, B, B]))
  try {
    const dispatch = kernel.dispatch(kernel.bind([params, out]), workgroups)
    const batch = (count: number) => Array.from({ length: count }, () => dispatch)
    const checkedThreads = [...new Set([0, threads - 1])]
    const check = async (when: string): Promise<void> => {
      for (const t of checkedThreads) {
        const got = await gpu.readF32(out, { offset: t * 16, size: 16 })
        const want = fmaThread(t, iters, A, B)
        for (let k = 0; k < 4; k++)
          if (got[k] !== want[k])
            throw new ApiError('internal', `fma kernel ${when}: thread ${t} lane ${k} gave ${got[k]}, the host's evaluation ${want[k]} (iters ${iters})`)
        await gpu.upload(out, new Float32Array(4), { offset: t * 16 }) // so a later check sees later dispatches
      }
    }

    await gpu.run('fma check', batch(1), { signal: o.signal })
    await check('after one dispatch')
    const { count, medianMs } = await timeBatches((n) => gpu.run(`fma × ${n}`, batch(n), { signal: o.signal }), {
      repeats: o.repeats,
      targetMs: o.targetBatchMs,
      maxCount: o.maxBatch,
      signal: o.signal,
      onRepeat: (done, ms, n) => o.onRepeat?.(done, (flops * n) / ms / 1e6),
    })
    await check(`after batches of ${count}`)
    return { GFLOP_per_s: (flops * count) / medianMs / 1e6, flops, dispatchesPerBatch: count, checkedThreads }
  } finally {
    out.destroy()
    params.destroy()
  }
}

/** The host's evaluation of one thread of fma_f32.wgsl in f32 arithmetic (exact for the integer operands used here). */
export function fmaThread(gid: number, iters: number, a: number, b: number): Float32Array {
  const f = Math.fround
  const t = gid & 1023
  const chains = Array.from({ length: 8 }, (_, c) => Array.from({ length: 4 }, (_, k) => f(t + k + 4 * c)))
  const fa = f(a)
  const fb = f(b)
  for (let i = 0; i < 2 * iters; i++) for (const x of chains) for (let k = 0; k < 4; k++) x[k] = f(x[k] * fa + fb)
  const add = (p: number[], q: number[]) => p.map((v, k) => f(v + q[k]))
  const [x0, x1, x2, x3, x4, x5, x6, x7] = chains
  return new Float32Array(add(add(add(x0, x1), add(x2, x3)), add(add(x4, x5), add(x6, x7))))
}
