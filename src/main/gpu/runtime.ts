// The process's GPU: created on first use, recreated after a device loss, reported as
// unavailable (never thrown at import) when no adapter exists, so CPU work goes on.
import { ApiError } from '../../shared/errors'
import type { DeviceInfo } from '../../shared/device'
import { discoverAdapter, type DiscoveryResult, requestAdapterQuietly } from './adapter'
import { Gpu } from './gpu'
import { hostGpus } from './host-gpus'
import { registerRelease } from './release'
import { timeSpan } from '../timeline'

let discovery: Promise<DiscoveryResult> | null = null
/** The adapter found by discovery, used by the first device; later devices request a new one. */
let spareAdapter: GPUAdapter | null = null
let live: Gpu | null = null
let opening: Promise<Gpu> | null = null

/** The shared GPU. Rejects with 'gpu-unavailable' (and the reason) when there is none. */
export function getGpu(): Promise<Gpu> {
  if (live && live.lost === null) return Promise.resolve(live)
  if (!opening) {
    opening = open().finally(() => {
      opening = null
    })
  }
  return opening
}

/** What the GPU backend is; never throws. `PARALAB_GPU=off` reports it unavailable. */
export async function gpuInfo(): Promise<DeviceInfo> {
  const host = hostGpus()
  try {
    return { ...(await getGpu()).info(), host }
  } catch (e) {
    return { available: false, reason: ApiError.from(e).message, features: [], limits: {}, host }
  }
}

/**
 * Destroys the device and forgets the adapter search, so the next getGpu() looks again
 * (and re-reads PARALAB_GPU). Jobs still running on the old device fail with 'device-lost'.
 */
export async function resetGpu(): Promise<void> {
  const pending = opening
  if (pending) await pending.catch(() => {})
  live?.destroy()
  live = null
  spareAdapter = null
  discovery = null
}

/**
 * Releases the GPU before a process ends. Node exits by itself with a live device, so
 * calling this is tidy rather than required.
 */
export const shutdownGpu = resetGpu

// Loaded by whichever module asked first (a job's GPU engine, the backend): the process's exit releases the device.
registerRelease(resetGpu)

async function open(): Promise<Gpu> {
  discovery ??= timeSpan('GPU adapter request', discoverAdapter).then((d) => {
    if (d.ok) spareAdapter = d.adapter
    return d
  })
  const found = await discovery
  if (!found.ok) throw new ApiError('gpu-unavailable', found.reason)
  let adapter = spareAdapter
  spareAdapter = null
  adapter ??= await requestAdapterQuietly(found.discovery.gpu)
  if (!adapter) throw new ApiError('gpu-unavailable', `the adapter found earlier (${found.discovery.source}) is gone`)
  const gpu = await timeSpan('GPU device request', () =>
    Gpu.open(adapter, found.discovery.source, (lostGpu) => {
      if (live === lostGpu) live = null
    }),
  )
  live = gpu
  return gpu
}

export { Gpu, REQUESTED_LIMITS, OPTIONAL_FEATURES, type Work } from './gpu'
export { throwIfAborted } from '../../shared/cancel'
export { median, batchSize, timeBatches, warmUp, GPU_WARMUP_MS, TIMING_METHOD, type BatchTiming } from './timing'
export { type Binding, type Dispatch, type Workgroups } from './dispatch'
export { type Kernel } from './kernel'
export { compileAhead } from './compile'
export { type KernelOptions } from './pipelines'
export { type UploadOptions, type ReadOptions, DEFAULT_CHUNK_BYTES, DEFAULT_DIRECT_MAX_BYTES, MiB } from './buffers'
export { type InlineShader, shaderNames } from './shaders'
