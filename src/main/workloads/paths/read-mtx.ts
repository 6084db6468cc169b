// Matrix Market graphs (.mtx, as the SuiteSparse collection and scipy.io.mmwrite write them), read
// as scipy.io.mmread reads the matrix and scipy.sparse.csgraph the graph: the banner
// `%%MatrixMarket matrix <format> <field> <symmetry>`, `%` comment and blank lines, a size line,
// then the entries.
// - `coordinate`: `rows cols entries`, then `i j [value]` per entry, 1-based; entry (i, j) is the arc
//   i → j, an explicit zero an arc of weight 0 (csgraph's sparse input). Duplicate entries are summed,
//   as scipy's sparse matrices sum them (sum-duplicates.ts).
// - `array`: `rows cols`, then the values column by column, one a line; a zero is no arc (csgraph's
//   dense input), the diagonal kept as self-loops.
// A `symmetric` (or real `hermitian`) matrix gives each off-diagonal entry both arcs, a
// `skew-symmetric` one the mirror arc with the weight negated, as scipy expands them; a `pattern`
// matrix weighs every arc 1. An integer field's weights are those the int32 distances hold: integers
// in ±(2^30 − 1), negative ones allowed (unsigned-integer's not). A real field's values are read as
// f64: integers in that range (3.0, 3e0) keep the exact integer path, any other value makes the graph
// real-weighted (graph.ts); none is rounded. Every fault is named by line number; the size line is
// checked against the file's size before anything is allocated.
import { ApiError } from '../../../shared/errors'
import { EdgeBuilder, type Graph, MAX_ABS_WEIGHT } from './graph'
import { checkAnnouncedVertices } from './matrix-bounds'
import { sumDuplicates } from './sum-duplicates'
import { type LineParser, parseCount, parseInteger, parseText, parseWeight, quoted } from './text-lines'

const FIELDS = ['real', 'double', 'integer', 'unsigned-integer', 'pattern'] as const
const SYMMETRIES = ['general', 'symmetric', 'skew-symmetric', 'hermitian'] as const
type Field = (typeof FIELDS)[number]
type Symmetry = (typeof SYMMETRIES)[number]

const BANNER = '"%%MatrixMarket matrix coordinate|array <field> <symmetry>"'

/** Why a banner's other words are not read: each is refused by name. */
const REFUSED: Record<string, string> = {
  vector: 'a vector is not a graph',
  complex: 'complex weights are not read: a graph\'s weights are real numbers',
}

/** The shortest entry line and its line feed: "1 1\n" for a pattern, "1 1 1\n" otherwise, "1\n" an array's value (the last may lack it). */
const minEntryBytes = (field: Field, array: boolean) => (array ? 2 : field === 'pattern' ? 4 : 6)

/** A reader of a .mtx file of `bytes` bytes, fed line by line. */
export function mtxParser(shown: string, bytes: number): LineParser {
  let field: Field | undefined
  let symmetry: Symmetry = 'general'
  let array = false
  let V = 0
  let declared = -1
  let sizeLine = 0
  let entries = 0
  let at = 0
  // An array's next value: column `col`, row `row` (column-major; a symmetric one's lower triangle).
  let row = 0
  let col = 0
  const edges = new EdgeBuilder(() => `${shown}:${at}`)

  const banner = (line: string, bad: (msg: string) => ApiError) => {
    const t = line.trim().split(/\s+/)
    // scipy reads the banner's first word as written, the others in any case.
    if (t[0] !== '%%MatrixMarket') throw bad(`expected the banner ${BANNER}, got ${quoted(line)}`)
    const [object, format, f, sym] = t.slice(1).map((x) => x.toLowerCase())
    for (const word of [object, format, f, sym]) if (word !== undefined && REFUSED[word]) throw bad(REFUSED[word])
    if (t.length !== 5 || object !== 'matrix' || (format !== 'coordinate' && format !== 'array')) throw bad(`expected the banner ${BANNER}, got ${quoted(line)}`)
    if (!(FIELDS as readonly string[]).includes(f)) throw bad(`the field ${quoted(t[3])} is not one of real, integer, unsigned-integer or pattern`)
    if (!(SYMMETRIES as readonly string[]).includes(sym)) throw bad(`the symmetry ${quoted(t[4])} is not general, symmetric, skew-symmetric or hermitian`)
    if (format === 'array' && f === 'pattern') throw bad('a pattern matrix is a coordinate one: an array holds values')
    field = f as Field
    symmetry = sym as Symmetry
    array = format === 'array'
  }

  /** Values an array holds: every cell, a symmetric one's lower triangle, a skew-symmetric one's below the diagonal. */
  const arrayEntries = (n: number) => (symmetry === 'general' ? n * n : symmetry === 'skew-symmetric' ? (n * (n - 1)) / 2 : (n * (n + 1)) / 2)

  const size = (t: string[], line: string, n: number, bad: (msg: string) => ApiError) => {
    const want = array ? '"<rows> <columns>"' : '"<rows> <columns> <entries>"'
    if (t.length !== (array ? 2 : 3)) throw bad(`expected the size line ${want}, got ${quoted(line)}`)
    const rows = parseCount(t[0], 'the row count', bad)
    const cols = parseCount(t[1], 'the column count', bad)
    if (rows !== cols) throw bad(`a ${rows} × ${cols} matrix is not a graph's: its adjacency matrix is square`)
    // Any count of digits: one past what the file can hold is refused by its size below.
    const entriesAnnounced = array ? arrayEntries(rows) : /^\d+$/.test(t[2]) ? Number(t[2]) : -1
    if (entriesAnnounced < 0) throw bad(`the entry count must be a non-negative integer, got ${quoted(t[2])}`)
    const least = minEntryBytes(field!, array)
    const room = Math.floor((bytes + 1) / least)
    if (entriesAnnounced > room)
      throw bad(`the size line announces ${entriesAnnounced} ${array ? 'values' : 'entries'}, but the file's ${bytes} bytes hold at most ${room} (${array ? 'a value' : 'an entry'} line takes at least ${least} bytes): the file is cut short or the size line is wrong`)
    V = rows
    declared = entriesAnnounced
    sizeLine = n
    const arcs = symmetry === 'general' ? declared : 2 * declared
    checkAnnouncedVertices(`${shown}:${n}`, V, arcs)
    edges.reserve(V, arcs)
    if (array) row = symmetry === 'skew-symmetric' ? 1 : 0
  }

  const weight = (text: string, bad: (msg: string) => ApiError): number => {
    if (field === 'integer' || field === 'unsigned-integer') {
      const w = parseInteger(text, MAX_ABS_WEIGHT)
      if (w === null || (field === 'unsigned-integer' && w < 0)) throw bad(`weight ${quoted(text)} is not ${field === 'integer' ? 'an integer' : 'an unsigned integer'} in ±${MAX_ABS_WEIGHT}`)
      return w + 0
    }
    return parseWeight(text, bad)
  }

  const arrayValue = (t: string[], line: string, bad: (msg: string) => ApiError) => {
    if (t.length !== 1) throw bad(`expected one value a line in an array, got ${quoted(line)}`)
    if (entries === declared) throw bad(`a value past the ${declared} the size line (line ${sizeLine}) announces for a ${V} × ${V} ${symmetry} array`)
    const w = weight(t[0], bad)
    entries++
    // A dense matrix's zero is no arc, as csgraph reads a dense graph.
    if (w !== 0) edges.push(row, col, w)
    if (++row === V) {
      col++
      row = symmetry === 'general' ? 0 : symmetry === 'skew-symmetric' ? col + 1 : col
    }
  }

  const readLine = (line: string, n: number) => {
    at = n
    const bad = (msg: string) => new ApiError('invalid-input', `${shown}:${n}: ${msg}`)
    if (n === 1) return banner(line, bad)
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('%')) return
    const t = trimmed.split(/\s+/)
    if (!sizeLine) return size(t, line, n, bad)
    if (array) return arrayValue(t, line, bad)
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
  }

  const finish = (): Graph => {
    if (!field) throw new ApiError('invalid-input', `${shown}: empty; expected the banner ${BANNER}`)
    if (!sizeLine) throw new ApiError('invalid-input', `${shown}: no size line after the banner`)
    if (entries !== declared)
      throw new ApiError('invalid-input', `${shown}: the size line (line ${sizeLine}) announces ${declared} ${array ? 'values' : 'entries'} but the file has ${entries}: it is cut short`)
    // The mirrored entries after the file's own, as scipy appends them.
    if (symmetry !== 'general') edges.mirror(symmetry === 'skew-symmetric')
    const built = edges.finish()
    return { format: 'mtx', V, ...(array ? built : sumDuplicates(built, V, field === 'integer' || field === 'unsigned-integer', shown)) }
  }
  return { line: readLine, finish }
}

/** A .mtx text already in memory. */
export function parseMtxGraph(text: string, shown: string): Graph {
  return parseText(mtxParser(shown, text.length), text, shown)
}
