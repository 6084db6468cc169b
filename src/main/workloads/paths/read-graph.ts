// Reads a graph in the format its extension names: .gr DIMACS, .csv edge list, anything else the
// course's binary format.
import { readFile } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import type { Graph } from './graph'
import { parseCourseGraph } from './read-course'
import { parseCsvEdges } from './read-csv-edges'
import { parseDimacsGraph } from './read-dimacs'

export function graphFormatOf(path: string): Graph['format'] {
  const lower = path.toLowerCase()
  return lower.endsWith('.gr') ? 'dimacs' : lower.endsWith('.csv') ? 'csv' : 'course'
}

/** `shown` is the path as the user gave it, for messages; `path` the readable real path. */
export async function readGraph(path: string, shown: string): Promise<Graph> {
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (e) {
    throw new ApiError('io', `cannot read ${shown}: ${(e as Error).message}`)
  }
  const format = graphFormatOf(shown)
  if (format === 'course') return parseCourseGraph(bytes, shown)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ApiError('invalid-input', `${shown}: not UTF-8 text (a ${format === 'csv' ? 'CSV edge list' : 'DIMACS graph'} was expected from its extension)`)
  }
  return format === 'csv' ? parseCsvEdges(text, shown) : parseDimacsGraph(text, shown)
}
