// Loads numeric columns of an Arrow IPC file or stream (.arrow, .feather v2) as the CSV loader
// does: the messages are walked and checked here, then the loader's threads read record batches,
// each straight into its rows of the shared columns (table-parts.ts).
import { throwIfAborted } from '../../../shared/cancel'
import type { CsvTable } from '../csv-loader'
import { nameList, quoteText } from '../csv/errors'
import { loadParts, type LoadTableOptions } from '../table-parts'
import { arrowError, arrowKind, readArrowStructure, type ArrowColumnKind } from './structure'

/** The file's columns, each with what it holds when not numbers. */
export async function readArrowColumns(path: string): Promise<ArrowColumnKind[]> {
  return (await readArrowStructure(path)).fields.map(arrowKind)
}

export async function loadArrow(path: string, opts: LoadTableOptions): Promise<CsvTable> {
  throwIfAborted(opts.signal)
  const s = await readArrowStructure(path)
  const kinds = s.fields.map(arrowKind)
  const names = kinds.map((k) => k.name)
  const wanted = [...new Set(opts.columns)].map((name, slot) => {
    const field = names.indexOf(name)
    if (field < 0) throw arrowError(path, undefined, `no column ${quoteText(name)}; columns are: ${nameList(names)}`)
    if (kinds[field].holds) throw arrowError(path, undefined, `column ${quoteText(name)} holds ${kinds[field].holds}, not numbers`)
    return { name, field, slot }
  })
  let rowStart = 0
  const parts = s.batches.map((b, index) => {
    if (b.compressed)
      throw arrowError(path, `record batch ${index}`, 'its buffers are compressed (LZ4 or ZSTD), which is not read here; write the file uncompressed (e.g. Polars: writeIPC(path, { compression: "uncompressed" }))')
    const part = { index, rowStart, rows: b.rows, start: b.start, end: b.end, bytes: b.end - b.start }
    rowStart += b.rows
    return part
  })
  const nulls = opts.nulls ?? 'missing'
  return loadParts({
    ...opts,
    path,
    bytes: s.bytes,
    header: names,
    worker: 'arrow-worker',
    task: 'readBatch',
    parts,
    payload: (p) => ({ ...p, path, schemaBytes: s.schemaBytes, wanted, nulls }),
  })
}
