// The reference program's output: the thickness grid without a header, each value as C's printf
// "%f" followed by two spaces, a newline after each row. Its md5 is the check of every f64 backend.
import { createHash } from 'node:crypto'

const TIE_SCALE = 128

/**
 * `v` as C's "%f" prints it: 6 decimals, rounded from the exact binary value with ties to even
 * (glibc). JavaScript's toFixed rounds ties away from zero instead; a double lies exactly halfway
 * between two 6-decimal numbers only when it is an odd multiple of 1/128, so those are redone.
 */
export function formatF(v: number): string {
  if (Object.is(v, -0)) return '-0.000000'
  const text = v.toFixed(6)
  const scaled = Math.abs(v) * TIE_SCALE
  if (!Number.isInteger(scaled) || scaled % 2 === 0 || Math.abs(v) >= 1e15) return text
  // |v| × 10^6 = q × 7812.5 exactly: round the .5 to the even neighbour.
  const below = Math.abs(v) * 1e6 - 0.5
  const even = below % 2 === 0 ? below : below + 1
  const digits = String(even).padStart(7, '0')
  return `${v < 0 ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`
}

/** The grid in the reference format. */
export function referenceText(h: Float64Array, rows: number, cols: number): string {
  const lines: string[] = new Array(rows)
  const row: string[] = new Array(cols)
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) row[j] = formatF(h[i * cols + j])
    lines[i] = row.join('  ') + '  \n'
  }
  return lines.join('')
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex')
}

/** md5 of the grid's reference-format text. */
export function referenceMd5(h: Float64Array, rows: number, cols: number): string {
  return md5Hex(referenceText(h, rows, cols))
}
