// Writes record batches of flat, non-null columns (doubles, or microsecond timestamps) as an Arrow
// IPC file, batch by batch through apache-arrow's writer.
import type { FileHandle } from 'node:fs/promises'
import { Field, Float64, makeData, RecordBatch, RecordBatchFileWriter, Schema, Struct, TimestampMicrosecond } from 'apache-arrow'
import type { ParquetColumnSpec } from '../parquet/write-parquet'

export class ArrowWriter {
  private readonly schema: Schema
  private readonly writer = new RecordBatchFileWriter()
  private readonly done: Promise<void>

  constructor(file: FileHandle, columns: ParquetColumnSpec[]) {
    this.schema = new Schema(columns.map((c) => new Field(c.name, c.type === 'double' ? new Float64() : new TimestampMicrosecond(), false)))
    // The writer is an async iterable of the file's bytes: they are written as they are made.
    this.done = (async () => {
      for await (const chunk of this.writer) await file.write(chunk)
    })()
    this.done.catch(() => {})
  }

  async writeBatch(values: Float64Array[]): Promise<void> {
    const length = values[0]?.length ?? 0
    const children = this.schema.fields.map((f, c) =>
      f.type instanceof Float64
        ? makeData({ type: f.type, length, data: values[c] })
        : makeData({ type: f.type as TimestampMicrosecond, length, data: BigInt64Array.from(values[c], (v) => BigInt(v)) }),
    )
    this.writer.write(new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length, children })))
    // Lets the file stream take what was written before the next batch is made.
    await new Promise((resolve) => setImmediate(resolve))
  }

  async finish(): Promise<void> {
    this.writer.finish()
    await this.done
  }
}
