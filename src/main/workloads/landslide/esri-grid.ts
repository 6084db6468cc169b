// ESRI ASCII grids as the study and GIS tools write them: a header of `key value` lines (tabs or
// spaces; ncols, nrows, xllcorner|xllcenter, yllcorner|yllcenter, cellsize, optional
// NODATA_value), then one row per line, first row (north) first. The study keeps the header in a
// file of its own; an `.asc` file has both. Errors name the file, the line and the column.
import { ApiError } from '../../../shared/errors'
import { atOnce } from '../../workers/in-turns'

export interface GridHeader {
  ncols: number
  nrows: number
  xllcorner: number
  yllcorner: number
  cellsize: number
  nodata: number | null
  /** The keys and values as written, for writing the header back unchanged. */
  entries: [key: string, value: string][]
}

const QUOTE_LIMIT = 40
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text)
}

export function gridError(file: string, line: number | undefined, message: string, column?: number): ApiError {
  const where = line === undefined ? file : column === undefined ? `${file}:${line}` : `${file}:${line}:${column}`
  return new ApiError('invalid-input', `${where}: ${message}`)
}

/** A decimal number as C's atof reads one, or NaN for anything else (atof would read "12abc" as 12: refused here). */
export function parseNumber(token: string): number {
  return NUMBER.test(token) ? Number(token) : NaN
}

/** The text's lines, without their line ends (\n or \r\n). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1)
  return lines
}

const KEYS: Record<string, 'ncols' | 'nrows' | 'xll' | 'yll' | 'cellsize' | 'nodata'> = {
  ncols: 'ncols',
  nrows: 'nrows',
  xllcorner: 'xll',
  xllcenter: 'xll',
  yllcorner: 'yll',
  yllcenter: 'yll',
  cellsize: 'cellsize',
  nodata_value: 'nodata',
}

/**
 * Reads the header at the top of `lines`: every line whose first word is a word rather than a
 * number. Returns the header and the index of the first line after it.
 */
export function parseHeader(file: string, lines: string[]): { header: GridHeader; next: number } {
  const seen = new Map<string, { value: number; line: number }>()
  const entries: GridHeader['entries'] = []
  let i = 0
  for (; i < lines.length; i++) {
    const text = lines[i].trim()
    if (text === '') continue
    const words = text.split(/[ \t]+/)
    if (!/^[A-Za-z_]/.test(words[0])) break
    const key = KEYS[words[0].toLowerCase()]
    if (!key) throw gridError(file, i + 1, `unknown header key ${quote(words[0])}; expected ncols, nrows, xllcorner, yllcorner, cellsize, NODATA_value`)
    if (seen.has(key)) throw gridError(file, i + 1, `${words[0]} appears twice in the header`)
    if (words.length !== 2) throw gridError(file, i + 1, `${words[0]} needs one value, got ${words.length - 1}`)
    const value = parseNumber(words[1])
    const integer = key === 'ncols' || key === 'nrows'
    if (integer && !(Number.isInteger(value) && value > 0)) throw gridError(file, i + 1, `${words[0]} must be a positive whole number, got ${quote(words[1])}`)
    if (key === 'cellsize' && !(value > 0 && Number.isFinite(value))) throw gridError(file, i + 1, `cellsize must be a positive number, got ${quote(words[1])}`)
    if (!Number.isFinite(value)) throw gridError(file, i + 1, `${words[0]} must be a number, got ${quote(words[1])}`)
    seen.set(key, { value, line: i + 1 })
    entries.push([words[0], words[1]])
  }
  const missing = (['ncols', 'nrows', 'xll', 'yll', 'cellsize'] as const).filter((k) => !seen.has(k))
  if (missing.length) {
    const names = missing.map((k) => (k === 'xll' ? 'xllcorner' : k === 'yll' ? 'yllcorner' : k))
    throw gridError(file, undefined, `the header has no ${names.join(', ')}`)
  }
  const get = (k: string) => seen.get(k)!.value
  return {
    header: {
      ncols: get('ncols'),
      nrows: get('nrows'),
      xllcorner: get('xll'),
      yllcorner: get('yll'),
      cellsize: get('cellsize'),
      nodata: seen.has('nodata') ? get('nodata') : null,
      entries,
    },
    next: i,
  }
}

/** The lower-left corner of an ESRI grid: xllcorner as given, or xllcenter half a cell back. */
export function ascCorner(header: GridHeader): [number, number] {
  const centre = (axis: string) => (header.entries.some(([k]) => k.toLowerCase() === `${axis}llcenter`) ? header.cellsize / 2 : 0)
  return [header.xllcorner - centre('x'), header.yllcorner - centre('y')]
}

export interface GridReadOptions {
  /** Replaces each value (e.g. NODATA by 0 thickness) or returns an error message for it. */
  check?: (value: number) => number | string
  /**
   * The header's NODATA_value: cells equal to it are NODATA whatever their magnitude (GDAL writes
   * float32 grids with −3.4028234663852886e+38), so the range check passes them.
   */
  nodata?: number | null
}

/** Values a grid may hold, in magnitude (altitudes and thicknesses in any unit). */
export const MAX_VALUE = 1e12

/**
 * Refuses, before allocating, a header that announces more rows or columns than the lines could
 * hold (a value takes at least one character and a separator), so that `ncols 1000000000` is an
 * error about the file rather than a failed allocation.
 */
function checkSize(file: string, lines: string[], first: number, { ncols, nrows }: Pick<GridHeader, 'ncols' | 'nrows'>): void {
  let rows = 0
  let longest = 0
  let characters = 0
  for (let i = first; i < lines.length; i++) {
    if (lines[i].trim() === '') continue
    rows++
    longest = Math.max(longest, lines[i].length)
    characters += lines[i].length + 1
  }
  // Within what the text could hold (a character a value, loosely), the parse below names the line at fault.
  if (ncols * nrows <= characters + 1024) return
  if (rows < nrows) throw gridError(file, undefined, `${rows} rows, the header's nrows is ${nrows}`)
  throw gridError(file, undefined, `its longest row has room for at most ${Math.ceil(longest / 2)} values, the header's ncols is ${ncols}`)
}

/**
 * The `nrows` × `ncols` values in `lines` from index `first` on, row-major, one row per line;
 * blank lines are skipped. Rows of the wrong length, non-numbers and rows too many or too few are
 * errors naming the line (and the column of a bad value).
 */
export function parseGrid(file: string, lines: string[], first: number, header: Pick<GridHeader, 'ncols' | 'nrows'>, opts: GridReadOptions = {}): Float64Array {
  return atOnce(parseGridRows(file, lines, first, header, opts))
}

/** parseGrid, yielding after each row: where a reader that must not hold the event loop may pause. */
export function* parseGridRows(file: string, lines: string[], first: number, header: Pick<GridHeader, 'ncols' | 'nrows'>, opts: GridReadOptions = {}): Generator<void, Float64Array> {
  const { ncols, nrows } = header
  checkSize(file, lines, first, header)
  const out = new Float64Array(ncols * nrows)
  let row = 0
  for (let i = first; i < lines.length; i++) {
    const line = lines[i]
    let k = row * ncols
    let count = 0
    let pos = 0
    const n = line.length
    while (pos < n) {
      // Tokens between spaces and tabs; a column is the token's 1-based character position.
      let c = line.charCodeAt(pos)
      if (c === 32 || c === 9) {
        pos++
        continue
      }
      const start = pos
      while (pos < n && (c = line.charCodeAt(pos)) !== 32 && c !== 9) pos++
      if (count === 0 && row === nrows) throw gridError(file, i + 1, `more rows than the header's nrows ${nrows}`)
      if (count === ncols) throw gridError(file, i + 1, `more than ncols ${ncols} values in this row`)
      const token = line.slice(start, pos)
      let v = parseNumber(token)
      if (Number.isNaN(v)) throw gridError(file, i + 1, `${quote(token)} is not a number`, start + 1)
      // Beyond this, sums of altitudes and thicknesses overflow to ∞ and the automaton's mass to NaN;
      // NODATA cells are walls (DEM) or no debris (source), never summed.
      if (!(Math.abs(v) <= MAX_VALUE) && v !== opts.nodata) throw gridError(file, i + 1, `${quote(token)} is out of range (at most ${MAX_VALUE} in magnitude)`, start + 1)
      if (opts.check) {
        const checked = opts.check(v)
        if (typeof checked === 'string') throw gridError(file, i + 1, checked, start + 1)
        v = checked
      }
      out[k++] = v
      count++
    }
    if (count === 0) continue
    if (count < ncols) throw gridError(file, i + 1, `${count} values in this row, the header's ncols is ${ncols}`)
    row++
    yield
  }
  if (row < nrows) throw gridError(file, undefined, `${row} rows, the header's nrows is ${nrows}`)
  return out
}
