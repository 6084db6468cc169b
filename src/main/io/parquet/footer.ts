// The footer of a Parquet file (its schema and where each row group's column chunks lie), read and
// checked before any data: the magics, and a metadata length that fits inside the file and under a
// bound. The metadata's bytes are read here; they are parsed on a loader thread (parseFooter), since
// a footer of megabytes takes seconds to parse and a server must go on answering meanwhile.
import { parquetMetadata } from 'hyparquet'
import type { FileMetaData } from 'hyparquet'
import { ApiError } from '../../../shared/errors'
import { openForReading } from '../csv/errors'

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
  try {
    return { meta: parquetMetadata(f.footer, { geoparquet: false }), bytes: f.bytes, dataEnd: f.dataEnd }
  } catch (e) {
    throw parquetError(path, 'footer', `the metadata cannot be read: ${(e as Error).message}`)
  }
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
