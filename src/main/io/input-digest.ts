// The sha256 of a job's input file, taken from the bytes its reader reads: a reader that reads a
// file from its start onwards on this thread hands each read to `sawRead`, and the digest hashes it
// when it continues what was hashed so far. A reader that reads out of order or on other threads
// (the CSV loader's ranges, formats read by their footers) calls `hashAlongside` instead: the digest
// then reads the file in order on this thread while the reader works, from the pages the reader
// brings into the cache. Whatever is still unhashed when the job ends is read then.
// docs/formats.md ("Provenance") gives the measured cost.
import { createHash, type Hash } from 'node:crypto'
import { open, stat } from 'node:fs/promises'
import { constants } from 'node:fs'
import { ApiError } from '../../shared/errors'

const PIECE_BYTES = 1 << 20

export class InputDigest {
  private readonly hash: Hash = createHash('sha256')
  /** Bytes [0, at) are hashed. */
  private at = 0
  /** Bytes hashed as readers read them, and read by the digest itself (alongside them, or at the end). */
  readonly bytes = { inOrder: 0, again: 0 }
  /** The pass started alongside the readers (`start`), if one was. */
  private pass?: Promise<void>

  constructor(
    readonly path: string,
    /** Size and modification time when the job opened it: a file that changes before the end is refused. */
    private readonly before: { size: number; mtimeMs: number },
  ) {}

  /** Bytes [offset, offset + bytes.length) of the file, as read: hashed where they continue the digest. */
  saw(offset: number, bytes: Uint8Array): void {
    const end = offset + bytes.length
    if (offset > this.at || end <= this.at) return
    this.hash.update(bytes.subarray(this.at - offset))
    this.bytes.inOrder += end - this.at
    this.at = end
  }

  /**
   * Starts hashing the rest in order on this thread while readers go on (a loader whose threads
   * parse ranges in parallel, a reader of footers and chunks): the hashing overlaps the parse, and
   * reads pages the readers have just brought into the cache.
   */
  start(signal?: AbortSignal): void {
    if (this.pass) return
    this.pass = this.hashRest(signal)
    // Awaited by finish(); a failure here is its failure, not an unhandled rejection.
    this.pass.catch(() => {})
  }

  /** Hashes what no reader did and gives the digest (lowercase hex); the file must not have changed since it was opened. */
  async finish(signal?: AbortSignal): Promise<string> {
    // A pass started alongside the readers that then stopped (cancelled) is taken up again here.
    await (this.pass ?? Promise.resolve()).catch(() => {})
    await this.hashRest(signal)
    const now = await stat(this.path)
    if (now.size !== this.before.size || now.mtimeMs !== this.before.mtimeMs) throw this.changed(now.size)
    return this.hash.digest('hex')
  }

  private changed(size: number): ApiError {
    return new ApiError('io', `${this.path} changed while the job read it (${this.before.size} bytes before, ${size} now): its sha256 would not be of the bytes read`)
  }

  /** Reads and hashes from the digest's end to the file's, through `saw` (readers may move the end meanwhile). */
  private async hashRest(signal?: AbortSignal): Promise<void> {
    if (this.at >= this.before.size) return
    const file = await open(this.path, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const now = await file.stat()
      if (!now.isFile() || now.size !== this.before.size) throw this.changed(now.size)
      const piece = new Uint8Array(Math.min(PIECE_BYTES, now.size))
      while (this.at < now.size) {
        if (signal?.aborted) throw new ApiError('cancelled', `hashing ${this.path} was cancelled`)
        const from = this.at
        const { bytesRead } = await file.read(piece, 0, Math.min(piece.length, now.size - from), from)
        if (bytesRead === 0) throw new ApiError('io', `${this.path} ends at byte ${from}, before the ${now.size} it holds`)
        const before = this.at
        this.saw(from, piece.subarray(0, bytesRead))
        this.bytes.inOrder -= this.at - before
        this.bytes.again += this.at - before
      }
    } finally {
      await file.close()
    }
  }
}

/** Digests of the files jobs of this process are reading, by real path. */
const watched = new Map<string, Set<InputDigest>>()

/** Starts a digest of `path` (a real path) that readers feed through `sawRead` until `stopWatching`. */
export async function watchReads(path: string): Promise<InputDigest> {
  const s = await stat(path)
  const digest = new InputDigest(path, { size: s.size, mtimeMs: s.mtimeMs })
  let set = watched.get(path)
  if (!set) watched.set(path, (set = new Set()))
  set.add(digest)
  return digest
}

export function stopWatching(digest: InputDigest): void {
  const set = watched.get(digest.path)
  set?.delete(digest)
  if (set?.size === 0) watched.delete(digest.path)
}

/**
 * The readers' hook: bytes [offset, offset + bytes.length) of `path` (the real path the job was
 * given) were just read. Costs a map lookup when no job watches the file.
 */
export function sawRead(path: string, offset: number, bytes: Uint8Array): void {
  const set = watched.get(path)
  if (set) for (const d of set) d.saw(offset, bytes)
}

/**
 * The readers' other hook: `path` is being read out of order or on other threads (CSV ranges on the
 * loader threads, Parquet, Arrow, HDF5 and GeoTIFF by their footers and chunks), so a job watching it
 * hashes it in order on this thread meanwhile (InputDigest.start). Stops with `signal`.
 */
export function hashAlongside(path: string, signal?: AbortSignal): void {
  const set = watched.get(path)
  if (set) for (const d of set) d.start(signal)
}
