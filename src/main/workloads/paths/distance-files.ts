// A paths run's distance matrices as downloads, made from the matrices a dashboard's run kept
// (kept-distances.ts) as they are sent: `distances-<k>.npy` (the kept file itself, <i4),
// `distances-<k>.csv` and `distances-<k>.mtx`, byte for byte what `paralab paths --output X.csv
// --format csv` and `--format mtx` write for graph k of the run. At V = 40 000 the .npy is 6.4 GB
// and the text larger: each is read a block of rows at a time, never held whole. A kept matrix is
// believed only when its size and header are those of the graph's V × V int32 matrix, and kept
// vertex names only when they are the graph's V names.
import { ApiError } from '../../../shared/errors'
import { graphFormatId, INF, type PathsResult } from '../../../shared/workloads/paths/types'
import type { KeptFileOpener, MadeFile } from '../../engine'
import { BLOCK_BYTES, csvMatrixFromFile } from '../../io/csv-matrix'
import { readFully, readPieces } from '../../io/file-pieces'
import { TextPieces } from '../../io/text-pieces'
import { DISTANCE_FILE, DISTANCE_FILES } from './distance-file-names'
import { keptDistancesName, keptNamesName } from './kept-distances'
import { npyHeader } from './write-matrix'
import { mtxHead, mtxNone, putMtxRow } from './write-mtx'

/** Bytes a vertex name may take in the kept names, on average (a bound on reading them back). */
const NAME_BYTES = 4096

const MIME = { npy: 'application/octet-stream', csv: 'text/csv', mtx: 'text/plain' } as const

export async function keptDistanceFile(results: PathsResult, name: string, kept?: KeptFileOpener, signal?: AbortSignal): Promise<MadeFile> {
  const m = DISTANCE_FILE.exec(name)
  if (!m) throw new ApiError('invalid-argument', `paths makes no file ${JSON.stringify(name)}; it makes: ${DISTANCE_FILES.join(', ')}`)
  if (!kept) throw new ApiError('invalid-argument', `${name} is made from the distances a dashboard's run keeps: ask for it by the run's id`)
  const k = Number(m[1])
  const format = m[2] as keyof typeof MIME
  const graph = results?.graphs?.[k]
  if (!graph) throw new ApiError('invalid-argument', `the run has no graph ${k} (it has ${results?.graphs?.length ?? 0})`)
  const V = graph.vertices
  if (!Number.isSafeInteger(V) || V < 1) throw new ApiError('invalid-argument', 'results are not a paths run\'s')
  // Checked before the download starts, so a missing or damaged matrix is an answer, not a broken file.
  const first = await openDistances(kept, k, V)
  await first.file.close()
  if (format === 'npy') return { mime: MIME.npy, size: first.size, pieces: npyFile(kept, k, V, signal) }
  const name_ = await vertexNames(kept, k, V, graphFormatId(graph.format))
  return { mime: MIME[format], pieces: format === 'csv' ? csvFile(kept, k, V, name_, signal) : mtxFile(kept, k, V, signal) }
}

async function* npyFile(kept: KeptFileOpener, k: number, V: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, size } = await openDistances(kept, k, V)
  try {
    yield* readPieces(file, 0, size, 'the kept distances', signal)
  } finally {
    await file.close()
  }
}

async function* csvFile(kept: KeptFileOpener, k: number, V: number, name: (v: number) => string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, dataOffset } = await openDistances(kept, k, V)
  try {
    yield* csvMatrixFromFile(
      { rows: V, cols: V, corner: 'distance from \\ to', rowName: name, colName: name },
      { file, dataOffset, bytesPerCell: 4, cells: (b, count) => new Int32Array(b, 0, count), text: (x) => (x === INF ? '' : String(x)) },
      signal,
    )
  } finally {
    await file.close()
  }
}

/** Matrix Market: the entries counted in a first pass over the kept matrix (the size line comes first), written in a second. */
async function* mtxFile(kept: KeptFileOpener, k: number, V: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, dataOffset } = await openDistances(kept, k, V)
  try {
    const none = mtxNone(false)
    let entries = 0
    for await (const block of rowBlocks(file, dataOffset, V, signal)) for (let c = 0; c < block.cells.length; c++) if (!none(block.cells[c])) entries++
    const out = new TextPieces(undefined, undefined, true)
    out.put(mtxHead(V, entries, false))
    for await (const block of rowBlocks(file, dataOffset, V, signal))
      for (let i = 0; i < block.rows; i++) {
        putMtxRow(out, block.cells, i * V, V, block.first + i, false)
        yield* out.filled()
      }
    yield* out.rest()
  } finally {
    await file.close()
  }
}

/** The matrix a block of whole rows at a time (one buffer, read into again for each block). */
async function* rowBlocks(file: Awaited<ReturnType<KeptFileOpener>>['file'], dataOffset: number, V: number, signal?: AbortSignal): AsyncGenerator<{ first: number; rows: number; cells: Int32Array }> {
  const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / (V * 4)))
  const buffer = new Int32Array(Math.min(V, perBlock) * V)
  for (let first = 0; first < V; first += perBlock) {
    if (signal?.aborted) throw new ApiError('cancelled', 'the download was cancelled')
    const rows = Math.min(perBlock, V - first)
    const cells = buffer.subarray(0, rows * V)
    await readFully(file, new Uint8Array(cells.buffer, 0, cells.byteLength), dataOffset + first * V * 4, 'the kept distances')
    yield { first, rows, cells }
  }
}

/** The kept matrix of graph `k`, opened, when its size and header are those of a V × V int32 matrix. */
async function openDistances(kept: KeptFileOpener, k: number, V: number) {
  const header = npyHeader(V)
  const expected = header.length + V * V * 4
  const { file, size } = await kept(keptDistancesName(k))
  try {
    if (size !== expected) throw new ApiError('io', `the kept distances hold ${size} bytes, not the ${expected} of this graph's ${V} × ${V} matrix`)
    const head = new Uint8Array(header.length)
    await readFully(file, head, 0, 'the kept distances')
    if (!head.every((b, i) => b === header[i])) throw new ApiError('io', `the kept distances are not a ${V} × ${V} int32 matrix`)
    return { file, size, dataOffset: header.length }
  } catch (e) {
    await file.close()
    throw e
  }
}

/** Vertices as the graph's file names them (graph.ts vertexName): numbers, or the kept names of a CSV edge list. */
async function vertexNames(kept: KeptFileOpener, k: number, V: number, format: ReturnType<typeof graphFormatId>): Promise<(v: number) => string> {
  if (format === 'dimacs' || format === 'mtx') return (v) => String(v + 1)
  if (format !== 'csv-edges') return (v) => String(v)
  const { file, size } = await kept(keptNamesName(k))
  try {
    if (size > V * NAME_BYTES) throw new ApiError('io', `the kept vertex names take ${size} bytes, more than ${V} names may`)
    const names = JSON.parse((await file.readFile()).toString('utf8')) as unknown
    if (!Array.isArray(names) || names.length !== V || names.some((n) => typeof n !== 'string')) throw new ApiError('io', `the kept vertex names are not this graph's ${V} names`)
    return (v) => names[v] as string
  } catch (e) {
    throw e instanceof SyntaxError ? new ApiError('io', 'the kept vertex names are not JSON') : e
  } finally {
    await file.close()
  }
}
