// The folder a long run writes its checkpoints into, whatever the workload: one folder per
// checkpoint, named for the unit it was taken at (`step-0000500/`, `round-0000012/`), holding the
// workload's files, a manifest.json naming them with their sha256, and manifest.sha256 sealing the
// manifest's exact bytes (as `sha256sum` writes it, so `sha256sum -c manifest.sha256` checks it).
//
// Writing is atomic: the files go into a fresh hidden folder (`.step-0000500.<job>.<random>`, made
// by mkdtemp: mode 0700, a name no one can plant anything at beforehand), each created exclusively
// and synced; the manifest and its seal are written last, the folder renamed into place and the
// folder synced; only then are checkpoints older than the previous complete one removed. A run
// killed while writing leaves the last complete checkpoint (and the one before); a pending folder
// is never read nor reused.
//
// Reading believes nothing unchecked: the manifest must match its seal, say the step (round) its
// folder's name says, and name only plain files of its folder; those are opened only when they are
// regular files (no symlink, no FIFO wait), of the size the run expects, checked against their
// sha256 as they are streamed, and cancellation is honoured between pieces.
import { createHash } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, mkdtemp, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { throwIfAborted } from '../../shared/cancel'
import { ApiError } from '../../shared/errors'
import { notAFile } from '../io/file-kind'
import { isPlainName } from '../io/record-file'
import { openManagedFile, readManagedFile } from '../io/managed-folder'

/** What a workload's checkpoints are: their manifest's format and version, and what the folders count. */
export interface CheckpointKind {
  /** The manifest's `format`, e.g. 'paralab-landslide-checkpoint'. */
  format: string
  version: number
  /**
   * The unit a checkpoint is taken at, naming its folder: 'step' → `step-0000500`. The manifest's
   * field of that name says where it was taken, and must agree with its folder's name.
   */
  unit: string
  /** For messages: "not a <what> checkpoint of this version". */
  what: string
}

/** A file of a checkpoint, as its manifest lists it. */
export interface CheckpointFile {
  file: string
  sha256: string
}

/** The newest complete checkpoint of a folder, its manifest read, checked against its seal and of the kind asked for. */
export interface FoundCheckpoint<M> {
  path: string
  manifest: M
  /** The complete checkpoint before it, kept when this one is refused. */
  previous?: string
  /** The error refusing this checkpoint as corrupted, naming it and the previous one. */
  corrupted(why: string): ApiError
}

/** Bytes read or written at a time: a view of a whole matrix beyond 2 GiB cannot be written at once. */
const CHUNK = 16 * 2 ** 20
const MANIFEST = 'manifest.json'
const SEAL = 'manifest.sha256'
/** A manifest's size unless the workload states a larger one (a landslide's holds its samples). */
const MANIFEST_MAX = 16 * 2 ** 20

export function checkpointName(kind: CheckpointKind, at: number): string {
  return `${kind.unit}-${String(at).padStart(7, '0')}`
}

/**
 * Makes `dir` (and its missing parents) if need be, and checks that checkpoints can be written in
 * it, before any work: a file, a special file, a folder that refuses new entries (/proc) or one not
 * writable is refused naming it. Parents are made one by one: Node's recursive mkdir spins forever
 * under /proc.
 */
export async function prepareCheckpointFolder(dir: string): Promise<void> {
  const refuse = (why: string) => new ApiError('invalid-argument', `cannot keep checkpoints in ${dir}: ${why}`)
  const missing: string[] = []
  for (let at = resolve(dir); ; ) {
    let s: Stats
    try {
      s = await stat(at)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT') throw refuse(code === 'ENOTDIR' ? `${dirname(at)} is not a folder` : (e as Error).message)
      missing.push(at)
      const up = dirname(at)
      if (up === at) break
      at = up
      continue
    }
    if (!s.isDirectory()) throw refuse(at === resolve(dir) ? `it is ${s.isFile() ? 'a file' : notAFile(s)}, not a folder` : `${at} is not a folder`)
    break
  }
  for (const d of missing.reverse())
    await mkdir(d).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw refuse(`cannot make ${d} (${e.code ?? e.message})`)
    })
  // The one sure test that a checkpoint can be written: make (and remove) a pending folder.
  let probe: string
  try {
    probe = await mkdtemp(join(dir, '.checkpoint-probe.'))
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw refuse(code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'it is not writable' : `no folder can be made in it (${code ?? (e as Error).message})`)
  }
  await rmdir(probe)
}

const safe = (attempt: string) => attempt.replace(/[^\w.-]/g, '_')

/**
 * A fresh hidden folder for the checkpoint at `at`, made by mkdtemp (mode 0700, an unpredictable
 * name): `.step-0000500.<attempt>.<random>`, where `attempt` is the job's identity.
 */
export async function makePendingFolder(dir: string, kind: CheckpointKind, at: number, attempt: string): Promise<string> {
  return mkdtemp(join(dir, `.${checkpointName(kind, at)}.${safe(attempt)}.`))
}

/**
 * The pending folder `name` made in `dir` by another rank for the checkpoint at `at`: refused
 * unless it is a plain name of such a folder.
 */
export function pendingFolderNamed(dir: string, kind: CheckpointKind, at: number, name: string): string {
  if (!isPlainName(name) || !name.startsWith(`.${checkpointName(kind, at)}.`))
    throw new ApiError('io', `${JSON.stringify(name)} is not the name of a pending folder of the checkpoint at ${kind.unit} ${at}`)
  return join(dir, name)
}

/** Creates `path` (never there before, never through a symlink), writes the chunks in order and syncs; returns their sha256. */
async function writeSynced(path: string, chunks: Iterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256')
  const file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)
  try {
    for (const chunk of chunks)
      for (let at = 0; at < chunk.byteLength; at += CHUNK) {
        const part = chunk.subarray(at, at + CHUNK)
        hash.update(part)
        for (let done = 0; done < part.byteLength; ) done += (await file.write(part, done)).bytesWritten
      }
    await file.sync()
  } finally {
    await file.close()
  }
  return hash.digest('hex')
}

/** Writes a new file of the checkpoint into its pending folder from its chunks, in order; returns it with its sha256. */
export async function writeCheckpointFile(pending: string, file: string, chunks: Iterable<Uint8Array>): Promise<CheckpointFile> {
  if (!isPlainName(file) || file === MANIFEST || file === SEAL) throw new ApiError('internal', `${JSON.stringify(file)} cannot be a checkpoint's file`)
  return { file, sha256: await writeSynced(join(pending, file), chunks) }
}

/**
 * Once every file is written: the manifest (`format` and `version` first) and its seal, then the
 * folder into place, then the older ones away. Returns the checkpoint's path.
 */
export async function commitCheckpoint(dir: string, pending: string, kind: CheckpointKind, at: number, manifest: object): Promise<string> {
  if (resolve(dirname(pending)) !== resolve(dir) || (manifest as Record<string, unknown>)[kind.unit] !== at)
    throw new ApiError('internal', `the checkpoint at ${kind.unit} ${at} is committed from ${pending} into ${dir} with a manifest of another ${kind.unit}`)
  const bytes = new TextEncoder().encode(JSON.stringify({ format: kind.format, version: kind.version, ...manifest }))
  const sha256 = await writeSynced(join(pending, MANIFEST), [bytes])
  await writeSynced(join(pending, SEAL), [new TextEncoder().encode(`${sha256}  ${MANIFEST}\n`)])
  const target = join(dir, checkpointName(kind, at))
  await rm(target, { recursive: true, force: true })
  await rename(pending, target)
  const dirHandle = await open(dir, 'r')
  await dirHandle.sync().finally(() => dirHandle.close())
  // Keep this one and the previous complete one; drop older ones and other attempts' leftovers.
  const older = (await completeCheckpoints(dir, kind)).filter((s) => s < at)
  for (const s of older.slice(0, -1)) await rm(join(dir, checkpointName(kind, s)), { recursive: true, force: true })
  for (const name of await readdir(dir)) if (isPending(kind, name) && name !== basename(pending)) await rm(join(dir, name), { recursive: true, force: true })
  return target
}

const isPending = (kind: CheckpointKind, name: string) => name.startsWith(`.${kind.unit}-`)

/** Where the complete checkpoints of `dir` were taken, ascending (folders named exactly as checkpointName names them). */
export async function completeCheckpoints(dir: string, kind: CheckpointKind): Promise<number[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const pattern = new RegExp(`^${kind.unit}-(\\d{7,15})$`)
  return names
    .map((n) => [n, pattern.exec(n)] as const)
    .filter((x): x is readonly [string, RegExpExecArray] => !!x[1] && checkpointName(kind, Number(x[1][1])) === x[0])
    .map(([, m]) => Number(m[1]))
    .sort((a, b) => a - b)
}

/** How a checkpoint at `path` is refused as corrupted, naming the previous one, which is kept. */
export function corruptedError(path: string, previous?: string): (why: string) => ApiError {
  const kept = previous ? ` (the previous checkpoint, ${previous}, is kept: remove this one to resume from it)` : ''
  return (why) => new ApiError('invalid-input', `checkpoint ${path} is corrupted: ${why}${kept}`)
}

/** A refusal of the file `name` of the checkpoint (a symlink, a FIFO, missing), as why it is corrupted. */
const refusedFile = (found: Pick<FoundCheckpoint<unknown>, 'path' | 'corrupted'>, name: string, e: unknown) =>
  found.corrupted(ApiError.from(e).message.replace(join(found.path, name), name))

export interface LatestManifestOptions {
  /** The most bytes its manifest may hold (default 16 MiB). */
  maxBytes?: number
}

/**
 * The newest complete checkpoint in `dir` with its manifest, or undefined when there is none. The
 * checkpoint is refused as corrupted (the older ones are left as they are) when it is no folder,
 * when its manifest is missing, not a regular file, does not match its seal, is not JSON or not of
 * this kind and version, or says another step (round) than its folder's name; `valid` checks the
 * workload's own fields.
 */
export async function latestManifest<M>(dir: string, kind: CheckpointKind, valid: (m: M) => boolean, opts: LatestManifestOptions = {}): Promise<FoundCheckpoint<M> | undefined> {
  const all = await completeCheckpoints(dir, kind)
  if (all.length === 0) return undefined
  const at = all.at(-1)!
  const path = join(dir, checkpointName(kind, at))
  const previous = all.length > 1 ? join(dir, checkpointName(kind, all.at(-2)!)) : undefined
  const corrupted = corruptedError(path, previous)
  const found = { path, corrupted }
  const self = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    throw corrupted(`it cannot be read (${e.code ?? e.message})`)
  })
  if (!self.isDirectory()) throw corrupted(`it is ${self.isSymbolicLink() ? 'a symbolic link' : self.isFile() ? 'a file' : notAFile(self)}, not a folder Paralab wrote`)

  // Through no link at any component, and only files of this user (io/managed-folder.ts).
  const bytes = await readManagedFile(dir, [basename(path), MANIFEST], { maxBytes: opts.maxBytes ?? MANIFEST_MAX }).catch((e) => {
    throw refusedFile(found, MANIFEST, e)
  })
  const seal = await readManagedFile(dir, [basename(path), SEAL], { maxBytes: 256 }).catch((e) => {
    throw olderVersion(bytes, kind, path) ?? refusedFile(found, SEAL, e)
  })
  const sealed = /^([0-9a-f]{64}) {2}manifest\.json\n$/.exec(seal.toString('latin1'))
  if (!sealed) throw corrupted(`its ${SEAL} is not a sha256 of ${MANIFEST}`)
  if (createHash('sha256').update(bytes).digest('hex') !== sealed[1]) throw corrupted(`its ${MANIFEST} does not match the sha256 in ${SEAL}: it was changed after it was written`)

  let manifest: M & { format?: unknown; version?: unknown }
  try {
    manifest = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw corrupted(`its ${MANIFEST} is not valid JSON`)
  }
  if (typeof manifest !== 'object' || manifest === null || manifest.format !== kind.format || manifest.version !== kind.version || !valid(manifest))
    throw corrupted(`its ${MANIFEST} is not a ${kind.what} checkpoint of this version`)
  const says = (manifest as Record<string, unknown>)[kind.unit]
  if (says !== at) throw corrupted(`its ${MANIFEST} says ${kind.unit} ${JSON.stringify(says)}, its folder's name ${kind.unit} ${at}`)
  return { path, manifest, ...(previous && { previous }), corrupted }
}

/** The refusal of an unsealed checkpoint that an earlier Paralab wrote (its manifest says so), if it is one. */
function olderVersion(bytes: Buffer, kind: CheckpointKind, path: string): ApiError | undefined {
  let m: { format?: unknown; version?: unknown }
  try {
    m = JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined
  }
  if (m?.format !== kind.format || typeof m.version !== 'number' || m.version >= kind.version) return undefined
  return new ApiError(
    'invalid-input',
    `checkpoint ${path} was written by an earlier Paralab (version ${m.version} of its format, without a sealed manifest); this one resumes from version ${kind.version} only: remove it, or use another checkpoint folder`,
  )
}

/**
 * Refuses, before any file is opened, a manifest whose files are not plain names of distinct files
 * of the checkpoint's folder, each with a sha256.
 */
export function checkFileNames(found: Pick<FoundCheckpoint<unknown>, 'corrupted'>, entries: unknown[]): void {
  const seen = new Set<string>()
  for (const entry of entries) {
    const name = (entry as CheckpointFile | undefined)?.file
    if (!isPlainName(name) || name === MANIFEST || name === SEAL) throw found.corrupted(`its ${MANIFEST} names ${JSON.stringify(name)}, which is not a plain file name inside its folder`)
    if (seen.has(name)) throw found.corrupted(`its ${MANIFEST} names ${name} twice`)
    seen.add(name)
    if (!/^[0-9a-f]{64}$/.test(String((entry as CheckpointFile).sha256))) throw found.corrupted(`its ${MANIFEST} gives ${name} no sha256`)
  }
}

/**
 * Reads a file of a checkpoint, checked against its size and sha256: `bytes` long, handed to `into`
 * in pieces of `piece` bytes (a multiple of it, the last one shorter) with their offsets. Whatever
 * `into` was given is not to be used when this throws. `signal` stops it between pieces.
 */
export async function readCheckpointFile(
  found: Pick<FoundCheckpoint<unknown>, 'path' | 'corrupted'>,
  entry: CheckpointFile,
  bytes: number,
  into: (piece: Uint8Array, at: number) => void,
  piece = bytes,
  signal?: AbortSignal,
): Promise<void> {
  checkFileNames(found, [entry])
  const mismatch = () => found.corrupted(`${entry.file} does not match its sha256`)
  const { file, size } = await openManagedFile(dirname(found.path), [basename(found.path), entry.file], { maxBytes: Number.MAX_SAFE_INTEGER }).catch((e) => {
    throw refusedFile(found, entry.file, e)
  })
  try {
    if (size !== bytes) throw found.corrupted(`${entry.file} holds ${size} bytes, not the ${bytes} its ${MANIFEST} gives it`)
    const step = Math.max(1, Math.floor(CHUNK / Math.max(piece, 1))) * Math.max(piece, 1)
    const buf = Buffer.allocUnsafe(Math.min(step, Math.max(bytes, 1)))
    const hash = createHash('sha256')
    for (let at = 0; at < bytes; ) {
      throwIfAborted(signal)
      const want = Math.min(buf.length, bytes - at)
      let got = 0
      while (got < want) {
        const { bytesRead } = await file.read(buf, got, want - got, at + got)
        if (bytesRead === 0) throw mismatch()
        got += bytesRead
      }
      const chunk = buf.subarray(0, want)
      hash.update(chunk)
      into(chunk, at)
      at += want
    }
    if (hash.digest('hex') !== entry.sha256) throw mismatch()
  } finally {
    await file.close()
  }
}

/** Removes an attempt's pending folder (a run that failed leaves no half-written checkpoint). */
export async function discardPending(pending: string): Promise<void> {
  await rm(pending, { recursive: true, force: true })
}

/** Removes every pending folder of `attempt` in `dir`: a run whose writer was stopped mid-checkpoint (a cancelled thread). */
export async function discardAttempt(dir: string, kind: CheckpointKind, attempt: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[])
  // `.step-0000500.<attempt>.` and mkdtemp's six characters.
  const mine = new RegExp(`^\\.${kind.unit}-\\d+\\.${safe(attempt).replace(/\./g, '\\.')}\\.[A-Za-z0-9]{6}$`)
  for (const name of names)
    if (mine.test(name))
      await rm(join(dir, name), { recursive: true, force: true })
}
