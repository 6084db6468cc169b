// Every reader opens its file here: a regular file, or an error naming the file. Anything else (a
// folder, a FIFO, a device) is refused before it is opened: opening a FIFO would wait for a writer forever.
import { open, stat, type FileHandle } from 'node:fs/promises'
import { ApiError } from '../../shared/errors'
import { notAFile } from './file-kind'

/** An error from the file system, as an ApiError naming the file. */
export function ioError(path: string, e: unknown): ApiError {
  const err = e as NodeJS.ErrnoException
  const reason = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a folder' : err.message
  return new ApiError('io', `cannot read ${path}: ${reason}`)
}

/** Opens a regular file for reading; failures name the file. */
export async function openForReading(path: string): Promise<FileHandle> {
  try {
    const s = await stat(path)
    if (!s.isFile()) throw new ApiError('invalid-input', `${path} is ${notAFile(s)}, not a data file`)
    return await open(path, 'r')
  } catch (e) {
    throw e instanceof ApiError ? e : ioError(path, e)
  }
}
