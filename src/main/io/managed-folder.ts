// Folders Paralab manages (the run history and its kept files, cluster job folders and their run
// folders, the examples, checkpoints): every read, listing, write and deletion below such a root
// goes through here, so that no link planted inside one, at any component, is ever followed, and no
// file of another user is believed or removed. Node has no openat, so each component below the root
// is lstat'ed (a folder of this user, never a link) before anything is done through it; a file is
// then opened with O_NOFOLLOW and its handle's device and inode compared with that lstat, so a file
// swapped between the check and the open is refused too. The root itself is the user's to name (it
// may be a link they made), but it must be a folder of this user.
import type { Stats } from 'node:fs'
import { lstat, mkdir, readdir, rmdir, stat, unlink } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { ApiError } from '../../shared/errors'
import { notAFile } from './file-kind'
import { isPlainName, openRecordFile, type RecordReadOptions } from './record-file'
import type { FileHandle } from 'node:fs/promises'

const me = (): number | undefined => process.getuid?.()

/** Whether this user owns what `s` describes (always, where there are no user ids). */
export const ownedHere = (s: Stats): boolean => me() === undefined || s.uid === me()

function kindOf(s: Stats): string {
  return s.isSymbolicLink() ? 'a symbolic link' : s.isDirectory() ? 'a folder' : s.isFile() ? 'a file' : notAFile(s)
}

/** The managed root: a folder of this user (followed if the user named a link). */
async function checkRoot(root: string): Promise<Stats | null> {
  const s = await stat(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null
    throw new ApiError('io', `cannot read ${root}: ${e.message}`)
  })
  if (!s) return null
  if (!s.isDirectory()) throw new ApiError('io', `${root} is ${kindOf(s)}, not a folder Paralab manages`)
  if (!ownedHere(s)) throw new ApiError('io', `${root} belongs to user ${s.uid}, not to this user (${me()}): Paralab keeps its files only in a folder of this user`)
  return s
}

/**
 * `parts` below `root`: each name a plain name, each folder on the way a folder of this user, not a
 * link. Returns the path and the last component's lstat (not checked: the caller says what it must
 * be), or a null stat when something on the way is absent.
 */
export async function managedEntry(root: string, parts: readonly string[]): Promise<{ path: string; stat: Stats | null }> {
  let path = root
  const rootStat = await checkRoot(root)
  for (const p of parts) if (!isPlainName(p)) throw new ApiError('io', `${JSON.stringify(p)} is not a plain name inside ${root}`)
  if (!rootStat) return { path: join(root, ...parts), stat: null }
  if (parts.length === 0) return { path, stat: rootStat }
  for (const [i, p] of parts.entries()) {
    path = join(path, p)
    const s = await lstat(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null
      throw new ApiError('io', `cannot read ${path}: ${e.message}`)
    })
    if (!s) return { path: join(root, ...parts), stat: null }
    if (i === parts.length - 1) return { path, stat: s }
    if (!s.isDirectory()) throw new ApiError('io', `${path} is ${kindOf(s)}, not a folder Paralab made: nothing is read or removed through it`)
    if (!ownedHere(s)) throw new ApiError('io', `${path} belongs to user ${s.uid}, not to this user: nothing is read or removed through it`)
  }
  throw new ApiError('internal', 'unreachable')
}

/** Why `s` at `path` is not a file of this user that Paralab wrote, or undefined when it is one. */
function notOurs(path: string, s: Stats): string | undefined {
  if (!s.isFile()) return `${path} is ${kindOf(s)}, not a file Paralab wrote`
  if (!ownedHere(s)) return `${path} belongs to user ${s.uid}, not to this user, so it is no file Paralab wrote`
  return undefined
}

/**
 * A regular file of this user at `parts` below `root`, opened for reading (at most `maxBytes`):
 * every component checked, the file opened with O_NOFOLLOW and found to be the one checked.
 */
export async function openManagedFile(root: string, parts: readonly string[], opts: Omit<RecordReadOptions, 'followSymlink'>): Promise<{ file: FileHandle; size: number }> {
  const { path, stat: s } = await managedEntry(root, parts)
  if (!s) throw new ApiError('io', `${path} does not exist`)
  const why = notOurs(path, s)
  if (why) throw new ApiError('io', why)
  return openRecordFile(path, { ...opts, sameAs: s })
}

/**
 * openManagedFile for a path whose last `depth` components lie below the managed root (a kept file
 * remembered by its path, `<history>/kept/<run>/<name>`: depth 3).
 */
export function openManagedPath(path: string, depth: number, opts: Omit<RecordReadOptions, 'followSymlink'>): Promise<{ file: FileHandle; size: number }> {
  const parts = resolve(path).split('/').filter(Boolean)
  return openManagedFile('/' + parts.slice(0, -depth).join('/'), parts.slice(-depth), opts)
}

/** The bytes of a managed file (see openManagedFile). */
export async function readManagedFile(root: string, parts: readonly string[], opts: Omit<RecordReadOptions, 'followSymlink'>): Promise<Buffer> {
  const { file, size } = await openManagedFile(root, parts, opts)
  try {
    const buf = Buffer.alloc(size)
    let at = 0
    while (at < size) {
      const { bytesRead } = await file.read(buf, at, size - at, at)
      if (bytesRead === 0) break
      at += bytesRead
    }
    return buf.subarray(0, at)
  } finally {
    await file.close()
  }
}

/** A managed file's text parsed as JSON (see openManagedFile); a file that is not JSON is refused naming it. */
export async function readManagedJson(root: string, parts: readonly string[], opts: Omit<RecordReadOptions, 'followSymlink'>): Promise<unknown> {
  const text = (await readManagedFile(root, parts, opts)).toString('utf8')
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new ApiError('io', `${join(root, ...parts)} is not valid JSON (${(e as Error).message}); was it truncated or edited?`)
  }
}

/** The last `maxBytes` of a managed file (all of it when shorter), for logs and event files that grow without bound. */
export async function readManagedTail(root: string, parts: readonly string[], opts: { maxBytes: number }): Promise<Buffer> {
  const { file, size } = await openManagedFile(root, parts, { maxBytes: Number.MAX_SAFE_INTEGER })
  try {
    const start = Math.max(0, size - opts.maxBytes)
    const buf = Buffer.alloc(size - start)
    let at = 0
    while (at < buf.length) {
      const { bytesRead } = await file.read(buf, at, buf.length - at, start + at)
      if (bytesRead === 0) break
      at += bytesRead
    }
    return buf.subarray(0, at)
  } finally {
    await file.close()
  }
}

/** The names in a managed folder ([] when it is absent); a link or another user's folder in its place is refused. */
export async function listManaged(root: string, parts: readonly string[] = []): Promise<string[]> {
  const { path, stat: s } = await managedEntry(root, parts)
  if (!s) return []
  if (!s.isDirectory()) throw new ApiError('io', `${path} is ${kindOf(s)}, not a folder Paralab made`)
  if (!ownedHere(s)) throw new ApiError('io', `${path} belongs to user ${s.uid}, not to this user`)
  return readdir(path)
}

/**
 * Makes the folders `parts` below `root` (with `mode`), each one there already checked to be a
 * folder of this user, never a link; returns the last one's path.
 */
export async function makeManagedFolder(root: string, parts: readonly string[], mode = 0o755): Promise<string> {
  await mkdir(root, { recursive: true, mode })
  for (let i = 1; i <= parts.length; i++) {
    const { path, stat: s } = await managedEntry(root, parts.slice(0, i))
    if (!s) {
      await mkdir(path, { mode }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw new ApiError('io', `cannot make ${path}: ${e.message}`)
      })
      const made = await lstat(path)
      if (!made.isDirectory() || !ownedHere(made)) throw new ApiError('io', `${path} is ${kindOf(made)} of user ${made.uid}, not a folder Paralab made`)
    } else if (!s.isDirectory()) throw new ApiError('io', `${path} is ${kindOf(s)}, not a folder Paralab made`)
    else if (!ownedHere(s)) throw new ApiError('io', `${path} belongs to user ${s.uid}, not to this user`)
  }
  return join(root, ...parts)
}

/**
 * Removes `parts` below `root` without following a link anywhere: a link is removed itself, a file
 * of this user is removed, a folder of this user has what it holds removed so, then itself if
 * empty; another user's file or folder is left (it is not Paralab's). `recursive: false`: a folder
 * is removed only when empty. Returns the paths left.
 */
export async function removeManaged(root: string, parts: readonly string[], opts: { recursive?: boolean } = {}): Promise<string[]> {
  let entry
  try {
    entry = await managedEntry(root, parts)
  } catch (e) {
    // A link or another user's folder on the way: nothing below it is Paralab's.
    return [`${join(root, ...parts)} (${ApiError.from(e).message})`]
  }
  const { path, stat: s } = entry
  if (!s || parts.length === 0) return []
  if (s.isSymbolicLink()) {
    await unlink(path).catch(() => undefined)
    return []
  }
  if (!ownedHere(s)) return [path]
  if (!s.isDirectory()) {
    await unlink(path).catch(() => undefined)
    return []
  }
  const left: string[] = []
  if (opts.recursive !== false) for (const name of await readdir(path).catch(() => [] as string[])) left.push(...(await removeManaged(root, [...parts, name])))
  if (!left.length) await rmdir(path).catch(() => left.push(path))
  else left.push(path)
  return left
}

/** `path` as parts below `root`, or undefined when it is not below it. */
export function partsBelow(root: string, path: string): string[] | undefined {
  const [r, p] = [resolve(root), resolve(path)]
  if (!p.startsWith(r === '/' ? r : r + '/')) return undefined
  return p.slice(r.length).split('/').filter(Boolean)
}

/**
 * A folder whose files Paralab will run or believe (a job folder, `--out`) must be safe from other
 * users, as ssh asks of a key's folders: the folder this user's, and neither it nor a folder above
 * it writable by the group or others unless sticky (as /tmp is), each above of this user or root.
 */
export async function refuseSharedFolder(dir: string, what: string): Promise<void> {
  let at = resolve(dir)
  for (let first = true; ; first = false) {
    const s = await stat(at).catch(() => null)
    if (s) {
      const mode = s.mode & 0o7777
      const writable = mode & 0o022
      if (writable && !(mode & 0o1000))
        throw new ApiError('io', `${what} ${dir}: ${at} is writable by ${mode & 0o002 ? 'every user' : 'its group'} (mode ${(mode & 0o777).toString(8)}) without the sticky bit, so another user could replace the job's files; chmod go-w ${at}, or choose a folder only you can write`)
      if (me() !== undefined && s.uid !== me() && (first || s.uid !== 0))
        throw new ApiError('io', `${what} ${dir}: ${at} belongs to user ${s.uid}, not to this user${first ? '' : ' or root'}, so its owner could replace the job's files; choose a folder of your own`)
    }
    const up = dirname(at)
    if (up === at) return
    at = up
  }
}
