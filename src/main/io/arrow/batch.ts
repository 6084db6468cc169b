// Reads one Arrow record batch's numeric columns into the loader's shared columns (runs on a loader
// thread): the batch's message, whose range the loader checked, is read and decoded by apache-arrow
// behind the schema message as a stream of its own; values go to out[rowStart…] in row order, nulls
// skipped (counted) or refused, NaN and ±∞ refused as a CSV reader refuses them.
import { closeSync, openSync, readSync } from 'node:fs'
import { type Data, type RecordBatch, RecordBatchReader, Type } from 'apache-arrow'
import { ApiError } from '../../../shared/errors'
import { quoteText } from '../csv/errors'
import { decimalValue } from '../parquet/values'

export interface BatchTask {
  path: string
  index: number
  rowStart: number
  rows: number
  start: number
  end: number
  schemaBytes: Uint8Array
  /** The wanted columns: their field index and output column. */
  wanted: { name: string; field: number; slot: number }[]
  columns: Float64Array[]
  nulls: 'missing' | 'refuse'
}

export interface BatchResult {
  counts: number[]
  missing: number[]
}

const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])

export function readBatch(task: BatchTask): BatchResult {
  const where = (column?: string) => `record batch ${task.index}${column === undefined ? '' : `, column ${quoteText(column)}`}`
  const fail = (message: string, column?: string) => new ApiError('invalid-input', `${task.path} (${where(column)}): ${message}`)
  const size = task.end - task.start
  const bytes = new Uint8Array(task.schemaBytes.length + size + END_OF_STREAM.length)
  bytes.set(task.schemaBytes)
  let fd: number
  try {
    fd = openSync(task.path, 'r')
  } catch (e) {
    throw new ApiError('io', `cannot read ${task.path}: ${(e as Error).message}`)
  }
  try {
    if (readSync(fd, bytes, task.schemaBytes.length, size, task.start) !== size) throw new ApiError('io', `cannot read ${task.path}: the file got shorter while it was read`)
  } finally {
    closeSync(fd)
  }
  bytes.set(END_OF_STREAM, task.schemaBytes.length + size)
  let batch: RecordBatch
  try {
    const next = RecordBatchReader.from(bytes).next()
    if (next.done || !next.value) throw new Error('no record batch')
    batch = next.value
  } catch (e) {
    throw fail(`the record batch cannot be read (${(e as Error).message})`)
  }
  if (batch.numRows !== task.rows) throw fail(`the batch holds ${batch.numRows} rows; its header announces ${task.rows}`)
  const counts = task.columns.map(() => 0)
  const missing = task.columns.map(() => 0)
  for (const w of task.wanted) {
    const vector = batch.getChildAt(w.field)
    if (!vector || vector.data.length !== 1) throw fail('the column cannot be read', w.name)
    const data = vector.data[0]
    const out = task.columns[w.slot]
    let at = task.rowStart
    const rows = task.rows
    const convert = converter(data, (m) => fail(m, w.name))
    if (data.nullCount === 0) {
      for (let i = 0; i < rows; i++) out[at++] = convert(i)
    } else {
      const bitmap = data.nullBitmap
      for (let i = 0; i < rows; i++) {
        const bit = data.offset + i
        if (bitmap && (bitmap[bit >> 3] >> (bit & 7)) & 1) out[at++] = convert(i)
        else if (task.nulls === 'refuse') throw fail(`row ${task.rowStart + i + 1} is null; every cell must hold a number`, w.name)
        else missing[w.slot]++
      }
    }
    for (let k = task.rowStart; k < at; k++) {
      const v = out[k]
      if (v - v !== 0) {
        const row = rowOfValue(data, task.rowStart, k - task.rowStart)
        throw fail(v !== v ? `row ${row}: NaN is not a number` : `row ${row}: ${v > 0 ? 'Infinity' : '-Infinity'} is out of range`, w.name)
      }
    }
    counts[w.slot] = at - task.rowStart
  }
  return { counts, missing }
}

/** The 1-based row of the k-th non-null value of a batch starting at rowStart. */
function rowOfValue(data: Data, rowStart: number, k: number): number {
  if (data.nullCount === 0 || !data.nullBitmap) return rowStart + k + 1
  for (let i = 0, seen = 0; i < data.length; i++) {
    const bit = data.offset + i
    if ((data.nullBitmap[bit >> 3] >> (bit & 7)) & 1 && seen++ === k) return rowStart + i + 1
  }
  return rowStart + k + 1
}

/** Row i of a numeric column as a double. */
function converter(data: Data, fail: (message: string) => Error): (i: number) => number {
  const values = data.values as ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; length: number }
  const type = data.type
  const need = (perRow: number) => {
    if (values.length < (data.offset + data.length) * perRow) throw fail(`the column's buffer holds ${values.length} values for ${data.length} rows`)
  }
  switch (type.typeId) {
    case Type.Float:
      need(1)
      return (i) => values[data.offset + i]
    case Type.Int: {
      const { bitWidth, isSigned } = type as unknown as { bitWidth: number; isSigned: boolean }
      if (bitWidth < 64) {
        need(1)
        return (i) => values[data.offset + i]
      }
      const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2)
      if (words.length < (data.offset + data.length) * 2) throw fail('the column is shorter than its rows')
      // hi · 2^32 is exact and the sum rounds once: the correctly rounded double of the integer.
      return isSigned ? (i) => (words[2 * (data.offset + i) + 1] | 0) * 4294967296 + words[2 * (data.offset + i)] : (i) => words[2 * (data.offset + i) + 1] * 4294967296 + words[2 * (data.offset + i)]
    }
    case Type.Decimal: {
      const { scale, bitWidth } = type as unknown as { scale: number; bitWidth: number }
      const stride = bitWidth / 32
      const words = values as unknown as Uint32Array
      if (words.length < (data.offset + data.length) * stride) throw fail('the column is shorter than its rows')
      return (i) => {
        const p = (data.offset + i) * stride
        const lo = words[p]
        const hi = stride > 1 ? words[p + 1] | 0 : lo | 0
        if (stride === 1) return decimalValue(hi, scale)
        let small = hi >= -0x200000 && hi < 0x200000
        for (let k = 2; k < stride && small; k++) small = words[p + k] === (hi < 0 ? 0xffffffff : 0)
        if (small) return decimalValue(hi * 4294967296 + lo, scale)
        let v = 0n
        for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[p + k])
        v = BigInt.asIntN(bitWidth, v)
        return Number(`${v}e-${scale}`)
      }
    }
    default:
      throw fail(`values of type ${type.toString()} are not numbers`)
  }
}
