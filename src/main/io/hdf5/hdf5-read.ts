// HDF5 through h5wasm (the HDF5 C library compiled to WebAssembly, reading the real file through
// Node's fs). It runs synchronously, so it runs on a worker thread (hdf5-worker.ts): the main
// thread, which answers the dashboard, only waits for pieces. Each task opens the file, reads what
// it was asked (the tree, or a block of rows through a hyperslab) and closes it again.
import fs from 'node:fs'
import { resolve } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { type DatasetInfo, isNumeric } from './datasets'

type H5 = typeof import('h5wasm/node').default

let library: Promise<H5> | undefined

// The library opens files through this thread's own `fs` (Node's raw file system): an HDF5 file
// can name others to read from (external links, external raw storage, virtual datasets), and a
// hostile one would name a private file. This thread opens only the file of its current task, and
// files it creates anew (the library formats its error stack through tmpfile()), which hold nothing.
let allowed: string | null = null
const openSync = fs.openSync
const CREATE_NEW = fs.constants.O_CREAT | fs.constants.O_EXCL
fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
  const flags = rest[0]
  const createsNew = typeof flags === 'number' && (flags & CREATE_NEW) === CREATE_NEW
  if (!createsNew && (allowed === null || resolve(String(path)) !== allowed))
    throw Object.assign(new Error(`${String(path)}: only the file being read may be opened`), { code: 'EACCES' })
  return (openSync as (...a: unknown[]) => number)(path, ...rest)
}) as typeof fs.openSync
// What the library prints of an error stack it does not throw (a failed read) is kept for the
// message rather than written to the process's stderr.
let printed = ''
const writeSync = fs.writeSync
fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
  if (fd !== 2) return (writeSync as (...a: unknown[]) => number)(fd, data, ...rest)
  const bytes = data as Uint8Array
  const [offset = 0, length = bytes.length - offset] = rest as number[]
  printed = (printed + Buffer.from(bytes.buffer, bytes.byteOffset + offset, length).toString('utf8')).slice(-16_384)
  return length
}) as typeof fs.writeSync

function h5(): Promise<H5> {
  library ??= import('h5wasm/node').then(async (m) => {
    const module = await m.default.ready
    // HDF5's errors become exceptions carrying the library's error stack, instead of a print to
    // stderr and a bad id that fails later with a message naming nothing.
    module.activate_throwing_error_handler()
    return m.default
  })
  return library
}

/** The deepest reason in HDF5's error stack: `truncated file: eof = 3000, …`. */
function reason(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e)
  const deepest = text.split('\n').filter((l) => /#\d+:/.test(l)).at(-1)
  return (deepest ? deepest.replace(/^.*\(\):\s*/, '') : text.split('\n')[0]).trim().slice(0, 300)
}

function withFile<T>(lib: H5, path: string, use: (file: InstanceType<H5['File']>) => T): T {
  allowed = resolve(path)
  printed = ''
  let file: InstanceType<H5['File']>
  try {
    file = new lib.File(path, 'r')
  } catch (e) {
    const why = reason(e)
    throw new ApiError('invalid-input', `${path}: not a readable HDF5 file${why ? ` (${why})` : ''}`)
  }
  try {
    return use(file)
  } catch (e) {
    throw e instanceof ApiError ? e : new ApiError('invalid-input', `${path}: a damaged HDF5 file (${reason(e)})`)
  } finally {
    file.close()
  }
}

/** Datasets listed at most, objects visited at most and groups nested at most: a file of a million
 * groups, or a group hard-linked inside itself (a cycle), is not walked without end. */
const MAX_LISTED = 10_000
const MAX_VISITED = 100_000
const MAX_DEPTH = 32

export async function listHdf5(payload: { path: string }): Promise<DatasetInfo[]> {
  const lib = await h5()
  return withFile(lib, payload.path, (file) => {
    const out: DatasetInfo[] = []
    let visited = 0
    const walk = (group: InstanceType<H5['Group']>, prefix: string, depth: number) => {
      for (const name of group.keys()) {
        if (out.length >= MAX_LISTED || ++visited > MAX_VISITED) return
        // Links are not followed: one to another file would read that file, and what a soft link
        // names inside this file is listed under its own path.
        if (isLink(group, `${prefix}${name}`)) continue
        const entity = group.get(name)
        if (entity instanceof lib.Group) {
          if (depth < MAX_DEPTH) walk(entity, `${prefix}${name}/`, depth + 1)
        } else if (entity instanceof lib.Dataset && !netcdfDimension(entity)) out.push(describe(entity, `${prefix}${name}`))
      }
    }
    walk(file, '/', 0)
    return out
  })
}

/** NetCDF-4 keeps a dimension without a variable as an empty dataset so named: no data. */
function netcdfDimension(d: InstanceType<H5['Dataset']>): boolean {
  try {
    const name = 'NAME' in d.attrs ? d.get_attribute('NAME', true) : null
    return typeof name === 'string' && name.startsWith('This is a netCDF dimension but not a netCDF variable')
  } catch {
    return false
  }
}

/** A soft or external link (h5wasm's lookups follow both). */
function isLink(group: InstanceType<H5['Group']>, path: string): boolean {
  try {
    return group.get_link(path) != null || 'filename' in (group.get_external_link(path) ?? {})
  } catch {
    return true
  }
}

function describe(d: InstanceType<H5['Dataset']>, path: string): DatasetInfo {
  const meta = d.metadata
  const shape = meta.shape ?? []
  const dtype = dtypeOf(meta)
  const unreadable =
    meta.virtual_sources?.length ? 'a virtual dataset, mapped from other files' :
    meta.shape === null ? 'no dataspace' :
    /^(u?int|float)\d+$/.test(dtype) ? (isNumeric(dtype) ? undefined : `${dtype} is not read`) :
    'not numeric'
  const chunkRows = meta.chunks?.[0]
  return { path, shape, dtype, ...(unreadable && { unreadable }), ...(chunkRows && { chunkRows }) }
}

/** HDF5 type classes: 0 integer, 1 float, 3 string, 6 compound, 8 enum, 9 vlen, 10 array. */
function dtypeOf(meta: { type: number; size: number; signed: boolean; vlen: boolean }): string {
  if (meta.type === 0) return `${meta.signed ? 'int' : 'uint'}${meta.size * 8}`
  if (meta.type === 1) return `float${meta.size * 8}`
  return ({ 2: 'time', 3: 'string', 4: 'bitfield', 5: 'opaque', 6: 'compound', 7: 'reference', 8: 'enum', 9: 'vlen', 10: 'array' } as Record<number, string>)[meta.type] ?? `class ${meta.type}`
}

export interface RowsRequest {
  path: string
  dataset: string
  first: number
  count: number
}

/** Rows [first, first + count) of a numeric dataset (a row: every element of the other dimensions), as f64. */
export async function readHdf5Rows(req: RowsRequest): Promise<Float64Array> {
  const lib = await h5()
  return withFile(lib, req.path, (file) => {
    const parts = req.dataset.split('/').filter(Boolean)
    const linked = parts.some((_, i) => isLink(file, '/' + parts.slice(0, i + 1).join('/')))
    const d = linked ? null : file.get(req.dataset)
    if (!(d instanceof lib.Dataset)) throw new ApiError('invalid-input', `${req.path}: no dataset ${req.dataset}`)
    const info = describe(d, req.dataset)
    if (info.unreadable) throw new ApiError('invalid-input', `${req.path}: dataset ${req.dataset} (${info.dtype}): ${info.unreadable}`)
    let got: unknown
    try {
      got = info.shape.length === 0 ? d.value : d.slice([[req.first, req.first + req.count]])
    } catch (e) {
      const why = reason(printed || e)
      throw new ApiError('invalid-input', `${req.path}: dataset ${req.dataset}, rows ${req.first}–${req.first + req.count - 1} cannot be read (${why})`)
    }
    return toF64(got)
  })
}

function toF64(got: unknown): Float64Array {
  // Its own buffer, which is transferred (never a view of the library's memory).
  if (got instanceof Float64Array) return got.byteOffset === 0 && got.buffer.byteLength === got.byteLength ? got : got.slice()
  if (got instanceof BigInt64Array || got instanceof BigUint64Array) {
    const out = new Float64Array(got.length)
    for (let i = 0; i < got.length; i++) out[i] = Number(got[i])
    return out
  }
  if (ArrayBuffer.isView(got)) return Float64Array.from(got as unknown as ArrayLike<number>)
  if (typeof got === 'number') return Float64Array.of(got)
  if (typeof got === 'bigint') return Float64Array.of(Number(got))
  throw new ApiError('internal', `h5wasm gave ${typeof got} for numeric data`)
}
