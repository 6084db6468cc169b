// A labelled matrix as CSV, streamed: rows of text gathered into pieces of about PIECE_CHARS and
// handed to writeFileAtomic's iterable form one at a time, so a 16 384 × 16 384 correlation matrix
// (several GB of text) or a V = 40 000 distance matrix is written holding one piece, never the file.
import { csvCell } from '../../shared/csv'

/** Characters of text gathered before they go to the file. */
export const PIECE_CHARS = 1 << 20

export interface CsvMatrix {
  rows: number
  cols: number
  /** The top-left cell, saying what the rows and columns are. */
  corner: string
  /** Names of the rows and of the columns (as text, escaped here). */
  rowName(i: number): string
  colName(j: number): string
  /** The cell's text, written as it is (numbers, or '' for none). */
  cell(i: number, j: number): string
}

/** The file's bytes in pieces; `counted.bytes` is the total once they have all been taken. */
export function csvMatrixPieces(m: CsvMatrix, counted: { bytes: number } = { bytes: 0 }, pieceChars = PIECE_CHARS): Generator<Uint8Array> {
  return (function* () {
    const encoder = new TextEncoder()
    let text = csvCell(m.corner)
    for (let j = 0; j < m.cols; j++) text += ',' + csvCell(m.colName(j))
    text += '\n'
    for (let i = 0; i < m.rows; i++) {
      let line = csvCell(m.rowName(i))
      for (let j = 0; j < m.cols; j++) line += ',' + m.cell(i, j)
      text += line + '\n'
      if (text.length >= pieceChars) {
        const piece = encoder.encode(text)
        counted.bytes += piece.length
        text = ''
        yield piece
      }
    }
    if (text) {
      const piece = encoder.encode(text)
      counted.bytes += piece.length
      yield piece
    }
  })()
}
