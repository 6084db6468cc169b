// One WebGPU device with what kernels need around it: limits, cached kernels, buffers,
// chunked transfers, timed submits and readbacks, and device-loss reporting.
import { ApiError } from '../../shared/errors'
import type { AdapterInfo, DeviceInfo } from '../../shared/device'
import { adapterInfo, errorText } from './adapter'
import * as buffers from './buffers'
import { throwIfAborted } from '../../shared/cancel'
import { encodeDispatches, workgroupGrid, type Dispatch } from './dispatch'
import type { Kernel } from './kernel'
import { PipelineCache, type KernelOptions } from './pipelines'
import type { InlineShader } from './shaders'
import { StagingPool } from './staging'
import { addSpan, timeSpan } from '../timeline'

/** Limits requested at the adapter's maxima: kernels size their buffers and workgroups from them. */
export const REQUESTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupsPerDimension',
] as const

/** Optional features enabled when the adapter has them (WGSL still needs `enable …;`). Never timestamp-query: it crashes SwiftShader. */
export const OPTIONAL_FEATURES = ['subgroups', 'shader-f16'] as const

/** Work for one submit: dispatches in one compute pass, or commands recorded by a function (which may use `encodeDispatches`). */
export type Work = readonly Dispatch[] | ((encoder: GPUCommandEncoder) => void)

export class Gpu implements buffers.TransferHost {
  readonly adapter: AdapterInfo
  readonly features: string[]
  /** The device's limits, all of them. */
  readonly limits: Record<string, number>
  /** The adapter's limits, for comparison with what was granted. */
  readonly adapterLimits: Record<string, number>
  /** Staging buffers reused by upload and read. */
  readonly staging: StagingPool
  private readonly pipelines: PipelineCache
  private lostReason: string | null = null
  private lastUncaptured: string | null = null

  private constructor(
    readonly device: GPUDevice,
    adapter: GPUAdapter,
    source: string,
    onLost: (gpu: Gpu) => void,
  ) {
    this.adapter = adapterInfo(adapter, source)
    this.features = [...device.features].sort()
    this.limits = limitsRecord(device.limits)
    this.adapterLimits = limitsRecord(adapter.limits)
    this.pipelines = new PipelineCache(device)
    this.staging = new StagingPool(device)
    void device.lost.then((info) => {
      this.lostReason = info.message || info.reason || 'unknown reason'
      onLost(this)
    })
    // Errors outside run()'s scopes: kept for the next failure's message instead of printed by Dawn.
    device.addEventListener('uncapturederror', (ev) => {
      ev.preventDefault()
      this.lastUncaptured = (ev as GPUUncapturedErrorEvent).error.message
    })
  }

  /** Requests a device from `adapter` with the limits and features kernels use. */
  static async open(adapter: GPUAdapter, source: string, onLost: (gpu: Gpu) => void = () => {}): Promise<Gpu> {
    const requiredLimits: Record<string, number> = {}
    for (const k of REQUESTED_LIMITS) requiredLimits[k] = adapter.limits[k]
    const requiredFeatures = OPTIONAL_FEATURES.filter((f) => adapter.features.has(f))
    let device: GPUDevice
    try {
      device = await adapter.requestDevice({ label: 'paralab', requiredLimits, requiredFeatures })
    } catch (e) {
      throw new ApiError('gpu-unavailable', `requesting a device from ${adapter.info.description || adapter.info.vendor} failed: ${errorText(e)}`)
    }
    return new Gpu(device, adapter, source, onLost)
  }

  get isSoftware(): boolean {
    return this.adapter.isSoftware
  }

  /** Why the device was lost, or null while it works. */
  get lost(): string | null {
    return this.lostReason
  }

  assertAlive(): void {
    if (this.lostReason !== null) throw new ApiError('device-lost', `GPU device lost: ${this.lostReason}`)
  }

  info(): DeviceInfo {
    return { available: true, adapter: this.adapter, features: this.features, limits: this.limits }
  }

  /**
   * The kernel of `shaders/<name>.wgsl` (or of inline WGSL), includes expanded, for an entry
   * point and constants; compiled once per device for each source, entry point and constants.
   */
  kernel(shader: string | InlineShader, options?: KernelOptions): Promise<Kernel> {
    this.assertAlive()
    return this.pipelines.get(shader, options)
  }

  /** Number of pipelines compiled on this device. */
  get pipelineCount(): number {
    return this.pipelines.size
  }

  /**
   * A buffer of `size` bytes (rounded up to a multiple of 4). Sizes beyond maxBufferSize throw
   * here; an allocation failure shows when the buffer is first used (storage() checks at once).
   */
  buffer(size: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
    this.assertAlive()
    return buffers.createBuffer(this.device, size, usage, label)
  }

  /**
   * A storage buffer that can be copied to and from: of `data`'s size with its contents
   * (uploaded in chunks), or of `size` bytes zeroed. Unlike buffer(), an allocation the
   * device cannot satisfy rejects here, naming the buffer, instead of failing later uses.
   */
  async storage(
    label: string,
    contents: ArrayBufferView | ArrayBuffer | number,
    options: buffers.UploadOptions & { usage?: GPUBufferUsageFlags } = {},
  ): Promise<GPUBuffer> {
    const size = typeof contents === 'number' ? contents : contents.byteLength
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST | (options.usage ?? 0)
    this.assertAlive()
    const { value: buf, errors } = withErrorScopes(this.device, () => buffers.createBuffer(this.device, size, usage, label))
    const { validation, oom } = await errors
    this.assertAlive()
    if (oom || validation) {
      buf.destroy()
      throw new ApiError('internal', `buffer ${label} of ${size} bytes: ${oom ? 'out of GPU memory' : 'invalid'}: ${(oom ?? validation)!.message}`)
    }
    if (typeof contents !== 'number') {
      try {
        await this.upload(buf, contents, options)
      } catch (e) {
        buf.destroy()
        throw e
      }
    }
    return buf
  }

  /** A small uniform buffer holding `data` (kernel parameters). */
  uniform(label: string, data: ArrayBufferView | ArrayBuffer): GPUBuffer {
    const src = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    // Uniform structs are 16-byte aligned; padding here spares every caller from it.
    const padded = new Uint8Array(Math.ceil(Math.max(src.byteLength, 16) / 16) * 16)
    padded.set(src)
    const buf = this.buffer(padded.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label)
    this.device.queue.writeBuffer(buf, 0, padded)
    return buf
  }

  /** Writes `data` into `buffer` (COPY_DST) in chunks (see buffers.upload); resolves once submitted, ordered before later submits. */
  upload(buffer: GPUBuffer, data: ArrayBufferView | ArrayBuffer, options?: buffers.UploadOptions): Promise<void> {
    return timeSpan('GPU upload', () => buffers.upload(this, buffer, data, options))
  }

  /** Copies bytes of `buffer` (COPY_SRC) back to the host in chunks. */
  read(buffer: GPUBuffer, options?: buffers.ReadOptions): Promise<ArrayBuffer> {
    return timeSpan('GPU readback', () => buffers.read(this, buffer, options))
  }

  /** Copies `target.byteLength` bytes of `buffer` from `options.offset` into `target`, reusing its memory. */
  readInto(buffer: GPUBuffer, target: ArrayBufferView, options?: Omit<buffers.ReadOptions, 'size'>): Promise<void> {
    return timeSpan('GPU readback', () => buffers.readInto(this, buffer, target, options))
  }

  async readF32(buffer: GPUBuffer, options?: buffers.ReadOptions): Promise<Float32Array> {
    return new Float32Array(await this.read(buffer, options))
  }

  async readU32(buffer: GPUBuffer, options?: buffers.ReadOptions): Promise<Uint32Array> {
    return new Uint32Array(await this.read(buffer, options))
  }

  /** Workgroup counts for `count` workgroups, split over x and y when x alone cannot hold them. */
  grid(count: number): [number, number, number] {
    return workgroupGrid(count, this.limits.maxComputeWorkgroupsPerDimension)
  }

  /**
   * Records `dispatches` in one compute pass of `encoder`, as `run` does with a list: for work
   * functions that also clear or copy buffers around the pass.
   */
  encodeDispatches(encoder: GPUCommandEncoder, dispatches: readonly Dispatch[]): void {
    encodeDispatches(encoder, dispatches, this.limits.maxComputeWorkgroupsPerDimension)
  }

  /**
   * Submits `work` once and waits until the GPU has finished it. Returns the wall-clock
   * milliseconds from submit to completion. Validation and out-of-memory errors of the
   * work reject with the label; a lost device rejects with 'device-lost'.
   */
  run(label: string, work: Work, options: { signal?: AbortSignal } = {}): Promise<number> {
    return this.submit(label, work, options.signal, () => this.device.queue.onSubmittedWorkDone())
  }

  /**
   * Submits `work`, which ends by copying its results into `readback` (MAP_READ | COPY_DST),
   * and reads back the first `bytes` (default: all) of it as words. `ms` is the wall clock from
   * submit to the words on the host: the timing that works on every adapter. Errors as `run`.
   */
  async runAndRead(
    label: string,
    work: Work,
    readback: GPUBuffer,
    options: { bytes?: number; signal?: AbortSignal } = {},
  ): Promise<{ words: Uint32Array; ms: number }> {
    const bytes = options.bytes ?? readback.size
    if (!Number.isSafeInteger(bytes) || bytes <= 0 || bytes % 4 !== 0 || bytes > readback.size)
      throw new ApiError('invalid-argument', `${label}: cannot read ${bytes} bytes of ${readback.label} (${readback.size} bytes) as words`)
    let ms: number
    try {
      ms = await this.submit(label, work, options.signal, () => readback.mapAsync(GPUMapMode.READ, 0, bytes))
    } catch (e) {
      // Mapped while the work failed validation, or still pending on a lost device.
      if (readback.mapState !== 'unmapped') readback.unmap()
      throw e
    }
    const words = new Uint32Array(readback.getMappedRange(0, bytes).slice(0))
    readback.unmap()
    return { words, ms }
  }

  /** Waits until everything submitted so far has finished. */
  finish(what = 'queued work'): Promise<void> {
    return buffers.settle(this, what)
  }

  /** The error for a failed map or wait: 'device-lost' when the device went away, else `what` failed. */
  async failure(e: unknown, what: string): Promise<ApiError> {
    // Dawn rejects pending maps when the device goes; the lost promise may settle just after.
    if (this.lostReason === null) await Promise.race([this.device.lost, new Promise((r) => setTimeout(r, 50))])
    if (this.lostReason !== null) return new ApiError('device-lost', `GPU device lost: ${this.lostReason}`)
    return e instanceof ApiError ? e : new ApiError('internal', `${what} failed: ${errorText(e)}${this.earlierError()}`)
  }

  /** Destroys the device; jobs still using it fail with 'device-lost'. */
  destroy(): void {
    this.staging.clear()
    this.device.destroy()
  }

  /**
   * Encodes and submits `work` inside error scopes, then waits for `settled` (completion, or a
   * map that completion allows). Returns the milliseconds from submit to settled.
   */
  private async submit(label: string, work: Work, signal: AbortSignal | undefined, settled: () => Promise<unknown>): Promise<number> {
    this.assertAlive()
    throwIfAborted(signal)
    const device = this.device
    let t0 = 0
    const { value: done, errors } = withErrorScopes(device, () => {
      const encoder = device.createCommandEncoder({ label })
      try {
        if (typeof work === 'function') work(encoder)
        else this.encodeDispatches(encoder, work)
      } catch (e) {
        throw e instanceof ApiError ? e : new ApiError('internal', `${label}: ${errorText(e)}`)
      }
      const commands = encoder.finish()
      t0 = performance.now()
      device.queue.submit([commands])
      const wait = settled()
      wait.catch(() => {}) // awaited below, after the scopes are popped
      return wait
    })
    try {
      await done
    } catch (e) {
      throw await this.failure(e, label)
    }
    const ms = performance.now() - t0
    addSpan('GPU submits (submit to done)', t0)
    this.assertAlive()
    const { validation, oom } = await errors
    if (oom) throw new ApiError('internal', `${label}: GPU out of memory: ${oom.message}`)
    if (validation) throw new ApiError('internal', `${label}: GPU validation error: ${validation.message}${this.earlierError()}`)
    return ms
  }

  /** The last error no scope caught, reported once with the next failure it probably caused. */
  private earlierError(): string {
    const earlier = this.lastUncaptured
    this.lastUncaptured = null
    return earlier ? ` (earlier GPU error: ${earlier})` : ''
  }
}

/**
 * Runs `fn` inside validation and out-of-memory error scopes. Both are pushed and popped
 * with no await between, so concurrent jobs on the device cannot take each other's scopes.
 */
function withErrorScopes<T>(device: GPUDevice, fn: () => T): { value: T; errors: Promise<{ validation: GPUError | null; oom: GPUError | null }> } {
  device.pushErrorScope('out-of-memory')
  device.pushErrorScope('validation')
  const pop = () => {
    const validation = device.popErrorScope().catch(() => null)
    const oom = device.popErrorScope().catch(() => null)
    return Promise.all([validation, oom]).then(([v, o]) => ({ validation: v, oom: o }))
  }
  let value: T
  try {
    value = fn()
  } catch (e) {
    void pop()
    throw e
  }
  return { value, errors: pop() }
}

function limitsRecord(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {}
  // The fields are prototype getters: for…in sees them, object spread does not.
  for (const k in limits) {
    const v = (limits as unknown as Record<string, unknown>)[k]
    if (typeof v === 'number') out[k] = v
  }
  return out
}
