// Reads one row group's numeric column chunks into the loader's shared columns (runs on a loader
// thread). Each chunk is read from the file once (its size checked against the footer's by the
// loader), then page by page: every page header is checked against what the chunk and the row group
// can hold before its page is decompressed, so a header announcing more than the data needs is
// refused before anything of that size is allocated. Values go to out[rowStart…] in row order, nulls
// skipped (counted) or refused; NaN and ±∞ are refused as a CSV reader refuses them.
import { closeSync, openSync, readSync } from 'node:fs'
import { parquetHeader } from 'hyparquet/src/column.js'
import type { PageHeader } from 'hyparquet'
import { ApiError } from '../../../shared/errors'
import { quoteText } from '../quote'
import { PageError, decompress } from './codecs'
import { thriftProblem } from './footer'
import type { NumericColumn } from './schema'
import { countDefined, plainWidth, readHybrid, readPlain, readValues } from './values'

export interface ChunkTask {
  column: NumericColumn
  /** Output column. */
  slot: number
  /** The chunk's bytes in the file. */
  start: number
  end: number
  codec: string
}

export interface RowGroupTask {
  path: string
  group: number
  /** Rows before this group, and in it. */
  rowStart: number
  rows: number
  chunks: ChunkTask[]
  /** Shared columns, each as long as the file's rows. */
  columns: Float64Array[]
  /** A null is a missing value (skipped, counted) or an error naming its row. */
  nulls: 'missing' | 'refuse'
}

export interface RowGroupResult {
  /** Per output column: values placed from out[rowStart], and nulls skipped. */
  counts: number[]
  missing: number[]
}

/** Bytes a delta-encoded page may hold past its values: its last miniblock's padding. */
const MINIBLOCK_ROOM = 2 ** 20

let chunkBuffer = Buffer.alloc(0)
let levels = new Uint8Array(0)
let scratch = new Float64Array(0)

export function readRowGroup(task: RowGroupTask): RowGroupResult {
  const counts = task.columns.map(() => 0)
  const missing = task.columns.map(() => 0)
  let fd: number
  try {
    fd = openSync(task.path, 'r')
  } catch (e) {
    throw new ApiError('io', `cannot read ${task.path}: ${(e as Error).message}`)
  }
  try {
    for (const chunk of task.chunks) {
      const r = readChunk(fd, task, chunk)
      counts[chunk.slot] = r.count
      missing[chunk.slot] = r.missing
    }
  } finally {
    closeSync(fd)
  }
  return { counts, missing }
}

function readChunk(fd: number, task: RowGroupTask, chunk: ChunkTask): { count: number; missing: number } {
  const { column: col } = chunk
  const size = chunk.end - chunk.start
  if (chunkBuffer.length < size) chunkBuffer = Buffer.allocUnsafe(size)
  const got = readSync(fd, chunkBuffer, 0, size, chunk.start)
  if (got !== size) throw new ApiError('io', `cannot read ${task.path}: the file got shorter while it was read`)
  const bytes = chunkBuffer.subarray(0, size)
  const out = task.columns[chunk.slot]
  let page = 0
  const place = () => `row group ${task.group}, column ${quoteText(col.name)}, page ${page}`
  const fail = (message: string) => new ApiError('invalid-input', `${task.path} (${place()}): ${message}`)
  let row = 0
  let at = task.rowStart
  let nulls = 0
  let dictionary: Float64Array | undefined
  // A dictionary of finite values makes its pages' values finite: no check per value.
  let dictionaryFinite = false
  let pos = 0
  try {
    while (row < task.rows) {
      if (pos >= size) throw new PageError(`the column chunk ends after ${row} of the row group's ${task.rows} rows`)
      let header: PageHeader
      const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, size), offset: pos }
      // Walked first as the footer is, so hyparquet's parser meets no nesting or count past the bytes.
      const problem = thriftProblem(bytes.subarray(pos), size - pos)
      if (problem) throw new PageError(`the page header cannot be read (${problem})`)
      try {
        header = parquetHeader(reader)
      } catch (e) {
        throw new PageError(`the page header cannot be read (${(e as Error).message})`)
      }
      pos = reader.offset
      const csize = header.compressed_page_size
      const usize = header.uncompressed_page_size
      if (!(csize >= 0) || pos + csize > size) throw new PageError(`the page announces ${csize} bytes; the column chunk has ${size - pos} left`)
      if (!(usize >= 0)) throw new PageError(`the page announces ${usize} bytes uncompressed`)
      const body = bytes.subarray(pos, pos + csize)
      pos += csize
      if (header.type === 'DICTIONARY_PAGE') {
        const n = header.dictionary_page_header?.num_values ?? -1
        if (!(n >= 0) || n > task.rows) throw new PageError(`the dictionary announces ${n} entries for a row group of ${task.rows} rows`)
        bound(usize, n * plainWidth(col) + 64)
        // Each PLAIN entry takes bytes (a BYTE_ARRAY decimal at least its length and one): no table is made for entries the page cannot hold.
        const least = col.physical === 'BYTE_ARRAY' ? 5 : plainWidth(col)
        if (usize < n * least) throw new PageError(`the dictionary announces ${n} entries in ${usize} bytes`)
        const data = decompress(chunk.codec, body, usize)
        dictionary = new Float64Array(n)
        readPlain(col, data, 0, data.length, n, dictionary, 0)
        dictionaryFinite = dictionary.every((v) => v - v === 0)
      } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
        const v2 = header.data_page_header_v2
        const n = v2 ? v2.num_values : (header.data_page_header?.num_values ?? -1)
        if (!(n >= 0) || n > task.rows - row) throw new PageError(`the page announces ${n} values; the row group has ${task.rows - row} rows left`)
        const encoding = (v2 ?? header.data_page_header)!.encoding
        if (typeof encoding !== 'string') throw new PageError('the page header names no encoding of its values')
        // Levels and values of n numbers take at most this much, however they are encoded (a
        // delta-encoded byte array: its prefix and suffix lengths of up to 9 bytes each, and its
        // bytes), and a delta-encoded page stores its last miniblock whole, however few of its
        // values it holds (writers' miniblocks hold 32 to 256; MINIBLOCK_ROOM allows 2^17 of 64 bits).
        const byteArrays = col.physical === 'BYTE_ARRAY' || col.physical === 'FIXED_LEN_BYTE_ARRAY'
        bound(usize, 64 + (col.optional ? 12 + 2 * n : 0) + n * (Math.max(plainWidth(col), 9) + (byteArrays ? 18 : 0)) + (encoding.startsWith('DELTA_') ? MINIBLOCK_ROOM : 0))
        let defined: number
        let data: Uint8Array
        let p: number
        if (v2) {
          const repBytes = v2.repetition_levels_byte_length ?? 0
          const defBytes = v2.definition_levels_byte_length ?? 0
          if (repBytes !== 0) throw new PageError('repetition levels in a flat column')
          if (defBytes > csize || defBytes > usize) throw new PageError(`definition levels of ${defBytes} bytes in a page of ${csize}`)
          defined = col.optional ? readLevels(body, 0, defBytes, n) : n
          const values = body.subarray(defBytes)
          // An empty values section (a page of nulls) is stored empty, not as a compressed stream of nothing.
          data = v2.is_compressed === false || (values.length === 0 && usize === defBytes) ? values : decompress(chunk.codec, values, usize - defBytes)
          p = 0
        } else {
          data = decompress(chunk.codec, body, usize)
          p = 0
          // The levels' deprecated BIT_PACKED encoding (no writer of this century's) is refused, not guessed at.
          if (col.optional && header.data_page_header!.definition_level_encoding !== 'RLE')
            throw new PageError(`definition levels in the ${header.data_page_header!.definition_level_encoding} encoding (RLE is read)`)
          if (col.optional) {
            if (data.length < 4) throw new PageError('the page ends before its definition levels')
            const length = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)
            if (length < 0 || 4 + length > data.length) throw new PageError(`definition levels of ${length} bytes in a page of ${data.length}`)
            defined = readLevels(data, 4, 4 + length, n)
            p = 4 + length
          } else defined = n
        }
        if (defined === n) {
          readValues(col, encoding, data, p, data.length, n, dictionary, out, at)
          if (!(dictionaryFinite && encoding.endsWith('_DICTIONARY'))) checkFinite(out, at, n, (i) => task.rowStart + row + i + 1, fail)
          at += n
        } else {
          if (task.nulls === 'refuse') {
            const i = levels.subarray(0, n).indexOf(0)
            throw fail(`row ${task.rowStart + row + i + 1} is null; every cell must hold a number`)
          }
          if (scratch.length < defined) scratch = new Float64Array(defined)
          readValues(col, encoding, data, p, data.length, defined, dictionary, scratch, 0)
          for (let i = 0, k = 0; i < n; i++) {
            if (levels[i] === 0) continue
            const v = scratch[k++]
            if (v - v !== 0) throw fail(badValue(v, task.rowStart + row + i + 1))
            out[at++] = v
          }
          nulls += n - defined
        }
        row += n
      } else if (header.type !== 'INDEX_PAGE') throw new PageError(`a page of type ${header.type}`)
      page++
    }
  } catch (e) {
    if (e instanceof PageError) throw fail(e.message)
    throw e
  }
  return { count: at - task.rowStart, missing: nulls }
}

function bound(announced: number, most: number): void {
  if (announced > most) throw new PageError(`the page announces ${announced} bytes uncompressed; its values take at most ${most}`)
}

/** Counts n definition levels' values; where some are null, decodes them (0 null, 1 a value) into `levels`. */
function readLevels(bytes: Uint8Array, p: number, end: number, n: number): number {
  const defined = countDefined(bytes, p, end, n)
  if (defined < n) {
    if (levels.length < n) levels = new Uint8Array(n)
    readHybrid(bytes, p, end, 1, n, levels)
  }
  return defined
}

function checkFinite(out: Float64Array, at: number, n: number, rowOf: (i: number) => number, fail: (m: string) => Error): void {
  for (let i = 0; i < n; i++) {
    const v = out[at + i]
    if (v - v !== 0) throw fail(badValue(v, rowOf(i)))
  }
}

function badValue(v: number, row: number): string {
  return v !== v ? `row ${row}: NaN is not a number` : `row ${row}: ${v > 0 ? 'Infinity' : '-Infinity'} is out of range`
}
