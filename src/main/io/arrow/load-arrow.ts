// Loads numeric columns of an Arrow IPC file or stream (.arrow, .feather v2) as the CSV loader
// does: the messages are walked and checked here (structure.ts), the dictionaries of the wanted
// dictionary-encoded columns are read on a thread of their own, then the loader's threads read
// record batches, each straight into its rows of the shared columns (table-parts.ts).
import { type Dictionary, type Field, Field as ArrowField, Type } from 'apache-arrow'
import { throwIfAborted } from '../../../shared/cancel'
import { withPool } from '../../workers/pool'
import { checkColumnRows, checkTableMemory } from '../column-sizes'
import type { CsvTable } from '../csv-loader'
import { nameList, quoteText } from '../quote'
import { loadParts, type LoadTableOptions } from '../table-parts'
import type { ArrowNumberType, BatchDictionary, DictionaryResult, DictionaryTask } from './batch'
import { arrowKind, arrowWidth, dictionaryValues, type ArrowColumnKind } from './column-kinds'
import { arrowError, readArrowStructure, type ArrowStructure } from './structure'

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
    const values = dictionaryValues(s.fields[field])
    return { name, field, slot, type: numberType(values ?? s.fields[field]) }
  })
  // Each batch's view of each wanted dictionary-encoded column's dictionary.
  const dictionaries = await readDictionaries(path, s, wanted, opts.signal)
  let rowStart = 0
  const parts = s.batches.map((b, index) => {
    const part = { index, rowStart, rows: b.rows, bodyStart: b.bodyStart, codec: b.codec, bytes: b.end - b.start }
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
    payload: (p) => ({
      ...p,
      path,
      bigEndian: s.bigEndian,
      nulls,
      wanted: wanted.map((w) => ({ name: w.name, type: w.type, slot: w.slot, place: s.batches[p.index].columns[w.field]!, dictionary: dictionaries.get(w.field)?.[p.index] })),
    }),
  })
}

/**
 * The dictionaries of the wanted dictionary-encoded columns, as each record batch sees them (by
 * field, then batch). A stream's batch sees the dictionary batches before it since the last that
 * replaced the dictionary; a file's batches see all of them, as Arrow's file readers read every
 * dictionary first (a file may add to a dictionary, never replace it).
 */
async function readDictionaries(path: string, s: ArrowStructure, wanted: { name: string; field: number; type: ArrowNumberType }[], signal?: AbortSignal): Promise<Map<number, BatchDictionary[]>> {
  const encoded = wanted.filter((w) => dictionaryValues(s.fields[w.field]))
  const found = new Map<number, BatchDictionary[]>()
  if (encoded.length === 0) return found
  const entries = s.dictionaries.reduce((n, d) => n + d.rows, 0)
  checkColumnRows(path, entries)
  checkTableMemory(path, entries, 1)
  await withPool('arrow-worker', 1, signal, async (pool) => {
    for (const w of encoded) {
      const type = s.fields[w.field].type as Dictionary
      const index = numberType(new ArrowField(w.name, type.indices))
      const batches = s.dictionaries.map((d, k) => ({ ...d, k })).filter((d) => d.id === type.id)
      // Each replacement starts a dictionary of its own; each batch of it adds to its length.
      const generations: (typeof batches)[] = []
      const after: { g: number; n: number }[] = []
      batches.forEach((d, j) => {
        if (j === 0 || !d.isDelta) {
          if (j > 0 && s.file) throw arrowError(path, `message at byte ${d.start}`, `the dictionary of column ${quoteText(w.name)} is replaced; an Arrow file may only add to a dictionary`)
          generations.push([])
        }
        generations[generations.length - 1].push(d)
        after.push({ g: generations.length - 1, n: generations[generations.length - 1].length })
      })
      const read: DictionaryResult[] = []
      for (const g of generations) {
        const task: DictionaryTask = { path, name: w.name, bigEndian: s.bigEndian, type: w.type, batches: g }
        read.push(await pool.run<DictionaryResult>('readDictionary', task))
      }
      // Record batches come in file order: the dictionary batches each has seen only grow.
      let seen = 0
      found.set(
        w.field,
        s.batches.map((b) => {
          const before = s.file ? s.dictionaries.length : b.dictionariesBefore
          while (seen < batches.length && batches[seen].k < before) seen++
          if (seen === 0) return { values: new Float64Array(0), length: 0, index }
          const { g, n } = after[seen - 1]
          return { values: read[g].values, valid: read[g].valid, length: read[g].ends[n - 1], index }
        }),
      )
    }
  })
  return found
}
