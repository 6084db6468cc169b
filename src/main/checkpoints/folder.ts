// The folder a long run writes its checkpoints into, whatever the workload: one folder per
// checkpoint, named for the unit it was taken at (`step-0000500/`, `round-0000012/`), holding the
// workload's files and a manifest.json naming them with their sha256.
//
// Writing is atomic: the files go into a hidden folder of this attempt (`.step-0000500.<job>.tmp`),
// each synced; the manifest is written last, the folder renamed into place and the folder synced;
// only then are checkpoints older than the previous complete one removed. A run killed while
// writing leaves the last complete checkpoint (and the one before); a pending folder is never read.
import { createHash } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'

/** What a workload's checkpoints are: their manifest's format and version, and what the folders count. */
export interface CheckpointKind {
  /** The manifest's `format`, e.g. 'paralab-landslide-checkpoint'. */
  format: string
  version: number
  /** The unit a checkpoint is taken at, naming its folder: 'step' → `step-0000500`. */
  unit: string
  /** For messages: "not a <what> checkpoint of this version". */
  what: string
}

/** A file of a checkpoint, as its manifest lists it. */
export interface CheckpointFile {
  file: string
  sha256: string
}

/** The newest complete checkpoint of a folder, its manifest read and of the kind asked for. */
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

export function checkpointName(kind: CheckpointKind, at: number): string {
  return `${kind.unit}-${String(at).padStart(7, '0')}`
}

/** The hidden folder one attempt (`attempt`: the job's identity) writes the checkpoint at `at` into. */
export function pendingFolder(dir: string, kind: CheckpointKind, at: number, attempt: string): string {
  return join(dir, `.${checkpointName(kind, at)}.${safe(attempt)}.tmp`)
}

const safe = (attempt: string) => attempt.replace(/[^\w.-]/g, '_')

async function writeSynced(path: string, chunks: Iterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256')
  const file = await open(path, 'w')
  try {
    for (const chunk of chunks)
      for (let at = 0; at < chunk.byteLength; at += CHUNK) {
        const part = chunk.subarray(at, at + CHUNK)
        hash.update(part)
        await file.write(part)
      }
    await file.sync()
  } finally {
    await file.close()
  }
  return hash.digest('hex')
}

/** Writes a file of the checkpoint (the pending folder made if need be) from its chunks, in order; returns it with its sha256. */
export async function writeCheckpointFile(pending: string, file: string, chunks: Iterable<Uint8Array>): Promise<CheckpointFile> {
  await mkdir(pending, { recursive: true })
  return { file, sha256: await writeSynced(join(pending, file), chunks) }
}

/**
 * Once every file is written: the manifest (`format` and `version` first), then the folder into
 * place, then the older ones away. Returns the checkpoint's path.
 */
export async function commitCheckpoint(dir: string, pending: string, kind: CheckpointKind, at: number, manifest: object): Promise<string> {
  await mkdir(pending, { recursive: true })
  await writeSynced(join(pending, 'manifest.json'), [new TextEncoder().encode(JSON.stringify({ format: kind.format, version: kind.version, ...manifest }))])
  const target = join(dir, checkpointName(kind, at))
  await rm(target, { recursive: true, force: true })
  await rename(pending, target)
  const dirHandle = await open(dir, 'r')
  await dirHandle.sync().finally(() => dirHandle.close())
  // Keep this one and the previous complete one; drop older ones and other attempts' leftovers.
  const older = (await completeCheckpoints(dir, kind)).filter((s) => s < at)
  for (const s of older.slice(0, -1)) await rm(join(dir, checkpointName(kind, s)), { recursive: true, force: true })
  for (const name of await readdir(dir)) if (isPending(kind, name) && join(dir, name) !== pending) await rm(join(dir, name), { recursive: true, force: true })
  return target
}

const isPending = (kind: CheckpointKind, name: string) => name.startsWith(`.${kind.unit}-`) && name.endsWith('.tmp')

/** Where the complete checkpoints of `dir` were taken, ascending. */
export async function completeCheckpoints(dir: string, kind: CheckpointKind): Promise<number[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const pattern = new RegExp(`^${kind.unit}-(\\d+)$`)
  return names
    .map((n) => pattern.exec(n))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
}

/** How a checkpoint at `path` is refused as corrupted, naming the previous one, which is kept. */
export function corruptedError(path: string, previous?: string): (why: string) => ApiError {
  const kept = previous ? ` (the previous checkpoint, ${previous}, is kept: remove this one to resume from it)` : ''
  return (why) => new ApiError('invalid-input', `checkpoint ${path} is corrupted: ${why}${kept}`)
}

/**
 * The newest complete checkpoint in `dir` with its manifest, or undefined when there is none. A
 * manifest that is missing, not JSON, or not of this kind and version is refused as corrupted (the
 * older checkpoints are left as they are); `valid` checks the workload's own fields.
 */
export async function latestManifest<M>(dir: string, kind: CheckpointKind, valid: (m: M) => boolean): Promise<FoundCheckpoint<M> | undefined> {
  const all = await completeCheckpoints(dir, kind)
  if (all.length === 0) return undefined
  const path = join(dir, checkpointName(kind, all.at(-1)!))
  const previous = all.length > 1 ? join(dir, checkpointName(kind, all.at(-2)!)) : undefined
  const corrupted = corruptedError(path, previous)
  let manifest: M & { format?: unknown; version?: unknown }
  try {
    manifest = JSON.parse(await readFile(join(path, 'manifest.json'), 'utf8'))
  } catch (e) {
    throw corrupted(`its manifest.json is ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'not valid JSON'}`)
  }
  if (manifest?.format !== kind.format || manifest.version !== kind.version || !valid(manifest)) throw corrupted(`its manifest.json is not a ${kind.what} checkpoint of this version`)
  return { path, manifest, ...(previous && { previous }), corrupted }
}

/**
 * Reads a file of a checkpoint, checked against its size and sha256: `bytes` long, handed to `into`
 * in pieces of `piece` bytes (a multiple of it, the last one shorter) with their offsets. Whatever
 * `into` was given is not to be used when this throws.
 */
export async function readCheckpointFile(
  found: Pick<FoundCheckpoint<unknown>, 'path' | 'corrupted'>,
  entry: CheckpointFile,
  bytes: number,
  into: (piece: Uint8Array, at: number) => void,
  piece = bytes,
): Promise<void> {
  const mismatch = () => found.corrupted(`${entry.file} does not match its sha256`)
  let file
  try {
    file = await open(join(found.path, entry.file), 'r')
  } catch {
    throw found.corrupted(`${entry.file} is missing`)
  }
  try {
    if ((await file.stat()).size !== bytes) throw mismatch()
    const step = Math.max(1, Math.floor(CHUNK / Math.max(piece, 1))) * Math.max(piece, 1)
    const buf = Buffer.allocUnsafe(Math.min(step, Math.max(bytes, 1)))
    const hash = createHash('sha256')
    for (let at = 0; at < bytes; ) {
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
  for (const name of names) if (isPending(kind, name) && name.endsWith(`.${safe(attempt)}.tmp`)) await rm(join(dir, name), { recursive: true, force: true })
}
