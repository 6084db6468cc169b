// Series from a .npy file: a 2-D array of <f4 or <f8 in C order, M × N (a series per row) with the
// rows layout, N × M (a series per column) with the columns layout. Read in chunks; every bad
// header, a truncated file and a non-finite value are errors naming the file and the place.
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import type { Layout } from '../../../shared/workloads/correlation/types'
import { ioError, openForReading } from '../../io/open-for-reading'
import { parseNpyHeader } from './npy'
import { MAX_ARRAY_ELEMENTS } from '../../io/column-sizes'
import { type SeriesMatrix, indexNames, seriesMatrix } from './series-matrix'

const CHUNK_BYTES = 16 * 1024 * 1024

export interface NpyShape {
  m: number
  n: number
  dtype: '<f4' | '<f8'
  dataOffset: number
  bytes: number
}

/** The series count and length a .npy file holds, checked against its size, without reading the data. */
export async function readNpyShape(path: string, layout: Layout): Promise<NpyShape> {
  const file = await openForReading(path)
  try {
    const size = (await file.stat()).size
    let head = new Uint8Array(Math.min(size, 4096))
    await file.read(head, 0, head.length, 0)
    let parsed = parseNpyHeader(path, head)
    if ('needs' in parsed) {
      if (parsed.needs > size) throw new ApiError('invalid-input', `${path}: the .npy header needs ${parsed.needs} bytes; the file has ${size}`)
      head = new Uint8Array(parsed.needs)
      await file.read(head, 0, head.length, 0)
      parsed = parseNpyHeader(path, head)
      if ('needs' in parsed) throw new ApiError('invalid-input', `${path}: the .npy header is cut short`)
    }
    const { descr, fortranOrder, shape, dataOffset } = parsed
    if (descr !== '<f4' && descr !== '<f8')
      throw new ApiError('invalid-input', `${path}: dtype ${descr}; only little-endian floats <f4 (float32) and <f8 (float64) are read`)
    if (fortranOrder) throw new ApiError('invalid-input', `${path}: Fortran order; save the array in C order (numpy.ascontiguousarray)`)
    if (shape.length !== 2) throw new ApiError('invalid-input', `${path}: a ${shape.length}-D array of shape (${shape.join(', ')}); a 2-D array is read`)
    const itemBytes = descr === '<f4' ? 4 : 8
    const elements = shape[0] * shape[1]
    if (elements > MAX_ARRAY_ELEMENTS)
      throw new ApiError('invalid-input', `${path}: shape (${shape.join(', ')}) announces ${elements} values; an array holds at most ${MAX_ARRAY_ELEMENTS} (2^32)`)
    const want = elements * itemBytes
    const have = size - dataOffset
    if (have < want) throw new ApiError('invalid-input', `${path}: truncated: shape (${shape.join(', ')}) of ${descr} needs ${want} bytes of data; the file holds ${have}`)
    if (have > want) throw new ApiError('invalid-input', `${path}: ${have - want} bytes follow the data of shape (${shape.join(', ')}) of ${descr}`)
    const [m, n] = layout === 'rows' ? shape : [shape[1], shape[0]]
    return { m, n, dtype: descr, dataOffset, bytes: size }
  } catch (e) {
    throw e instanceof ApiError ? e : ioError(path, e)
  } finally {
    await file.close()
  }
}

export interface ReadNpyOptions {
  layout: Layout
  signal?: AbortSignal
  progress?: (fraction: number) => void
}

export async function readNpy(path: string, opts: ReadNpyOptions): Promise<SeriesMatrix> {
  const shape = await readNpyShape(path, opts.layout)
  const { m, n, dtype, dataOffset } = shape
  const itemBytes = dtype === '<f4' ? 4 : 8
  const total = m * n
  const values = new Float64Array(total)
  // A file row: a series (rows layout) or a sample across all series (columns layout).
  const rowItems = opts.layout === 'rows' ? n : m
  const chunkItems = Math.max(rowItems, Math.floor(CHUNK_BYTES / itemBytes / rowItems) * rowItems)
  const buffer = new ArrayBuffer(chunkItems * itemBytes)
  const file = await openForReading(path)
  try {
    for (let first = 0; first < total; first += chunkItems) {
      throwIfAborted(opts.signal)
      const count = Math.min(chunkItems, total - first)
      const bytes = new Uint8Array(buffer, 0, count * itemBytes)
      let got = 0
      while (got < bytes.length) {
        const { bytesRead } = await file.read(bytes, got, bytes.length - got, dataOffset + first * itemBytes + got)
        if (bytesRead === 0) throw new ApiError('io', `cannot read ${path}: the file got shorter while it was read`)
        got += bytesRead
      }
      const chunk = dtype === '<f4' ? new Float32Array(buffer, 0, count) : new Float64Array(buffer, 0, count)
      for (let i = 0; i < count; i++)
        if (!Number.isFinite(chunk[i])) {
          const at = first + i
          const [series, sample] = opts.layout === 'rows' ? [Math.floor(at / n), at % n] : [at % m, Math.floor(at / m)]
          throw new ApiError('invalid-input', `${path}: series ${series} (s${series}), sample ${sample} is ${chunk[i]}; every value must be a finite number`)
        }
      // Chunks hold whole file rows: series (rows layout), or one sample of every series (columns).
      if (opts.layout === 'rows') values.set(chunk, first)
      else
        for (let r = 0, sample = first / m; r < count / m; r++, sample++)
          for (let s = 0, at = r * m; s < m; s++, at++) values[s * n + sample] = chunk[at]
      opts.progress?.((first + count) / total)
    }
  } catch (e) {
    throw e instanceof ApiError ? e : ioError(path, e)
  } finally {
    await file.close()
  }
  return seriesMatrix(indexNames(m), values, m, n)
}
