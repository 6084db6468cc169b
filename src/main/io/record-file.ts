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
  /** A secret: refused unless this user owns it and no one else may read or write it (mode 0600 or less). */
  ownerOnly?: boolean
  /** The lstat taken before opening (io/managed-folder.ts): the opened file must be that one, not one swapped in since. */
  sameAs?: { dev: number; ino: number }
}

/**
 * A regular file of at most `maxBytes`, opened for reading, with its size: for records too large
 * to read whole (streamed by the caller, who closes it). O_NONBLOCK makes opening a FIFO return at
 * once (fstat then refuses it); O_NOFOLLOW refuses a symlink planted in the record's place.
 */
export async function openRecordFile(path: string, opts: RecordReadOptions): Promise<{ file: FileHandle; size: number }> {
  const opened = await openRegularFile(path, opts)
  if (opened.size > opts.maxBytes) {
    await opened.file.close()
    throw new ApiError('io', `${path} holds ${opened.size} bytes, more than the ${opts.maxBytes} it may hold`)
  }
  return opened
}

/** The bytes of a regular file of at most `maxBytes` (see openRecordFile). */
export async function readRecordFile(path: string, opts: RecordReadOptions): Promise<Buffer> {
  const { file, size } = await openRecordFile(path, opts)
  try {
    return await readAt(file, 0, size)
  } finally {
    await file.close()
  }
}

/**
 * The last `maxBytes` of a regular file (all of it when shorter), for logs and event files that
 * grow without bound; the same checks as readRecordFile. The first line may be cut.
 */
export async function readRecordTail(path: string, opts: RecordReadOptions): Promise<Buffer> {
  const { file, size } = await openRegularFile(path, opts)
  try {
    return await readAt(file, Math.max(0, size - opts.maxBytes), Math.min(size, opts.maxBytes))
  } finally {
    await file.close()
  }
}

async function openRegularFile(path: string, opts: RecordReadOptions): Promise<{ file: FileHandle; size: number }> {
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
    if (opts.sameAs && (s.dev !== opts.sameAs.dev || s.ino !== opts.sameAs.ino)) throw new ApiError('io', `${path} was replaced while it was opened, so it is no file Paralab wrote`)
    if (opts.ownerOnly && (s.mode & 0o077 || (process.getuid && s.uid !== process.getuid())))
      throw new ApiError('io', `${path} is a secret, and ${s.mode & 0o077 ? `its mode ${(s.mode & 0o777).toString(8)} lets others read or write it` : `it belongs to user ${s.uid}, not to this user`}: it must be this user's, with mode 600`)
    return { file, size: s.size }
  } catch (e) {
    await file.close()
    throw e
  }
}

/** `length` bytes from `start`, fewer if the file shrank meanwhile. */
async function readAt(file: FileHandle, start: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length)
  let at = 0
  while (at < buf.length) {
    const { bytesRead } = await file.read(buf, at, buf.length - at, start + at)
    if (bytesRead === 0) break
    at += bytesRead
  }
  return at === buf.length ? buf : buf.subarray(0, at)
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
