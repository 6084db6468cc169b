// Host↔device transfer bandwidth through the runtime's chunked upload and readback, the
// paths every workload's data takes.
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { type Gpu, median } from '../../gpu/runtime'
import { gbPerS } from './read-bandwidth'

export interface TransferOptions {
  repeats: number
  chunkBytes?: number
  signal?: AbortSignal
  onRepeat?(done: number, GB_per_s: number): void
}

/** Uploads `data` into `buffer` `repeats` times (after one warm-up), each timed until the GPU has it. */
export async function measureUpload(gpu: Gpu, buffer: GPUBuffer, data: Float32Array, o: TransferOptions): Promise<number> {
  const once = async (): Promise<number> => {
    throwIfAborted(o.signal)
    const t0 = performance.now()
    await gpu.upload(buffer, data, { chunkBytes: o.chunkBytes, signal: o.signal })
    await gpu.finish('upload')
    return performance.now() - t0
  }
  await once()
  const times: number[] = []
  for (let r = 0; r < o.repeats; r++) {
    times.push(await once())
    o.onRepeat?.(r + 1, gbPerS(data.byteLength, times[r]))
  }
  return gbPerS(data.byteLength, median(times))
}

/**
 * Reads `buffer` back `repeats` times (after one warm-up) into the same host memory, so the
 * figure is the transfer's, not the first-touch cost of new pages. Every copy must equal `expected`.
 */
export async function measureReadback(gpu: Gpu, buffer: GPUBuffer, expected: Float32Array, o: TransferOptions): Promise<number> {
  const got = new Uint8Array(expected.byteLength)
  const want = new Uint8Array(expected.buffer, expected.byteOffset, expected.byteLength)
  const times: number[] = []
  for (let r = -1; r < o.repeats; r++) {
    throwIfAborted(o.signal)
    got.fill(0xa5) // so that a copy that did not happen cannot pass the check
    const t0 = performance.now()
    await gpu.readInto(buffer, got, { chunkBytes: o.chunkBytes, signal: o.signal })
    const ms = performance.now() - t0
    checkEqual(got, want, buffer.label)
    if (r < 0) continue // warm-up
    times.push(ms)
    o.onRepeat?.(r + 1, gbPerS(expected.byteLength, ms))
  }
  return gbPerS(expected.byteLength, median(times))
}

function checkEqual(got: Uint8Array, want: Uint8Array, label: string): void {
  if (Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(want.buffer, want.byteOffset, want.byteLength))) return
  let at = 0
  while (got[at] === want[at]) at++
  throw new ApiError('internal', `readback of ${label}: byte ${at} is ${got[at]}, uploaded ${want[at]}`)
}
