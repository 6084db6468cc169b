// The messages of an Arrow IPC file (the file format, "ARROW1" … footer … "ARROW1", or a stream),
// walked and checked before any data is read: every message's metadata and body must lie within
// the file, the metadata under a bound; the schema gives the numeric columns. Record batches are
// then read one by one, each as its own small stream (schema message + batch), by the loader's
// threads.
import { Message, MessageHeader, type Field, type Schema, Type } from 'apache-arrow'
import { Footer } from 'apache-arrow/ipc/metadata/file'
import { ApiError } from '../../../shared/errors'
import { openForReading } from '../csv/errors'

/** Message metadata longer than this is refused: a schema of millions of columns is not a table here. */
export const MAX_MESSAGE_METADATA = 64 * 1024 * 1024

export interface ArrowBatchPlace {
  /** Byte range of the batch's message (prefix, metadata and body). */
  start: number
  end: number
  rows: number
  compressed: boolean
}

export interface ArrowStructure {
  bytes: number
  /** The schema message's bytes (prefix and metadata), put before each batch to decode it alone. */
  schemaBytes: Uint8Array
  fields: Field[]
  batches: ArrowBatchPlace[]
}

export interface ArrowColumnKind {
  name: string
  /** What it holds, when not numbers. */
  holds?: string
}

export function arrowError(path: string, where: string | undefined, message: string): ApiError {
  return new ApiError('invalid-input', `${path}${where ? ` (${where})` : ''}: ${message}`)
}

const FILE_MAGIC = 'ARROW1'

export async function readArrowStructure(path: string): Promise<ArrowStructure> {
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
    let footerSchema: Schema | undefined
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
      try {
        footerSchema = Footer.decode(await read(dataEnd, footer)).schema
      } catch (e) {
        throw arrowError(path, 'footer', `the footer cannot be read (${(e as Error).message})`)
      }
    }
    let schemaBytes: Uint8Array | undefined
    let schema: Schema | undefined
    const batches: ArrowBatchPlace[] = []
    for (let pos = start; pos + 4 <= dataEnd; ) {
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
      const metadata = await read(pos + hdr, length)
      let message: Message
      try {
        message = Message.decode(metadata)
      } catch (e) {
        throw arrowError(path, where, `the message cannot be read (${(e as Error).message})`)
      }
      const body = Number(message.bodyLength)
      const end = pos + hdr + length + body
      if (!Number.isSafeInteger(body) || body < 0 || end > dataEnd) throw arrowError(path, where, `the message announces a body of ${message.bodyLength} bytes, past the file's data (which ends at byte ${dataEnd})`)
      if (message.headerType === MessageHeader.Schema) {
        if (schema) throw arrowError(path, where, 'a second schema')
        schema = message.header() as Schema
        schemaBytes = new Uint8Array(await read(pos, hdr + length))
      } else if (message.headerType === MessageHeader.RecordBatch) {
        if (!schema && !footerSchema) throw arrowError(path, where, 'a record batch before the schema')
        const batch = message.header() as { length: number | bigint; compression: unknown }
        const rows = Number(batch.length)
        if (!Number.isSafeInteger(rows) || rows < 0) throw arrowError(path, where, `the record batch announces ${batch.length} rows`)
        batches.push({ start: pos, end, rows, compressed: batch.compression != null })
      }
      pos = end
    }
    // A file's schema is in its footer; its stream may leave the schema message out.
    schema ??= footerSchema
    if (!schema) throw arrowError(path, undefined, 'no schema message: not an Arrow IPC file or stream')
    schemaBytes ??= schemaMessage(schema)
    return { bytes: size, schemaBytes, fields: schema.fields, batches }
  } catch (e) {
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  } finally {
    await file.close()
  }
}

/** A schema as a stream's first message (continuation, length, metadata padded to 8 bytes). */
function schemaMessage(schema: Schema): Uint8Array {
  const metadata = Message.encode(Message.from(schema))
  const padded = (metadata.length + 7) & ~7
  const out = new Uint8Array(8 + padded)
  const view = new DataView(out.buffer)
  view.setUint32(0, 0xffffffff, true)
  view.setInt32(4, padded, true)
  out.set(metadata, 8)
  return out
}

/** Whether a field holds numbers this loader reads, or what it holds. */
export function arrowKind(field: Field): ArrowColumnKind {
  const t = field.type
  switch (t.typeId) {
    case Type.Int:
    case Type.Decimal:
      return { name: field.name }
    case Type.Float:
      return (t as unknown as { precision: number }).precision === 0 ? { name: field.name, holds: 'half-precision floats (not read)' } : { name: field.name }
    case Type.Utf8:
    case Type.LargeUtf8:
      return { name: field.name, holds: 'text' }
    case Type.Bool:
      return { name: field.name, holds: 'booleans' }
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Interval:
    case Type.Duration:
      return { name: field.name, holds: 'dates or times' }
    case Type.Dictionary:
      return { name: field.name, holds: 'dictionary-encoded values (not read)' }
    default:
      return { name: field.name, holds: `values of type ${t.toString()}` }
  }
}
