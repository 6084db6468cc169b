// Files a dashboard run keeps on disk beside its history entry (the correlation matrix, the
// distance matrices), for downloads and zooms after the job: `<history>/kept/<run id>/<name>`.
// Bounded: together they take at most `maxBytes` (PARALAB_KEPT_BYTES, default 8 GiB); keeping one
// more deletes the oldest runs' files first, and a file larger than the whole bound is not kept.
// Read back only as regular files of this user of plain names in their run's folder, and deleted
// only as such: names of this shape that are regular files, then the folder if it is empty. No link
// in kept/ (a run's folder, a file) is ever followed, for reading or deleting (io/managed-folder.ts).
import { basename, dirname, join } from 'node:path'
import { RUN_ID_PATTERN } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { writeFileAtomic, type FileData } from '../io/atomic-write'
import { listManaged, makeManagedFolder, managedEntry, openManagedFile, ownedHere, removeManaged } from '../io/managed-folder'
import type { FileHandle } from 'node:fs/promises'

export const KEPT_MAX_BYTES = 8 * 2 ** 30
/** What a kept file may be called: a plain name, never a path. */
export const KEPT_NAME = /^[a-z0-9][a-z0-9.-]{0,99}$/

export function keptMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.PARALAB_KEPT_BYTES
  if (given === undefined || given === '') return KEPT_MAX_BYTES
  const n = Number(given)
  if (!Number.isSafeInteger(n) || n < 0) throw new ApiError('invalid-argument', `PARALAB_KEPT_BYTES must be a number of bytes; got ${JSON.stringify(given)}`)
  return n
}

export class KeptFiles {
  /** The folder above `dir` (the history): `dir` itself is a component checked like the rest, never followed as a link. */
  private readonly root: string
  private readonly sub: string

  constructor(
    readonly dir: string,
    private readonly maxBytes = keptMaxBytes(),
  ) {
    this.root = dirname(dir)
    this.sub = basename(dir)
  }

  /** The managed parts of `names` below the history root. */
  private at(...names: string[]): string[] {
    return [this.sub, ...names]
  }

  /**
   * Keeps `data` (`bytes` long) as `name` of run `run`, first deleting the oldest other runs' files
   * beyond the bound; false (nothing written) when it alone is over the bound.
   */
  async write(run: string, name: string, bytes: number, data: FileData): Promise<boolean> {
    this.check(run, name)
    if (bytes > this.maxBytes) return false
    await this.makeRoom(run, bytes)
    await writeFileAtomic(join(await makeManagedFolder(this.root, this.at(run)), name), data, { overwrite: true })
    return true
  }

  /** A kept file opened for reading, at most `maxBytes` long; an error naming what is missing otherwise. */
  async open(run: string, name: string): Promise<{ file: FileHandle; size: number }> {
    this.check(run, name)
    try {
      return await openManagedFile(this.root, this.at(run, name), { maxBytes: this.maxBytes })
    } catch (e) {
      const err = ApiError.from(e)
      if (/does not exist$/.test(err.message)) throw new ApiError('invalid-argument', `run ${run} keeps no ${name} (it was not kept, or older runs' files made room for newer ones)`)
      throw err
    }
  }

  /** Deletes what the run kept: its files of kept names, then its folder when nothing else is left in it. */
  async drop(run: string): Promise<void> {
    if (!RUN_ID_PATTERN.test(run)) return
    // A link in a run's place, or in a file's, is not Paralab's: left as it is, never followed.
    for (const name of await this.names(run)) {
      const { stat: s } = await managedEntry(this.root, this.at(run, name)).catch(() => ({ stat: null }))
      if (s?.isFile() && ownedHere(s)) await removeManaged(this.root, this.at(run, name))
    }
    const { stat: folder } = await managedEntry(this.root, this.at(run)).catch(() => ({ stat: null }))
    if (folder?.isDirectory()) await removeManaged(this.root, this.at(run), { recursive: false })
  }

  /** The kept names in a run's folder ([] when it is not a folder of this user). */
  private async names(run: string): Promise<string[]> {
    return (await listManaged(this.root, this.at(run)).catch(() => [] as string[])).filter((n) => KEPT_NAME.test(n))
  }

  /** Runs' files, oldest first, deleted until `bytes` more fit under the bound; `run`'s own stay. */
  private async makeRoom(run: string, bytes: number): Promise<void> {
    const runs = (await listManaged(this.root, this.at()).catch(() => [] as string[])).filter((r) => RUN_ID_PATTERN.test(r)).sort()
    const sizes = await Promise.all(runs.map((r) => this.bytesOf(r)))
    let total = sizes.reduce((a, b) => a + b, 0)
    for (const [i, r] of runs.entries()) {
      if (total + bytes <= this.maxBytes) return
      if (r === run) continue
      await this.drop(r)
      total -= sizes[i]
    }
  }

  private async bytesOf(run: string): Promise<number> {
    let total = 0
    for (const name of await this.names(run)) {
      const { stat: s } = await managedEntry(this.root, this.at(run, name)).catch(() => ({ stat: null }))
      if (s?.isFile()) total += s.size
    }
    return total
  }

  /** Where `name` of `run` is kept. */
  path(run: string, name: string): string {
    this.check(run, name)
    return join(this.folder(run), name)
  }

  private check(run: string, name: string): void {
    if (!RUN_ID_PATTERN.test(run)) throw new ApiError('invalid-argument', `run must be a run id; got ${JSON.stringify(run)}`)
    if (!KEPT_NAME.test(name)) throw new ApiError('invalid-argument', `a kept file's name is a plain name; got ${JSON.stringify(name)}`)
  }

  private folder(run: string): string {
    return join(this.dir, run)
  }
}
