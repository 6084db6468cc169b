// Series from CSV text, in either layout. Columns (the default): a header of series names and a
// series per column, loaded in parallel by the shared CSV loader. Rows: a series per line, its
// name first, streamed line by line. Every cell must hold a number: an empty or non-numeric cell,
// or a series of another length, is an error naming the line and the column or series.
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { loadCsv, readCsvHeader } from '../../io/csv-loader'
import { csvError } from '../../io/csv/errors'
import { ioError, openForReading } from '../../io/open-for-reading'
import { quoteText } from '../../io/quote'
import { splitLine } from '../../io/csv/fields'
import { sampleColumnKinds } from '../../io/csv/column-kinds'
import { encodingProblem, readHeader } from '../../io/csv/header'
import { numberFromText } from '../../io/csv/number'
import { type SeriesMatrix, seriesMatrix } from './series-matrix'

export interface ReadCsvOptions {
  signal?: AbortSignal
  progress?: (fraction: number) => void
  /** Columns layout: the columns to read; default every column whose sampled cells are mostly numbers. */
  columns?: string[]
}

/**
 * The columns to read as series, and those left out as text (a timestamp, a label): a column's kind
 * comes from a sample of its rows, so a numeric column with a stray cell is read, and that cell
 * reported, rather than left out.
 */
export async function chooseSeriesColumns(path: string, requested?: string[]): Promise<{ names: string[]; leftOut: string[] }> {
  if (requested?.length) return { names: [...new Set(requested)], leftOut: [] }
  const kinds = await sampleColumnKinds(path, await readHeader(path))
  return { names: kinds.numeric, leftOut: kinds.text }
}

/** A series per column under a header of names. */
export async function readCsvColumns(path: string, opts: ReadCsvOptions = {}): Promise<SeriesMatrix> {
  const names = opts.columns ?? (await readCsvHeader(path))
  const table = await loadCsv(path, {
    columns: names,
    signal: opts.signal,
    progress: (p) => opts.progress?.(p.bytesRead / p.totalBytes),
  })
  // The loader skips empty cells; here each one is an error, located by a second look.
  if (names.some((name) => table.columns[name].missing > 0)) throw await emptyCell(path, table.header, new Set(names))
  const m = names.length
  const n = table.rows
  const values = new Float64Array(m * n)
  names.forEach((name, i) => values.set(table.columns[name].values, i * n))
  return seriesMatrix(names, values, m, n)
}

/** The first empty cell of a file the loader found one in, as an error naming its line and column. */
async function emptyCell(path: string, header: string[], read: Set<string>): Promise<ApiError> {
  let line = 0
  for await (const text of lines(path)) {
    if (++line === 1 || text.trim() === '') continue
    const fields = splitLine(text)
    const at = fields.findIndex((f, i) => read.has(header[i]) && 'text' in f && f.text.trim() === '')
    if (at >= 0) return csvError(path, line, `column ${quoteText(header[at])} is empty; every cell must hold a number`, at + 1)
  }
  return csvError(path, undefined, 'a column has empty cells; every cell must hold a number')
}

function lines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })
}

/** A series per line: its name, then its values; no header. */
export async function readCsvRows(path: string, opts: ReadCsvOptions = {}): Promise<SeriesMatrix> {
  const file = await openForReading(path)
  let size: number
  try {
    size = (await file.stat()).size
    const head = Buffer.alloc(Math.min(size, 64 * 1024))
    await file.read(head, 0, head.length, 0)
    const nl = head.indexOf(10)
    const problem = encodingProblem(head, head.subarray(0, nl < 0 ? head.length : nl))
    if (problem) throw csvError(path, undefined, problem)
  } catch (e) {
    throw e instanceof ApiError ? e : ioError(path, e)
  } finally {
    await file.close()
  }

  const names: string[] = []
  const lineOf = new Map<string, number>()
  const rows: Float64Array[] = []
  let n = -1
  let line = 0
  let bytes = 0
  try {
    for await (const text of lines(path)) {
      line++
      bytes += Buffer.byteLength(text) + 1
      if (line % 256 === 0) {
        throwIfAborted(opts.signal)
        opts.progress?.(Math.min(1, bytes / Math.max(size, 1)))
      }
      if (text.trim() === '') continue
      // Plain lines split at commas; quoted fields take the careful path.
      const fields = text.includes('"') ? splitLine(text).map((f) => ('error' in f ? f : f.text)) : text.split(',')
      const bad = fields.find((f): f is { error: string } => typeof f !== 'string')
      if (bad) throw csvError(path, line, bad.error)
      const cells = fields as string[]
      const name = cells[0].trim()
      if (name === '') throw csvError(path, line, 'the series has no name: its first field is empty')
      const earlier = lineOf.get(name)
      if (earlier !== undefined) throw csvError(path, line, `series ${quoteText(name)} is named already on line ${earlier}`)
      const length = cells.length - 1
      if (n < 0) n = length
      else if (length !== n)
        throw csvError(path, line, `series ${quoteText(name)} has ${length} values; series ${quoteText(names[0])} (line ${lineOf.get(names[0])}) has ${n}`)
      const row = new Float64Array(length)
      for (let k = 0; k < length; k++) {
        const cell = cells[k + 1]
        const v = numberFromText(cell)
        if (Number.isFinite(v)) {
          row[k] = v
          continue
        }
        const where = `series ${quoteText(name)}, column ${k + 2}`
        if (cell.trim() === '') throw csvError(path, line, `${where} is empty; every cell must hold a number`, k + 2)
        const hint = rows.length === 0 ? ' (the rows layout has no header line)' : ''
        throw csvError(path, line, `${where}: ${quoteText(cell.trim())} ${Number.isNaN(v) ? 'is not a number' : 'is out of range'}${hint}`, k + 2)
      }
      names.push(name)
      lineOf.set(name, line)
      rows.push(row)
    }
  } catch (e) {
    throw e instanceof ApiError ? e : ioError(path, e)
  }
  if (rows.length === 0) throw csvError(path, undefined, 'no series: the file has no lines')
  const m = rows.length
  const values = new Float64Array(m * n)
  rows.forEach((row, i) => values.set(row, i * n))
  opts.progress?.(1)
  return seriesMatrix(names, values, m, n)
}
