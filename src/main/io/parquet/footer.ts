// The footer of a Parquet file (its schema and where each row group's column chunks lie), read and
// checked before any data: the metadata must fit inside the file and under a bound, every chunk a
// column needs must lie between the leading magic and the footer, and the rows it announces must
// fit in memory. A file that fails is refused naming the file and the place.
import { parquetMetadata } from 'hyparquet'
import type { FileMetaData } from 'hyparquet'
import { ApiError } from '../../../shared/errors'
import { openForReading } from '../csv/errors'

/** Footers longer than this are refused: 64 MiB of metadata describes millions of chunks. */
export const MAX_FOOTER_BYTES = 64 * 1024 * 1024

const MAGIC = 'PAR1'

export interface ParquetFooter {
  meta: FileMetaData
  /** File size. */
  bytes: number
  /** Where the footer starts: every column chunk ends at or before it. */
  dataEnd: number
}

export function parquetError(path: string, where: string | undefined, message: string): ApiError {
  return new ApiError('invalid-input', `${path}${where ? ` (${where})` : ''}: ${message}`)
}

export async function readParquetFooter(path: string): Promise<ParquetFooter> {
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
    const footer = Buffer.alloc(length + 8)
    await file.read(footer, 0, footer.length, dataEnd)
    let meta: FileMetaData
    try {
      meta = parquetMetadata(footer, { geoparquet: false })
    } catch (e) {
      throw parquetError(path, 'footer', `the metadata cannot be read: ${(e as Error).message}`)
    }
    return { meta, bytes: size, dataEnd }
  } catch (e) {
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  } finally {
    await file.close()
  }
}
