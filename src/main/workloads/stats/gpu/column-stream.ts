// A column uploaded to the GPU while the file is still being read, so that the upload overlaps
// parsing: `grow` is given the values so far (a prefix that later calls extend and never change)
// and uploads each whole segment of what is new into a buffer of its own; `finish` uploads the
// rest and gathers the segments into the column's buffer with copies on the GPU.
import { ApiError } from '../../../../shared/errors'
import type { Gpu } from '../../../gpu/runtime'
import type { PreparedColumn } from '../cpu-engine'

export interface ColumnStream {
  grow(prefix: Float64Array): void
  /** The column's final values (the whole prefix): uploads the rest and returns the prepared column. */
  finish(values: Float64Array): Promise<PreparedColumn>
  /** Stops uploading and frees what was uploaded. */
  cancel(): Promise<void>
}

/** Values per segment: uploaded whole while the column grows, large enough to transfer at full speed. */
export const SEGMENT_VALUES = 2 ** 21

/** What the stream needs from its engine. */
export interface StreamOwner {
  /** Called when the column's values are all there (finish): compiling may start. */
  finishing(): void
  /** An ordinary upload, for a column that finished before its first segment. */
  whole(values: Float64Array): Promise<PreparedColumn>
  /** The prepared column over a buffer holding `n` values. */
  gathered(buffer: GPUBuffer, values: Float64Array): PreparedColumn
  /** Throws when `n` values cannot be one column. */
  check(n: number): void
  /** Uploads `data` into `buffer`; the engine runs one upload at a time, so that streams share two staging buffers. */
  upload(buffer: GPUBuffer, data: Float64Array | Float32Array): Promise<void>
}

export class StreamedColumn implements ColumnStream {
  private readonly segments: GPUBuffer[] = []
  /** Values uploaded, and values queued for upload. */
  private sent = 0
  private queued = 0
  private chain: Promise<void> = Promise.resolve()
  private failure: unknown
  private cancelled = false

  constructor(
    private readonly gpu: Gpu,
    /** 8: f64 values, 4: rounded to f32. */
    private readonly bytesPerValue: number,
    private readonly segmentValues: number,
    private readonly signal: AbortSignal | undefined,
    private readonly owner: StreamOwner,
  ) {}

  grow(prefix: Float64Array): void {
    const whole = Math.floor(prefix.length / this.segmentValues) * this.segmentValues
    if (whole > this.queued) this.queue(prefix, (this.queued = whole))
  }

  async finish(values: Float64Array): Promise<PreparedColumn> {
    this.owner.finishing()
    await this.chain
    if (this.failure === undefined && !this.cancelled && this.segments.length === 0) return this.owner.whole(values)
    this.queue(values, values.length)
    await this.chain
    try {
      if (this.failure !== undefined) throw this.failure
      if (this.cancelled) throw new ApiError('cancelled', 'cancelled')
      const n = values.length
      this.owner.check(n)
      const bytes = n * this.bytesPerValue
      const segmentBytes = this.segmentValues * this.bytesPerValue
      const label = `stats column (${n} values)`
      const buffer = await this.gpu.storage(label, bytes, { signal: this.signal })
      try {
        await this.gpu.run(
          `${label} from ${this.segments.length} segments`,
          (encoder) => this.segments.forEach((s, i) => encoder.copyBufferToBuffer(s, 0, buffer, i * segmentBytes, Math.min(segmentBytes, bytes - i * segmentBytes))),
          { signal: this.signal },
        )
      } catch (e) {
        buffer.destroy()
        throw e
      }
      return this.owner.gathered(buffer, values)
    } finally {
      this.free()
    }
  }

  async cancel(): Promise<void> {
    this.cancelled = true
    await this.chain
    this.free()
  }

  /** Uploads values up to `end` after the work queued before; the first failure is kept for finish. */
  private queue(values: Float64Array, end: number): void {
    this.chain = this.chain
      .then(() => (this.failure === undefined && !this.cancelled ? this.send(values, end) : undefined))
      .catch((e) => void (this.failure ??= e))
  }

  /** Uploads values [sent, end), one segment (the last one: what remains) at a time. */
  private async send(values: Float64Array, end: number): Promise<void> {
    while (this.sent < end && !this.cancelled) {
      const to = Math.min(end, this.sent + this.segmentValues)
      const part = values.subarray(this.sent, to)
      const segment = await this.gpu.storage(`stats column segment ${this.segments.length}`, part.length * this.bytesPerValue, { signal: this.signal })
      this.segments.push(segment)
      await this.owner.upload(segment, this.bytesPerValue === 8 ? part : Float32Array.from(part))
      this.sent = to
    }
  }

  private free(): void {
    for (const b of this.segments) b.destroy()
    this.segments.length = 0
  }
}
