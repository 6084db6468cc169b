// One element of an HDF5 dataset or NetCDF variable as a number, in the byte order its bytes are in
// (the HDF5 library hands them little-endian; classic NetCDF is big-endian): integers of 8 to 64
// bits, an integer type's value held in `precision` bits at bit `offset` (sign-extended, as HDF5's
// conversion to a native type does), half, single and double floats. A 64-bit integer beyond ±2^53
// is no double exactly: its value is kept, as text, for the caller to refuse unless it is a fill value.
import { half } from '../half-float'
import { type Beyond, bytesOf, type NumericDtype } from './datasets'

/** Distinct values beyond ±2^53 kept at most: more than any rule's fill values, so one is surely not. */
const MAX_BEYOND = 64
const LIMIT = 2n ** 53n

export class ElementReader {
  /** Distinct 64-bit values beyond ±2^53 read so far, each with the first element that held it. */
  readonly beyond: Beyond = []
  readonly bytes: number
  private readonly get: (v: DataView, at: number, i: number) => number

  constructor(dtype: NumericDtype, littleEndian: boolean, bits?: { precision: number; offset: number }) {
    const le = littleEndian
    this.bytes = bytesOf(dtype)
    const wide = (x: bigint, i: number) => {
      if ((x >= LIMIT || x <= -LIMIT) && this.beyond.length < MAX_BEYOND) {
        const value = String(x)
        if (!this.beyond.some((b) => b.value === value)) this.beyond.push({ at: i, value })
      }
      return Number(x)
    }
    if (bits && dtype !== 'float16' && !dtype.startsWith('float')) {
      const signed = !dtype.startsWith('u')
      const { precision, offset } = bits
      const size = BigInt(this.bytes * 8)
      this.get = (v, at, i) => {
        let raw = 0n
        for (let k = 0; k < this.bytes; k++) raw |= BigInt(v.getUint8(at + k)) << BigInt(8 * (le ? k : this.bytes - 1 - k))
        let x = (raw >> BigInt(offset)) & ((1n << BigInt(precision)) - 1n)
        if (signed && precision > 0 && x >> BigInt(precision - 1)) x -= 1n << BigInt(precision)
        return size === 64n ? wide(x, i) : Number(x)
      }
      return
    }
    const getters: Record<string, (v: DataView, at: number, i: number) => number> = {
      int8: (v, at) => v.getInt8(at),
      uint8: (v, at) => v.getUint8(at),
      int16: (v, at) => v.getInt16(at, le),
      uint16: (v, at) => v.getUint16(at, le),
      int32: (v, at) => v.getInt32(at, le),
      uint32: (v, at) => v.getUint32(at, le),
      int64: (v, at, i) => wide(v.getBigInt64(at, le), i),
      uint64: (v, at, i) => wide(v.getBigUint64(at, le), i),
      float16: (v, at) => half(v.getUint16(at, le)),
      float32: (v, at) => v.getFloat32(at, le),
      float64: (v, at) => v.getFloat64(at, le),
    }
    this.get = getters[dtype]
  }

  /** The element at byte `at` of `view`, element `i` of what is being read (named for values beyond ±2^53). */
  read(view: DataView, at: number, i: number): number {
    return this.get(view, at, i)
  }

  /** Every element of `bytes` into `out` from `from`. */
  readAll(bytes: Uint8Array, out: Float64Array, from = 0): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    for (let i = 0, at = 0; at + this.bytes <= bytes.length; i++, at += this.bytes) out[from + i] = this.get(view, at, from + i)
  }
}
