// A labelled matrix as CSV, streamed: cells encoded into pieces of PIECE_BYTES as they are made
// (text-pieces.ts) and handed to writeFileAtomic's iterable form or a download one at a time, so a
// 16 384 × 16 384 correlation matrix (several GB of text) or a V = 40 000 distance matrix is
// written holding one piece, never the file.
import type { FileHandle } from 'node:fs/promises'
import { ApiError } from '../../shared/errors'
import { csvCell } from '../../shared/csv'
import { PIECE_BYTES, TextPieces } from './text-pieces'

export interface CsvMatrix {
  rows: number
  cols: number
  /** The top-left cell, saying what the rows and columns are. */
  corner: string
  /** Rows that follow earlier ones of the same file (a block read from a larger matrix): no header line. */
  headless?: boolean
  /** Names of the rows and of the columns (as text, escaped here). */
  rowName(i: number): string
  colName(j: number): string
  /** The cell's text, written as it is (numbers, or '' for none). */
  cell(i: number, j: number): string
}

/**
 * The file's bytes in pieces (text-pieces.ts: each cell encoded as it is made, no row's text);
 * `counted.bytes` is the total once they have all been taken.
 */
export function* csvMatrixPieces(m: CsvMatrix, counted: { bytes: number } = { bytes: 0 }, pieceBytes = PIECE_BYTES): Generator<Uint8Array> {
  const out = new TextPieces(pieceBytes, counted)
  yield* csvRows(m, out)
  yield* out.rest()
}

/** The header line (unless headless) and the rows into `out`, handing on its pieces as they fill. */
function* csvRows(m: CsvMatrix, out: TextPieces): Generator<Uint8Array> {
  if (!m.headless) {
    out.put(csvCell(m.corner))
    for (let j = 0; j < m.cols; j++) {
      out.put(',')
      out.put(csvCell(m.colName(j)))
    }
    out.put('\n')
  }
  for (let i = 0; i < m.rows; i++) {
    out.put(csvCell(m.rowName(i)))
    for (let j = 0; j < m.cols; j++) {
      out.put(',')
      out.put(m.cell(i, j))
    }
    out.put('\n')
    yield* out.filled()
  }
}

/** Bytes of a matrix file read at a time by csvMatrixFromFile. */
export const BLOCK_BYTES = 8 * 2 ** 20

export interface MatrixFile {
  file: FileHandle
  /** Where the first row starts, and each cell's width in bytes (rows follow each other, C order). */
  dataOffset: number
  bytesPerCell: number
  /** The cells of a block of whole rows (its bytes, aligned for any typed array). */
  cells(block: ArrayBuffer, count: number): ArrayLike<number>
  /** A cell's text ('' for none). */
  text(v: number): string
}

/**
 * A matrix on disk as CSV pieces, read a block of rows at a time (at most BLOCK_BYTES): memory stays
 * a block and a few pieces whatever the matrix's size. Each piece is valid until the next is asked
 * for (its buffer is written into again: text-pieces.ts). Stops at `signal` (the asker left); the
 * caller closes the file, which it may do as soon as the generator is returned early.
 */
export async function* csvMatrixFromFile(
  m: Omit<CsvMatrix, 'cell' | 'headless'>,
  source: MatrixFile,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const out = new TextPieces(PIECE_BYTES, undefined, true)
  const rowBytes = m.cols * source.bytesPerCell
  const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / Math.max(1, rowBytes)))
  const buffer = new ArrayBuffer(Math.min(m.rows, perBlock) * rowBytes)
  if (m.rows === 0) yield* csvRows({ ...m, cell: () => '' }, out)
  for (let first = 0; first < m.rows; first += perBlock) {
    if (signal?.aborted) throw new ApiError('cancelled', 'the download was cancelled')
    const rows = Math.min(perBlock, m.rows - first)
    const bytes = new Uint8Array(buffer, 0, rows * rowBytes)
    for (let at = 0; at < bytes.length; ) {
      const { bytesRead } = await source.file.read(bytes, at, bytes.length - at, source.dataOffset + first * rowBytes + at)
      if (bytesRead === 0) throw new ApiError('io', `the matrix file ends before row ${first + Math.floor(at / rowBytes)} of ${m.rows}`)
      at += bytesRead
    }
    const cells = source.cells(buffer, rows * m.cols)
    yield* csvRows(
      {
        ...m,
        rows,
        headless: first > 0,
        rowName: (i) => m.rowName(first + i),
        cell: (i, j) => source.text(cells[i * m.cols + j]),
      },
      out,
    )
  }
  yield* out.rest()
}
