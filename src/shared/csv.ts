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

/**
 * The fields of a CSV file's first line, as its header names them: RFC 4180 quotes ("" inside)
 * undone, unquoted fields trimmed. `text` is the file's beginning; a first line cut off by its end
 * (`whole` false) keeps only its complete fields. Enough to tell an edge list's `source,target,weight`
 * from a results table before the file is read.
 */
export function headerFields(text: string, whole = true): string[] {
  const newline = text.search(/\r?\n/)
  const complete = newline >= 0 || whole
  const line = newline >= 0 ? text.slice(0, newline) : text
  const out: string[] = []
  let i = 0
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++
    let value = ''
    if (line[i] === '"') {
      i++
      for (;;) {
        const q = line.indexOf('"', i)
        if (q < 0) return out // an open quote at the end: the field is cut off
        value += line.slice(i, q)
        if (line[q + 1] === '"') {
          value += '"'
          i = q + 2
        } else {
          i = q + 1
          break
        }
      }
      const comma = line.indexOf(',', i)
      i = comma < 0 ? line.length : comma
    } else {
      const comma = line.indexOf(',', i)
      const end = comma < 0 ? line.length : comma
      value = line.slice(i, end).trim()
      i = end
    }
    // The last field of a line cut off may be cut off too.
    if (i >= line.length && !complete) return out
    out.push(value)
    if (i >= line.length) return out
    i++
  }
}
