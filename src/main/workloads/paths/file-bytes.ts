// Bytes of a file by positioned reads: in order, a bounded chunk at a time, or a few at an offset.
// A whole-file read cannot hold more than 2 GiB, and graph files and saved matrices can be larger.
import type { FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'

/** Bytes read at a time from a graph file. */
export const READ_CHUNK_BYTES = 16 * 2 ** 20

/** Fills `bytes` from the file at `position`; failures name `shown`. */
export async function readAt(file: FileHandle, bytes: Uint8Array, position: number, shown: string): Promise<void> {
  for (let got = 0; got < bytes.length; ) {
    let n: number
    try {
      n = (await file.read(bytes, got, bytes.length - got, position + got)).bytesRead
    } catch (e) {
      throw new ApiError('io', `cannot read ${shown}: ${(e as Error).message}`)
    }
    // The size was checked before reading: an early end means the file changed under us.
    if (n === 0) throw new ApiError('io', `cannot read ${shown}: the file got shorter while it was read`)
    got += n
  }
}

/** The file's first `size` bytes in order, `chunkBytes` a read, in one reused buffer: a piece is valid until the next is asked for. */
export async function* fileChunks(file: FileHandle, size: number, chunkBytes: number, shown: string): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(Math.min(chunkBytes, size))
  for (let at = 0; at < size; at += buffer.length) {
    const piece = buffer.subarray(0, Math.min(buffer.length, size - at))
    await readAt(file, piece, at, shown)
    yield piece
  }
}
