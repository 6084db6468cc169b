// Reads a graph in the format its extension names: .gr DIMACS, .csv edge list, anything else the
// course's binary format. The file is read in bounded chunks and decoded as it comes, so its size
// is limited only by the memory of the edge arrays (a dense 40 000-vertex graph exceeds 2 GiB).
import { open, type FileHandle } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { fileChunks, READ_CHUNK_BYTES } from './file-bytes'
import type { Graph } from './graph'
import { CourseDecoder } from './read-course'
import { csvEdgesParser } from './read-csv-edges'
import { dimacsParser } from './read-dimacs'
import { Utf8LineDecoder } from './text-lines'

export function graphFormatOf(path: string): Graph['format'] {
  const lower = path.toLowerCase()
  return lower.endsWith('.gr') ? 'dimacs' : lower.endsWith('.csv') ? 'csv' : 'course'
}

/** `shown` is the path as the user gave it, for messages; `path` the readable real path. */
export async function readGraph(path: string, shown: string, chunkBytes = READ_CHUNK_BYTES): Promise<Graph> {
  let file: FileHandle
  let size: number
  try {
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
    const format = graphFormatOf(shown)
    const decoder =
      format === 'course'
        ? new CourseDecoder(shown, size)
        : new Utf8LineDecoder(
            format === 'csv' ? csvEdgesParser(shown) : dimacsParser(shown, size),
            () => new ApiError('invalid-input', `${shown}: not UTF-8 text (a ${format === 'csv' ? 'CSV edge list' : 'DIMACS graph'} was expected from its extension)`),
            shown,
          )
    for await (const piece of fileChunks(file, size, chunkBytes, shown)) decoder.push(piece)
    return decoder.finish()
  } finally {
    await file.close()
  }
}
