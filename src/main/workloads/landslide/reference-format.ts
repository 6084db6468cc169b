// The reference program's output: the thickness grid without a header, each value as C's printf
// "%f" followed by two spaces, a newline after each row. Its md5 is the check of every f64 backend.
import { createHash, type Hash } from 'node:crypto'
import { atOnce, inTurns } from '../../workers/in-turns'

const TIE_SCALE = 128

/**
 * `v` as C's "%f" prints it: 6 decimals, rounded from the exact binary value with ties to even
 * (glibc). JavaScript's toFixed rounds ties away from zero instead; a double lies exactly halfway
 * between two 6-decimal numbers only when it is an odd multiple of 1/128, so those are redone.
 */
export function formatF(v: number): string {
  // Most cells of a slide's grid are dry.
  if (v === 0) return Object.is(v, -0) ? '-0.000000' : '0.000000'
  const text = v.toFixed(6)
  const scaled = Math.abs(v) * TIE_SCALE
  if (!Number.isInteger(scaled) || scaled % 2 === 0 || Math.abs(v) >= 1e15) return text
  // |v| × 10^6 = q × 7812.5 exactly: round the .5 to the even neighbour.
  const below = Math.abs(v) * 1e6 - 0.5
  const even = below % 2 === 0 ? below : below + 1
  const digits = String(even).padStart(7, '0')
  return `${v < 0 ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`
}

/** Row `i` of the grid in the reference format, its newline included. */
function referenceRow(h: Float64Array, i: number, cols: number, row: string[]): string {
  for (let j = 0; j < cols; j++) row[j] = formatF(h[i * cols + j])
  return row.join('  ') + '  \n'
}

/** The grid in the reference format. */
export function referenceText(h: Float64Array, rows: number, cols: number): string {
  const lines: string[] = new Array(rows)
  const row: string[] = new Array(cols)
  for (let i = 0; i < rows; i++) lines[i] = referenceRow(h, i, cols, row)
  return lines.join('')
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex')
}

/**
 * The grid's reference-format text row by row, encoded (no text of the whole grid is made: at the
 * study's tiled size it would pass V8's longest string). A row that is all dry (+0) is the same text
 * every time: made once, so a big grid with a small slide costs little more than reading it.
 */
export function* referenceRowBytes(h: Float64Array, rows: number, cols: number): Generator<Uint8Array> {
  const row: string[] = new Array(cols)
  let dry: Buffer | undefined
  for (let i = 0; i < rows; i++) {
    let j = 0
    for (const at = i * cols; j < cols; j++) {
      const v = h[at + j]
      if (v !== 0 || 1 / v < 0) break
    }
    yield j === cols ? (dry ??= Buffer.from('0.000000  '.repeat(cols) + '\n')) : Buffer.from(referenceRow(h, i, cols, row))
  }
}

/** `pieces` as they come, each hashed into `hash` on its way: a file and its md5 from one formatting. */
export function* hashedOnTheWay(pieces: Iterable<Uint8Array>, hash: Hash): Generator<Uint8Array> {
  for (const piece of pieces) {
    hash.update(piece)
    yield piece
  }
}

/** md5 of the grid's reference-format text, hashed row by row; the yields are where it may pause. */
export function* referenceMd5Rows(h: Float64Array, rows: number, cols: number): Generator<void, string> {
  const hash = createHash('md5')
  for (const bytes of referenceRowBytes(h, rows, cols)) {
    hash.update(bytes)
    yield
  }
  return hash.digest('hex')
}

/** md5 of the grid's reference-format text. */
export function referenceMd5(h: Float64Array, rows: number, cols: number): string {
  return atOnce(referenceMd5Rows(h, rows, cols))
}

/** md5 of the grid's reference-format text, letting the event loop answer others every few rows. */
export function referenceMd5InTurns(h: Float64Array, rows: number, cols: number, signal?: AbortSignal): Promise<string> {
  return inTurns(referenceMd5Rows(h, rows, cols), signal)
}
