// Tables that `paralab generate` writes as Parquet or Arrow, by the output's extension: columns of
// doubles (or microsecond timestamps) given a block of rows at a time, written into a temporary file
// beside the target and renamed at the end, so a reader never sees a partial file.
import { randomBytes } from 'node:crypto'
import { open, rename, stat, unlink } from 'node:fs/promises'
import { ApiError } from '../../shared/errors'
import { throwIfAborted } from '../../shared/cancel'
import type { ParquetColumnSpec, ParquetCompression } from './parquet/write-parquet'

export type TableFileFormat = 'parquet' | 'arrow'

/** `.parquet` → Parquet, `.arrow` or `.feather` → Arrow IPC file; otherwise null. */
export function tableFileFormat(path: string): TableFileFormat | null {
  const lower = path.toLowerCase()
  if (lower.endsWith('.parquet')) return 'parquet'
  if (lower.endsWith('.arrow') || lower.endsWith('.feather')) return 'arrow'
  return null
}

export interface WriteTableOptions {
  force?: boolean
  signal?: AbortSignal
  compression?: ParquetCompression
}

/** Writes the blocks (each a column's values each, in `columns` order); returns the file's bytes. */
export async function writeTableFile(path: string, columns: ParquetColumnSpec[], blocks: Iterable<Float64Array[]>, opts: WriteTableOptions = {}): Promise<number> {
  const format = tableFileFormat(path)
  if (!format) throw new ApiError('invalid-argument', `${path}: a table is written as .parquet, .arrow or .feather`)
  throwIfAborted(opts.signal)
  if (!opts.force && (await stat(path).then(() => true, () => false))) throw new ApiError('invalid-argument', `${path} already exists (use --force to overwrite)`)
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`
  try {
    const file = await open(temp, 'wx')
    try {
      if (format === 'parquet') {
        const { ParquetWriter } = await import('./parquet/write-parquet')
        const writer = new ParquetWriter(file, columns, opts.compression)
        await writer.start()
        for (const block of blocks) {
          throwIfAborted(opts.signal)
          await writer.writeRowGroup(block)
        }
        await writer.finish()
      } else {
        const { ArrowWriter } = await import('./arrow/write-arrow')
        const writer = new ArrowWriter(file, columns)
        for (const block of blocks) {
          throwIfAborted(opts.signal)
          await writer.writeBatch(block)
        }
        await writer.finish()
      }
    } finally {
      await file.close()
    }
    throwIfAborted(opts.signal)
    await rename(temp, path)
    return (await stat(path)).size
  } catch (e) {
    await unlink(temp).catch(() => {})
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot write ${path}: ${(e as Error).message}`)
  }
}
