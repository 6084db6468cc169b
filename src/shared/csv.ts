// The one CSV cell writer of every CSV Paralab writes (result tables, distance matrices, generated
// series): RFC 4180 quoting, and no cell a spreadsheet would run as a formula.

/** A number as text: kept as it is, though it may start with - or +. */
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i

/**
 * `v` as one CSV cell. A cell a spreadsheet would run as a formula (=HYPERLINK(…), +, -, @, a
 * leading tab or CR) is written as text, behind an apostrophe, as OWASP advises; numbers, negative
 * ones too, stay numbers. Quoted where it holds a quote, comma, line break, or spaces at its ends.
 */
export function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v)
  if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s) && !NUMBER.test(s)) s = `'${s}`
  return /[",\n\r]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s
}

/** One line of cells, without its line feed. */
export function csvRow(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',')
}
