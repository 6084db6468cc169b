// CSV edge lists: a header naming the columns source, target and weight (others are ignored), then
// one edge per line. Vertex names are any strings, numbered in order of first appearance; weights
// may be negative, and real (graph.ts: a weight that is not an int32 one makes the graph f64). Every fault is named by line number.
import { ApiError } from '../../../shared/errors'
import { EdgeBuilder, type Graph } from './graph'
import { type LineParser, parseText, parseWeight, quoted } from './text-lines'
import { maxOf } from '../../../shared/extent'
import { csvFields } from '../../../shared/csv'

const COLUMNS = ['source', 'target', 'weight'] as const

/** A reader of a CSV edge list, fed line by line. */
export function csvEdgesParser(shown: string): LineParser {
  const names: string[] = []
  const index = new Map<string, number>()
  const vertex = (name: string) => {
    let v = index.get(name)
    if (v === undefined) {
      v = names.length
      names.push(name)
      index.set(name, v)
    }
    return v
  }
  let at = 0
  const edges = new EdgeBuilder(() => `${shown}:${at}`)
  let cols: number[] | undefined
  const readLine = (line: string, n: number) => {
    at = n
    const bad = (msg: string) => new ApiError('invalid-input', `${shown}:${n}: ${msg}`)
    if (line.trim() === '') return
    const fields = csvFields(line)
    if (!fields) throw bad(`unbalanced quotes in ${quoted(line)}`)
    if (!cols) {
      const header = fields.map((f) => f.toLowerCase())
      const missing = COLUMNS.filter((c) => !header.includes(c))
      if (missing.length) throw bad(`the header must name the columns source, target and weight; ${missing.join(', ')} missing in ${quoted(line)}`)
      cols = COLUMNS.map((c) => header.indexOf(c))
      return
    }
    const need = maxOf(cols) + 1
    if (fields.length < need) throw bad(`${fields.length} fields, the header has ${need} up to weight`)
    const [s, t, x] = cols.map((c) => fields[c])
    if (s === '') throw bad('empty source')
    if (t === '') throw bad('empty target')
    edges.push(vertex(s), vertex(t), parseWeight(x, bad))
  }
  const finish = (): Graph => {
    if (!cols) throw new ApiError('invalid-input', `${shown}: empty; expected a header source,target,weight`)
    if (names.length === 0) throw new ApiError('invalid-input', `${shown}: no edges, so no vertices (V = 0)`)
    return { format: 'csv-edges', V: names.length, ...edges.finish(), names }
  }
  return { line: readLine, finish }
}

/** A CSV text already in memory. */
export function parseCsvEdges(text: string, shown: string): Graph {
  return parseText(csvEdgesParser(shown), text, shown)
}
