// Buffers: creation within the device's limits, and chunked transfers so that gigabyte
// inputs never need a staging copy of their full size.
import { ApiError } from '../../shared/errors'
import { throwIfAborted } from '../../shared/cancel'
import { MiB, align4 } from './sizes'
import type { StagingPool } from './staging'

export { MiB, align4 }

/** Default transfer chunk: staging buffers of this size are reused, two per transfer. */
export const DEFAULT_CHUNK_BYTES = 16 * MiB
/** Uploads up to this size go through queue.writeBuffer: no map round trip, and fast enough when small. */
export const DEFAULT_DIRECT_MAX_BYTES = 1 * MiB

/** What transfers need from their device: checks for loss and turns failures into clear errors. */
export interface TransferHost {
  readonly device: GPUDevice
  readonly staging: StagingPool
  assertAlive(): void
  /** The error to throw for a failed map or submit: device-lost when the device is gone. */
  failure(e: unknown, what: string): Promise<ApiError>
}

export interface UploadOptions {
  /** Byte offset in the destination buffer; a multiple of 4. */
  offset?: number
  chunkBytes?: number
  /** Data up to this many bytes is written with queue.writeBuffer instead of staging buffers. */
  directMaxBytes?: number
  signal?: AbortSignal
}

export interface ReadOptions {
  /** Byte offset in the source buffer; a multiple of 4. */
  offset?: number
  /** Bytes to read; defaults to the rest of the buffer. Need not be a multiple of 4. */
  size?: number
  chunkBytes?: number
  signal?: AbortSignal
}

/**
 * A buffer of at least `size` bytes (rounded up to 4, at least 4, so empty inputs still bind);
 * `size` is checked against maxBufferSize here rather than failing later in a validation error.
 */
export function createBuffer(device: GPUDevice, size: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
  if (!Number.isSafeInteger(size) || size < 0)
    throw new ApiError('invalid-argument', `buffer ${label}: size must be a non-negative integer, got ${size}`)
  const bytes = Math.max(4, align4(size))
  if (bytes > device.limits.maxBufferSize)
    throw new ApiError('invalid-argument', `buffer ${label}: ${bytes} bytes exceed the device's maxBufferSize ${device.limits.maxBufferSize}`)
  return device.createBuffer({ label, size: bytes, usage })
}

/**
 * Writes `data` into `buffer` (which needs COPY_DST) at `offset`: small data with
 * queue.writeBuffer, larger data chunk by chunk through two reused MAP_WRITE staging buffers,
 * so one chunk is copied on the GPU while the next is filled. An odd tail is padded with zeros
 * to 4 bytes. Resolves once every chunk is submitted; later submits see the data.
 */
export async function upload(host: TransferHost, buffer: GPUBuffer, data: ArrayBufferView | ArrayBuffer, options: UploadOptions = {}): Promise<void> {
  const { offset = 0, chunkBytes = DEFAULT_CHUNK_BYTES, directMaxBytes = DEFAULT_DIRECT_MAX_BYTES, signal } = options
  const bytes = asBytes(data)
  const what = `upload to ${buffer.label}`
  checkChunk(chunkBytes)
  if (offset % 4 !== 0) throw new ApiError('invalid-argument', `${what}: offset ${offset} is not a multiple of 4`)
  if (offset + align4(bytes.byteLength) > buffer.size)
    throw new ApiError('invalid-argument', `${what}: ${bytes.byteLength} bytes at offset ${offset} do not fit its ${buffer.size} bytes`)
  host.assertAlive()
  throwIfAborted(signal)
  const device = host.device
  const len = bytes.byteLength
  if (len <= directMaxBytes) {
    const whole = len & ~3
    // Dawn's writeBuffer crashes the process on views of shared memory (the CSV loader's
    // columns live there): small shared data goes from a private copy.
    const source = bytes.buffer instanceof SharedArrayBuffer ? bytes.slice() : bytes
    if (whole > 0) device.queue.writeBuffer(buffer, offset, source, 0, whole)
    if (whole < len) {
      const tail = new Uint8Array(4)
      tail.set(bytes.subarray(whole))
      device.queue.writeBuffer(buffer, offset + whole, tail)
    }
    return
  }

  const ring = [host.staging.acquire('write', chunkBytes), host.staging.acquire('write', chunkBytes)]
  try {
    for (let i = 0, pos = 0; pos < len; i++, pos += chunkBytes) {
      const n = Math.min(chunkBytes, len - pos)
      const n4 = align4(n)
      const s = ring[i % 2]
      // Resolves once the GPU has finished copying the chunk this buffer held before.
      try {
        await s.mapAsync(GPUMapMode.WRITE, 0, n4)
      } catch (e) {
        throw await host.failure(e, what)
      }
      const staged = new Uint8Array(s.getMappedRange(0, n4))
      staged.set(bytes.subarray(pos, pos + n))
      if (n4 > n) staged.fill(0, n)
      s.unmap()
      host.assertAlive()
      const enc = device.createCommandEncoder({ label: what })
      enc.copyBufferToBuffer(s, 0, buffer, offset + pos, n4)
      device.queue.submit([enc.finish()])
      throwIfAborted(signal)
    }
  } finally {
    for (const s of ring) host.staging.release(s)
  }
}

/**
 * Reads `size` bytes from `buffer` (which needs COPY_SRC) through two reused MAP_READ staging
 * buffers of `chunkBytes`, so one chunk is copied on the GPU while the previous one is copied out.
 */
export async function read(host: TransferHost, buffer: GPUBuffer, options: ReadOptions = {}): Promise<ArrayBuffer> {
  const size = options.size ?? buffer.size - (options.offset ?? 0)
  if (!Number.isSafeInteger(size) || size < 0)
    throw new ApiError('invalid-argument', `read of ${buffer.label}: size must be a non-negative integer, got ${size}`)
  const out = new ArrayBuffer(size)
  await readInto(host, buffer, new Uint8Array(out), options)
  return out
}

/**
 * Like read(), into `target` (all of its bytes) instead of new memory. Worth it for repeated
 * large reads: first touches of freshly allocated host memory cost more than the transfer
 * (a new 256 MiB ArrayBuffer took ~150 ms to fill where the copy took ~30 ms).
 */
export async function readInto(
  host: TransferHost,
  buffer: GPUBuffer,
  target: ArrayBufferView,
  options: Omit<ReadOptions, 'size'> = {},
): Promise<void> {
  const { offset = 0, chunkBytes = DEFAULT_CHUNK_BYTES, signal } = options
  const size = target.byteLength
  const out = new Uint8Array(target.buffer, target.byteOffset, target.byteLength)
  checkChunk(chunkBytes)
  const what = `read of ${buffer.label}`
  if (offset % 4 !== 0) throw new ApiError('invalid-argument', `${what}: offset ${offset} is not a multiple of 4`)
  if (!Number.isSafeInteger(size) || size < 0 || offset + size > buffer.size)
    throw new ApiError('invalid-argument', `${what}: ${size} bytes at offset ${offset} exceed its ${buffer.size} bytes`)
  if (offset + align4(size) > buffer.size)
    throw new ApiError('invalid-argument', `${what}: the last ${size % 4} bytes end a buffer whose size is not a multiple of 4`)
  host.assertAlive()
  throwIfAborted(signal)
  if (size === 0) return

  const device = host.device
  const stagingBytes = Math.min(chunkBytes, align4(size))
  const staging = Array.from({ length: size > chunkBytes ? 2 : 1 }, () => host.staging.acquire('read', stagingBytes))
  const maps: Promise<void>[] = []
  const start = (i: number): void => {
    const pos = i * chunkBytes
    const n = align4(Math.min(chunkBytes, size - pos))
    const s = staging[i % staging.length]
    const enc = device.createCommandEncoder({ label: what })
    enc.copyBufferToBuffer(buffer, offset + pos, s, 0, n)
    device.queue.submit([enc.finish()])
    const m = s.mapAsync(GPUMapMode.READ, 0, n)
    m.catch(() => {}) // awaited below; an abandoned map must not become an unhandled rejection
    maps[i] = m
  }
  const chunks = Math.ceil(size / chunkBytes)
  try {
    start(0)
    for (let i = 0; i < chunks; i++) {
      if (i + 1 < chunks) start(i + 1)
      try {
        await maps[i]
      } catch (e) {
        throw await host.failure(e, what)
      }
      host.assertAlive()
      const pos = i * chunkBytes
      const n = Math.min(chunkBytes, size - pos)
      const s = staging[i % staging.length]
      out.set(new Uint8Array(s.getMappedRange(0, align4(n)), 0, n), pos)
      s.unmap()
      throwIfAborted(signal)
    }
  } finally {
    for (const s of staging) host.staging.release(s)
  }
}

/** Submits nothing new and waits until everything queued so far is done. */
export async function settle(host: TransferHost, what: string): Promise<void> {
  host.assertAlive()
  host.device.queue.submit([])
  try {
    await host.device.queue.onSubmittedWorkDone()
  } catch (e) {
    throw await host.failure(e, what)
  }
  host.assertAlive()
}

// Typed as over an ArrayBuffer for writeBuffer's signature; Dawn accepts SharedArrayBuffer views as well.
function asBytes(data: ArrayBufferView | ArrayBuffer): Uint8Array<ArrayBuffer> {
  const view = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  return view as Uint8Array<ArrayBuffer>
}

function checkChunk(chunkBytes: number): void {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes <= 0 || chunkBytes % 4 !== 0)
    throw new ApiError('invalid-argument', `chunk size must be a positive multiple of 4 bytes, got ${chunkBytes}`)
}
