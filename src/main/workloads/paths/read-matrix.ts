// Reading back a V × V int32 matrix written by --output (bin or npy), e.g. the successors of a saved run.
import { readFile } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'

/** The matrix in `path` for a graph of V vertices, or an 'invalid-input' error saying why it is not one. */
export async function readIntMatrix(path: string, V: number): Promise<Int32Array> {
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (e) {
    throw new ApiError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
  const bad = (msg: string) => new ApiError('invalid-input', `${path}: ${msg}`)
  let offset = 0
  if (path.toLowerCase().endsWith('.npy')) {
    if (bytes.length < 10 || bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw bad('not a .npy file (no \\x93NUMPY magic at byte 0)')
    const major = bytes[6]
    const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8)
    offset = (major === 1 ? 10 : 12) + headerLength
    const header = bytes.toString('latin1', major === 1 ? 10 : 12, offset)
    if (!/'descr':\s*'<i4'/.test(header)) throw bad(`holds ${/'descr':\s*'([^']*)'/.exec(header)?.[1] ?? 'an unknown type'}, not <i4`)
    if (/'fortran_order':\s*True/.test(header)) throw bad('is in Fortran order; row-major (C order) is expected')
    const shape = /'shape':\s*\((\d+),\s*(\d+)\)/.exec(header)
    if (!shape || Number(shape[1]) !== V || Number(shape[2]) !== V) throw bad(`has shape ${/'shape':\s*(\([^)]*\))/.exec(header)?.[1] ?? '?'}; the graph needs (${V}, ${V})`)
  } else if (path.toLowerCase().endsWith('.csv')) throw bad('a CSV matrix holds names; read back bin or npy files')
  if (bytes.length - offset !== V * V * 4) throw bad(`${bytes.length - offset} bytes of data; a ${V} × ${V} int32 matrix has ${V * V * 4}`)
  const m = new Int32Array(V * V)
  new Uint8Array(m.buffer).set(bytes.subarray(offset))
  return m
}
