// Matrix Market graphs (.mtx, as the SuiteSparse collection publishes them): the banner
// `%%MatrixMarket matrix coordinate <field> <symmetry>`, `%` comment lines, a size line
// `rows cols entries`, then one `i j [value]` line per entry with 1-based indices. Entry (i, j) is
// the arc i → j; a pattern matrix weighs every arc 1, a symmetric one gives each entry both arcs.
// An integer field's weights are those the int32 distances hold: integers in ±(2^30 − 1), negative
// ones allowed. A real field's values are read as f64: integers in that range (3.0, 3e0) keep the
// exact integer path, any other value makes the graph real-weighted (graph.ts); none is rounded. Every fault is named
// by line number; the size line is checked against the file's size before anything is allocated.
import { ApiError } from '../../../shared/errors'
import { EdgeBuilder, type Graph, MAX_ABS_WEIGHT } from './graph'
import { checkAnnouncedVertices } from './matrix-bounds'
import { type LineParser, parseCount, parseInteger, parseText, parseWeight, quoted } from './text-lines'

const FIELDS = ['real', 'double', 'integer', 'pattern'] as const
const SYMMETRIES = ['general', 'symmetric'] as const
type Field = (typeof FIELDS)[number]

/** Why a banner's other words are not read: each is refused by name. */
const REFUSED: Record<string, string> = {
  vector: 'a vector is not a graph',
  array: 'a dense (array) matrix is not read: a graph comes as a coordinate (sparse) matrix',
  complex: 'complex weights are not read: a graph\'s weights are real numbers',
  'skew-symmetric': 'a skew-symmetric matrix is not read: a graph is general or symmetric',
  hermitian: 'a hermitian matrix is not read: a graph is general or symmetric',
}

/** The shortest entry line and its line feed: "1 1\n" for a pattern, "1 1 1\n" otherwise (the last may lack it). */
const minEntryBytes = (field: Field) => (field === 'pattern' ? 4 : 6)

/** A reader of a .mtx file of `bytes` bytes, fed line by line. */
export function mtxParser(shown: string, bytes: number): LineParser {
  let field: Field | undefined
  let symmetric = false
  let V = 0
  let declared = -1
  let sizeLine = 0
  let entries = 0
  let at = 0
  const edges = new EdgeBuilder(() => `${shown}:${at}`)

  const banner = (line: string, bad: (msg: string) => ApiError) => {
    const t = line.trim().split(/\s+/)
    if (t[0].toLowerCase() !== '%%matrixmarket') throw bad(`expected the banner "%%MatrixMarket matrix coordinate <field> <symmetry>", got ${quoted(line)}`)
    const [object, format, f, symmetry] = t.slice(1).map((x) => x.toLowerCase())
    for (const word of [object, format, f, symmetry]) if (word !== undefined && REFUSED[word]) throw bad(REFUSED[word])
    if (t.length !== 5 || object !== 'matrix' || format !== 'coordinate')
      throw bad(`expected the banner "%%MatrixMarket matrix coordinate <field> <symmetry>", got ${quoted(line)}`)
    if (!(FIELDS as readonly string[]).includes(f)) throw bad(`the field ${quoted(t[3])} is not one of real, integer or pattern`)
    if (!(SYMMETRIES as readonly string[]).includes(symmetry)) throw bad(`the symmetry ${quoted(t[4])} is not general or symmetric`)
    field = f as Field
    symmetric = symmetry === 'symmetric'
  }

  const size = (t: string[], line: string, n: number, bad: (msg: string) => ApiError) => {
    if (t.length !== 3) throw bad(`expected the size line "<rows> <columns> <entries>", got ${quoted(line)}`)
    const rows = parseCount(t[0], 'the row count', bad)
    const cols = parseCount(t[1], 'the column count', bad)
    if (rows !== cols) throw bad(`a ${rows} × ${cols} matrix is not a graph's: its adjacency matrix is square`)
    // Any count of digits: one past what the file can hold is refused by its size below.
    const entriesAnnounced = /^\d+$/.test(t[2]) ? Number(t[2]) : -1
    if (entriesAnnounced < 0) throw bad(`the entry count must be a non-negative integer, got ${quoted(t[2])}`)
    const room = Math.floor((bytes + 1) / minEntryBytes(field!))
    if (entriesAnnounced > room)
      throw bad(`the size line announces ${entriesAnnounced} entries, but the file's ${bytes} bytes hold at most ${room} (an entry line takes at least ${minEntryBytes(field!)} bytes): the file is cut short or the size line is wrong`)
    V = rows
    declared = entriesAnnounced
    sizeLine = n
    const arcs = symmetric ? 2 * declared : declared
    checkAnnouncedVertices(`${shown}:${n}`, V, arcs)
    edges.reserve(V, arcs)
  }

  const weight = (text: string, bad: (msg: string) => ApiError): number => {
    if (field === 'integer') {
      const w = parseInteger(text, MAX_ABS_WEIGHT)
      if (w === null) throw bad(`weight ${quoted(text)} is not an integer in ±${MAX_ABS_WEIGHT}`)
      return w
    }
    return parseWeight(text, bad)
  }

  const readLine = (line: string, n: number) => {
    at = n
    const bad = (msg: string) => new ApiError('invalid-input', `${shown}:${n}: ${msg}`)
    if (n === 1) return banner(line, bad)
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('%')) return
    const t = trimmed.split(/\s+/)
    if (!sizeLine) return size(t, line, n, bad)
    const want = field === 'pattern' ? 2 : 3
    if (t.length !== want) throw bad(`expected "${field === 'pattern' ? '<row> <column>' : '<row> <column> <weight>'}", got ${quoted(line)}`)
    if (entries === declared) throw bad(`an entry past the ${declared} the size line (line ${sizeLine}) announces`)
    const [i, j] = [t[0], t[1]].map((x, k) => {
      const v = parseInteger(x)
      if (v === null || v < 1 || v > V) throw bad(`${k ? 'column' : 'row'} ${quoted(x)} is outside 1…${V} (the size line, line ${sizeLine})`)
      return v - 1
    })
    const w = field === 'pattern' ? 1 : weight(t[2], bad)
    entries++
    edges.push(i, j, w)
    if (symmetric && i !== j) edges.push(j, i, w)
  }

  const finish = (): Graph => {
    if (!field) throw new ApiError('invalid-input', `${shown}: empty; expected the banner "%%MatrixMarket matrix coordinate <field> <symmetry>"`)
    if (!sizeLine) throw new ApiError('invalid-input', `${shown}: no size line "<rows> <columns> <entries>" after the banner`)
    if (entries !== declared) throw new ApiError('invalid-input', `${shown}: the size line (line ${sizeLine}) announces ${declared} entries but the file has ${entries}: it is cut short`)
    return { format: 'mtx', V, ...edges.finish() }
  }
  return { line: readLine, finish }
}

/** A .mtx text already in memory. */
export function parseMtxGraph(text: string, shown: string): Graph {
  return parseText(mtxParser(shown, text.length), text, shown)
}
