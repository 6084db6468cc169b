// Which local files the backend may read: everything (CLI), files under the `serve --data`
// folders, or files the user picked in the desktop app's dialog. Files offered to the dashboard
// carry the kind of their content (their first KiB and last 4 bytes) and a text file's first line,
// by which the chooser tells which a workload can read, whatever their names say.
import { readdir, realpath, stat } from 'node:fs/promises'
import { basename, join, relative, resolve, sep } from 'node:path'
import { notAFile } from '../io/file-kind'
import { sniffFile } from '../io/sniff'
import { tiffRefusal } from '../io/geotiff/read-raster'
import { DATA_FOLDER_LIMIT, HEADER_FIELDS, type DataFile, type DataFolder } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { FILE_FORMATS } from '../../shared/formats'

const LIST_DEPTH = 3
const LIST_LIMIT = 2000
/** Files whose content one answer reads; the rest are judged by their names. */
export const SNIFF_LIMIT = 500
/** Files read at once while sniffing a listing. */
const SNIFF_CONCURRENCY = 8
/** Extensions of the text formats told by the columns their first line names: only these files' first lines are sent. */
const HEADED = FILE_FORMATS.filter((f) => f.header).flatMap((f) => f.extensions)

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
    return within(path, [...this.roots.map((r) => resolve(r)), ...(await this.realRoots())])
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
    return withContent(files)
  }

  /** Files offered to the dashboard: everything under the roots (a few levels deep) plus picked files. */
  async list(): Promise<DataFile[]> {
    const found = new Map<string, DataFile>()
    for (const p of this.picked) found.set(p, await describe(p))
    const roots = await this.realRoots()
    for (const root of roots) await walk(root, roots, LIST_DEPTH, found)
    return withContent([...found.values()].sort((a, b) => a.path.localeCompare(b.path)))
  }

  /**
   * One folder of the data folders, for the dashboard's chooser; null gives the data folders. Like
   * `check`, a folder outside them gets one answer whether it exists or not, and links inside lead
   * only where the data folders are.
   */
  async folder(path: string | null): Promise<DataFolder> {
    const roots = await this.realRoots()
    if (path === null) return { path: null, folders: roots.map((r) => ({ path: r, name: basename(r) || r })), files: [], truncated: false }
    const outside = new ApiError('invalid-argument', `${path} is outside the data folders`)
    const named = (this.roots ?? []).map((r) => resolve(r))
    if (!within(resolve(path), [...named, ...roots])) throw outside
    const real = await realpath(resolve(path)).catch(() => {
      throw new ApiError('io', `${path}: no such folder`)
    })
    if (!within(real, roots)) throw outside
    const s = await stat(real)
    if (!s.isDirectory()) throw new ApiError('invalid-input', `${path} is ${s.isFile() ? 'a file' : notAFile(s)}, not a folder`)
    const { folders, files, truncated } = await entries(real, roots, DATA_FOLDER_LIMIT)
    return {
      path: real,
      folders: folders.map((p) => ({ path: p, name: basename(p) })),
      files: await withContent(await Promise.all(files.map((p) => describe(p, roots)))),
      truncated,
    }
  }

  private async realRoots(): Promise<string[]> {
    return Promise.all((this.roots ?? []).map((r) => realpath(resolve(r))))
  }
}

/** Whether `path` (absolute) is one of `roots` or lies under one, by name only. */
function within(path: string, roots: string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep))
}

/** Size and name, and for a file in a data folder the folder and its path there. */
async function describe(path: string, roots: string[] = []): Promise<DataFile> {
  const s = await stat(path)
  const file: DataFile = { path, name: basename(path), bytes: s.size }
  // The innermost root: data folders may nest.
  const root = roots.filter((r) => within(path, [r])).sort((a, b) => b.length - a.length)[0]
  return root ? { ...file, root, relative: relative(root, path).split(sep).join('/') } : file
}

/**
 * The files with the kind of their content, the first `limit` of them, SNIFF_CONCURRENCY at a
 * time; a file that cannot be read (gone, or no longer a regular file) keeps none. A TIFF carries
 * why the reader refuses it, if it does.
 */
export async function withContent(files: DataFile[], limit = SNIFF_LIMIT): Promise<DataFile[]> {
  const out = files.slice()
  const count = Math.min(out.length, limit)
  let next = 0
  const sniffer = async () => {
    for (let k = next++; k < count; k = next++) {
      const sniffed = await sniffFile(out[k].path).catch(() => undefined)
      if (!sniffed) continue
      const { kind, header } = sniffed
      // A TIFF the GeoTIFF reader would refuse, by the reader's own checks of its header and IFD.
      const refused = kind === 'tiff' ? await tiffRefusal(out[k].path) : undefined
      const headed = header && HEADED.some((e) => out[k].name.toLowerCase().endsWith(`.${e}`))
      out[k] = { ...out[k], content: kind, ...(refused && { refused }), ...(headed && { header: header.slice(0, HEADER_FIELDS) }) }
    }
  }
  await Promise.all(Array.from({ length: Math.min(SNIFF_CONCURRENCY, count) }, sniffer))
  return out
}

/**
 * A folder's visible entries (no dot files), names sorted: folders and regular files, and links to
 * either whose target lies in the data folders. At most `limit` of them.
 */
async function entries(dir: string, roots: string[], limit: number): Promise<{ folders: string[]; files: string[]; truncated: boolean }> {
  const listed = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const visible = listed.filter((e) => !e.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }))
  const folders: string[] = []
  const files: string[] = []
  for (const e of visible.slice(0, limit)) {
    const p = join(dir, e.name)
    let kind: 'folder' | 'file' | null = e.isDirectory() ? 'folder' : e.isFile() ? 'file' : null
    if (e.isSymbolicLink()) {
      const target = await realpath(p).catch(() => null)
      const s = target && within(target, roots) ? await stat(target).catch(() => null) : null
      kind = s?.isDirectory() ? 'folder' : s?.isFile() ? 'file' : null
    }
    if (kind === 'folder') folders.push(p)
    else if (kind === 'file') files.push(p)
  }
  return { folders, files, truncated: visible.length > limit }
}

async function walk(dir: string, roots: string[], depth: number, out: Map<string, DataFile>): Promise<void> {
  if (depth < 0 || out.size >= LIST_LIMIT) return
  const { folders, files } = await entries(dir, roots, LIST_LIMIT)
  for (const p of files) if (out.size < LIST_LIMIT) out.set(p, await describe(p, roots))
  for (const p of folders) await walk(p, roots, depth - 1, out)
}
