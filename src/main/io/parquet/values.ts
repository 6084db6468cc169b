// Parquet values as doubles: PLAIN, dictionary (RLE/bit-packed indices), BYTE_STREAM_SPLIT and the
// delta encodings (delta.ts) of the numeric physical types, decimals divided by 10^scale exactly as
// a CSV reader reads their text (an integer below 2^53 over an exact power of ten, else the decimal
// text through Number). Every read is checked against the page's end.
import { POW10, TWO_53 } from '../csv/number'
import { PageError } from './codecs'
import { readDeltaByteArrays, readDeltaIntegers } from './delta'
import type { NumericColumn } from './schema'

/** The stored integer `u` (exact) of a decimal with `scale` places, as the double its text reads as. */
export function decimalValue(u: number, scale: number): number {
  if (scale === 0) return u
  if (scale <= 22) return u / POW10[scale]
  return Number(`${u}e-${scale}`)
}

function bigDecimal(u: bigint, scale: number): number {
  if (u > -BigInt(TWO_53) && u < BigInt(TWO_53)) return decimalValue(Number(u), scale)
  return scale === 0 ? Number(u) : Number(`${u}e-${scale}`)
}

/** Bytes a PLAIN value takes at most (BYTE_ARRAY decimals: its length and up to 32 bytes). */
export function plainWidth(col: NumericColumn): number {
  switch (col.physical) {
    case 'INT32':
    case 'FLOAT':
      return 4
    case 'INT64':
    case 'DOUBLE':
      return 8
    case 'FIXED_LEN_BYTE_ARRAY':
      return col.typeLength
    case 'BYTE_ARRAY':
      return 4 + 32
  }
}

function short(): never {
  throw new PageError('the page holds fewer values than its header announces')
}

/** Decodes `count` PLAIN values from bytes[p…end) into out[t…]; returns the position after them. */
export function readPlain(col: NumericColumn, bytes: Uint8Array, p: number, end: number, count: number, out: Float64Array, t: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const { scale } = col
  switch (col.physical) {
    case 'DOUBLE': {
      if (p + 8 * count > end) short()
      // Little-endian doubles: the bytes are the values.
      new Uint8Array(out.buffer, out.byteOffset + 8 * t, 8 * count).set(bytes.subarray(p, p + 8 * count))
      return p + 8 * count
    }
    case 'FLOAT':
      if (p + 4 * count > end) short()
      for (let i = 0; i < count; i++, p += 4) out[t + i] = view.getFloat32(p, true)
      return p
    case 'INT32':
      if (p + 4 * count > end) short()
      if (col.unsigned) for (let i = 0; i < count; i++, p += 4) out[t + i] = decimalValue(view.getUint32(p, true), scale)
      else if (scale === 0) for (let i = 0; i < count; i++, p += 4) out[t + i] = view.getInt32(p, true)
      else for (let i = 0; i < count; i++, p += 4) out[t + i] = decimalValue(view.getInt32(p, true), scale)
      return p
    case 'INT64': {
      if (p + 8 * count > end) short()
      const value = integerValue(col)
      for (let i = 0; i < count; i++, p += 8) out[t + i] = value(view.getUint32(p, true), view.getUint32(p + 4, true))
      return p
    }
    case 'FIXED_LEN_BYTE_ARRAY': {
      const w = col.typeLength
      if (p + w * count > end) short()
      for (let i = 0; i < count; i++, p += w) out[t + i] = bigEndianDecimal(bytes, p, w, scale)
      return p
    }
    case 'BYTE_ARRAY':
      for (let i = 0; i < count; i++) {
        if (p + 4 > end) short()
        const w = view.getUint32(p, true)
        p += 4
        if (p + w > end) short()
        if (w === 0 || w > 32) throw new PageError(`a decimal of ${w} bytes`)
        out[t + i] = bigEndianDecimal(bytes, p, w, scale)
        p += w
      }
      return p
  }
}

/** A big-endian two's-complement integer of w bytes, scaled. */
export function bigEndianDecimal(bytes: Uint8Array, p: number, w: number, scale: number): number {
  if (w <= 6) {
    let v = bytes[p] & 0x80 ? -1 : 0
    for (let k = 0; k < w; k++) v = v * 256 + bytes[p + k]
    // The sign was taken as -1 · 256^w: correct for two's complement.
    return decimalValue(v, scale)
  }
  let v = bytes[p] & 0x80 ? -1n : 0n
  for (let k = 0; k < w; k++) v = (v << 8n) | BigInt(bytes[p + k])
  return bigDecimal(v, scale)
}

/** Reads an unsigned LEB128 varint at p: [value, next position]. */
function varint(bytes: Uint8Array, p: number, end: number): [number, number] {
  let value = 0
  for (let shift = 0; shift < 35; shift += 7) {
    if (p >= end) short()
    const b = bytes[p++]
    value += (b & 0x7f) * 2 ** shift
    if (b < 0x80) return [value, p]
  }
  throw new PageError('a run length is too long')
}

/**
 * Decodes `count` values of the RLE/bit-packed hybrid encoding of `width` bits from bytes[p…end)
 * into out[0…count); returns the position after the runs read.
 */
export function readHybrid(bytes: Uint8Array, p: number, end: number, width: number, count: number, out: Int32Array | Uint8Array): number {
  if (width > 32) throw new PageError(`a bit width of ${width}`)
  const valueBytes = (width + 7) >> 3
  const mask = width === 32 ? 0xffffffff : 2 ** width - 1
  let i = 0
  while (i < count) {
    let header: number
    ;[header, p] = varint(bytes, p, end)
    if (header % 2 === 1) {
      // Bit-packed: groups of 8 values, least significant bits first.
      const values = Math.floor(header / 2) * 8
      const take = Math.min(values, count - i)
      const needed = Math.ceil((take * width) / 8)
      if (p + needed > end) short()
      if (width <= 24) {
        let acc = 0
        let bits = 0
        let q = p
        for (let k = 0; k < take; k++) {
          while (bits < width) {
            acc |= bytes[q++] << bits
            bits += 8
          }
          out[i + k] = acc & mask
          acc >>>= width
          bits -= width
        }
      } else {
        let acc = 0
        let bits = 0
        let q = p
        for (let k = 0; k < take; k++) {
          while (bits < width) {
            acc += bytes[q++] * 2 ** bits
            bits += 8
          }
          out[i + k] = acc % 2 ** width
          acc = Math.floor(acc / 2 ** width)
          bits -= width
        }
      }
      p = Math.min(end, p + (values * width) / 8)
      i += take
    } else {
      const run = Math.floor(header / 2)
      if (p + valueBytes > end) short()
      let v = 0
      for (let k = 0; k < valueBytes; k++) v += bytes[p + k] * 2 ** (8 * k)
      p += valueBytes
      const take = Math.min(run, count - i)
      fillPieces(out, v, i, i + take)
      i += take
    }
  }
  return p
}

/**
 * Dictionary-encoded values: `count` indexes (RLE/bit-packed hybrid of `width` bits) looked up in
 * the dictionary straight into out[t…], a run of one index as one fill.
 */
function readDictionaryIndexes(bytes: Uint8Array, p: number, end: number, width: number, count: number, dictionary: Float64Array, out: Float64Array, t: number): void {
  if (width > 32) throw new PageError(`a bit width of ${width}`)
  const size = dictionary.length
  const mask = width === 32 ? 0xffffffff : 2 ** width - 1
  const valueBytes = (width + 7) >> 3
  let i = t
  const stop = t + count
  while (i < stop) {
    // The run's header, a varint read in place (this loop runs once per run of a few values).
    let header = 0
    for (let shift = 0; ; shift += 7) {
      if (p >= end || shift > 28) short()
      const b = bytes[p++]
      header += (b & 0x7f) * 2 ** shift
      if (b < 0x80) break
    }
    if (header & 1) {
      const values = (header - 1) * 4
      const take = Math.min(values, stop - i)
      if (p + Math.ceil((take * width) / 8) > end) short()
      let q = p
      if (width <= 24) {
        let acc = 0
        let bits = 0
        for (let k = i, last = i + take; k < last; k++) {
          while (bits < width) {
            acc |= bytes[q++] << bits
            bits += 8
          }
          const x = acc & mask
          if (x >= size) pastDictionary(x, size)
          out[k] = dictionary[x]
          acc >>>= width
          bits -= width
        }
      } else {
        const scratch = new Int32Array(take)
        readHybrid(bytes, p - varintBytes(header), end, width, take, scratch)
        for (let k = 0; k < take; k++) {
          if (scratch[k] >= size || scratch[k] < 0) pastDictionary(scratch[k], size)
          out[i + k] = dictionary[scratch[k]]
        }
      }
      p = Math.min(end, p + (values * width) / 8)
      i += take
    } else {
      const run = (header - (header & 1)) / 2
      if (p + valueBytes > end) short()
      // A bit width of 0 (a dictionary of one entry) stores no value bytes: every index is 0.
      let x = 0
      for (let k = 0; k < valueBytes; k++) x += bytes[p + k] * 2 ** (8 * k)
      p += valueBytes
      if (x >= size) pastDictionary(x, size)
      const v = dictionary[x]
      const last = Math.min(i + run, stop)
      if (last - i < 32) for (; i < last; i++) out[i] = v
      else {
        fillPieces(out, v, i, last)
        i = last
      }
    }
  }
}

/**
 * out.fill in pieces: a run of 2^29 values from a few bytes is one builtin call of seconds, and a
 * cancel (the thread's termination) takes effect only between calls.
 */
function fillPieces(out: Float64Array | Int32Array | Uint8Array, v: number, from: number, to: number): void {
  for (let a = from; a < to; a += 1 << 20) out.fill(v, a, Math.min(to, a + (1 << 20)))
}

function pastDictionary(k: number, size: number): never {
  throw new PageError(`dictionary index ${k} past the dictionary's ${size} entries`)
}

function varintBytes(v: number): number {
  let n = 1
  while (v >= 128) {
    v = Math.floor(v / 128)
    n++
  }
  return n
}

/**
 * How many of n definition levels (bit width 1, RLE/bit-packed hybrid) are 1, without writing
 * them out: a page without nulls needs no level array.
 */
export function countDefined(bytes: Uint8Array, p: number, end: number, n: number): number {
  let i = 0
  let defined = 0
  while (i < n) {
    let header: number
    ;[header, p] = varint(bytes, p, end)
    if (header % 2 === 1) {
      const values = Math.floor(header / 2) * 8
      const take = Math.min(values, n - i)
      if (p + Math.ceil(take / 8) > end) short()
      for (let k = 0; k < take; k++) defined += (bytes[p + (k >> 3)] >> (k & 7)) & 1
      p = Math.min(end, p + values / 8)
      i += take
    } else {
      const run = Math.floor(header / 2)
      if (p + 1 > end) short()
      const take = Math.min(run, n - i)
      if (bytes[p] & 1) defined += take
      p += 1
      i += take
    }
  }
  return defined
}

let split = new Uint8Array(0)

/** An INT32 or INT64 column's integer, given as its low and high 32-bit words, as a double. */
function integerValue(col: NumericColumn): (lo: number, hi: number) => number {
  const { scale } = col
  if (col.physical === 'INT32') return col.unsigned ? (lo) => decimalValue(lo, scale) : (lo) => decimalValue(lo | 0, scale)
  return (lo, hi) => {
    // hi · 2^32 is exact and the sum rounds once: the correctly rounded double of the integer.
    const v = (col.unsigned ? hi : hi | 0) * 4294967296 + lo
    if (scale === 0) return v
    if (v > -TWO_53 && v < TWO_53) return decimalValue(v, scale)
    const big = (BigInt(hi) << 32n) | BigInt(lo)
    return bigDecimal(col.unsigned ? big : BigInt.asIntN(64, big), scale)
  }
}

/** Decodes `count` values in `encoding` from bytes[p…end) into out[t…]. */
export function readValues(
  col: NumericColumn,
  encoding: string,
  bytes: Uint8Array,
  p: number,
  end: number,
  count: number,
  dictionary: Float64Array | undefined,
  out: Float64Array,
  t: number,
): void {
  // A page of nulls only has no values to read, whatever its values section holds (some writers leave it empty).
  if (count === 0) return
  switch (encoding) {
    case 'PLAIN':
      readPlain(col, bytes, p, end, count, out, t)
      return
    case 'PLAIN_DICTIONARY':
    case 'RLE_DICTIONARY': {
      if (!dictionary) throw new PageError('a dictionary-encoded page comes before any dictionary page')
      if (p >= end) short()
      readDictionaryIndexes(bytes, p + 1, end, bytes[p], count, dictionary, out, t)
      return
    }
    case 'BYTE_STREAM_SPLIT': {
      const w = plainWidth(col)
      if (col.physical === 'BYTE_ARRAY') throw new PageError('BYTE_STREAM_SPLIT of BYTE_ARRAY values')
      if (p + w * count > end) short()
      if (split.length < w * count) split = new Uint8Array(w * count)
      for (let k = 0; k < w; k++) for (let i = 0; i < count; i++) split[i * w + k] = bytes[p + k * count + i]
      readPlain(col, split, 0, w * count, count, out, t)
      return
    }
    case 'DELTA_BINARY_PACKED': {
      if (col.physical !== 'INT32' && col.physical !== 'INT64') throw new PageError(`DELTA_BINARY_PACKED of ${col.physical} values`)
      readDeltaIntegers(bytes, p, end, count, out, t, integerValue(col))
      return
    }
    case 'DELTA_LENGTH_BYTE_ARRAY':
    case 'DELTA_BYTE_ARRAY': {
      // Byte arrays here are decimals: BYTE_ARRAY of at most 32 bytes, or FIXED_LEN_BYTE_ARRAY of its length.
      if (col.physical !== 'BYTE_ARRAY' && (col.physical !== 'FIXED_LEN_BYTE_ARRAY' || encoding !== 'DELTA_BYTE_ARRAY')) throw new PageError(`${encoding} of ${col.physical} values`)
      const limits = col.physical === 'BYTE_ARRAY' ? { most: 32 } : { most: col.typeLength, exact: col.typeLength }
      readDeltaByteArrays(bytes, p, end, count, encoding === 'DELTA_BYTE_ARRAY', limits, (b, start, w, i) => (out[t + i] = bigEndianDecimal(b, start, w, col.scale)))
      return
    }
    default:
      throw new PageError(`encoding ${encoding} is not supported for numbers`)
  }
}
