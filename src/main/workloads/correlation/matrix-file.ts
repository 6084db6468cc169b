// `--matrix FILE.npy`: the full M × M matrix as NumPy reads it (<f8 in f64 mode, <f4 in f32), C
// order, written whole or not at all (src/main/io/atomic-write.ts), over an existing file only with --force.
import { writeFileAtomic } from '../../io/atomic-write'
import { npyHeader } from './npy'

export async function writeMatrixNpy(path: string, matrix: Float64Array | Float32Array, m: number, overwrite = false): Promise<{ path: string; bytes: number; dtype: '<f8' | '<f4' }> {
  const dtype = matrix instanceof Float64Array ? '<f8' : '<f4'
  const header = npyHeader(dtype, [m, m])
  const data = new Uint8Array(matrix.buffer, matrix.byteOffset, m * m * matrix.BYTES_PER_ELEMENT)
  const file = new Uint8Array(header.length + data.length)
  file.set(header)
  file.set(data, header.length)
  await writeFileAtomic(path, file, { overwrite })
  return { path, bytes: file.length, dtype }
}
