// Reads a graph in the format its content says: a Matrix Market banner makes it a .mtx matrix
// wherever it is named; other text and binary files go by their extension (.gr DIMACS, .csv edge
// list, anything else the course's binary format), and a file another format's magic names (a
// Parquet file called .csv) is refused as that format. The file is read in bounded chunks and
// decoded as it comes, so its size is limited only by the memory of the edge arrays (a dense
// 40 000-vertex graph exceeds 2 GiB).
import { throwIfAborted } from '../../../shared/cancel'
import { open, type FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import type { ContentKind } from '../../../shared/formats'
import type { GraphFormat } from '../../../shared/workloads/paths/types'
import { sniffFile } from '../../io/sniff'
import { fileChunks, READ_CHUNK_BYTES } from './file-bytes'
import { sawRead } from '../../io/input-digest'
import type { Graph } from './graph'
import { CourseDecoder } from './read-course'
import { csvEdgesParser } from './read-csv-edges'
import { dimacsParser } from './read-dimacs'
import { mtxParser } from './read-mtx'
import { Utf8LineDecoder } from './text-lines'

const TEXT_NAMES: Partial<Record<GraphFormat, string>> = { 'csv-edges': 'a CSV edge list', dimacs: 'a DIMACS graph', mtx: 'a Matrix Market file' }

/** What other formats' magic bytes make a file, for the refusal. */
const FOREIGN: Partial<Record<ContentKind, string>> = { tiff: 'a TIFF image', parquet: 'a Parquet file', arrow: 'an Arrow file', hdf5: 'an HDF5 file', netcdf: 'a NetCDF file', npy: 'a NumPy array' }

/** A graph file's format from its content (`kind`, sniffed) and, among text and binary files, its name. */
export function graphFormatOf(path: string, kind: ContentKind, shown = path): GraphFormat {
  if (kind === 'mtx') return 'mtx'
  const foreign = FOREIGN[kind]
  if (foreign) throw new ApiError('invalid-input', `${shown}: ${foreign} by its content, not a graph (shortest paths read the course's binary graphs, DIMACS .gr, CSV edge lists and Matrix Market .mtx)`)
  const named = graphFormatOfName(path)
  if (named === 'mtx') throw new ApiError('invalid-input', `${shown}: not a Matrix Market file: it does not begin with the banner "%%MatrixMarket" (its content is ${kind === 'empty' ? 'empty' : kind})`)
  return named
}

/** The format a graph file's name says: .mtx Matrix Market, .gr DIMACS, .csv an edge list, anything else the course's binary format. */
export function graphFormatOfName(path: string): GraphFormat {
  const lower = path.toLowerCase()
  return lower.endsWith('.mtx') ? 'mtx' : lower.endsWith('.gr') ? 'dimacs' : lower.endsWith('.csv') ? 'csv-edges' : 'course'
}

/** `shown` is the path as the user gave it, for messages; `path` the readable real path. */
/** Bytes parsed between checks of the signal: well under a second of parsing on a loaded core. */
const CANCEL_SLICE_BYTES = 2 ** 20

/**
 * `signal` ends the read between pieces (a piece of READ_CHUNK_BYTES parses in well under a second);
 * `progress` hears the fraction of the file's bytes read after each piece.
 */
export async function readGraph(path: string, shown: string, chunkBytes = READ_CHUNK_BYTES, signal?: AbortSignal, progress?: (fraction: number) => void): Promise<Graph> {
  let file: FileHandle
  let size: number
  let kind: ContentKind
  try {
    kind = (await sniffFile(path)).kind
    file = await open(path, 'r')
  } catch (e) {
    throw new ApiError('io', `cannot read ${shown}: ${(e as Error).message}`)
  }
  try {
    try {
      size = (await file.stat()).size
    } catch (e) {
      throw new ApiError('io', `cannot read ${shown}: ${(e as Error).message}`)
    }
    const format = graphFormatOf(shown, kind)
    const decoder =
      format === 'course'
        ? new CourseDecoder(shown, size)
        : new Utf8LineDecoder(
            format === 'csv-edges' ? csvEdgesParser(shown) : format === 'mtx' ? mtxParser(shown, size) : dimacsParser(shown, size),
            () => new ApiError('invalid-input', `${shown}: not UTF-8 text (${TEXT_NAMES[format]} was expected from its ${format === 'mtx' ? 'banner' : 'extension'})`),
            shown,
          )
    let offset = 0
    for await (const piece of fileChunks(file, size, chunkBytes, shown)) {
      // The run's sha256 of the file is taken from these reads (io/input-digest.ts).
      sawRead(path, offset, piece)
      offset += piece.length
      // In slices with a turn of the event loop between, so that an abort is seen within a slice's parse.
      for (let at = 0; at < piece.length; at += CANCEL_SLICE_BYTES) {
        throwIfAborted(signal)
        decoder.push(piece.subarray(at, Math.min(piece.length, at + CANCEL_SLICE_BYTES)))
        if (signal) await new Promise((resolve) => setImmediate(resolve))
      }
      progress?.(offset / size)
    }
    throwIfAborted(signal)
    return decoder.finish()
  } finally {
    await file.close()
  }
}
