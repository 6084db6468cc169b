// HDF5 through h5wasm (the HDF5 C library compiled to WebAssembly, reading the real file through
// Node's fs). It runs synchronously, so it runs on a worker thread (hdf5-worker.ts): the main
// thread, which answers the dashboard, only waits for pieces. Each task opens the file, reads what
// it was asked (the tree, or a block of rows through a hyperslab) and closes it again.
import fs from 'node:fs'
import { resolve } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { type AttrValue, type Beyond, type DatasetInfo, MAX_CHUNK_BYTES, MAX_STRING_BYTES, MAX_STRINGS, type MissingRule, type NumericDtype, bytesOf, isNumeric, netcdfRule, ruleMatters, shapeText, sizeText, storageBound } from './datasets'
import { ElementReader } from './elements'
import { attrValue, dtypeOf, isLink, netcdfDimension } from './hdf5-objects'
import { netcdf4Shapes } from './netcdf4-shapes'
import { type HeaderFacts, openHeaders } from './object-header'

type H5 = typeof import('h5wasm/node').default
type H5Module = Awaited<H5['ready']>

let library: Promise<H5> | undefined
let module: H5Module
/** Set when the library aborted (a WebAssembly trap): its memory is then not to be trusted again. */
let broken: string | undefined

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
    module = await m.default.ready
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
  if (broken) throw new ApiError('invalid-input', `${path}: not read: the HDF5 library stopped on an earlier fault in this file (${broken})`)
  allowed = resolve(path)
  printed = ''
  let file: InstanceType<H5['File']> | undefined
  try {
    file = new lib.File(path, 'r')
    return use(file)
  } catch (e) {
    if (e instanceof ApiError) throw e
    // A trap (out of bounds, unreachable, out of memory) or an abort() inside the library.
    if (isTrap(e)) {
      broken = String((e as Error).message).split('\n')[0].slice(0, 200)
      throw new ApiError('invalid-input', `${path}: a damaged HDF5 file: the HDF5 library failed reading it (${broken})`)
    }
    const why = reason(e)
    if (!file) throw new ApiError('invalid-input', `${path}: not a readable HDF5 file${why ? ` (${why})` : ''}`)
    throw new ApiError('invalid-input', `${path}: a damaged HDF5 file (${why})`)
  } finally {
    try {
      file?.close()
    } catch {
      // closing a file the library failed on: nothing more to free
    }
  }
}

/** A WebAssembly trap (out of bounds, unreachable, out of memory) or an abort() inside the library. */
function isTrap(e: unknown): boolean {
  return (e instanceof Error && e.name === 'RuntimeError') || /^Aborted\(/.test(String((e as Error)?.message))
}

/** Datasets listed at most, objects visited at most and groups nested at most: a file of a million
 * groups, or a group hard-linked inside itself (a cycle), is not walked without end. */
const MAX_LISTED = 10_000
const MAX_VISITED = 100_000
const MAX_DEPTH = 32

export async function listHdf5(payload: { path: string }): Promise<DatasetInfo[]> {
  const lib = await h5()
  const bytes = fs.statSync(payload.path).size
  return withFile(lib, payload.path, (file) => {
    const found: [InstanceType<H5['Dataset']>, string][] = []
    const dimensions: InstanceType<H5['Dataset']>[] = []
    const unopened: DatasetInfo[] = []
    let visited = 0
    let netcdf = NETCDF4_ROOT.some((a) => a in file.attrs)
    const walk = (group: InstanceType<H5['Group']>, prefix: string, depth: number) => {
      for (const name of group.keys()) {
        if (found.length >= MAX_LISTED || ++visited > MAX_VISITED) return
        // Links are not followed: one to another file would read that file, and what a soft link
        // names inside this file is listed under its own path.
        if (isLink(group, `${prefix}${name}`)) continue
        try {
          const entity = group.get(name)
          if (entity instanceof lib.Group) {
            if (depth < MAX_DEPTH) walk(entity, `${prefix}${name}/`, depth + 1)
          } else if (entity instanceof lib.Dataset) {
            // Its type and shape first: what the library cannot open fails here, not in the listing.
            void entity.metadata
            if (netcdfDimension(entity)) {
              netcdf = true
              dimensions.push(entity)
            } else {
              if (!netcdf && NETCDF4_VARIABLE.some((a) => a in entity.attrs)) netcdf = true
              found.push([entity, `${prefix}${name}`])
            }
          }
        } catch (e) {
          // One object the library refuses to open (an integer type of 12 bits in 32, which HDF5 1.14
          // takes for damage) leaves the others readable.
          if (isTrap(e)) throw e
          unopened.push({ path: `${prefix}${name}`, shape: [], dtype: 'unknown', unreadable: `the HDF5 library cannot open it (${reason(e)})` })
        }
      }
    }
    walk(file, '/', 0)
    const listed = new Set(found.map(([, path]) => path))
    const headers = headerReader(payload.path)
    try {
      const infos = found.map(([d, path]) => ({ ...describe(d, path, bytes, netcdf, headers.facts(d)), ...coordinatesOf(d, listed) }))
      // A NetCDF-4 variable spans its dimensions' lengths, an unlimited one's being its longest variable's.
      if (netcdf) netcdf4Shapes(found.map(([d], k) => ({ d, info: infos[k], attr: (name: string) => attrValue(d, name) })), dimensions)
      return [...infos, ...unopened]
    } finally {
      headers.close()
    }
  })
}

/** The file's object headers, read for what the library keeps from its callers (object-header.ts), a dataset by its address. */
function headerReader(path: string): { facts(d: InstanceType<H5['Dataset']>): HeaderFacts; close(): void } {
  const headers = openHeaders(path)
  return {
    facts: (d) => {
      try {
        return headers.facts(Number(Buffer.from(module.create_object_reference(d.file_id, d.path)).readBigUInt64LE(0)))
      } catch (e) {
        if (isTrap(e)) throw e
        return {}
      }
    },
    close: headers.close,
  }
}

/** The dimension scale attached to each dimension (NetCDF-4's coordinate variables), where it is a listed dataset. */
function coordinatesOf(d: InstanceType<H5['Dataset']>, listed: Set<string>): { coordinates?: (string | null)[] } {
  const rank = d.metadata.shape?.length ?? 0
  const coordinates = Array.from({ length: rank }, (_, i) => {
    try {
      const scale = (d.get_attached_scales(i) ?? [])[0]
      return scale && listed.has(scale) && scale !== d.path ? scale : null
    } catch (e) {
      // A damaged file's fault inside the library ends the listing (withFile); a missing scale is none.
      if (isTrap(e)) throw e
      return null
    }
  })
  return coordinates.some((c) => c !== null) ? { coordinates } : {}
}

/**
 * The strings of a dataset of strings: 1-D, each element one (fixed-length or variable-length),
 * or 2-D of one-byte strings, each row one (NetCDF's character arrays). Bounded before reading:
 * at most MAX_STRINGS, fixed-length ones at most MAX_STRING_BYTES each (variable-length ones are
 * bounded by the file's bytes, and checked after).
 */
export async function readHdf5Strings(req: { path: string; dataset: string }): Promise<string[]> {
  const lib = await h5()
  return withFile(lib, req.path, (file) => {
    const parts = req.dataset.split('/').filter(Boolean)
    const linked = parts.some((_, i) => isLink(file, '/' + parts.slice(0, i + 1).join('/')))
    const d = linked ? null : file.get(req.dataset)
    if (!(d instanceof lib.Dataset)) throw new ApiError('invalid-input', `${req.path}: no dataset ${req.dataset}`)
    const meta = d.metadata
    const shape = meta.shape ?? []
    const where = `${req.path}: dataset ${req.dataset} (${dtypeOf(meta)}, ${shapeText(shape)})`
    if (meta.type !== 3) throw new ApiError('invalid-input', `${where} does not hold strings`)
    const chars = shape.length === 2 && !meta.vlen && meta.size === 1
    if (shape.length !== 1 && !chars) throw new ApiError('invalid-input', `${where}: names are a 1-D dataset of strings (or a 2-D array of characters, a name a row)`)
    if (shape[0] > MAX_STRINGS) throw new ApiError('invalid-input', `${where}: ${shape[0]} names; at most ${MAX_STRINGS} are read`)
    const width = chars ? shape[1] : meta.vlen ? 0 : meta.size
    if (width > MAX_STRING_BYTES) throw new ApiError('invalid-input', `${where}: strings of ${width} bytes; a name has at most ${MAX_STRING_BYTES}`)
    if (chars) {
      // A row's bytes up to its first NUL, as UTF-8 (a character of a name may take several bytes).
      const bytes = Buffer.from(readRaw(d, null, shape[0] * shape[1], 0))
      return Array.from({ length: shape[0] }, (_, r) => {
        const row = bytes.subarray(r * shape[1], (r + 1) * shape[1])
        const end = row.indexOf(0)
        return row.toString('utf8', 0, end < 0 ? row.length : end)
      })
    }
    const value = d.value as unknown
    return (Array.isArray(value) ? (value as unknown[]) : [value]).map((v, i) => {
      if (typeof v !== 'string') throw new ApiError('invalid-input', `${where}: element [${i}] is not a string (${v === null ? 'null' : typeof v})`)
      return v.replace(/\0+$/, '')
    })
  })
}

/** Attributes netcdf-c writes, which make an HDF5 file a NetCDF-4 one (whose variables follow NetCDF's fill rules). */
const NETCDF4_ROOT = ['_NCProperties', '_nc3_strict']
const NETCDF4_VARIABLE = ['_Netcdf4Dimid', '_Netcdf4Coordinates']

/** Filters every HDF5 library has (deflate, shuffle, Fletcher-32, szip, n-bit, scale-offset); others are plugins, which h5wasm lacks. */
const BUILT_IN_FILTERS = new Set([1, 2, 3, 4, 5, 6])

function describe(d: InstanceType<H5['Dataset']>, path: string, fileBytes: number, netcdf: boolean, facts: HeaderFacts): DatasetInfo {
  const meta = d.metadata
  const shape = meta.shape ?? []
  const dtype = dtypeOf(meta)
  const elements = shape.reduce((p, n) => p * n, 1)
  const chunkBytes = (meta.chunks ?? []).reduce((p, n) => p * n, meta.size)
  let filters: { id: number; name: string }[] = []
  let filtered = false
  try {
    filters = d.filters
    filtered = filters.length > 0
  } catch {
    filtered = true
  }
  const plugin = filters.find((f) => !BUILT_IN_FILTERS.has(f.id))
  // netcdf-c reads a variable whose fill value the writer did not set as one of fill mode off, whose bytes' default fill is no missing value.
  const fillMode = !netcdf ? 'none' : facts.fill === undefined || facts.fill === 'user' ? 'all' : 'not bytes'
  let rule: MissingRule | string | undefined
  if (isNumeric(dtype) && (netcdf || '_FillValue' in d.attrs)) rule = netcdfRule(dtype, (a) => attrValue(d, a), fillMode)
  const unreadable =
    meta.virtual_sources?.length ? 'a virtual dataset, mapped from other files' :
    meta.shape === null ? 'no dataspace' :
    !/^(u?int|float)\d+$/.test(dtype) ? 'not numeric' :
    !isNumeric(dtype) ? `${dtype} is not read` :
    typeof rule === 'string' ? rule :
    plugin ? `compressed with the ${plugin.name || 'unnamed'} filter (${plugin.id}), a plugin the HDF5 library here does not have (h5repack -f NONE writes a copy without it)` :
    meta.chunks && chunkBytes > MAX_CHUNK_BYTES ? `chunks of ${shapeText(meta.chunks)} (${sizeText(chunkBytes)} each, decompressed whole) are larger than the ${sizeText(MAX_CHUNK_BYTES)} read at once` :
    undefined
  const unstored = storageBound(elements, meta.size, fileBytes, filtered)
  const missing = ruleMatters(rule) ? rule : undefined
  const chunkRows = meta.chunks?.[0]
  return { path, shape, dtype, ...(unreadable && { unreadable }), ...(chunkRows && { chunkRows }), ...(missing && { missing }), ...(unstored && { unstored }) }
}

export interface RowsRequest {
  path: string
  dataset: string
  first: number
  count: number
  /** The rows the variable spans (a NetCDF-4 variable, its dimension's length), where they pass the dataset's own. */
  rows?: number
  /** The value of the rows past the dataset's own (netcdf-c's fill value for them), as text. */
  pad?: string
}

/** Rows [first, first + count) of a numeric dataset (a row: every element of the other dimensions), as f64, and its 64-bit integers beyond ±2^53. */
export async function readHdf5Rows(req: RowsRequest): Promise<{ values: Float64Array; beyond: Beyond }> {
  const lib = await h5()
  return withFile(lib, req.path, (file) => {
    const parts = req.dataset.split('/').filter(Boolean)
    const linked = parts.some((_, i) => isLink(file, '/' + parts.slice(0, i + 1).join('/')))
    const d = linked ? null : file.get(req.dataset)
    if (!(d instanceof lib.Dataset)) throw new ApiError('invalid-input', `${req.path}: no dataset ${req.dataset}`)
    const headers = headerReader(req.path)
    let facts: HeaderFacts
    try {
      facts = headers.facts(d)
    } finally {
      headers.close()
    }
    const info = describe(d, req.dataset, fs.statSync(req.path).size, false, facts)
    const why = info.unreadable ?? info.unstored
    if (why) throw new ApiError('invalid-input', `${req.path}: dataset ${req.dataset} (${info.dtype}): ${why}`)
    const stored = info.shape.length === 0 ? 1 : info.shape[0]
    const rows = req.pad !== undefined && req.rows !== undefined ? Math.max(req.rows, stored) : stored
    if (!(Number.isSafeInteger(req.first) && Number.isSafeInteger(req.count) && req.first >= 0 && req.count > 0 && req.first + req.count <= rows))
      throw new ApiError('internal', `${req.path}: dataset ${req.dataset}: rows ${req.first} + ${req.count} asked of ${rows}`)
    const per = info.shape.slice(1).reduce((p, n) => p * n, 1)
    const dtype = info.dtype as NumericDtype
    const item = bytesOf(dtype)
    const reader = new ElementReader(dtype, true, facts.bits)
    const values = new Float64Array(req.count * per)
    // The rows the dataset stores, then those past its end at the fill value.
    const count = Math.max(0, Math.min(req.count, stored - req.first))
    if (count > 0) {
      const hyperslab = info.shape.length === 0 ? null : {
        count: [BigInt(count), ...info.shape.slice(1).map(BigInt)],
        offset: [BigInt(req.first), ...info.shape.slice(1).map(() => 0n)],
        strides: info.shape.map(() => 1n),
      }
      const read = (fill: number) => {
        try {
          return readRaw(d, hyperslab, count * per * item, fill)
        } catch (e) {
          if (isTrap(e)) throw e
          const why = reason(printed || e)
          if (/no data can be read/.test(why)) throw unwritten(req, rows, per, info.shape.length, 0, per)
          throw new ApiError('invalid-input', `${req.path}: dataset ${req.dataset}, rows ${req.first}–${req.first + count - 1} cannot be read (${why})`)
        }
      }
      // What the library leaves unwritten (storage never allocated, and no fill value to read in its
      // place) is told from what it wrote by reading into bytes of 0xff, and where an element is all
      // 0xff, again into zeros: an element it wrote is the same both times.
      const first = read(0xff)
      const suspect = allBytes(first, item, 0xff)
      if (suspect >= 0) {
        const second = read(0x00)
        for (let i = suspect; i < first.length / item; i++)
          for (let b = 0; b < item; b++)
            if (first[i * item + b] !== second[i * item + b]) throw unwritten(req, rows, per, info.shape.length, i, first.length / item)
      }
      reader.readAll(first, values)
    }
    if (count < req.count) {
      values.fill(Number(req.pad), count * per)
      if (/^-?\d+$/.test(req.pad!) && (dtype === 'int64' || dtype === 'uint64') && Math.abs(Number(req.pad)) >= 2 ** 53) reader.beyond.push({ at: count * per, value: req.pad! })
    }
    return { values, beyond: reader.beyond }
  })
}

/** The first element whose bytes are all `byte`, or −1. */
function allBytes(b: Uint8Array, item: number, byte: number): number {
  outer: for (let i = 0; i < b.length; i += item) {
    for (let k = 0; k < item; k++) if (b[i + k] !== byte) continue outer
    return i / item
  }
  return -1
}

function unwritten(req: RowsRequest, rows: number, per: number, rank: number, i: number, n: number): ApiError {
  if (req.first === 0 && req.count === rows && i === 0 && n === rows * per) return new ApiError('invalid-input', `${req.path}: dataset ${req.dataset} was never written: it holds no values`)
  const row = req.first + Math.floor(i / per)
  const at = rank > 1 ? `[${row}, ${i % per}]` : `[${row}]`
  return new ApiError('invalid-input', `${req.path}: dataset ${req.dataset}, element ${at} was never written and has no fill value: it holds no value`)
}

/** The dataset's bytes (little-endian, its own element type) through the library, into memory first set to `fill`. */
function readRaw(d: InstanceType<H5['Dataset']>, slab: { count: bigint[]; offset: bigint[]; strides: bigint[] } | null, bytes: number, fill: number): Uint8Array {
  const at = module._malloc(Math.max(bytes, 1))
  if (at === 0) throw new ApiError('invalid-input', `${d.path}: ${sizeText(bytes)} could not be set aside in the HDF5 library's memory`)
  try {
    module.HEAPU8.fill(fill, at, at + bytes)
    module.get_dataset_data(d.file_id, d.path, slab?.count ?? null, slab?.offset ?? null, slab?.strides ?? null, BigInt(at))
    return module.HEAPU8.slice(at, at + bytes)
  } finally {
    module._free(at)
  }
}
