// Which columns of a CSV hold numbers and which hold text, decided from a sample of rows as
// DuckDB's sniffer does, never from one row: a timestamp or label column is text throughout, while
// a numeric column with one stray cell ("oops", "n/a") is still numeric, and the loader then names
// that cell by file:line:column instead of the column silently leaving the analysis.
import { ioError, openForReading } from '../open-for-reading'
import { splitLine } from './fields'
import type { CsvHeader } from './header'
import { numberFromText } from './number'

/** Rows sampled from the start of the data; a further window at the middle and at the end of larger files. */
export const SAMPLE_ROWS = 1024
const START_BYTES = 1024 * 1024
const WINDOW_BYTES = 64 * 1024

export interface ColumnKinds {
  /** Columns whose sampled cells are mostly numbers (or that have no non-empty sampled cell). */
  numeric: string[]
  /** Columns whose sampled cells are mostly text. */
  text: string[]
}

/** Counts, per column, of the sampled non-empty cells that are numbers and that are text. */
export function tallyKinds(columns: number, lines: Iterable<string>): { numbers: number[]; texts: number[] } {
  const numbers = new Array<number>(columns).fill(0)
  const texts = new Array<number>(columns).fill(0)
  for (const line of lines) {
    if (line.trim() === '') continue
    const fields = splitLine(line)
    // A line that does not split (an unclosed quote) or is ragged is the loader's to report.
    if (fields.length !== columns || fields.some((f) => 'error' in f)) continue
    fields.forEach((f, i) => {
      const text = (f as { text: string }).text
      if (text.trim() === '') return
      if (Number.isFinite(numberFromText(text))) numbers[i]++
      else texts[i]++
    })
  }
  return { numbers, texts }
}

/** Splits the columns by the kind most of their sampled cells have; a tie counts as numeric, so the loader names the stray cell. */
export function kindsFromTally(names: string[], tally: { numbers: number[]; texts: number[] }): ColumnKinds {
  const isText = (i: number) => tally.texts[i] > tally.numbers[i]
  return { numeric: names.filter((_, i) => !isText(i)), text: names.filter((_, i) => isText(i)) }
}

/** The kinds of a file's columns, from up to SAMPLE_ROWS rows at its start and a window at its middle and end. */
export async function sampleColumnKinds(path: string, head: CsvHeader): Promise<ColumnKinds> {
  const file = await openForReading(path)
  try {
    const read = async (from: number, length: number): Promise<string[]> => {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, head.bytes - from)))
      const { bytesRead } = await file.read(buf, 0, buf.length, from)
      const lines = buf.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)
      // A window that ends before the file's end ends mid-line: its last piece is no whole row.
      if (from + bytesRead < head.bytes) lines.pop()
      return lines
    }
    const lines = (await read(head.dataStart, START_BYTES)).slice(0, SAMPLE_ROWS)
    const data = head.bytes - head.dataStart
    if (data > START_BYTES)
      for (const at of [head.dataStart + Math.floor(data / 2), Math.max(head.dataStart, head.bytes - WINDOW_BYTES)]) {
        // A window starts mid-line: its first piece is no whole row either.
        lines.push(...(await read(at, WINDOW_BYTES)).slice(1))
      }
    return kindsFromTally(head.names, tallyKinds(head.names.length, lines))
  } catch (e) {
    throw e instanceof Error && typeof (e as NodeJS.ErrnoException).errno === 'number' ? ioError(path, e) : e
  } finally {
    await file.close()
  }
}
