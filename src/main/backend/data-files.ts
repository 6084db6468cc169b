// Which local files the backend may read: everything (CLI), files under the `serve --data`
// folders, or files the user picked in the desktop app's dialog.
import { readdir, realpath, stat } from 'node:fs/promises'
import { basename, join, resolve, sep } from 'node:path'
import { type DataFile } from '../../shared/api'
import { ApiError } from '../../shared/errors'

const LIST_DEPTH = 3
const LIST_LIMIT = 2000

export class DataAccess {
  private readonly picked = new Set<string>()

  /** `roots` undefined: any file is readable (the CLI). Otherwise only files under a root or picked ones. */
  constructor(private readonly roots?: string[]) {}

  get restricted(): boolean {
    return this.roots !== undefined
  }

  /** Resolves a requested path to a readable real path, or throws naming the path. */
  async check(path: string): Promise<string> {
    let real: string
    try {
      real = await realpath(resolve(path))
    } catch {
      throw new ApiError('io', `${path}: no such file`)
    }
    if (!this.roots || this.picked.has(real)) return real
    for (const root of await this.realRoots()) if (real === root || real.startsWith(root + sep)) return real
    throw new ApiError('invalid-argument', `${path} is outside the data folders`)
  }

  /** Makes files chosen by the user readable (desktop app). */
  async allow(paths: string[]): Promise<DataFile[]> {
    const files: DataFile[] = []
    for (const p of paths) {
      const real = await realpath(resolve(p))
      this.picked.add(real)
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
