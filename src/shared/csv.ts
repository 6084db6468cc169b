// The one CSV cell writer of every CSV Paralab writes (result tables, distance matrices, generated
// series): RFC 4180 quoting, and no cell a spreadsheet would run as a formula; and the one reader
// of a line's fields, for headers sniffed and edge lists read.

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
 * The fields of one CSV line: RFC 4180 quotes ("" inside) undone, unquoted fields trimmed. `fields`
 * holds every field read before a fault; `ok` is false where a quote is left open or text follows a
 * closing quote before the comma.
 */
function lineFields(line: string): { fields: string[]; ok: boolean } {
  const fields: string[] = []
  let i = 0
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++
    if (line[i] === '"') {
      let value = ''
      i++
      for (;;) {
        const q = line.indexOf('"', i)
        if (q < 0) return { fields, ok: false }
        value += line.slice(i, q)
        if (line[q + 1] === '"') {
          value += '"'
          i = q + 2
        } else {
          i = q + 1
          break
        }
      }
      while (line[i] === ' ' || line[i] === '\t') i++
      if (i < line.length && line[i] !== ',') return { fields, ok: false }
      fields.push(value)
    } else {
      const comma = line.indexOf(',', i)
      const end = comma < 0 ? line.length : comma
      fields.push(line.slice(i, end).trim())
      i = end
    }
    if (i >= line.length) return { fields, ok: true }
    i++ // the comma
  }
}

/** The fields of one CSV line, or null when a quote is unbalanced or text follows a closing quote. */
export function csvFields(line: string): string[] | null {
  const { fields, ok } = lineFields(line)
  return ok ? fields : null
}

/**
 * The fields of a CSV file's first line, as its header names them. `text` is the file's beginning;
 * a first line cut off by its end (`whole` false) keeps only its complete fields, and a malformed
 * header its fields before the fault. Enough to tell an edge list's `source,target,weight` from a
 * results table before the file is read.
 */
export function headerFields(text: string, whole = true): string[] {
  const newline = text.search(/\r?\n/)
  const { fields, ok } = lineFields(newline >= 0 ? text.slice(0, newline) : text)
  // The last field of a line cut off may be cut off too.
  return ok && newline < 0 && !whole ? fields.slice(0, -1) : fields
}
