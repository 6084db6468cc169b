// Result tables as CSV (RFC 4180: quoted where needed, CRLF-free rows ending in \n).
import type { ResultTable } from './definition'

export function tableCsv(table: ResultTable): string {
  return [table.columns, ...table.rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n'
}

/** A number as text: kept as it is, though it may start with - or +. */
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i

/** One CSV cell: quoted where needed, a would-be formula behind an apostrophe. */
export function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v)
  // A cell a spreadsheet would run as a formula (=HYPERLINK(…), +, -, @, a leading tab or CR) is
  // written as text, behind an apostrophe, as OWASP advises; numbers, negative ones too, stay numbers.
  if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s) && !NUMBER.test(s)) s = `'${s}`
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** Whether `v` is a number that is not finite, or null where a number was computed (JSON writes NaN and ±∞ as null). */
export function isNonFinite(v: unknown): boolean {
  return v === null || (typeof v === 'number' && !Number.isFinite(v))
}

/** `note`, followed by `nonFinite` when some row's `column` is NaN, ±∞ or null: an explanation only where one appears. */
export function noteWith(note: string, rows: ResultTable['rows'], column: number, nonFinite: string): string {
  return rows.some((row) => isNonFinite(row[column])) ? `${note} ${nonFinite}` : note
}

/** The tables' notes by table name, for results.json beside the CSV files. */
export function tableNotes(tables: ResultTable[]): Record<string, string> {
  return Object.fromEntries(tables.flatMap((t) => (t.note ? [[t.name, t.note]] : [])))
}

/** The note of the table named `name`, or '' when it has none. */
export function noteOf(tables: ResultTable[], name: string): string {
  return tables.find((t) => t.name === name)?.note ?? ''
}
