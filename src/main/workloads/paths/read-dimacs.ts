// DIMACS shortest-path graphs (.gr): `c` comment lines, one `p sp n m` line, then m `a u v w` arc
// lines with vertices 1…n. Weights may be negative, and real (graph.ts: a weight that is not an
// int32 one makes the graph f64). Every fault is named by line number.
import { ApiError } from '../../../shared/errors'
import { EdgeBuilder, type Graph } from './graph'
import { type LineParser, parseCount, parseInteger, parseText, parseWeight, quoted } from './text-lines'

/** The shortest arc line, "a 1 2 3" and its line feed (the last line may lack it). */
const MIN_ARC_BYTES = 8

/** A reader of a .gr file of `bytes` bytes, fed line by line. */
export function dimacsParser(shown: string, bytes: number): LineParser {
  let V = 0
  let declared = -1
  let problemLine = 0
  let at = 0
  const edges = new EdgeBuilder(() => `${shown}:${at}`)
  const readLine = (line: string, n: number) => {
    at = n
    const bad = (msg: string) => new ApiError('invalid-input', `${shown}:${n}: ${msg}`)
    const t = line.trim().split(/\s+/)
    if (t[0] === '' || t[0] === 'c') return
    if (t[0] === 'p') {
      if (problemLine) throw bad(`a second problem line (the first is line ${problemLine})`)
      if (t.length !== 4 || t[1] !== 'sp') throw bad(`expected "p sp <vertices> <arcs>", got ${quoted(line)}`)
      const nv = parseCount(t[2], 'the vertex count', bad)
      const na = parseCount(t[3], 'the arc count', bad, 0, Number.MAX_SAFE_INTEGER)
      // More arcs than the file's bytes can hold is a file cut short or a wrong count.
      if (na * MIN_ARC_BYTES > bytes + 1)
        throw bad(`the problem line announces ${na} arcs, but the file's ${bytes} bytes hold at most ${Math.floor((bytes + 1) / MIN_ARC_BYTES)} (an arc line takes at least ${MIN_ARC_BYTES} bytes)`)
      V = nv
      declared = na
      problemLine = n
      edges.reserve(V, na)
      return
    }
    if (t[0] === 'a') {
    if (!problemLine) throw bad('an arc before the problem line "p sp <vertices> <arcs>"')
      if (t.length !== 4) throw bad(`expected "a <from> <to> <weight>", got ${quoted(line)}`)
      const [u, v] = [t[1], t[2]].map((x, i) => {
        const k = parseInteger(x)
        if (k === null || k < 1 || k > V) throw bad(`${i ? 'target' : 'source'} ${quoted(x)} is not a vertex 1…${V}`)
        return k - 1
      })
      edges.push(u, v, parseWeight(t[3], bad))
      return
    }
    throw bad(`expected a "c", "p" or "a" line, got ${quoted(line)}`)
  }
  const finish = (): Graph => {
    if (!problemLine) throw new ApiError('invalid-input', `${shown}: no problem line "p sp <vertices> <arcs>"`)
    if (edges.length !== declared)
      throw new ApiError('invalid-input', `${shown}: the problem line (line ${problemLine}) declares ${declared} arcs but the file has ${edges.length}`)
    return { format: 'dimacs', V, ...edges.finish() }
  }
  return { line: readLine, finish }
}

/** A .gr text already in memory. */
export function parseDimacsGraph(text: string, shown: string): Graph {
  return parseText(dimacsParser(shown, text.length), text, shown)
}
