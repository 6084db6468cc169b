// A paths run's distance matrices as downloads, made from the matrices a dashboard's run kept
// (kept-distances.ts) as they are sent: `distances-<k>.npy` (<f8 with inf for no path, as
// `--format npy` writes it: a real run's kept file itself, an integer run's converted as it goes),
// `distances-<k>.csv` and `distances-<k>.mtx`, byte for byte what `paralab paths --output X.csv
// --format csv` and `--format mtx` write for graph k of the run. At V = 40 000 the .npy is 6.4 GB
// and the text larger: each is read a block of rows at a time, never held whole. A kept matrix is
// believed only when its size and header are those of the graph's V × V int32 matrix, and kept
// vertex names only when they are the graph's V names.
import { ApiError } from '../../../shared/errors'
import { graphFormatId, INF, type PathsResult, type RealArithmetic } from '../../../shared/workloads/paths/types'
import type { KeptFileOpener, MadeFile } from '../../engine'
import { BLOCK_BYTES, csvMatrixFromFile } from '../../io/csv-matrix'
import { readFully, readPieces } from '../../io/file-pieces'
import { TextPieces } from '../../io/text-pieces'
import { DISTANCE_FILE, DISTANCE_FILES } from './distance-file-names'
import { keptCells, keptDistancesName, keptLayout, keptNamesName } from './kept-distances'
import { asFloat64Pieces, npyHeader } from './write-matrix'
import { arithmeticNote, mtxHead, mtxNone, putMtxRow } from './write-mtx'

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
  const arithmetic = graph.arithmetic === 'f64' || graph.arithmetic === 'f32' ? graph.arithmetic : undefined
  const matrix: Kept = { kept, k, V, real: arithmetic !== undefined, ...(arithmetic && { arithmetic }) }
  const first = await openDistances(matrix)
  await first.file.close()
  if (format === 'npy') return { mime: MIME.npy, size: npyHeader(V, '<f8').length + V * V * 8, pieces: npyFile(matrix, signal) }
  const name_ = await vertexNames(kept, k, V, graphFormatId(graph.format))
  return { mime: MIME[format], pieces: format === 'csv' ? csvFile(matrix, name_, signal) : mtxFile(matrix, signal) }
}

/** Graph k's kept matrix: f64 (`real`, computed in `arithmetic`) or int32. */
interface Kept {
  kept: KeptFileOpener
  k: number
  V: number
  real: boolean
  arithmetic?: RealArithmetic
}

async function* npyFile(m: Kept, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, size, dataOffset } = await openDistances(m)
  try {
    if (m.real) {
      yield* readPieces(file, 0, size, 'the kept distances', signal)
      return
    }
    yield npyHeader(m.V, '<f8')
    for await (const block of rowBlocks(m, file, dataOffset, signal)) yield* asFloat64Pieces(block.cells as Int32Array)
  } finally {
    await file.close()
  }
}

async function* csvFile(m: Kept, name: (v: number) => string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { file, dataOffset } = await openDistances(m)
  const none = m.real ? Infinity : INF
  try {
    yield* csvMatrixFromFile(
      { rows: m.V, cols: m.V, corner: `distance${arithmeticNote(m.arithmetic)} from \\ to`, rowName: name, colName: name },
      { file, dataOffset, bytesPerCell: m.real ? 8 : 4, cells: (b, count) => keptCells(m.real, b, count), text: (x) => (x === none ? '' : String(x)) },
      signal,
    )
  } finally {
    await file.close()
  }
}

/** Matrix Market: the entries counted in a first pass over the kept matrix (the size line comes first), written in a second. */
async function* mtxFile(m: Kept, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const { V } = m
  const { file, dataOffset } = await openDistances(m)
  try {
    const noneValue = m.real ? Infinity : INF
    const none = mtxNone(false, noneValue)
    let entries = 0
    for await (const block of rowBlocks(m, file, dataOffset, signal)) for (let c = 0; c < block.cells.length; c++) if (!none(block.cells[c])) entries++
    const out = new TextPieces(undefined, undefined, true)
    out.put(mtxHead(V, entries, false, m.arithmetic))
    for await (const block of rowBlocks(m, file, dataOffset, signal))
      for (let i = 0; i < block.rows; i++) {
        putMtxRow(out, block.cells, i * V, V, block.first + i, false, noneValue)
        yield* out.filled()
      }
    yield* out.rest()
  } finally {
    await file.close()
  }
}

/** The matrix a block of whole rows at a time. */
async function* rowBlocks(m: Kept, file: Awaited<ReturnType<KeptFileOpener>>['file'], dataOffset: number, signal?: AbortSignal): AsyncGenerator<{ first: number; rows: number; cells: Int32Array | Float64Array }> {
  const { V } = m
  const cell = m.real ? 8 : 4
  const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / (V * cell)))
  for (let first = 0; first < V; first += perBlock) {
    if (signal?.aborted) throw new ApiError('cancelled', 'the download was cancelled')
    const rows = Math.min(perBlock, V - first)
    // A buffer a block: the npy download hands on pieces made from it.
    const bytes = new Uint8Array(rows * V * cell)
    await readFully(file, bytes, dataOffset + first * V * cell, 'the kept distances')
    yield { first, rows, cells: keptCells(m.real, bytes.buffer, rows * V) }
  }
}

/** The kept matrix of graph `k`, opened, when its size and header are those of a V × V matrix of its type. */
async function openDistances({ kept, k, V, real }: Kept) {
  const { header, bytes: expected } = keptLayout(V, real)
  const { file, size } = await kept(keptDistancesName(k))
  try {
    if (size !== expected) throw new ApiError('io', `the kept distances hold ${size} bytes, not the ${expected} of this graph's ${V} × ${V} matrix`)
    const head = new Uint8Array(header.length)
    await readFully(file, head, 0, 'the kept distances')
    if (!head.every((b, i) => b === header[i])) throw new ApiError('io', `the kept distances are not a ${V} × ${V} ${real ? 'f64' : 'int32'} matrix`)
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
