// Reading back files that Paralab wrote into folders others can also write to (job folders,
// checkpoints): a record is opened only if it is a regular file, never through a symlink, never
// waiting on a FIFO, and read no further than a bound the caller states. Names taken from a record
// are plain names, so nothing it says can reach outside its folder.
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { notAFile } from './file-kind'

export interface RecordReadOptions {
  /** The most bytes the record may hold; a larger file is refused before it is read. */
  maxBytes: number
  /** Follow a symlink at the last component (default: refuse it). */
  followSymlink?: boolean
}

/**
 * A regular file of at most `maxBytes`, opened for reading, with its size: for records too large
 * to read whole (streamed by the caller, who closes it). O_NONBLOCK makes opening a FIFO return at
 * once (fstat then refuses it); O_NOFOLLOW refuses a symlink planted in the record's place.
 */
export async function openRecordFile(path: string, opts: RecordReadOptions): Promise<{ file: FileHandle; size: number }> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (opts.followSymlink ? 0 : constants.O_NOFOLLOW)
  let file
  try {
    file = await open(path, flags)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new ApiError('io', `${path} is a symbolic link, not a file Paralab wrote`)
    if (code === 'ENOENT') throw new ApiError('io', `${path} does not exist`)
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
  try {
    const s = await file.stat()
    if (!s.isFile()) throw new ApiError('io', `${path} is ${notAFile(s)}, not a file Paralab wrote`)
    if (s.size > opts.maxBytes) throw new ApiError('io', `${path} holds ${s.size} bytes, more than the ${opts.maxBytes} it may hold`)
    return { file, size: s.size }
  } catch (e) {
    await file.close()
    throw e
  }
}

/** The bytes of a regular file of at most `maxBytes` (see openRecordFile). */
export async function readRecordFile(path: string, opts: RecordReadOptions): Promise<Buffer> {
  const { file, size } = await openRecordFile(path, opts)
  try {
    const buf = Buffer.alloc(size)
    let at = 0
    while (at < buf.length) {
      const { bytesRead } = await file.read(buf, at, buf.length - at, at)
      if (bytesRead === 0) break
      at += bytesRead
    }
    return at === buf.length ? buf : buf.subarray(0, at)
  } finally {
    await file.close()
  }
}

/** A record's text, parsed as JSON; a file that is not JSON is refused naming it. */
export async function readJsonRecord(path: string, opts: RecordReadOptions): Promise<unknown> {
  const text = (await readRecordFile(path, opts)).toString('utf8')
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new ApiError('io', `${path} is not valid JSON (${(e as Error).message}); was it truncated or edited?`)
  }
}

/** Whether `name` is one plain entry name: no separator, not `.` or `..`, no NUL, not empty. */
export function isPlainName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\0]/.test(name)
}

/** `dir/name` for a name read from a record in `dir`, refused unless it is a plain name. */
export function entryOf(dir: string, name: unknown, record: string): string {
  if (!isPlainName(name)) throw new ApiError('io', `${record} names ${JSON.stringify(name)}, which is not a plain file name inside ${dir}`)
  return join(dir, name)
}
