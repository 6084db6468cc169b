// Reading back a V × V int32 matrix written by --output (bin or npy), e.g. the successors of a saved
// run. The file is checked (npy header, size) and then read at offsets: a query reads the few
// entries it follows, never the whole matrix (6.4 GB at V = 40 000).
import { open, type FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { READ_CHUNK_BYTES, readAt } from './file-bytes'

/** A saved matrix, open for reading entries. */
export interface IntMatrixFile {
  /** Entry (i, j). */
  at(i: number, j: number): Promise<number>
  /** The whole matrix (V² int32 must fit in memory). */
  all(): Promise<Int32Array>
  close(): Promise<void>
}

/** The matrix in `path` for a graph of V vertices, or an 'invalid-input' error saying why it is not one. */
export async function openIntMatrix(path: string, V: number): Promise<IntMatrixFile> {
  let file: FileHandle
  try {
    file = await open(path, 'r')
  } catch (e) {
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
  try {
    const offset = await dataOffset(file, path, V)
    return {
      async at(i, j) {
        const word = new Uint8Array(4)
        await readAt(file, word, offset + (i * V + j) * 4, path)
        return new DataView(word.buffer).getInt32(0, true)
      },
      async all() {
        const m = new Int32Array(V * V)
        // In chunks: no byte view beyond 2 GiB is read in one call.
        for (let at = 0; at < m.byteLength; at += READ_CHUNK_BYTES)
          await readAt(file, new Uint8Array(m.buffer, at, Math.min(READ_CHUNK_BYTES, m.byteLength - at)), offset + at, path)
        return m
      },
      close: () => file.close(),
    }
  } catch (e) {
    await file.close()
    throw e
  }
}

/** The whole matrix in `path`. */
export async function readIntMatrix(path: string, V: number): Promise<Int32Array> {
  const m = await openIntMatrix(path, V)
  try {
    return await m.all()
  } finally {
    await m.close()
  }
}

/** Where the data starts, after checking the header (npy) and that the data is V × V int32. */
async function dataOffset(file: FileHandle, path: string, V: number): Promise<number> {
  const bad = (msg: string) => new ApiError('invalid-input', `${path}: ${msg}`)
  let size: number
  try {
    size = (await file.stat()).size
  } catch (e) {
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
  const head = async (from: number, to: number) => {
    const bytes = Buffer.alloc(Math.max(0, Math.min(to, size) - from))
    await readAt(file, bytes, from, path)
    return bytes
  }
  let offset = 0
  if (path.toLowerCase().endsWith('.npy')) {
    const pre = await head(0, 12)
    if (pre.length < 10 || pre.toString('latin1', 0, 6) !== '\x93NUMPY') throw bad('not a .npy file (no \\x93NUMPY magic at byte 0)')
    const major = pre[6]
    if (major !== 1 && pre.length < 12) throw bad(`${size} bytes, shorter than a version ${major} .npy preamble`)
    const headerLength = major === 1 ? pre.readUInt16LE(8) : pre.readUInt32LE(8)
    offset = (major === 1 ? 10 : 12) + headerLength
    // Real headers are a few lines: a garbled length reads at most 1 MiB of them.
    const header = (await head(major === 1 ? 10 : 12, Math.min(offset, 2 ** 20))).toString('latin1')
    if (!/'descr':\s*'<i4'/.test(header)) throw bad(`holds ${/'descr':\s*'([^']*)'/.exec(header)?.[1] ?? 'an unknown type'}, not <i4`)
    if (/'fortran_order':\s*True/.test(header)) throw bad('is in Fortran order; row-major (C order) is expected')
    const shape = /'shape':\s*\((\d+),\s*(\d+)\)/.exec(header)
    if (!shape || Number(shape[1]) !== V || Number(shape[2]) !== V) throw bad(`has shape ${/'shape':\s*(\([^)]*\))/.exec(header)?.[1] ?? '?'}; the graph needs (${V}, ${V})`)
  } else if (path.toLowerCase().endsWith('.csv')) throw bad('a CSV matrix holds names; read back bin or npy files')
  if (size - offset !== V * V * 4) throw bad(`${size - offset} bytes of data; a ${V} × ${V} int32 matrix has ${V * V * 4}`)
  return offset
}
