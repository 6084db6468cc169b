// The footer of a Parquet file (its schema and where each row group's column chunks lie), read and
// checked before any data: the magics, and a metadata length that fits inside the file and under a
// bound. The metadata's bytes are read here; they are parsed on a loader thread (parseFooter), since
// a footer of megabytes takes seconds to parse and a server must go on answering meanwhile.
import { parquetMetadata } from 'hyparquet'
import type { FileMetaData } from 'hyparquet'
import { ApiError } from '../../../shared/errors'
import { openForReading } from '../open-for-reading'

/** Footers longer than this are refused: 16 MiB of metadata describes some 200 000 column chunks. */
export const MAX_FOOTER_BYTES = 16 * 1024 * 1024

const MAGIC = 'PAR1'

export interface ParquetFooterBytes {
  /** The metadata, its length and the closing magic. */
  footer: Uint8Array
  /** File size. */
  bytes: number
  /** Where the footer starts: every column chunk ends at or before it. */
  dataEnd: number
}

export interface ParquetFooter extends Omit<ParquetFooterBytes, 'footer'> {
  meta: FileMetaData
}

/** The metadata of a footer read by readParquetFooterBytes. */
export function parseFooter(path: string, f: ParquetFooterBytes): ParquetFooter {
  const problem = thriftProblem(f.footer, f.footer.length - 8)
  if (problem) throw parquetError(path, 'footer', `the metadata cannot be read: ${problem}`)
  try {
    return { meta: parquetMetadata(f.footer, { geoparquet: false }), bytes: f.bytes, dataEnd: f.dataEnd }
  } catch (e) {
    throw parquetError(path, 'footer', `the metadata cannot be read: ${(e as Error).message}`)
  }
}

/** Deepest nesting of structures and lists in a footer (FileMetaData's own is under 10). */
export const MAX_THRIFT_DEPTH = 64
/** Most structures a footer may hold: a footer of 200 000 column chunks has about a million. */
export const MAX_THRIFT_STRUCTS = 4 * 2 ** 20

/**
 * Walks a footer's Thrift compact encoding in bytes[0…end) without building anything, and says
 * what is wrong with it, if anything: a list announcing more elements than bytes remain (each
 * takes at least one), nesting past MAX_THRIFT_DEPTH, more than MAX_THRIFT_STRUCTS structures, an
 * unknown type, or an end inside a value. hyparquet's parser, which recurses and sizes its arrays
 * by the counts it reads, is given only a footer that passes, so its time and memory follow the
 * footer's bytes.
 */
export function thriftProblem(bytes: Uint8Array, end: number): string | undefined {
  const STRUCT = -1
  // Per open level: STRUCT, or the elements a list has left; and a list's element type.
  const left: number[] = [STRUCT]
  const elems: number[] = [0]
  let structs = 1
  let p = 0
  const varint = (): number => {
    let v = 0
    for (let shift = 0; p < end; shift += 7) {
      const b = bytes[p++]
      if (shift < 49) v += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return v
    }
    return -1
  }
  while (left.length > 0) {
    if (p > end) break
    const top = left.length - 1
    let type: number
    if (left[top] === STRUCT) {
      if (p >= end) break
      const byte = bytes[p++]
      type = byte & 0x0f
      if (type === 0) {
        left.pop()
        elems.pop()
        continue
      }
      if (byte >> 4 === 0 && varint() < 0) break
      if (type <= 2) continue // a boolean field's value is its type
    } else {
      if (left[top] === 0) {
        left.pop()
        elems.pop()
        continue
      }
      left[top]--
      type = elems[top]
      if (type <= 2) {
        p++ // a boolean element takes a byte
        continue
      }
    }
    switch (type) {
      case 3:
        p++
        break
      case 4:
      case 5:
      case 6:
        if (varint() < 0) return 'it ends inside a number'
        break
      case 7:
        p += 8
        break
      case 8: {
        const n = varint()
        if (n < 0 || n > end - p) return `a string of ${n} bytes where ${end - p} remain`
        p += n
        break
      }
      case 9: {
        if (p >= end) return 'it ends inside a list'
        const byte = bytes[p++]
        let n = byte >> 4
        if (n === 15) n = varint()
        if (n < 0 || n > end - p) return `a list of ${n} elements where ${end - p} bytes remain`
        left.push(n)
        elems.push(byte & 0x0f)
        break
      }
      case 12:
        if (++structs > MAX_THRIFT_STRUCTS) return `more than ${MAX_THRIFT_STRUCTS} structures`
        left.push(STRUCT)
        elems.push(0)
        break
      default:
        return `a value of unknown Thrift type ${type} at byte ${p}`
    }
    if (left.length > MAX_THRIFT_DEPTH) return `structures nested deeper than ${MAX_THRIFT_DEPTH} levels`
  }
  if (left.length > 0 || p > end) return `it ends inside a structure (${left.length} open)`
  return undefined
}

export function parquetError(path: string, where: string | undefined, message: string): ApiError {
  return new ApiError('invalid-input', `${path}${where ? ` (${where})` : ''}: ${message}`)
}

export async function readParquetFooterBytes(path: string): Promise<ParquetFooterBytes> {
  const file = await openForReading(path)
  try {
    const { size } = await file.stat()
    if (size < 12) throw parquetError(path, undefined, `${size} bytes is too short for a Parquet file (magic, footer length and magic take 12)`)
    const head = Buffer.alloc(4)
    const tail = Buffer.alloc(8)
    await file.read(head, 0, 4, 0)
    await file.read(tail, 0, 8, size - 8)
    if (head.toString('latin1') !== MAGIC) throw parquetError(path, 'byte 0', `not a Parquet file: it does not start with "${MAGIC}"`)
    if (tail.toString('latin1', 4) !== MAGIC) throw parquetError(path, `byte ${size - 4}`, `does not end with "${MAGIC}": the file is truncated or not Parquet`)
    const length = tail.readUInt32LE(0)
    const dataEnd = size - 8 - length
    if (dataEnd < 4) throw parquetError(path, 'footer', `the footer announces ${length} bytes of metadata; the file holds only ${size} bytes (truncated?)`)
    if (length > MAX_FOOTER_BYTES) throw parquetError(path, 'footer', `the footer announces ${length} bytes of metadata, more than the ${MAX_FOOTER_BYTES} read`)
    const footer = new Uint8Array(length + 8)
    await file.read(footer, 0, footer.length, dataEnd)
    return { footer, bytes: size, dataEnd }
  } catch (e) {
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  } finally {
    await file.close()
  }
}
