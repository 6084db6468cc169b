// The messages of an Arrow IPC file (the file format, "ARROW1" … footer … "ARROW1", or a stream),
// walked and checked before any data is read: every message's metadata and body must lie within
// the file, the metadata under a bound, and is read by a bounded reader (flatbuffer.ts); the schema
// gives the columns, its byte order and their layout. For each record batch the place of every
// numeric column's validity and value buffers is found and checked against the batch's body and
// rows here, so the loader's threads read only checked ranges; likewise for each dictionary batch
// of a dictionary-encoded numeric column (its values; the record batches hold its indexes).
import { type Field, Message, type Schema, Type, UnionMode } from 'apache-arrow'
import { numericDictionaries, storedWidth } from './column-kinds'
import { Footer } from 'apache-arrow/ipc/metadata/file'
import { throwIfAborted } from '../../../shared/cancel'
import { ApiError } from '../../../shared/errors'
import { refuseDuplicateNames } from '../column-names'
import { quoteText } from '../quote'
import { openForReading } from '../open-for-reading'
import { FbTable, MetadataError } from './flatbuffer'

/** Message metadata longer than this is refused: a schema of millions of columns is not a table here. */
export const MAX_MESSAGE_METADATA = 64 * 1024 * 1024
/** Schemas nested deeper than this are refused (a list of structs of lists… is not a column here). */
export const MAX_FIELD_DEPTH = 64

/** A buffer's byte range within its batch's body. */
export interface ArrowBuffer {
  offset: number
  length: number
}

/** Where a numeric column's values lie in one record batch. */
export interface ArrowColumnPlace {
  nullCount: number
  validity: ArrowBuffer
  data: ArrowBuffer
}

export type ArrowCodec = 'none' | 'lz4' | 'zstd'

export interface ArrowBatchPlace {
  /** Byte range of the batch's message (prefix, metadata and body), and where its body starts. */
  start: number
  end: number
  bodyStart: number
  rows: number
  codec: ArrowCodec
  /** By field index: the places of the numeric top-level columns (undefined for the others); a dictionary-encoded column's are of its indexes. */
  columns: (ArrowColumnPlace | undefined)[]
  /** Dictionary batches (of `dictionaries`) before it in the file. */
  dictionariesBefore: number
}

/** A dictionary batch of a dictionary-encoded numeric column: where its values lie. */
export interface ArrowDictionaryPlace {
  /** Where its message starts. */
  start: number
  id: number
  /** Its values are added to the dictionary's (else they replace them). */
  isDelta: boolean
  bodyStart: number
  rows: number
  codec: ArrowCodec
  column: ArrowColumnPlace
}

export interface ArrowStructure {
  bytes: number
  fields: Field[]
  /** Whether the schema states big-endian buffers (each value is then read byte-swapped). */
  bigEndian: boolean
  batches: ArrowBatchPlace[]
  /** Dictionary batches of the numeric dictionary-encoded columns, in file order. */
  dictionaries: ArrowDictionaryPlace[]
  /** The file format (whose readers take every dictionary batch before any record batch), not a stream. */
  file: boolean
}

export function arrowError(path: string, where: string | undefined, message: string): ApiError {
  return new ApiError('invalid-input', `${path}${where ? ` (${where})` : ''}: ${message}`)
}

const FILE_MAGIC = 'ARROW1'
const V4 = 3
const V5 = 4
const HEADER = { Schema: 1, DictionaryBatch: 2, RecordBatch: 3, Tensor: 4, SparseTensor: 5 } as const

export async function readArrowStructure(path: string, signal?: AbortSignal): Promise<ArrowStructure> {
  const file = await openForReading(path)
  try {
    const { size } = await file.stat()
    const read = async (at: number, length: number) => {
      const b = Buffer.alloc(length)
      const { bytesRead } = await file.read(b, 0, length, at)
      if (bytesRead !== length) throw new ApiError('io', `cannot read ${path}: the file got shorter while it was read`)
      return b
    }
    let start = 0
    let dataEnd = size
    let footerSchema: DecodedSchema | undefined
    const head = await read(0, Math.min(8, size))
    if (head.toString('latin1', 0, 6) === FILE_MAGIC) {
      // The file format: magic, padding, the stream, the footer, its length, magic.
      if (size < 18) throw arrowError(path, undefined, `${size} bytes is too short for an Arrow file`)
      const tail = await read(size - 10, 10)
      if (tail.toString('latin1', 4) !== FILE_MAGIC) throw arrowError(path, `byte ${size - 6}`, `does not end with "${FILE_MAGIC}": the file is truncated`)
      const footer = tail.readInt32LE(0)
      if (footer < 0 || 8 + footer + 10 > size) throw arrowError(path, 'footer', `the footer announces ${footer} bytes; the file holds ${size}`)
      start = 8
      dataEnd = size - 10 - footer
      if (footer > MAX_MESSAGE_METADATA) throw arrowError(path, 'footer', `the footer announces ${footer} bytes, more than the ${MAX_MESSAGE_METADATA} read`)
      const bytes = await read(dataEnd, footer)
      footerSchema = metadata(path, 'footer', () => {
        const root = FbTable.root(bytes)
        const schema = root.table(1)
        if (!schema) throw new MetadataError('the footer has no schema')
        checkSchema(schema, bytes.length)
        root.vector(2, 24)
        root.vector(3, 24)
        return { schema: Footer.decode(bytes).schema, bigEndian: schema.i16(0) === 1, version: root.i16(0) }
      })
    }
    let schema: DecodedSchema | undefined
    let layout: FieldStart[] | undefined
    const batches: ArrowBatchPlace[] = []
    const dictionaries: ArrowDictionaryPlace[] = []
    let dictionaryFields: Map<number, Field> | undefined
    for (let pos = start; pos + 4 <= dataEnd; ) {
      throwIfAborted(signal)
      const prefix = await read(pos, Math.min(8, dataEnd - pos))
      const continued = prefix.readUInt32LE(0) === 0xffffffff
      if (continued && prefix.length < 8) throw arrowError(path, `byte ${pos}`, 'the file ends inside a message prefix')
      const length = continued ? prefix.readInt32LE(4) : prefix.readInt32LE(0)
      const hdr = continued ? 8 : 4
      if (length === 0) break // end of stream
      const where = `message at byte ${pos}`
      if (length < 0 || pos + hdr + length > dataEnd)
        throw arrowError(path, where, `the message announces ${length} bytes of metadata; the file's data ends at byte ${dataEnd}`)
      if (length > MAX_MESSAGE_METADATA) throw arrowError(path, where, `the message announces ${length} bytes of metadata, more than the ${MAX_MESSAGE_METADATA} read`)
      const bytes = await read(pos + hdr, length)
      const bodyStart = pos + hdr + length
      const m = metadata(path, where, () => {
        const root = FbTable.root(bytes)
        root.vector(4, 4)
        return { version: root.i16(0), type: root.u8(1), header: root.table(2), body: root.i64(3) }
      })
      if (m.body < 0n || m.body > BigInt(dataEnd - bodyStart))
        throw arrowError(path, where, `the message announces a body of ${m.body} bytes, past the file's data (which ends at byte ${dataEnd})`)
      if (m.version < V4) throw arrowError(path, where, `metadata version V${m.version + 1} (Arrow before 0.8) is not read; rewrite the file with a current Arrow library`)
      const end = bodyStart + Number(m.body)
      if (!m.header) throw arrowError(path, where, 'the message has no header')
      const header = m.header
      if (m.type === HEADER.Schema) {
        if (schema) throw arrowError(path, where, 'a second schema')
        schema = metadata(path, where, () => {
          checkSchema(header, bytes.length)
          return { schema: Message.decode(bytes).header() as Schema, bigEndian: header.i16(0) === 1, version: m.version }
        })
      } else if (m.type === HEADER.RecordBatch) {
        const s = schema ?? footerSchema
        if (!s) throw arrowError(path, where, 'a record batch before the schema')
        layout ??= fieldStarts(path, s)
        const places = metadata(path, where, () => batchPlaces(header, s.schema.fields, layout!, Number(m.body), m.version))
        batches.push({ start: pos, end, bodyStart, ...places, dictionariesBefore: dictionaries.length })
      } else if (m.type === HEADER.DictionaryBatch) {
        const s = schema ?? footerSchema
        if (!s) throw arrowError(path, where, 'a dictionary batch before the schema')
        // Only the dictionaries of numeric columns are read; the others' values are passed over.
        const place = metadata(path, where, () => {
          const id = header.i64(0)
          dictionaryFields ??= numericDictionaries(s.schema)
          const values = dictionaryFields.get(Number(id))
          const data = header.table(1)
          if (!values || !data) return undefined
          const places = batchPlaces(data, [values], [{ node: 0, buffer: 0, views: 0 }], Number(m.body), m.version)
          return { start: pos, id: Number(id), isDelta: header.u8(2) === 1, bodyStart, rows: places.rows, codec: places.codec, column: places.columns[0]! }
        })
        if (place) dictionaries.push(place)
      } else if (m.type === HEADER.Tensor || m.type === HEADER.SparseTensor) {
        throw arrowError(path, where, 'a tensor message: not a table')
      } else {
        throw arrowError(path, where, `a message of unknown type ${m.type}`)
      }
      pos = end
    }
    // A file's schema is in its footer; its stream may leave the schema message out.
    const s = schema ?? footerSchema
    if (!s) throw arrowError(path, undefined, 'no schema message: not an Arrow IPC file or stream')
    refuseDuplicateNames(path, s.schema.fields.map((f) => f.name), ' (schema)')
    return { bytes: size, fields: s.schema.fields, bigEndian: s.bigEndian, batches, dictionaries, file: footerSchema !== undefined }
  } catch (e) {
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  } finally {
    await file.close()
  }
}

interface DecodedSchema {
  schema: Schema
  bigEndian: boolean
  version: number
}

/** Runs a decode of metadata, any failure (ours or the library's) refused naming the place. */
function metadata<T>(path: string, where: string, decode: () => T): T {
  try {
    return decode()
  } catch (e) {
    if (e instanceof ApiError) throw e
    throw arrowError(path, where, `the metadata cannot be read (${e instanceof Error ? e.message : String(e)})`)
  }
}

/** Type ids of the schema's Type union that Arrow JS does not decode, and what they hold. */
const UNDECODED_TYPES: Record<number, string> = { 22: 'run-end encoded values', 25: 'list views', 26: 'large list views' }

/**
 * Checks a Schema table's vectors before the library walks it: each lies within the metadata (so
 * none announces more elements than its bytes), fields nest at most MAX_FIELD_DEPTH deep, and the
 * fields visited (a vector may name one field many times) stay under what the bytes can describe.
 */
function checkSchema(schema: FbTable, bytes: number): void {
  let visited = 0
  const fields = (table: FbTable, slot: number, depth: number) => {
    if (depth > MAX_FIELD_DEPTH) throw new MetadataError(`the schema nests fields more than ${MAX_FIELD_DEPTH} deep`)
    const vec = table.vector(slot, 4)
    visited += vec.length
    if (visited > bytes / 4) throw new MetadataError(`the schema names more fields than its ${bytes} bytes can describe`)
    for (let k = 0; k < vec.length; k++) {
      const field = table.tableAt(vec, k)
      const name = field.vector(0, 1)
      field.vector(6, 4)
      // Layouts Arrow JS does not decode (it would refuse the schema as of an unknown type): named here.
      const layout = UNDECODED_TYPES[field.u8(2)]
      if (layout) throw new MetadataError(`column ${quoteText(new TextDecoder().decode(new Uint8Array(field.view.buffer, field.view.byteOffset + name.start, name.length)))} holds ${layout}, which are not read`)
      fields(field, 5, depth + 1)
    }
  }
  schema.vector(2, 4)
  schema.vector(3, 8)
  fields(schema, 1, 0)
}

/** Where a top-level field's nodes and buffers start in a batch: after `views` view-typed fields, whose buffer counts vary by batch. */
interface FieldStart {
  node: number
  buffer: number
  views: number
}

/** The start of each top-level field, from the layout of every field before it (Arrow's columnar format). */
function fieldStarts(path: string, s: DecodedSchema): FieldStart[] {
  let node = 0
  let buffer = 0
  let views = 0
  const walk = (field: Field) => {
    const t = field.type
    node++
    switch (t.typeId) {
      case Type.Null:
        return
      case Type.Binary:
      case Type.Utf8:
      case Type.LargeBinary:
      case Type.LargeUtf8:
        buffer += 3
        return
      case Type.BinaryView:
      case Type.Utf8View:
        buffer += 2
        views++
        return
      case Type.List:
      case Type.LargeList:
      case Type.Map:
        buffer += 2
        break
      case Type.FixedSizeList:
      case Type.Struct:
        buffer += 1
        break
      case Type.Union:
        // Unions had a validity buffer before metadata V5.
        buffer += ((t as unknown as { mode: UnionMode }).mode === UnionMode.Dense ? 2 : 1) + (s.version < V5 ? 1 : 0)
        break
      case Type.Dictionary: // the batch holds the indexes; values are in dictionary batches
      default:
        buffer += 2
        return
    }
    for (const child of t.children ?? []) walk(child)
  }
  return s.schema.fields.map((f) => {
    const at = { node, buffer, views }
    try {
      walk(f)
    } catch (e) {
      throw arrowError(path, 'schema', `field "${f.name}" cannot be laid out (${(e as Error).message})`)
    }
    return at
  })
}

const bitmapBytes = (rows: number) => Math.ceil(rows / 8)

/** A record batch's rows, codec and the checked places of its numeric columns. */
function batchPlaces(rb: FbTable, fields: Field[], layout: FieldStart[], body: number, version: number): Omit<ArrowBatchPlace, 'start' | 'end' | 'bodyStart' | 'dictionariesBefore'> {
  const length = rb.i64(0)
  const nodes = rb.vector(1, 16)
  const buffers = rb.vector(2, 16)
  const compression = rb.table(3)
  const codecId = compression ? compression.u8(0) : -1
  if (codecId > 1) throw new MetadataError(`compression codec ${codecId} is unknown`)
  const codec: ArrowCodec = codecId < 0 ? 'none' : codecId === 0 ? 'lz4' : 'zstd'
  // Rows are bounded by the body: every numeric column holds at least a byte a row, uncompressed.
  if (length < 0n || length > BigInt(Number.MAX_SAFE_INTEGER)) throw new MetadataError(`the record batch announces ${length} rows`)
  const rows = Number(length)
  const variadic = version >= V5 ? rb.i64s(4) : []
  const viewBuffers = [0]
  for (const n of variadic) {
    if (n < 0n || n > BigInt(buffers.length)) throw new MetadataError(`a view column announces ${n} buffers; the batch has ${buffers.length}`)
    viewBuffers.push(viewBuffers[viewBuffers.length - 1] + Number(n))
  }
  const view = rb.view
  const region = (k: number, what: string): ArrowBuffer => {
    if (k >= buffers.length) throw new MetadataError(`the batch lists ${buffers.length} buffers; the schema needs more`)
    const offset = view.getBigInt64(buffers.start + 16 * k, true)
    const size = view.getBigInt64(buffers.start + 16 * k + 8, true)
    if (offset < 0n || size < 0n || offset + size > BigInt(body))
      throw new MetadataError(`the ${what}: ${size} bytes at byte ${offset}, past a body of ${body} bytes`)
    return { offset: Number(offset), length: Number(size) }
  }
  const columns = fields.map((f, i) => {
    const width = storedWidth(f)
    if (width === undefined) return undefined
    const at = layout[i]
    if (at.views >= viewBuffers.length) throw new MetadataError(`the batch announces buffers for ${variadic.length} view columns; the schema has more`)
    if (at.node >= nodes.length) throw new MetadataError(`the batch describes ${nodes.length} columns; the schema needs more`)
    const nodeLength = view.getBigInt64(nodes.start + 16 * at.node, true)
    const nullCount = view.getBigInt64(nodes.start + 16 * at.node + 8, true)
    if (nodeLength !== length) throw new MetadataError(`column "${f.name}" announces ${nodeLength} rows; the batch ${length}`)
    if (nullCount < 0n || nullCount > length) throw new MetadataError(`column "${f.name}" announces ${nullCount} nulls in ${length} rows`)
    const b = at.buffer + viewBuffers[at.views]
    const validity = region(b, `validity of column "${f.name}"`)
    const data = region(b + 1, `values of column "${f.name}"`)
    if (codec === 'none') {
      // A column of nulls only needs no values (writers may leave its buffers empty).
      if (nullCount < length && data.length < rows * width) throw new MetadataError(`column "${f.name}" holds ${data.length} bytes of values for ${rows} rows of ${width} bytes`)
      if (nullCount > 0n && nullCount < length && validity.length < bitmapBytes(rows)) throw new MetadataError(`column "${f.name}" has a validity bitmap of ${validity.length} bytes for ${rows} rows`)
    } else {
      for (const [what, r] of [['values', data], ['validity', validity]] as const)
        if (r.length > 0 && r.length < 8) throw new MetadataError(`the compressed ${what} buffer of column "${f.name}" holds ${r.length} bytes, less than its 8-byte length`)
    }
    return { nullCount: Number(nullCount), validity, data }
  })
  return { rows, codec, columns }
}
