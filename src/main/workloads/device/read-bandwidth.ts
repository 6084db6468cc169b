// Memory read bandwidth: a vec4 reduction over a device buffer, timed over batches of dispatches.
import { ApiError } from '../../../shared/errors'
import { type Gpu, timeBatches } from '../../gpu/runtime'
import { MAX_VALUE } from './data'

export interface ReadBandwidthOptions {
  /** Threads per workgroup (power of two). */
  workgroupSize: number
  /** Workgroups in the grid; raised where needed to keep partial sums exact. */
  workgroups: number
  /** Vec4 loads in flight per invocation and trip: 4 or 8 (default 4). */
  loads?: number
  repeats: number
  /** Aim for batches lasting this long, so submit latency does not count. */
  targetBatchMs: number
  maxBatch: number
  signal?: AbortSignal
  onRepeat?(done: number, GB_per_s: number): void
}

export interface ReadBandwidthResult {
  GB_per_s: number
  bytes: number
  dispatchesPerBatch: number
  workgroups: number
  /** Sum computed by the kernel (of its partials) and the exact sum of the data. */
  gpuSum: number
  expectedSum: number
}

/** Measures how fast the kernel reads `data` (a buffer of vec4<f32>, `byteLength` a multiple of 16) whose exact sum is `expectedSum`. */
export async function measureReadBandwidth(
  gpu: Gpu,
  data: GPUBuffer,
  byteLength: number,
  expectedSum: number,
  o: ReadBandwidthOptions,
): Promise<ReadBandwidthResult> {
  const wg = o.workgroupSize
  if (!Number.isInteger(Math.log2(wg)) || wg > gpu.limits.maxComputeInvocationsPerWorkgroup)
    throw new ApiError('invalid-argument', `read bandwidth: workgroup size ${wg} must be a power of two ≤ ${gpu.limits.maxComputeInvocationsPerWorkgroup}`)
  const loads = o.loads ?? 4
  if (loads !== 4 && loads !== 8) throw new ApiError('invalid-argument', `read bandwidth: loads per trip must be 4 or 8, got ${loads}`)
  if (byteLength % 16 !== 0 || byteLength <= 0) throw new ApiError('invalid-argument', `read bandwidth: ${byteLength} bytes is not a positive multiple of 16`)
  const vec4s = byteLength / 16
  // Each workgroup sums at most 4·MAX_VALUE per vec4 it reads; below 2^24 every f32 add is exact.
  const exactMin = Math.ceil((4 * MAX_VALUE * vec4s) / 2 ** 24)
  const workgroups = Math.min(gpu.limits.maxComputeWorkgroupsPerDimension, Math.max(exactMin, Math.min(o.workgroups, Math.ceil(vec4s / wg))))

  const kernel = await gpu.kernel('device/read_bandwidth', { constants: { WG: wg, LOADS: loads } })
  const partialsBuf = await gpu.storage('read bandwidth partials', workgroups * 4)
  try {
    const dispatch = kernel.dispatch(kernel.bind([{ buffer: data, size: byteLength }, partialsBuf]), workgroups)
    const batch = (count: number) => Array.from({ length: count }, () => dispatch)
    const check = async (when: string): Promise<number> => {
      const p = await gpu.readF32(partialsBuf, { size: workgroups * 4 })
      let s = 0
      for (const v of p) s += v
      if (s !== expectedSum)
        throw new ApiError('internal', `read bandwidth kernel ${when}: sum ${s} differs from the data's exact sum ${expectedSum} (${workgroups} workgroups of ${wg})`)
      return s
    }

    await gpu.run('read bandwidth check', batch(1), { signal: o.signal })
    await check('after one dispatch')
    await gpu.upload(partialsBuf, new Uint8Array(workgroups * 4)) // so the check below sees the timed batches' sums
    const { count, medianMs } = await timeBatches((n) => gpu.run(`read bandwidth × ${n}`, batch(n), { signal: o.signal }), {
      repeats: o.repeats,
      targetMs: o.targetBatchMs,
      maxCount: o.maxBatch,
      signal: o.signal,
      onRepeat: (done, ms, n) => o.onRepeat?.(done, gbPerS(byteLength * n, ms)),
    })
    const gpuSum = await check(`after batches of ${count}`)
    return { GB_per_s: gbPerS(byteLength * count, medianMs), bytes: byteLength, dispatchesPerBatch: count, workgroups, gpuSum, expectedSum }
  } finally {
    partialsBuf.destroy()
  }
}

export const gbPerS = (bytes: number, ms: number): number => bytes / ms / 1e6

/**
 * A buffer of `copies` back-to-back copies of the first `bytes` of `source`, made on the GPU: a read
 * larger than what the host uploads (a long dispatch makes its start and drain a small part), whose
 * exact sum is the source's times `copies`.
 */
export async function repeatedBuffer(gpu: Gpu, source: GPUBuffer, bytes: number, copies: number): Promise<GPUBuffer> {
  if (!Number.isInteger(copies) || copies < 1) throw new ApiError('invalid-argument', `read bandwidth: copies must be a positive integer, got ${copies}`)
  const out = await gpu.storage(`read bandwidth data × ${copies}`, bytes * copies)
  try {
    await gpu.run('read bandwidth copies', (enc) => {
      for (let c = 0; c < copies; c++) enc.copyBufferToBuffer(source, 0, out, c * bytes, bytes)
    })
  } catch (e) {
    out.destroy()
    throw e
  }
  return out
}
