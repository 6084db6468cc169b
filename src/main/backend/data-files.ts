// Which local files the backend may read: everything (CLI), files under the `serve --data`
// folders, or files the user picked in the desktop app's dialog.
import { readdir, realpath, stat } from 'node:fs/promises'
import { basename, join, resolve, sep } from 'node:path'
import { notAFile } from '../io/file-kind'
import type { DataFile } from '../../shared/api'
import { ApiError } from '../../shared/errors'

const LIST_DEPTH = 3
const LIST_LIMIT = 2000

export class DataAccess {
  /** Real paths of picked files, and the paths they were picked by. */
  private readonly picked = new Set<string>()
  private readonly pickedAs = new Set<string>()

  /** `roots` undefined: any file is readable (the CLI). Otherwise only files under a root or picked ones. */
  constructor(private readonly roots?: string[]) {}

  get restricted(): boolean {
    return this.roots !== undefined
  }

  /**
   * Resolves a requested path to the real path of a readable regular file, or throws naming the
   * path. A path outside the data folders gets one answer whether it exists or not, so that
   * requests cannot probe for files; the file system is asked only about paths inside.
   */
  async check(path: string): Promise<string> {
    const wanted = resolve(path)
    const outside = new ApiError('invalid-argument', `${path} is outside the data folders`)
    if (!(await this.readable(wanted))) throw outside
    let real: string
    try {
      real = await realpath(wanted)
    } catch {
      throw new ApiError('io', `${path}: no such file`)
    }
    // A link inside a data folder may point anywhere.
    if (!(await this.readable(real))) throw outside
    const s = await stat(real)
    if (!s.isFile()) throw new ApiError('invalid-input', `${path} is ${notAFile(s)}, not a data file`)
    return real
  }

  /** Whether `path` (absolute) is picked or lies in a data folder, by name only. */
  private async readable(path: string): Promise<boolean> {
    if (!this.roots || this.picked.has(path) || this.pickedAs.has(path)) return true
    const roots = [...this.roots.map((r) => resolve(r)), ...(await this.realRoots())]
    return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep))
  }

  /** Makes files chosen by the user readable (desktop app). */
  async allow(paths: string[]): Promise<DataFile[]> {
    const files: DataFile[] = []
    for (const p of paths) {
      const real = await realpath(resolve(p)).catch(() => {
        throw new ApiError('io', `${p}: no such file`)
      })
      this.picked.add(real)
      this.pickedAs.add(resolve(p))
      files.push(await describe(real))
    }
    return files
  }

  /** Files offered to the dashboard: everything under the roots plus picked files. */
  async list(): Promise<DataFile[]> {
    const found = new Map<string, DataFile>()
    for (const p of this.picked) found.set(p, await describe(p))
    for (const root of await this.realRoots()) await walk(root, LIST_DEPTH, found)
    return [...found.values()].sort((a, b) => a.path.localeCompare(b.path))
  }

  private async realRoots(): Promise<string[]> {
    return Promise.all((this.roots ?? []).map((r) => realpath(resolve(r))))
  }
}

async function describe(path: string): Promise<DataFile> {
  const s = await stat(path)
  return { path, name: basename(path), bytes: s.size }
}

async function walk(dir: string, depth: number, out: Map<string, DataFile>): Promise<void> {
  if (depth < 0 || out.size >= LIST_LIMIT) return
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const e of entries) {
    if (e.name.startsWith('.')) continue
    const p = join(dir, e.name)
    if (e.isDirectory()) await walk(p, depth - 1, out)
    else if (e.isFile() && out.size < LIST_LIMIT) out.set(p, await describe(p))
  }
}
