// The sha256 of a job's input file, taken from the bytes its reader reads: a reader that reads a
// file from its start onwards on this thread hands each read to `sawRead`, and the digest hashes it
// when it continues what was hashed so far. What no reader hashed in order (ranges parsed on worker
// threads, formats read from their footer) is read once more when the job ends, from the cursor to
// the end: a file of text read in order is hashed in the same pass, a file read at random costs a
// read of its bytes from the page cache (docs/formats.md, "Provenance", gives the measured cost).
import { createHash, type Hash } from 'node:crypto'
import { open, stat } from 'node:fs/promises'
import { constants } from 'node:fs'
import { ApiError } from '../../shared/errors'

const PIECE_BYTES = 1 << 20

export class InputDigest {
  private readonly hash: Hash = createHash('sha256')
  /** Bytes [0, at) are hashed. */
  private at = 0
  /** Hashed as readers read them, and read again at the end. */
  readonly bytes = { inOrder: 0, again: 0 }

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

  /** Hashes what no reader did and gives the digest (lowercase hex); the file must not have changed since it was opened. */
  async finish(signal?: AbortSignal): Promise<string> {
    const file = await open(this.path, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const now = await file.stat()
      if (!now.isFile() || now.size !== this.before.size || now.mtimeMs !== this.before.mtimeMs)
        throw new ApiError('io', `${this.path} changed while the job read it (${this.before.size} bytes before, ${now.size} now): its sha256 would not be of the bytes read`)
      const piece = new Uint8Array(Math.min(PIECE_BYTES, Math.max(1, now.size - this.at)))
      while (this.at < now.size) {
        if (signal?.aborted) throw new ApiError('cancelled', `hashing ${this.path} was cancelled`)
        const { bytesRead } = await file.read(piece, 0, Math.min(piece.length, now.size - this.at), this.at)
        if (bytesRead === 0) throw new ApiError('io', `${this.path} ends at byte ${this.at}, before the ${now.size} it holds`)
        this.hash.update(piece.subarray(0, bytesRead))
        this.at += bytesRead
        this.bytes.again += bytesRead
      }
      return this.hash.digest('hex')
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
