// Reads one Arrow record batch's numeric columns into the loader's shared columns (runs on a loader
// thread): each column's validity and value buffers, at the places structure.ts checked, are read
// from the file (decompressed when the batch is ZSTD- or LZ4-compressed, into at most the bytes its
// rows need) and their values converted to doubles in the file's byte order; a dictionary-encoded
// column's indexes are looked up in its dictionary, read beforehand (readDictionary) into memory
// the threads share. Values go to out[rowStart…] in row order, nulls skipped (counted) or refused,
// NaN and ±∞ refused as a CSV reader refuses them.
import { closeSync, openSync, readSync } from 'node:fs'
import { ApiError } from '../../../shared/errors'
import { quoteText } from '../quote'
import { codecsReady, decompress, PageError } from '../parquet/codecs'
import { decimalValue } from '../parquet/values'
import type { ArrowBuffer, ArrowCodec, ArrowColumnPlace } from './structure'

/** What a column holds, as the converter needs it. */
export interface ArrowNumberType {
  kind: 'int' | 'uint' | 'float' | 'decimal'
  /** Bytes a value. */
  width: number
  scale?: number
}

/** A dictionary-encoded column's dictionary as one record batch sees it: its first `length` values, which of them are null, and the indexes' type. */
export interface BatchDictionary {
  values: Float64Array
  /** 0 where the dictionary's value is null; absent when none is. */
  valid?: Uint8Array
  length: number
  index: ArrowNumberType
}

export interface BatchTask {
  path: string
  index: number
  rowStart: number
  rows: number
  bodyStart: number
  codec: ArrowCodec
  bigEndian: boolean
  /** The wanted columns: their type, place in the batch and output column (a dictionary-encoded one's place holds its indexes). */
  wanted: { name: string; type: ArrowNumberType; place: ArrowColumnPlace; slot: number; dictionary?: BatchDictionary }[]
  columns: Float64Array[]
  nulls: 'missing' | 'refuse'
}

export interface BatchResult {
  counts: number[]
  missing: number[]
}

/** Room a compressed buffer may announce past what its rows need (writers pad to 64 bytes). */
const PADDING = 64

type Fail = (message: string, column?: string) => ApiError

/** The buffers of one message's body, read from the file and decompressed as its codec says. */
function bodyReader(fd: number, path: string, bodyStart: number, codec: ArrowCodec, fail: Fail) {
  /** A buffer's bytes, `need` of which are used: read as stored, or decompressed into at most need + PADDING bytes. */
  return (r: ArrowBuffer, need: number, what: string, column: string): Uint8Array => {
    const raw = new Uint8Array(r.length)
    if (readSync(fd, raw, 0, r.length, bodyStart + r.offset) !== r.length) throw new ApiError('io', `cannot read ${path}: the file got shorter while it was read`)
    if (codec === 'none' || r.length === 0) return raw
    const size = new DataView(raw.buffer).getBigInt64(0, true)
    if (size === -1n) return raw.subarray(8) // stored uncompressed
    if (size < BigInt(need) || size > BigInt(need + PADDING)) throw fail(`the compressed ${what} announce ${size} bytes; ${need} are needed`, column)
    try {
      return decompress(codec === 'zstd' ? 'ZSTD' : 'LZ4_FRAME', raw.subarray(8), Number(size))
    } catch (e) {
      // Arrow JS 21's writer states a compressed buffer's own length where the format has its length uncompressed.
      if (size === BigInt(r.length - 8)) throw fail(`the compressed ${what} state the length of their compressed bytes (${size}), not their length uncompressed, as Arrow JS's writer does; Arrow's C++ reader refuses them too`, column)
      throw fail(`the ${what} cannot be decompressed: ${e instanceof PageError ? e.message : String(e)}`, column)
    }
  }
}

function openFile(path: string): number {
  try {
    return openSync(path, 'r')
  } catch (e) {
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
}

const badValue = (v: number, row: number) => (v !== v ? `row ${row}: NaN is not a number` : `row ${row}: ${v > 0 ? 'Infinity' : '-Infinity'} is out of range`)

export async function readBatch(task: BatchTask): Promise<BatchResult> {
  const where = (column?: string) => `record batch ${task.index}${column === undefined ? '' : `, column ${quoteText(column)}`}`
  const fail: Fail = (message, column) => new ApiError('invalid-input', `${task.path} (${where(column)}): ${message}`)
  if (task.codec === 'zstd') await codecsReady()
  const fd = openFile(task.path)
  const counts = task.columns.map(() => 0)
  const missing = task.columns.map(() => 0)
  try {
    const buffer = bodyReader(fd, task.path, task.bodyStart, task.codec, fail)
    for (const w of task.wanted) {
      const rows = task.rows
      const nullRow = (i: number) => fail(`row ${task.rowStart + i + 1} is null; every cell must hold a number`, w.name)
      // A column of nulls only: its buffers are not needed (a writer may leave them empty).
      if (rows > 0 && w.place.nullCount === rows) {
        if (task.nulls === 'refuse') throw nullRow(0)
        missing[w.slot] = rows
        continue
      }
      const width = w.dictionary ? w.dictionary.index.width : w.type.width
      const bitmap = w.place.nullCount > 0 ? buffer(w.place.validity, Math.ceil(rows / 8), 'validity bitmap', w.name) : undefined
      const values = buffer(w.place.data, rows * width, 'values', w.name)
      if (values.length < rows * width) throw fail(`the values hold ${values.length} bytes for ${rows} rows of ${width} bytes`, w.name)
      if (bitmap && bitmap.length < Math.ceil(rows / 8)) throw fail(`the validity bitmap holds ${bitmap.length} bytes for ${rows} rows`, w.name)
      const out = task.columns[w.slot]
      let at = task.rowStart
      const typed = bitmap || w.dictionary ? undefined : typedValues(w.type, values, rows, !task.bigEndian)
      if (typed) {
        // The common case, in native code: no nulls, values in this machine's byte order.
        out.set(typed, at)
        for (let i = 0; i < rows; i++) {
          const v = out[at + i]
          if (v - v !== 0) throw fail(badValue(v, at + i + 1), w.name)
        }
        counts[w.slot] = rows
        continue
      }
      const convert = w.dictionary ? lookup(w.dictionary, values, !task.bigEndian, (k) => fail(`dictionary index ${k} past the dictionary's ${w.dictionary!.length} entries`, w.name)) : converter(w.type, values, !task.bigEndian)
      for (let i = 0; i < rows; i++) {
        const v = bitmap && !((bitmap[i >> 3] >> (i & 7)) & 1) ? undefined : convert(i)
        if (v === undefined) {
          if (task.nulls === 'refuse') throw nullRow(i)
          missing[w.slot]++
          continue
        }
        if (v - v !== 0) throw fail(badValue(v, task.rowStart + i + 1), w.name)
        out[at++] = v
      }
      counts[w.slot] = at - task.rowStart
    }
  } catch (e) {
    // Every check is meant to come first; should one be missed, the refusal still names the batch.
    if (e instanceof ApiError) throw e
    throw fail(`the record batch cannot be read (${e instanceof Error ? e.message : String(e)})`)
  } finally {
    closeSync(fd)
  }
  return { counts, missing }
}

/** Row i of a dictionary-encoded column: its index's value, or undefined where that value is null. */
function lookup(d: BatchDictionary, indexes: Uint8Array, little: boolean, past: (k: number) => Error): (i: number) => number | undefined {
  const index = converter(d.index, indexes, little)
  return (i) => {
    const k = index(i)
    if (!(k >= 0 && k < d.length)) throw past(k)
    return d.valid && !d.valid[k] ? undefined : d.values[k]
  }
}

/** The dictionary batches of one dictionary-encoded column since its last replacement, in file order. */
export interface DictionaryTask {
  path: string
  name: string
  bigEndian: boolean
  type: ArrowNumberType
  batches: { start: number; bodyStart: number; rows: number; codec: ArrowCodec; column: ArrowColumnPlace }[]
}

export interface DictionaryResult {
  /** The batches' values one after another, shared with the loader's threads; 0 in `valid` marks a null. */
  values: Float64Array
  valid?: Uint8Array
  /** The dictionary's length after each batch. */
  ends: number[]
}

/** Reads a dictionary's batches (runs on a loader thread) into memory the record batches' threads share. */
export async function readDictionary(task: DictionaryTask): Promise<DictionaryResult> {
  const total = task.batches.reduce((n, b) => n + b.rows, 0)
  const values = new Float64Array(new SharedArrayBuffer(total * 8))
  let valid: Uint8Array | undefined
  const ends: number[] = []
  if (task.batches.some((b) => b.codec === 'zstd')) await codecsReady()
  const fd = openFile(task.path)
  try {
    let at = 0
    for (const b of task.batches) {
      const fail: Fail = (message) => new ApiError('invalid-input', `${task.path} (message at byte ${b.start}): the dictionary of column ${quoteText(task.name)}: ${message}`)
      const buffer = bodyReader(fd, task.path, b.bodyStart, b.codec, fail)
      const w = task.type.width
      const allNull = b.rows > 0 && b.column.nullCount === b.rows
      const bitmap = b.column.nullCount > 0 && !allNull ? buffer(b.column.validity, Math.ceil(b.rows / 8), 'validity bitmap', task.name) : undefined
      if (bitmap && bitmap.length < Math.ceil(b.rows / 8)) throw fail(`the validity bitmap holds ${bitmap.length} bytes for ${b.rows} values`)
      if (b.column.nullCount > 0) valid ??= new Uint8Array(new SharedArrayBuffer(total)).fill(1)
      if (allNull) valid!.fill(0, at, at + b.rows)
      else {
        const data = buffer(b.column.data, b.rows * w, 'values', task.name)
        if (data.length < b.rows * w) throw fail(`the values hold ${data.length} bytes for ${b.rows} values of ${w} bytes`)
        const convert = converter(task.type, data, !task.bigEndian)
        for (let i = 0; i < b.rows; i++) {
          values[at + i] = convert(i)
          if (bitmap && !((bitmap[i >> 3] >> (i & 7)) & 1)) valid![at + i] = 0
        }
      }
      at += b.rows
      ends.push(at)
    }
  } finally {
    closeSync(fd)
  }
  return { values, valid, ends }
}

/** The values as a typed array, where one reads them as they are: little-endian, up to 32-bit integers and floats. */
function typedValues(type: ArrowNumberType, bytes: Uint8Array, rows: number, little: boolean): ArrayLike<number> | undefined {
  if (!little || type.kind === 'decimal' || (type.width === 8 && type.kind !== 'float')) return undefined
  const b = bytes.byteOffset % type.width === 0 ? bytes : bytes.slice(0, rows * type.width)
  const Typed =
    type.kind === 'float'
      ? type.width === 4 ? Float32Array : Float64Array
      : type.kind === 'int'
        ? type.width === 1 ? Int8Array : type.width === 2 ? Int16Array : Int32Array
        : type.width === 1 ? Uint8Array : type.width === 2 ? Uint16Array : Uint32Array
  return new Typed(b.buffer as ArrayBuffer, b.byteOffset, rows)
}

/** Row i of a numeric column as a double, its bytes in the file's order. */
export function converter(type: ArrowNumberType, bytes: Uint8Array, little: boolean): (i: number) => number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const w = type.width
  // The 32-bit word k (0 = least significant) of the value at p.
  const word = (p: number, k: number) => view.getUint32(little ? p + 4 * k : p + w - 4 * (k + 1), little)
  switch (type.kind) {
    case 'float':
      return w === 4 ? (i) => view.getFloat32(i * 4, little) : (i) => view.getFloat64(i * 8, little)
    case 'int':
    case 'uint': {
      const signed = type.kind === 'int'
      if (w === 1) return signed ? (i) => view.getInt8(i) : (i) => view.getUint8(i)
      if (w === 2) return signed ? (i) => view.getInt16(i * 2, little) : (i) => view.getUint16(i * 2, little)
      if (w === 4) return signed ? (i) => view.getInt32(i * 4, little) : (i) => view.getUint32(i * 4, little)
      // hi · 2^32 is exact and the sum rounds once: the correctly rounded double of the integer.
      return signed ? (i) => (word(i * 8, 1) | 0) * 4294967296 + word(i * 8, 0) : (i) => word(i * 8, 1) * 4294967296 + word(i * 8, 0)
    }
    case 'decimal': {
      const scale = type.scale ?? 0
      const words = w / 4
      return (i) => {
        const p = i * w
        const lo = word(p, 0)
        const hi = words > 1 ? word(p, 1) | 0 : lo | 0
        if (words === 1) return decimal(hi, scale)
        let small = hi >= -0x200000 && hi < 0x200000
        for (let k = 2; k < words && small; k++) small = word(p, k) === (hi < 0 ? 0xffffffff : 0)
        if (small) return decimal(hi * 4294967296 + lo, scale)
        let v = 0n
        for (let k = words - 1; k >= 0; k--) v = (v << 32n) | BigInt(word(p, k))
        return decimal(BigInt.asIntN(w * 8, v), scale)
      }
    }
  }
}

/** A decimal's unscaled integer over 10^scale, correctly rounded (a negative scale multiplies). */
function decimal(u: number | bigint, scale: number): number {
  if (typeof u === 'number' && scale >= 0) return decimalValue(u, scale)
  return Number(`${u}e${-scale}`)
}
