// A small Parquet writer for the tables `paralab generate` makes: flat REQUIRED columns of doubles
// (or of INT64 microsecond timestamps), PLAIN-encoded, a data page per column and row group,
// uncompressed or gzip (through zlib). Row groups are written as they come, so a table of any
// length is written in bounded memory; the footer (Thrift compact protocol) comes last.
import { gzipSync } from 'node:zlib'
import type { FileHandle } from 'node:fs/promises'

export interface ParquetColumnSpec {
  name: string
  type: 'double' | 'timestamp-micros'
}

export type ParquetCompression = 'uncompressed' | 'gzip'

/** Thrift compact protocol, just what a footer and page headers need. */
export class Thrift {
  private bytes: number[] = []
  private last: number[] = [0]

  private varint(v: bigint | number): void {
    let x = BigInt(v)
    while (x >= 0x80n) {
      this.bytes.push(Number(x & 0x7fn) | 0x80)
      x >>= 7n
    }
    this.bytes.push(Number(x))
  }

  private header(id: number, type: number): void {
    const delta = id - this.last[this.last.length - 1]
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type)
    else {
      this.bytes.push(type)
      this.varint((id << 1) ^ (id >> 31))
    }
    this.last[this.last.length - 1] = id
  }

  int(id: number, v: number | bigint, type: 5 | 6 = 5): this {
    this.header(id, type)
    const x = BigInt(v)
    this.varint(x >= 0n ? x << 1n : ((-x) << 1n) - 1n)
    return this
  }
  long(id: number, v: number | bigint): this {
    return this.int(id, v, 6)
  }
  bool(id: number, v: boolean): this {
    this.header(id, v ? 1 : 2)
    return this
  }
  string(id: number, s: string): this {
    this.header(id, 8)
    const b = Buffer.from(s, 'utf8')
    this.varint(b.length)
    for (const x of b) this.bytes.push(x)
    return this
  }
  struct(id: number, body: (t: this) => void): this {
    this.header(id, 12)
    this.last.push(0)
    body(this)
    this.bytes.push(0)
    this.last.pop()
    return this
  }
  list<T>(id: number, elemType: number, items: T[], each: (t: this, item: T) => void): this {
    this.header(id, 9)
    if (items.length < 15) this.bytes.push((items.length << 4) | elemType)
    else {
      this.bytes.push(0xf0 | elemType)
      this.varint(items.length)
    }
    for (const item of items) {
      if (elemType === 12) {
        this.last.push(0)
        each(this, item)
        this.bytes.push(0)
        this.last.pop()
      } else each(this, item)
    }
    return this
  }
  /** A list element that is an i32 or a string (no field header). */
  rawInt(v: number): void {
    this.varint((v << 1) ^ (v >> 31))
  }
  rawString(s: string): void {
    const b = Buffer.from(s, 'utf8')
    this.varint(b.length)
    for (const x of b) this.bytes.push(x)
  }
  end(): Buffer {
    this.bytes.push(0)
    return Buffer.from(this.bytes)
  }
}

const INT64 = 2
const DOUBLE = 5
const PLAIN = 0
const RLE = 3
const CODEC = { uncompressed: 0, gzip: 2 } as const

export interface ChunkMeta {
  /** Where its page header starts, its bytes (header and page as stored), and its bytes uncompressed. */
  offset: number
  size: number
  raw: number
}

export interface RowGroupMeta {
  rows: number
  chunks: ChunkMeta[]
}

/** The header of a PLAIN data page of `values` non-null values. */
export function pageHeader(uncompressed: number, compressed: number, values: number): Buffer {
  return new Thrift()
    .int(1, 0)
    .int(2, uncompressed)
    .int(3, compressed)
    .struct(5, (t) => t.int(1, values).int(2, PLAIN).int(3, RLE).int(4, RLE))
    .end()
}

/** The footer's metadata (FileMetaData) of REQUIRED columns, each stored as one data page per row group. */
export function footerMetadata(columns: ParquetColumnSpec[], groups: RowGroupMeta[], compression: ParquetCompression): Buffer {
  return new Thrift()
    .int(1, 1)
    .list(2, 12, [undefined, ...columns], (t, col) => {
      if (!col) t.int(3, 0).string(4, 'schema').int(5, columns.length)
      else if (col.type === 'double') t.int(1, DOUBLE).int(3, 0).string(4, col.name)
      else t.int(1, INT64).int(3, 0).string(4, col.name).int(6, 10).struct(10, (l) => l.struct(8, (ts) => ts.bool(1, false).struct(2, (u) => u.struct(2, () => {}))))
    })
    .long(3, groups.reduce((n, g) => n + g.rows, 0))
    .list(4, 12, groups, (t, g) => {
      t.list(1, 12, g.chunks, (cc, chunk) => {
        const c = g.chunks.indexOf(chunk)
        cc.long(2, chunk.offset).struct(3, (m) =>
          m
            .int(1, columns[c].type === 'double' ? DOUBLE : INT64)
            .list(2, 5, [PLAIN, RLE], (l, e) => l.rawInt(e))
            .list(3, 8, [columns[c].name], (l, name) => l.rawString(name))
            .int(4, CODEC[compression])
            .long(5, g.rows)
            .long(6, chunk.raw)
            .long(7, chunk.size)
            .long(9, chunk.offset),
        )
      })
      t.long(2, g.chunks.reduce((n, ch) => n + ch.raw, 0)).long(3, g.rows)
    })
    .string(6, 'paralab')
    .end()
}

export class ParquetWriter {
  private offset = 4
  private readonly groups: RowGroupMeta[] = []

  constructor(
    private readonly file: FileHandle,
    private readonly columns: ParquetColumnSpec[],
    private readonly compression: ParquetCompression = 'uncompressed',
  ) {}

  async start(): Promise<void> {
    await this.file.write(Buffer.from('PAR1'), 0, 4, 0)
  }

  /** Writes one row group: a column's values each (doubles, or microseconds as whole numbers). */
  async writeRowGroup(values: Float64Array[]): Promise<void> {
    const rows = values[0]?.length ?? 0
    const chunks: ChunkMeta[] = []
    for (const [c, column] of values.entries()) {
      let page: Buffer
      if (this.columns[c].type === 'double') page = Buffer.from(column.buffer, column.byteOffset, column.byteLength)
      else {
        page = Buffer.allocUnsafe(8 * rows)
        for (let i = 0; i < rows; i++) page.writeBigInt64LE(BigInt(column[i]), 8 * i)
      }
      const body = this.compression === 'gzip' ? gzipSync(page, { level: 1 }) : page
      const header = pageHeader(page.length, body.length, rows)
      const offset = this.offset
      await this.file.write(header, 0, header.length, this.offset)
      await this.file.write(body, 0, body.length, this.offset + header.length)
      this.offset += header.length + body.length
      chunks.push({ offset, size: header.length + body.length, raw: header.length + page.length })
    }
    this.groups.push({ rows, chunks })
  }

  /** Writes the footer; returns the file's size. */
  async finish(): Promise<number> {
    const footer = footerMetadata(this.columns, this.groups, this.compression)
    const tail = Buffer.alloc(8)
    tail.writeUInt32LE(footer.length, 0)
    tail.write('PAR1', 4, 'latin1')
    await this.file.write(footer, 0, footer.length, this.offset)
    await this.file.write(tail, 0, 8, this.offset + footer.length)
    return this.offset + footer.length + 8
  }
}
