// A labelled matrix as CSV, streamed: each piece is made when the file asks for it, so what the
// writer holds is one piece (PIECE_BYTES of encoded text) and one row, whatever the size.
import { describe, expect, it } from 'vitest'
import { csvMatrixPieces } from '../../src/main/io/csv-matrix'
import { PIECE_BYTES as PIECE_CHARS } from '../../src/main/io/text-pieces'

describe('csvMatrixPieces', () => {
  it('makes a piece only when asked, each at most a piece and a row of text', () => {
    const rows = 2000
    const cols = 500
    let cells = 0
    const counted = { bytes: 0 }
    const pieces = csvMatrixPieces({ rows, cols, corner: 'r', rowName: (i) => `row ${i}`, colName: (j) => `c${j}`, cell: () => (cells++, '0.123456789') }, counted)
    expect(cells).toBe(0)
    const rowChars = cols * 12 + 10
    const first = pieces.next().value as Uint8Array
    // One piece's rows and no more: the rest is not computed yet.
    expect(cells).toBeLessThanOrEqual((Math.ceil(PIECE_CHARS / rowChars) + 1) * cols)
    expect(first.length).toBeLessThan(PIECE_CHARS + rowChars)
    let total = first.length
    let n = 1
    for (const piece of pieces) {
      expect(piece.length).toBeLessThan(PIECE_CHARS + rowChars)
      total += piece.length
      n++
    }
    expect(cells).toBe(rows * cols)
    expect(n).toBeGreaterThan(5)
    expect(counted.bytes).toBe(total)
  })
})
