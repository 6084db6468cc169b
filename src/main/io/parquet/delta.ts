// Parquet's delta encodings, decoded within the page's bytes: DELTA_BINARY_PACKED (integers as
// 64-bit two's complement, kept as two 32-bit words, so INT64 deltas wrap as the format's
// arithmetic does and INT32 ones are taken modulo 2^32, whatever bit width the writer chose), and
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, whose byte arrays here are decimals. The header's
// block and miniblock sizes are checked before any value is read, and nothing is allocated by
// what a header announces: only by the values the page header allows.
import { PageError } from './codecs'

function short(): never {
  throw new PageError('the page holds fewer values than its header announces')
}

/** An unsigned LEB128 varint of up to 64 bits at bytes[p]: [low word, high word, next position]. */
function varint64(bytes: Uint8Array, p: number, end: number): [number, number, number] {
  let lo = 0
  let hi = 0
  for (let shift = 0; ; shift += 7) {
    if (p >= end) short()
    if (shift > 63) throw new PageError('a delta header holds a number of more than 64 bits')
    const b = bytes[p++]
    const v = b & 0x7f
    if (shift < 32) {
      lo |= v << shift
      if (shift > 25) hi |= v >>> (32 - shift)
    } else hi |= v << (shift - 32)
    if (b < 0x80) return [lo >>> 0, hi >>> 0, p]
  }
}

/** A varint that must be a count (below 2^31). */
function count31(bytes: Uint8Array, p: number, end: number, what: string): [number, number] {
  const [lo, hi, next] = varint64(bytes, p, end)
  if (hi !== 0 || lo > 0x7fffffff) throw new PageError(`a delta header announces ${hi * 2 ** 32 + lo} ${what}`)
  return [lo, next]
}

/** A zigzag varint as a 64-bit two's-complement pair. */
function zigzag64(bytes: Uint8Array, p: number, end: number): [number, number, number] {
  const [lo, hi, next] = varint64(bytes, p, end)
  let l = ((lo >>> 1) | (hi << 31)) >>> 0
  let h = hi >>> 1
  if (lo & 1) {
    l = ~l >>> 0
    h = ~h >>> 0
  }
  return [l, h, next]
}

const POW2 = Array.from({ length: 41 }, (_, k) => 2 ** k)
const TWO_32 = 4294967296

let loScratch = new Uint32Array(0)
let hiScratch = new Uint32Array(0)

/**
 * Decodes `count` values of the DELTA_BINARY_PACKED stream at bytes[p…end) into lo[0…count) and
 * hi[0…count) (the low and high 32-bit words); returns the position after the last miniblock
 * holding values (where DELTA_LENGTH_BYTE_ARRAY's bytes start).
 */
export function readDeltaBinaryPacked(bytes: Uint8Array, p: number, end: number, count: number, lo: Uint32Array, hi: Uint32Array): number {
  let blockSize: number
  let miniblocks: number
  let total: number
  ;[blockSize, p] = count31(bytes, p, end, 'values a block')
  ;[miniblocks, p] = count31(bytes, p, end, 'miniblocks a block')
  ;[total, p] = count31(bytes, p, end, 'values')
  let vLo: number
  let vHi: number
  ;[vLo, vHi, p] = zigzag64(bytes, p, end)
  // Blocks of a multiple of 128 values, miniblocks of a multiple of 32 (the format's rule; what readers rely on).
  const perMiniblock = blockSize / miniblocks
  if (blockSize === 0 || blockSize % 128 !== 0 || miniblocks === 0 || !Number.isInteger(perMiniblock) || perMiniblock % 32 !== 0)
    throw new PageError(`a DELTA_BINARY_PACKED header announces blocks of ${blockSize} values in ${miniblocks} miniblocks`)
  if (total < count) short()
  if (count === 0) return p
  lo[0] = vLo
  hi[0] = vHi
  let i = 1
  while (i < count) {
    let mLo: number
    let mHi: number
    ;[mLo, mHi, p] = zigzag64(bytes, p, end)
    const widths = p
    if (p + miniblocks > end) short()
    p += miniblocks
    for (let m = 0; m < miniblocks && i < count; m++) {
      const w = bytes[widths + m]
      if (w > 64) throw new PageError(`a miniblock of ${w}-bit deltas`)
      const take = Math.min(perMiniblock, count - i)
      if (p + Math.ceil((take * w) / 8) > end) short()
      // Residuals are read least significant bit first: up to 24 bits in an int, up to 32 in a
      // double of at most 40 bits, wider ones as 32 bits and the rest. value += minDelta +
      // residual, modulo 2^64 (a sum of three words is exact in a double).
      let q = p
      let acc = 0
      let bits = 0
      if (w <= 24) {
        const mask = (1 << w) - 1
        for (let k = 0; k < take; k++) {
          while (bits < w) {
            acc |= bytes[q++] << bits
            bits += 8
          }
          const l = vLo + mLo + (acc & mask)
          acc >>>= w
          bits -= w
          vHi = (vHi + mHi + (l < TWO_32 ? 0 : l < 2 * TWO_32 ? 1 : 2)) >>> 0
          vLo = l >>> 0
          lo[i] = vLo
          hi[i++] = vHi
        }
      } else {
        const lowWidth = Math.min(w, 32)
        const low = POW2[lowWidth]
        const highWidth = w - lowWidth
        for (let k = 0; k < take; k++) {
          while (bits < lowWidth) {
            acc += bytes[q++] * POW2[bits]
            bits += 8
          }
          const rLo = acc % low
          acc = (acc - rLo) / low
          bits -= lowWidth
          let rHi = 0
          if (highWidth > 0) {
            while (bits < highWidth) {
              acc += (q < end ? bytes[q] : 0) * POW2[bits]
              q++
              bits += 8
            }
            rHi = acc % POW2[highWidth]
            acc = (acc - rHi) / POW2[highWidth]
            bits -= highWidth
          }
          const l = vLo + mLo + rLo
          vHi = (vHi + mHi + rHi + (l < TWO_32 ? 0 : l < 2 * TWO_32 ? 1 : 2)) >>> 0
          vLo = l >>> 0
          lo[i] = vLo
          hi[i++] = vHi
        }
      }
      // A miniblock holding values is stored whole, padded; those after the last value are not stored.
      p = Math.min(end, p + (perMiniblock * w) / 8)
    }
  }
  return p
}

/** `count` DELTA_BINARY_PACKED values into the module's scratch words. */
function scratch(bytes: Uint8Array, p: number, end: number, count: number): { lo: Uint32Array; hi: Uint32Array; next: number } {
  if (loScratch.length < count) {
    loScratch = new Uint32Array(count)
    hiScratch = new Uint32Array(count)
  }
  const next = readDeltaBinaryPacked(bytes, p, end, count, loScratch, hiScratch)
  return { lo: loScratch, hi: hiScratch, next }
}

/** DELTA_BINARY_PACKED integers as the doubles `value(lo, hi)` makes of them, into out[t…]. */
export function readDeltaIntegers(bytes: Uint8Array, p: number, end: number, count: number, out: Float64Array, t: number, value: (lo: number, hi: number) => number): void {
  const { lo, hi } = scratch(bytes, p, end, count)
  for (let i = 0; i < count; i++) out[t + i] = value(lo[i], hi[i])
}

/** Non-negative 32-bit lengths from a DELTA_BINARY_PACKED stream, copied out of the scratch. */
function lengths(bytes: Uint8Array, p: number, end: number, count: number, what: string): { values: Int32Array; next: number } {
  const { lo, next } = scratch(bytes, p, end, count)
  const values = new Int32Array(count)
  for (let i = 0; i < count; i++) {
    values[i] = lo[i] | 0
    if (values[i] < 0) throw new PageError(`a ${what} of ${values[i]}`)
  }
  return { values, next }
}

/**
 * DELTA_LENGTH_BYTE_ARRAY (`prefixed` false) or DELTA_BYTE_ARRAY values, each handed as its bytes
 * (at most `most` of them; exactly `exact` where set) to `emit(bytes, start, length, i)`.
 */
export function readDeltaByteArrays(
  bytes: Uint8Array,
  p: number,
  end: number,
  count: number,
  prefixed: boolean,
  limits: { most: number; exact?: number },
  emit: (b: Uint8Array, start: number, length: number, i: number) => void,
): void {
  if (count === 0) return
  let prefixes: Int32Array | undefined
  if (prefixed) ({ values: prefixes, next: p } = lengths(bytes, p, end, count, 'prefix length'))
  const { values: suffixes, next } = lengths(bytes, p, end, count, 'length')
  p = next
  const value = new Uint8Array(limits.most)
  let length = 0
  for (let i = 0; i < count; i++) {
    const prefix = prefixes ? prefixes[i] : 0
    const suffix = suffixes[i]
    if (prefix > length) throw new PageError(`a value shares ${prefix} bytes with a previous value of ${length}`)
    const n = prefix + suffix
    if (n === 0 || n > limits.most || (limits.exact !== undefined && n !== limits.exact)) throw new PageError(`a decimal of ${n} bytes`)
    if (p + suffix > end) short()
    value.set(bytes.subarray(p, p + suffix), prefix)
    p += suffix
    length = n
    emit(value, 0, n, i)
  }
}
