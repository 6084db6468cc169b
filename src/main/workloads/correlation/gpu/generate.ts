// The study's generator on the GPU (K1, shaders/correlation/generate.wgsl): the phenomenon's
// factors in parallel (K0), then one invocation per series walks its samples, with the study's
// workgroup sizes. Bit for bit the values of walks.ts.
import { ApiError } from '../../../../shared/errors'
import { throwIfAborted } from '../../../../shared/cancel'
import type { Gpu } from '../../../gpu/runtime'
import { type WalkOptions, anomalousSeries, checkWalkOptions, quantizeEps } from '../walks'

/** The study's threads per block. */
export const GENERATOR_WORKGROUPS = [1024, 64, 32] as const
export type GeneratorWorkgroup = (typeof GENERATOR_WORKGROUPS)[number]

export interface GpuWalks {
  values: Float32Array
  anomalies: number[]
  /** K0 (common factors) and K1 (the walks), wall ms of their submits. */
  ms: { factors: number; walks: number }
}

/** Why the adapter cannot run K1 with `workgroup` invocations, or null. */
export function workgroupUnavailable(gpu: Gpu, workgroup: number): string | null {
  const max = gpu.limits.maxComputeInvocationsPerWorkgroup
  return workgroup > max ? `workgroups of ${workgroup} invocations exceed this adapter's ${max}` : null
}

export async function generateWalksGpu(gpu: Gpu, o: WalkOptions, workgroup: GeneratorWorkgroup, signal?: AbortSignal): Promise<GpuWalks> {
  checkWalkOptions(o)
  const why = workgroupUnavailable(gpu, workgroup)
  if (why) throw new ApiError('gpu-unavailable', `generator K1: ${why}`)
  const { series: m, length: n } = o
  const { e, p } = quantizeEps(o.eps)
  const anomalies = anomalousSeries(m, o.anomalies, o.seed)
  const disturbedFlags = new Uint32Array(m)
  for (const a of anomalies) disturbedFlags[a] = 1
  // Series per band: an output buffer must fit one binding.
  const maxBinding = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize)
  const bandRows = Math.max(1, Math.floor(maxBinding / (n * 4)))
  const owned: GPUBuffer[] = []
  const own = (b: GPUBuffer) => (owned.push(b), b)
  try {
    const factors = own(await gpu.storage('walk factors', n * 4))
    const disturbed = own(await gpu.storage('disturbed', disturbedFlags))
    const k0 = await gpu.kernel('correlation/generate', { entryPoint: 'common_factors' })
    const k1 = await gpu.kernel('correlation/generate', { entryPoint: 'main', constants: { WG: workgroup } })
    const params = (s0: number, series: number) => {
      const words = new Uint32Array(8)
      words.set([series, n, s0, o.seed, e, 15 + p])
      new Float32Array(words.buffer, 24, 1)[0] = o.start
      return own(gpu.uniform(`walk params ${s0}`, words))
    }
    const bands: { s0: number; rows: number; out: GPUBuffer; params: GPUBuffer }[] = []
    for (let s0 = 0; s0 < m; s0 += bandRows) {
      const rows = Math.min(bandRows, m - s0)
      bands.push({ s0, rows, out: own(await gpu.storage(`walks ${s0}`, rows * n * 4)), params: params(s0, rows) })
    }
    throwIfAborted(signal)
    const factorsMs = await gpu.run('walk factors', [k0.dispatch(k0.bind({ 0: bands[0].params, 1: factors }), Math.ceil(n / 64))], { signal })
    const walksMs = await gpu.run(
      `walks WG=${workgroup}`,
      bands.map((b) => k1.dispatch(k1.bind({ 0: b.params, 1: factors, 2: disturbed, 3: b.out }), Math.ceil(b.rows / workgroup))),
      { signal },
    )
    const values = new Float32Array(m * n)
    for (const b of bands) await gpu.readInto(b.out, values.subarray(b.s0 * n, (b.s0 + b.rows) * n))
    return { values, anomalies, ms: { factors: factorsMs, walks: walksMs } }
  } finally {
    for (const b of owned) b.destroy()
  }
}
