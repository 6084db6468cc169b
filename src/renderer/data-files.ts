// How the dashboard shows files to choose from: grouped by folder, each folder named by its path
// under its data folder, so that two files of one name in different folders tell apart.
import type { DataFile } from '../shared/api'
import { contentText, type ContentKind, formatsRead, formatTakes, headerMisses } from '../shared/formats'
import type { WorkloadId } from '../shared/workloads'
import { baseName } from './format'

/** A file as a picker lists it; `bytes` is unknown for a path known only from a form (a reopened run). */
export interface ListedFile {
  path: string
  name: string
  bytes?: number
  /** Its path as the dashboard names it: under its data folder, or its name where it lies elsewhere. */
  shown: string
  /** A file of a kind the workload cannot read: listed greyed out, never chosen. */
  readable: boolean
  /** What the backend found its content to be. */
  content?: ContentKind
  /** Why the reader of its content refuses it (the backend's check of its header). */
  refused?: string
  /** A text file's first line, as CSV fields. */
  header?: string[]
}

export interface FileGroup {
  /** The folder: `data/tessina` under a data folder, `example` for an example's input, else the folder's full path. */
  label: string
  /** Where it lies, for the tooltip. */
  title: string
  files: ListedFile[]
}

/** Whether a file's name ends in one of `extensions` (without dots, any case). */
export function hasExtension(name: string, extensions: readonly string[]): boolean {
  const lower = name.toLowerCase()
  return extensions.some((e) => lower.endsWith(`.${e.toLowerCase()}`))
}

/** What a picker reads: a workload's formats (src/shared/formats.ts) and its files parameter's extensions. */
export interface ReadSpec {
  workload: string
  extensions: readonly string[]
}

/**
 * Whether a file is one the workload reads: a format of it takes the file's content (magic bytes
 * decide; text and binary files go by extension too), or, where the backend did not read the
 * content or the workload lists no formats, its extension.
 */
export function canRead(spec: ReadSpec, file: FileSeen): boolean {
  if (file.refused) return false
  const formats = formatsRead(spec.workload as WorkloadId)
  if (!formats.length) return hasExtension(file.name, spec.extensions)
  return formats.some((f) => formatTakes(f, file.name, file.content, file.header))
}

/** What the backend saw of a file: its name, content, first line and any refusal. */
type FileSeen = { name: string; content?: ContentKind; refused?: string; header?: string[] }

/**
 * Why a file is greyed out: "Parquet content, not a .csv or .gr file", "not a .csv file", or, for a
 * text file of the right extension whose first line lacks a format's columns, which it lacks.
 */
export function unreadableText(spec: ReadSpec, file: Partial<FileSeen>): string {
  if (file.refused) return file.refused
  const byName = file.content === 'text' && file.name && file.header ? formatsRead(spec.workload as WorkloadId).filter((f) => f.content === 'text' && hasExtension(file.name!, f.extensions)) : []
  const lacking = byName.map((f) => ({ f, missing: headerMisses(f, file.header) })).find((x) => x.missing.length)
  if (lacking) return `its first line (${shortList(file.header ?? [])}) names no ${lacking.missing.join(', ')} column${lacking.missing.length > 1 ? 's' : ''}: not a ${lacking.f.name}`
  const formats = extensionsText(spec.extensions)
  return file.content && file.content !== 'text' && file.content !== 'binary' ? `${contentText(file.content)}, not a ${formats} file` : `not a ${formats} file`
}

/** The extensions as people read them: ".csv or .npy". */
export function extensionsText(extensions: readonly string[]): string {
  const dotted = extensions.map((e) => `.${e}`)
  return dotted.length > 1 ? `${dotted.slice(0, -1).join(', ')} or ${dotted[dotted.length - 1]}` : (dotted[0] ?? '')
}

/** At most four fields, then how many more. */
function shortList(fields: string[]): string {
  const shown = fields.slice(0, 4).join(', ')
  return fields.length > 4 ? `${shown}, … ${fields.length - 4} more` : shown || 'empty'
}

function dirName(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'))
  return cut > 0 ? path.slice(0, cut) : path.slice(0, cut + 1)
}

/** Its data folder's name and its path there ("data/tessina/dem.txt"), or null outside the data folders. */
export function pathInData(file: Pick<DataFile, 'root' | 'relative'>): string | null {
  return file.root && file.relative ? `${baseName(file.root)}/${file.relative}` : null
}

/**
 * Files grouped by folder: data folders' first (by their path there), then the example's, then
 * others by full path; names sorted within each. `examples` are the paths of an example's files.
 */
export function groupFiles(files: KnownFile[], spec: ReadSpec, examples: ReadonlySet<string> = new Set()): FileGroup[] {
  const groups = new Map<string, FileGroup & { rank: number }>()
  for (const f of files) {
    const inData = pathInData(f)
    const example = examples.has(f.path)
    const label = inData ? dirName(inData) : example ? 'example' : dirName(f.path)
    const rank = inData ? 0 : example ? 1 : 2
    const key = `${rank}\n${label}`
    if (!groups.has(key)) groups.set(key, { label, title: dirName(f.path), files: [], rank })
    groups.get(key)!.files.push({ path: f.path, name: f.name, bytes: f.bytes, shown: inData ? inData.slice(inData.indexOf('/') + 1) : f.name, readable: canRead(spec, f), ...(f.content && { content: f.content }), ...(f.refused && { refused: f.refused }), ...(f.header && { header: f.header }) })
  }
  const byName = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true })
  return [...groups.values()]
    .sort((a, b) => a.rank - b.rank || byName(a.label, b.label))
    .map(({ rank: _rank, ...g }) => ({ ...g, files: g.files.sort((a, b) => byName(a.name, b.name)) }))
}

/** A file the dashboard knows of: from the backend, or a path alone (a reopened run's parameter), size unknown. */
export type KnownFile = Omit<DataFile, 'bytes'> & { bytes?: number }

export function pathOnly(path: string): KnownFile {
  return { path, name: baseName(path) }
}
