// A byte range of an open file as pieces of at most `pieceBytes`, read as they are asked for: a
// download of a kept file holds a piece or two, whatever the file's size. A piece is valid until the
// next is asked for: two buffers take turns, so that no megabyte of garbage a piece waits for a
// collection (the consumers write each piece before asking for the next).
import type { FileHandle } from 'node:fs/promises'
import { ApiError } from '../../shared/errors'

export const READ_PIECE_BYTES = 2 ** 20

/** Bytes [from, to) of `file`; `what` names it when it ends early. Stops at `signal` (the asker left). */
export async function* readPieces(file: FileHandle, from: number, to: number, what: string, signal?: AbortSignal, pieceBytes = READ_PIECE_BYTES): AsyncGenerator<Uint8Array> {
  const buffers = [new Uint8Array(Math.min(pieceBytes, to - from)), new Uint8Array(Math.min(pieceBytes, to - from))]
  for (let at = from, turn = 0; at < to; turn ^= 1) {
    if (signal?.aborted) throw new ApiError('cancelled', 'the download was cancelled')
    const piece = buffers[turn].subarray(0, Math.min(pieceBytes, to - at))
    await readFully(file, piece, at, what)
    at += piece.length
    yield piece
  }
}

/** Pieces made in memory, as a download takes them: stops at `signal` (the asker left). */
export async function* memoryPieces(pieces: Iterable<Uint8Array>, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  for (const p of pieces) {
    if (signal?.aborted) throw new ApiError('cancelled', 'the download was cancelled')
    yield p
  }
}

/** Fills `into` from byte `at` of `file`, or says where `what` ends. */
export async function readFully(file: FileHandle, into: Uint8Array, at: number, what: string): Promise<void> {
  for (let got = 0; got < into.length; ) {
    const { bytesRead } = await file.read(into, got, into.length - got, at + got)
    if (bytesRead === 0) throw new ApiError('io', `${what} ends at byte ${at + got}, before the ${at + into.length} it should hold`)
    got += bytesRead
  }
}
