// The distance matrix a dashboard's run keeps on disk beside its history entry (JobContext.keep),
// as `distances-<k>.npy` (V × V in the matrix's own type: <i4, INF for no path; real distances
// <f8, ∞ for no path), so that a zoom reads its block range from there instead of
// solving the graph again, and the run's downloads are read from it (distance-files.ts): the newest kept matrix of each input file is remembered here, valid
// while the file's size and modification time are unchanged. Read back only when its size and
// header are those of a V × V matrix of either type (io/record-file.ts: a regular file, no link).
import { stat } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import type { ZoomRange } from '../../../shared/workloads/zoom-range'
import type { JobContext } from '../../engine'
import { openManagedPath } from '../../io/managed-folder'
import { matrixPieces, npyHeader } from './write-matrix'
import type { Distances } from './matrix'
import { INF } from '../../../shared/workloads/paths/types'
import { zoomDistances, type ZoomCells } from './zoom'

/** Input files whose kept matrix is remembered, newest last. */
const REMEMBERED = 16
const kept = new Map<string, { key: string; file: string; V: number; real: boolean }>()

/** The header and cell size of a kept V × V matrix, int32 or (`real`) f64. */
export function keptLayout(V: number, real: boolean): { header: Uint8Array; cell: 4 | 8; bytes: number } {
  const header = npyHeader(V, real ? '<f8' : '<i4')
  const cell = real ? 8 : 4
  return { header, cell, bytes: header.length + V * V * cell }
}

/** The kept file of a matrix: its .npy header and its own bytes. */
export function* keptMatrixPieces(d: Distances, V: number): Generator<Uint8Array> {
  yield keptLayout(V, d instanceof Float64Array).header
  yield* matrixPieces(d)
}

/** A kept matrix's rows as its type reads them. */
export const keptCells = (real: boolean, b: ArrayBufferLike, count: number, at = 0) => (real ? new Float64Array(b, at, count) : new Int32Array(b, at, count))

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
export async function keepDistances(keep: NonNullable<JobContext['keep']>, input: string, k: number, d: Distances, V: number, names?: readonly string[]): Promise<void> {
  kept.delete(input)
  if (names) {
    const text = JSON.stringify(names)
    if ((await keep(keptNamesName(k), Buffer.byteLength(text), text)) === null) return
  }
  const file = await keep(keptDistancesName(k), keptLayout(V, d instanceof Float64Array).bytes, keptMatrixPieces(d, V))
  const key = await keyOf(input)
  if (!file || !key) return
  kept.set(input, { key, file, V, real: d instanceof Float64Array })
  for (const old of kept.keys()) if (kept.size > REMEMBERED) kept.delete(old)
}

/** The kept matrix of `input`, when one is remembered and the file has not changed since. */
export async function keptDistances(input: string): Promise<{ file: string; V: number; real: boolean } | null> {
  const found = kept.get(input)
  return found && found.key === (await keyOf(input)) ? { file: found.file, V: found.V, real: found.real } : null
}

/** The block range read from the kept matrix, a row's span at a time. */
export async function zoomKept(file: string, V: number, rows: ZoomRange, cols: ZoomRange, signal?: AbortSignal, real = false): Promise<ZoomCells> {
  const { header, cell, bytes: expected } = keptLayout(V, real)
  // <history>/kept/<run>/<name>: no link at kept/, the run's folder or the file (io/managed-folder.ts).
  const { file: handle, size } = await openManagedPath(file, 3, { maxBytes: expected })
  try {
    if (size !== expected) throw new ApiError('io', `the kept distances ${file} hold ${size} bytes, not the ${expected} of a ${V} × ${V} matrix`)
    const head = new Uint8Array(header.length)
    await handle.read(head, 0, head.length, 0)
    if (!head.every((b, i) => b === header[i])) throw new ApiError('io', `the kept distances ${file} are not a ${V} × ${V} ${real ? 'f64' : 'int32'} matrix`)
    const span = cols[1] - cols[0] + 1
    return await zoomDistances(
      async (i) => {
        const bytes = new Uint8Array(span * cell)
        const { bytesRead } = await handle.read(bytes, 0, bytes.length, header.length + (i * V + cols[0]) * cell)
        if (bytesRead !== bytes.length) throw new ApiError('io', `the kept distances ${file} end early`)
        return keptCells(real, bytes.buffer, span)
      },
      rows,
      cols,
      signal,
      undefined,
      real ? Infinity : INF,
    )
  } finally {
    await handle.close()
  }
}
