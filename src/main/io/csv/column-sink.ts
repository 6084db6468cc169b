// A column assembled in row order from the chunks that ranges produce, in one growable
// SharedArrayBuffer: memory is committed as values arrive (the reservation up front is address
// space only), so the loader never holds a second full copy, and the result can be shared with
// other threads as it is.

/** Node 20's limit on a growable SharedArrayBuffer. */
const MAX_BYTES = 2 ** 32

interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  readonly maxByteLength: number
  grow(byteLength: number): void
}
const Growable = SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => GrowableSharedArrayBuffer

export class ColumnSink {
  private readonly buffer: GrowableSharedArrayBuffer
  private length = 0

  /** A column of at most `maxValues` values. */
  constructor(maxValues: number) {
    this.buffer = new Growable(0, { maxByteLength: Math.min(maxValues * 8, MAX_BYTES) })
  }

  /** Appends the next chunk; false when the column would outgrow what one buffer can hold. */
  append(chunk: Float64Array): boolean {
    const bytes = (this.length + chunk.length) * 8
    if (bytes > this.buffer.byteLength) {
      if (bytes > this.buffer.maxByteLength) return false
      this.buffer.grow(bytes)
    }
    new Float64Array(this.buffer, this.length * 8, chunk.length).set(chunk)
    this.length += chunk.length
    return true
  }

  get values(): Float64Array {
    return new Float64Array(this.buffer, 0, this.length)
  }
}
