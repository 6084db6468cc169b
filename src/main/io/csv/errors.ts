// Errors about a CSV file's content name the file and, when there is one, the 1-based line
// (the header is line 1), like a compiler: `ACC_001.csv:1234: column "acc_y": "abc" is not a number`.
import { open, type FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'

export function csvError(path: string, line: number | undefined, message: string): ApiError {
  return new ApiError('invalid-input', line === undefined ? `${path}: ${message}` : `${path}:${line}: ${message}`)
}

/** An error from the file system, as an ApiError naming the file. */
export function ioError(path: string, e: unknown): ApiError {
  const err = e as NodeJS.ErrnoException
  const reason = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a folder' : err.message
  return new ApiError('io', `cannot read ${path}: ${reason}`)
}

/** Opens a file for reading; failures name the file. */
export async function openForReading(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r')
  } catch (e) {
    throw ioError(path, e)
  }
}
