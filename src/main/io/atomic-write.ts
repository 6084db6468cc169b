// Exports are written whole or not at all: into a temporary file beside the target, then renamed,
// so a reader never sees half a file and a failure leaves nothing behind.
import { randomBytes } from 'node:crypto'
import { access, link, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ApiError } from '../../shared/errors'

export interface WriteFileAtomicOptions {
  /** Replace an existing file. Without it an existing target is an error and stays untouched. */
  overwrite?: boolean
}

/** Whole data, or its pieces in order (a file larger than one byte array, written without a copy of it). */
export type FileData = Uint8Array | string | Iterable<Uint8Array> | AsyncIterable<Uint8Array>

export async function writeFileAtomic(path: string, data: FileData, opts: WriteFileAtomicOptions = {}): Promise<void> {
  // Same directory, so the rename never crosses file systems; dot-prefixed and unique, so it
  // neither shows in listings nor collides with a concurrent write.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  let created = false
  try {
    // Fail before writing what may be a large file; the final step checks again, atomically.
    if (!opts.overwrite && (await exists(path))) throw existsError()
    const file = await open(temp, 'wx')
    created = true
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) await file.writeFile(data)
      else
        for await (const piece of data)
          for (let at = 0; at < piece.byteLength; ) at += (await file.write(piece, at)).bytesWritten
      await file.sync()
    } finally {
      await file.close()
    }
    if (opts.overwrite) await rename(temp, path)
    else await placeWithoutClobbering(temp, path)
  } catch (e) {
    throw ioError(path, e)
  } finally {
    if (created) await unlink(temp).catch(() => {})
  }
}

/** A hard link fails atomically if the target exists; where links are unsupported, check then rename. */
async function placeWithoutClobbering(temp: string, path: string): Promise<void> {
  try {
    await link(temp, path)
    return
  } catch (e) {
    const code = errnoCode(e)
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e
  }
  if (await exists(path)) throw existsError()
  await rename(temp, path)
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  )
}

function existsError(): Error {
  return Object.assign(new Error('target exists'), { code: 'EEXIST' })
}

function ioError(path: string, e: unknown): ApiError {
  if (e instanceof ApiError) return e
  switch (errnoCode(e)) {
    case 'EEXIST':
      return new ApiError('io', `${path} exists (use --force to overwrite)`)
    case 'ENOENT':
      return new ApiError('io', `cannot write ${path}: directory ${dirname(path)} does not exist`)
    case 'EACCES':
    case 'EPERM':
      return new ApiError('io', `cannot write ${path}: permission denied`)
    case 'EISDIR':
      return new ApiError('io', `cannot write ${path}: it is a directory`)
    case 'ENOSPC':
      return new ApiError('io', `cannot write ${path}: no space left on device`)
    default:
      return new ApiError('io', `cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function errnoCode(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e ? String((e as { code: unknown }).code) : undefined
}
