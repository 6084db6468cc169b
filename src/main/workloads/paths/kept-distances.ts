// The distance matrix a dashboard's run keeps on disk beside its history entry (JobContext.keep),
// as `distances-<k>.npy` (<i4, V × V), so that a zoom reads its block range from there instead of
// solving the graph again, and the run's downloads are read from it (distance-files.ts): the newest kept matrix of each input file is remembered here, valid
// while the file's size and modification time are unchanged. Read back only when its size and
// header are those of a V × V int32 matrix (io/record-file.ts: a regular file, no link).
import { stat } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import type { ZoomRange } from '../../../shared/workloads/zoom-range'
import type { JobContext } from '../../engine'
import { openManagedPath } from '../../io/managed-folder'
import { matrixFile, npyHeader } from './write-matrix'
import { zoomDistances, type ZoomCells } from './zoom'

/** Input files whose kept matrix is remembered, newest last. */
const REMEMBERED = 16
const kept = new Map<string, { key: string; file: string; V: number }>()

async function keyOf(input: string): Promise<string | null> {
  const s = await stat(input).catch(() => null)
  return s ? JSON.stringify([s.size, s.mtimeMs]) : null
}

/** What graph `k`'s kept distances are called, and its vertices' names beside them (CSV edge lists). */
export const keptDistancesName = (k: number) => `distances-${k}.npy`
export const keptNamesName = (k: number) => `distances-${k}-names.json`

/**
 * Keeps graph `k`'s distances (read from `input`), and its vertices' names when the file names them
 * (a CSV edge list), and remembers where, unless the bound on kept files leaves no room.
 */
export async function keepDistances(keep: NonNullable<JobContext['keep']>, input: string, k: number, d: Int32Array, V: number, names?: readonly string[]): Promise<void> {
  kept.delete(input)
  if (names) {
    const text = JSON.stringify(names)
    if ((await keep(keptNamesName(k), Buffer.byteLength(text), text)) === null) return
  }
  const made = matrixFile(d, V, 'npy', String)
  const file = await keep(keptDistancesName(k), npyHeader(V).length + d.byteLength, made.data)
  const key = await keyOf(input)
  if (!file || !key) return
  kept.set(input, { key, file, V })
  for (const old of kept.keys()) if (kept.size > REMEMBERED) kept.delete(old)
}

/** The kept matrix of `input`, when one is remembered and the file has not changed since. */
export async function keptDistances(input: string): Promise<{ file: string; V: number } | null> {
  const found = kept.get(input)
  return found && found.key === (await keyOf(input)) ? { file: found.file, V: found.V } : null
}

/** The block range read from the kept matrix, a row's span at a time. */
export async function zoomKept(file: string, V: number, rows: ZoomRange, cols: ZoomRange, signal?: AbortSignal): Promise<ZoomCells> {
  const header = npyHeader(V)
  const expected = header.length + V * V * 4
  // <history>/kept/<run>/<name>: no link at kept/, the run's folder or the file (io/managed-folder.ts).
  const { file: handle, size } = await openManagedPath(file, 3, { maxBytes: expected })
  try {
    if (size !== expected) throw new ApiError('io', `the kept distances ${file} hold ${size} bytes, not the ${expected} of a ${V} × ${V} matrix`)
    const head = new Uint8Array(header.length)
    await handle.read(head, 0, head.length, 0)
    if (!head.every((b, i) => b === header[i])) throw new ApiError('io', `the kept distances ${file} are not a ${V} × ${V} int32 matrix`)
    const span = cols[1] - cols[0] + 1
    return await zoomDistances(
      async (i) => {
        const row = new Int32Array(span)
        const bytes = new Uint8Array(row.buffer)
        const { bytesRead } = await handle.read(bytes, 0, bytes.length, header.length + (i * V + cols[0]) * 4)
        if (bytesRead !== bytes.length) throw new ApiError('io', `the kept distances ${file} end early`)
        return row
      },
      rows,
      cols,
      signal,
    )
  } finally {
    await handle.close()
  }
}
