// Loads numeric columns of an Arrow IPC file or stream (.arrow, .feather v2) as the CSV loader
// does: the messages are walked and checked here (structure.ts), then the loader's threads read
// record batches, each straight into its rows of the shared columns (table-parts.ts).
import type { Field } from 'apache-arrow'
import { Type } from 'apache-arrow'
import { throwIfAborted } from '../../../shared/cancel'
import type { CsvTable } from '../csv-loader'
import { nameList, quoteText } from '../quote'
import { loadParts, type LoadTableOptions } from '../table-parts'
import type { ArrowNumberType } from './batch'
import { arrowError, arrowKind, arrowWidth, readArrowStructure, type ArrowColumnKind } from './structure'

/** The file's columns, each with what it holds when not numbers. */
export async function readArrowColumns(path: string, signal?: AbortSignal): Promise<ArrowColumnKind[]> {
  return (await readArrowStructure(path, signal)).fields.map(arrowKind)
}

/** A numeric field's type as the batch reader converts it. */
function numberType(field: Field): ArrowNumberType {
  const t = field.type as unknown as { typeId: Type; isSigned?: boolean; scale?: number }
  const width = arrowWidth(field)!
  if (t.typeId === Type.Float) return { kind: 'float', width }
  if (t.typeId === Type.Decimal) return { kind: 'decimal', width, scale: t.scale }
  return { kind: t.isSigned ? 'int' : 'uint', width }
}

export async function loadArrow(path: string, opts: LoadTableOptions): Promise<CsvTable> {
  throwIfAborted(opts.signal)
  const s = await readArrowStructure(path, opts.signal)
  const kinds = s.fields.map(arrowKind)
  const names = kinds.map((k) => k.name)
  const wanted = [...new Set(opts.columns)].map((name, slot) => {
    const field = names.indexOf(name)
    if (field < 0) throw arrowError(path, undefined, `no column ${quoteText(name)}; columns are: ${nameList(names)}`)
    if (kinds[field].holds) throw arrowError(path, undefined, `column ${quoteText(name)} holds ${kinds[field].holds}, not numbers`)
    return { name, field, slot, type: numberType(s.fields[field]) }
  })
  let rowStart = 0
  const parts = s.batches.map((b, index) => {
    if (b.codec === 'lz4')
      throw arrowError(path, `record batch ${index}`, 'its buffers are LZ4-compressed, which is not read here; write the file uncompressed or with ZSTD (e.g. pyarrow: feather.write_feather(table, path, compression="zstd"))')
    const part = { index, rowStart, rows: b.rows, bodyStart: b.bodyStart, codec: b.codec, bytes: b.end - b.start }
    rowStart += b.rows
    return { part, batch: b }
  })
  const nulls = opts.nulls ?? 'missing'
  return loadParts({
    ...opts,
    path,
    bytes: s.bytes,
    header: names,
    worker: 'arrow-worker',
    task: 'readBatch',
    parts: parts.map((p) => p.part),
    payload: (p) => ({
      ...p,
      path,
      bigEndian: s.bigEndian,
      nulls,
      wanted: wanted.map((w) => ({ name: w.name, type: w.type, slot: w.slot, place: s.batches[p.index].columns[w.field]! })),
    }),
  })
}
