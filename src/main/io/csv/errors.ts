// Errors about a CSV file's content name the file and, when there is one, the 1-based line (the
// header is line 1) and column, like a compiler: `ACC_001.csv:1234:3: column "acc_y": "abc" is not a number`.
import { open, stat, type FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { notAFile } from '../file-kind'

const QUOTE_LIMIT = 80

/** A value from the file, quoted for a message: at most 80 characters, so a 10 MB line stays a short message. */
export function quoteText(text: string): string {
  return JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text)
}

/** Names for a message: the first ones, then how many more. */
export function nameList(names: readonly string[], shown = 20): string {
  const listed = names.slice(0, shown).map(quoteText).join(', ')
  return names.length > shown ? `${listed}, … (${names.length - shown} more)` : listed
}

export function csvError(path: string, line: number | undefined, message: string, column?: number): ApiError {
  const where = line === undefined ? path : column === undefined ? `${path}:${line}` : `${path}:${line}:${column}`
  return new ApiError('invalid-input', `${where}: ${message}`)
}

/** An error from the file system, as an ApiError naming the file. */
export function ioError(path: string, e: unknown): ApiError {
  const err = e as NodeJS.ErrnoException
  const reason = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a folder' : err.message
  return new ApiError('io', `cannot read ${path}: ${reason}`)
}

/**
 * Opens a regular file for reading; failures name the file. Anything else (a folder, a FIFO, a
 * device) is refused before it is opened: opening a FIFO would wait for a writer forever.
 */
export async function openForReading(path: string): Promise<FileHandle> {
  try {
    const s = await stat(path)
    if (!s.isFile()) throw new ApiError('invalid-input', `${path} is ${notAFile(s)}, not a data file`)
    return await open(path, 'r')
  } catch (e) {
    throw e instanceof ApiError ? e : ioError(path, e)
  }
}
