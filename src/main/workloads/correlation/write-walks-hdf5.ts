// Generated series as an HDF5 file: one 2-D float32 dataset `/walks`, shape N × M (a series per
// column) or M × N (a series per row), chunked and deflated, written a block of rows at a time.
// h5wasm writes to a temporary name beside the target, renamed into place at the end.
import { randomBytes } from 'node:crypto'
import { rename, stat, unlink } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import type { Layout } from '../../../shared/workloads/correlation/types'

/** As write-walks.ts takes them (which imports this module). */
export interface WriteHdf5Options {
  layout: Layout
  force?: boolean
  signal?: AbortSignal
  progress?: (fraction: number) => void
}

/** The dataset `paralab generate walks x.h5` writes, to name with --dataset. */
export const WALKS_DATASET = '/walks'

const BLOCK_VALUES = 2 * 1024 * 1024

export async function writeSeriesHdf5(path: string, values: Float32Array, m: number, n: number, opts: WriteHdf5Options): Promise<number> {
  throwIfAborted(opts.signal)
  if (!opts.force && (await stat(path).then(() => true, () => false))) throw new ApiError('invalid-argument', `${path} already exists (use --force to overwrite)`)
  const h5 = (await import('h5wasm/node')).default
  const module = await h5.ready
  module.activate_throwing_error_handler()
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`
  const [rows, cols] = opts.layout === 'rows' ? [m, n] : [n, m]
  let file: InstanceType<typeof h5.File> | undefined
  try {
    file = new h5.File(temp, 'w')
    const chunkRows = Math.max(1, Math.min(rows, Math.floor(65536 / cols)))
    // Made empty and grown to its size: h5wasm creates a dataset from data in memory, which here
    // is written a block at a time instead.
    const dataset = file.create_dataset({ name: WALKS_DATASET, data: new Float32Array(0), shape: [0, cols], maxshape: [null, cols], dtype: '<f', chunks: [chunkRows, Math.min(cols, 65536)], compression: 'gzip', compression_opts: 4 })
    dataset.resize([rows, cols])
    dataset.create_attribute('layout', opts.layout === 'rows' ? 'a series per row' : 'a series per column')
    const step = Math.max(1, Math.floor(BLOCK_VALUES / cols))
    const block = new Float32Array(step * cols)
    for (let r0 = 0; r0 < rows; r0 += step) {
      throwIfAborted(opts.signal)
      const count = Math.min(step, rows - r0)
      if (opts.layout === 'rows') block.set(values.subarray(r0 * n, (r0 + count) * n))
      else for (let r = 0; r < count; r++) for (let s = 0; s < m; s++) block[r * m + s] = values[s * n + r0 + r]
      dataset.write_slice([[r0, r0 + count]], block.subarray(0, count * cols))
      opts.progress?.((r0 + count) / rows)
    }
    file.close()
    file = undefined
    throwIfAborted(opts.signal)
    await rename(temp, path)
    return (await stat(path)).size
  } catch (e) {
    try {
      file?.close()
    } catch {
      // closing after a failure: the temporary file is removed below
    }
    await unlink(temp).catch(() => {})
    if (e instanceof ApiError) throw e
    throw new ApiError('io', `cannot write ${path}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`)
  }
}
