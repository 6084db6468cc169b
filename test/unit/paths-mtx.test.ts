// Matrix Market graphs as SciPy writes them (scipy.io.mmwrite, at set-up, from the graphs the other
// tests use): the distances from a .mtx copy are byte for byte those from the original (the course's
// graphs, DIMACS with negative weights, symmetric and pattern variants), results written as .mtx
// read back by SciPy, and every fault of a hostile file refused naming the file and the line,
// before anything is allocated for what a header announces.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import type { PathsResult } from '../../src/shared/workloads/paths/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { generateGraph } from '../../src/main/workloads/paths/generate-graph'
import { vertexName } from '../../src/main/workloads/paths/graph'
import { courseGraphBytes } from '../../src/main/workloads/paths/read-course'
import { readGraph } from '../../src/main/workloads/paths/read-graph'
import { parseMtxGraph } from '../../src/main/workloads/paths/read-mtx'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { jobContext } from '../helpers/job-context'

const DATA = join(__dirname, '../../../shared/data/paths')
// The largest (c08) only slows the suite: its reading is the same.
const COURSE = readdirSync(DATA).filter((f) => /^c\d+\.1$/.test(f) && f !== 'c08.1').sort()
const PYTHON = '/usr/bin/python3'

let dir: string
const at = (name: string) => join(dir, name)

/** Writes Matrix Market copies with SciPy: each job is [source, target, how]. */
const MMWRITE = `
import sys, json, numpy as np, scipy.io, scipy.sparse as sp
jobs = json.loads(sys.argv[1])
for src, out, how in jobs:
    if src.endswith('.1'):
        words = np.fromfile(src, dtype='<i4')
        V, E = int(words[0]), int(words[1])
        e = words[2:2 + 3 * E].reshape(E, 3)
        r, c, w = e[:, 0], e[:, 1], e[:, 2]
    else:  # DIMACS
        V, arcs = 0, []
        for line in open(src):
            t = line.split()
            if t and t[0] == 'p': V = int(t[2])
            if t and t[0] == 'a': arcs.append([int(t[1]) - 1, int(t[2]) - 1, int(t[3])])
        a = np.array(arcs, dtype=np.int64).reshape(-1, 3)
        r, c, w = a[:, 0], a[:, 1], a[:, 2]
    m = sp.coo_matrix((w.astype(np.float64 if how == 'real' else np.int64), (r, c)), shape=(V, V))
    if how == 'pattern': scipy.io.mmwrite(out, m, field='pattern')
    elif how == 'symmetric': scipy.io.mmwrite(out, m, symmetry='symmetric')
    else: scipy.io.mmwrite(out, m)
`

function mmwrite(jobs: [string, string, 'integer' | 'real' | 'pattern' | 'symmetric'][]): void {
  execFileSync(PYTHON, ['-c', MMWRITE, JSON.stringify(jobs)])
}

/** DIMACS text of arcs (0-based here, 1-based in the file). */
function dimacs(V: number, src: ArrayLike<number>, dst: ArrayLike<number>, w: ArrayLike<number>): string {
  return [`p sp ${V} ${src.length}`, ...Array.from({ length: src.length }, (_, e) => `a ${src[e] + 1} ${dst[e] + 1} ${w[e]}`)].join('\n') + '\n'
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paths-mtx-'))
  // A DAG with negative weights (no cycle, so no negative one), as DIMACS.
  const g = generateGraph({ vertices: 70, edges: 900, maxWeight: 100, seed: 7 })
  const keep = Array.from(g.src, (s, e) => s < g.dst[e])
  const pick = (a: Int32Array) => a.filter((_, e) => keep[e])
  writeFileSync(at('dag.gr'), dimacs(70, pick(g.src), pick(g.dst), pick(g.w).map((x) => x - 50)))
  // An undirected graph: each edge both ways, one weight, as DIMACS.
  const u = generateGraph({ vertices: 50, edges: 300, maxWeight: 40, seed: 3 })
  const pairs = new Map<string, [number, number, number]>()
  u.src.forEach((s, e) => pairs.set(`${Math.min(s, u.dst[e])} ${Math.max(s, u.dst[e])}`, [Math.min(s, u.dst[e]), Math.max(s, u.dst[e]), u.w[e]]))
  const both = [...pairs.values()].flatMap(([a, b, w]) => [[a, b, w], [b, a, w]])
  writeFileSync(at('undirected.gr'), dimacs(50, both.map((x) => x[0]), both.map((x) => x[1]), both.map((x) => x[2])))
  // The course's graphs with every weight 1, beside their pattern copies.
  for (const c of COURSE) {
    const words = new Int32Array(new Uint8Array(readFileSync(join(DATA, c))).buffer)
    const E = words[1]
    const e = (k: number) => Int32Array.from({ length: E }, (_, i) => words[2 + 3 * i + k])
    writeFileSync(at(`${c}-ones.1`), courseGraphBytes(words[0], e(0), e(1), new Int32Array(E).fill(1)))
  }
  mmwrite([
    ...COURSE.flatMap((c): [string, string, 'integer' | 'real' | 'pattern'][] => [
      [join(DATA, c), at(`${c}.mtx`), 'integer'],
      [join(DATA, c), at(`${c}-real.mtx`), 'real'],
      [join(DATA, c), at(`${c}-pattern.mtx`), 'pattern'],
    ]),
    [at('dag.gr'), at('dag.mtx'), 'integer'],
    [at('dag.gr'), at('dag-real.mtx'), 'real'],
    [at('undirected.gr'), at('undirected.mtx'), 'symmetric'],
  ])
}, 60_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ctx = jobContext()

async function run(input: Record<string, unknown>): Promise<PathsResult> {
  return (await runPathsJob(validateParams('paths', pathsWorkload.params, { repeat: 1, backends: ['serial'], ...input }), ctx)).results
}

/** The bytes --output writes for `graph` in `format`. */
async function output(graph: string, format: string, name = `${graph.split('/').pop()}.${format}.out`): Promise<Buffer> {
  const out = at(name)
  await run({ files: [graph], output: out, format, force: true })
  return readFileSync(out)
}

describe('Matrix Market graphs written by SciPy', () => {
  it.each(COURSE)('%s: integer, real and pattern copies give the original\'s distances byte for byte', async (c) => {
    const want = await output(join(DATA, c), 'bin')
    expect(want.equals(readFileSync(join(DATA, `${c}.out`)))).toBe(true)
    expect((await output(at(`${c}.mtx`), 'bin')).equals(want)).toBe(true)
    expect((await output(at(`${c}-real.mtx`), 'bin')).equals(want)).toBe(true)
    // A pattern matrix weighs every arc 1.
    expect((await output(at(`${c}-pattern.mtx`), 'bin')).equals(await output(at(`${c}-ones.1`), 'bin'))).toBe(true)
  })

  it('negative weights as DIMACS has them: the same distances, and the same CSV (both number vertices from 1)', async () => {
    for (const copy of ['dag.mtx', 'dag-real.mtx']) {
      expect((await output(at(copy), 'bin')).equals(await output(at('dag.gr'), 'bin'))).toBe(true)
      expect((await output(at(copy), 'csv')).equals(await output(at('dag.gr'), 'csv'))).toBe(true)
    }
    const r = await run({ files: [at('dag.mtx')] })
    expect(r.graphs[0]).toMatchObject({ format: 'mtx', vertices: 70, negativeWeights: true })
  })

  it('a symmetric matrix: both arcs of each entry, the distances of the undirected DIMACS graph', async () => {
    expect(readFileSync(at('undirected.mtx'), 'utf8')).toMatch(/^%%MatrixMarket matrix coordinate integer symmetric\n/)
    expect((await output(at('undirected.mtx'), 'bin')).equals(await output(at('undirected.gr'), 'bin'))).toBe(true)
    const g = await readGraph(at('undirected.mtx'), 'undirected.mtx', 7)
    expect(g.src.length).toBe((await readGraph(at('undirected.gr'), 'undirected.gr')).src.length)
  })

  it('is known by its content, whatever its name, and reads the same in chunks of any size', async () => {
    const renamed = at('c04-named.bin')
    writeFileSync(renamed, readFileSync(at('c04.1.mtx')))
    const whole = await readGraph(at('c04.1.mtx'), 'c04.1.mtx')
    expect(whole.format).toBe('mtx')
    for (const chunk of [1, 5, 13, 4099]) {
      const g = await readGraph(renamed, renamed, chunk)
      expect({ ...g, src: [...g.src], dst: [...g.dst], w: [...g.w] }).toEqual({ ...whole, src: [...whole.src], dst: [...whole.dst], w: [...whole.w] })
    }
  })

  it("sums duplicate entries, as SciPy's sparse matrices do (a DIMACS file keeps the shortest of its parallel arcs)", async () => {
    writeFileSync(at('dup.mtx'), '%%MatrixMarket matrix coordinate integer general\n3 3 4\n1 2 9\n1 2 4\n2 3 1\n1 2 7\n')
    writeFileSync(at('dup.gr'), 'p sp 3 4\na 1 2 9\na 1 2 4\na 2 3 1\na 1 2 7\n')
    writeFileSync(at('summed.gr'), 'p sp 3 2\na 1 2 20\na 2 3 1\n')
    const r = await run({ files: [at('dup.mtx')] })
    expect(r.graphs[0]).toMatchObject({ duplicates: 0, minDistance: 1, maxDistance: 21 })
    expect((await output(at('dup.mtx'), 'csv')).equals(await output(at('summed.gr'), 'csv'))).toBe(true)
    expect((await run({ files: [at('dup.gr')] })).graphs[0]).toMatchObject({ duplicates: 2, maxDistance: 5 })
  })

  it('writes the distances as .mtx (by --format or by the extension), which SciPy reads back as the matrix', async () => {
    const c = 'c05.1'
    const want = new Int32Array(new Uint8Array(readFileSync(join(DATA, `${c}.out`))).buffer)
    const out = at('c05-dist.mtx')
    const r = await run({ files: [join(DATA, c)], output: out, format: 'mtx' })
    const text = readFileSync(out, 'utf8')
    expect(text.split('\n')[0]).toBe('%%MatrixMarket matrix coordinate integer general')
    expect(r.graphs[0].output).toMatchObject({ path: out, format: 'mtx', bytes: Buffer.byteLength(text) })
    const dense = JSON.parse(
      execFileSync(PYTHON, ['-c', 'import sys, json, scipy.io; m = scipy.io.mmread(sys.argv[1]).tocoo(); print(json.dumps([m.shape, m.row.tolist(), m.col.tolist(), m.data.tolist()]))', out], { encoding: 'utf8' }),
    ) as [[number, number], number[], number[], number[]]
    const V = Math.sqrt(want.length)
    expect(dense[0]).toEqual([V, V])
    const got = new Int32Array(V * V).fill(1073741823)
    dense[1].forEach((i, k) => (got[i * V + dense[2][k]] = dense[3][k]))
    expect(got).toEqual(want)
    // The .mtx read back as a graph is the distance graph: its distances are themselves.
    expect((await output(out, 'bin', 'again.bin')).equals(Buffer.from(want.buffer))).toBe(true)
  })
})

describe('hostile Matrix Market files', () => {
  const file = (name: string, text: string | Uint8Array) => {
    writeFileSync(at(name), text)
    return at(name)
  }
  const HEAD = '%%MatrixMarket matrix coordinate integer general\n'

  it.each([
    ['a size line of 10⁹ × 10⁹ with 10¹² entries in a small file', `${HEAD}% big\n1000000000 1000000000 1000000000000\n1 2 3\n`, 'g.mtx:3: the size line announces 1000000000000 entries, but the file\'s 97 bytes hold at most 16 (an entry line takes at least 6 bytes): the file is cut short or the size line is wrong'],
    ['10⁹ vertices that its few entries cannot name', `${HEAD}1000000000 1000000000 2\n1 2 3\n2 1 3\n`, 'g.mtx:2: the header announces 1000000000 vertices, but its 2 edges name at most 4 of them'],
    ['a non-square matrix', `${HEAD}3 4 1\n1 2 3\n`, 'g.mtx:2: a 3 × 4 matrix is not a graph\'s: its adjacency matrix is square'],
    ['a row out of range', `${HEAD}3 3 2\n1 2 3\n4 1 3\n`, 'g.mtx:4: row "4" is outside 1…3 (the size line, line 2)'],
    ['a column 0 (indices start at 1)', `${HEAD}% c\n3 3 1\n1 0 3\n`, 'g.mtx:4: column "0" is outside 1…3 (the size line, line 3)'],
    ['a NaN weight', '%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n', 'g.mtx:3: weight "nan" is not a number'],
    ['an Inf weight', '%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 Infinity\n', 'g.mtx:3: weight "Infinity" is not a number'],
    ['a fraction in an integer field', `${HEAD}3 3 2\n1 2 2\n2 3 2.5\n`, 'g.mtx:4: weight "2.5" is not an integer in ±1073741823'],
    ['a real weight past ±1e300', '%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n2 3 -1e301\n', 'g.mtx:4: weight "-1e301" is beyond ±1e+300, the largest weight taken'],
    ['a weight past the int32 distances', `${HEAD}3 3 1\n1 2 2000000000\n`, 'g.mtx:3: weight "2000000000" is not an integer in ±1073741823'],
    ['a file cut short', `${HEAD}3 3 3\n1 2 3\n2 3 4\n`, 'g.mtx: the size line (line 2) announces 3 entries but the file has 2: it is cut short'],
    ['a file cut inside an entry', `${HEAD}3 3 2\n1 2 3\n2 3`, 'g.mtx:4: expected "<row> <column> <weight>", got "2 3"'],
    ['more entries than announced', `${HEAD}3 3 1\n1 2 3\n2 3 4\n`, 'g.mtx:4: an entry past the 1 the size line (line 2) announces'],
    ['a hermitian matrix', '%%MatrixMarket matrix coordinate complex hermitian\n3 3 1\n2 1 3 0\n', 'g.mtx:1: complex weights are not read: a graph\'s weights are real numbers'],
    ['a pattern array', '%%MatrixMarket matrix array pattern general\n2 2\n', 'g.mtx:1: a pattern matrix is a coordinate one: an array holds values'],
    ['an array line of two values', '%%MatrixMarket matrix array real general\n2 2\n1 2\n3\n4\n', 'g.mtx:3: expected one value a line in an array, got "1 2"'],
    ['an array cut short', '%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n', 'g.mtx: the size line (line 2) announces 6 values but the file has 2: it is cut short'],
    ['a negative unsigned integer', '%%MatrixMarket matrix coordinate unsigned-integer general\n2 2 1\n1 2 -3\n', 'g.mtx:3: weight "-3" is not an unsigned integer in ±1073741823'],
    ['duplicates summing past the int32 distances', `${HEAD}2 2 2\n1 2 1000000000\n1 2 1000000000\n`, 'g.mtx: the 2 entries of row 1, column 2 sum to 2000000000, beyond ±1073741823'],
    ['a banner not spelled "%%MatrixMarket" (scipy refuses it)', '%%matrixmarket matrix coordinate integer general\n2 2 0\n', 'g.mtx:1: expected the banner'],
    ['a banner without a symmetry', '%%MatrixMarket matrix coordinate integer\n3 3 0\n', 'g.mtx:1: expected the banner "%%MatrixMarket matrix coordinate|array <field> <symmetry>", got "%%MatrixMarket matrix coordinate integer"'],
    ['no size line', `${HEAD}% only comments\n`, 'g.mtx: no size line after the banner'],
  ])('refuses %s, naming the place', async (_, text, message) => {
    // Read 5 bytes at a time: a size line is refused as soon as it is whole, before any room is made for what it announces.
    await expect(readGraph(file('g.mtx', text), 'g.mtx', 5)).rejects.toThrow(message)
  })

  it('refuses a .mtx file that is binary, and a file another format\'s magic names, by content', async () => {
    await expect(readGraph(file('b.mtx', Uint8Array.from([0, 1, 2, 3, 0xff, 0xfe, 7, 0])), 'b.mtx')).rejects.toThrow(
      'b.mtx: not a Matrix Market file: it does not begin with the banner "%%MatrixMarket" (its content is binary)',
    )
    const parquet = file('table.csv', Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64), Buffer.from('PAR1')]))
    await expect(readGraph(parquet, 'table.csv')).rejects.toThrow('table.csv: a Parquet file by its content, not a graph')
    await expect(readGraph(file('u.mtx', Buffer.concat([Buffer.from(`${HEAD}2 2 1\n1 2 `), Buffer.from([0xc3, 0x28, 0x0a])])), 'u.mtx')).rejects.toThrow(
      'u.mtx: not UTF-8 text (a Matrix Market file was expected from its banner)',
    )
  })

  it('refuses a negative cycle by its vertices, as DIMACS', async () => {
    const g = file('cycle.mtx', `${HEAD}3 3 3\n1 2 2\n2 3 -1\n3 1 -2\n`)
    await expect(run({ files: [g] })).rejects.toThrow(/cycle\.mtx: negative cycle .* \(total weight -1\): shortest paths are undefined/)
    // A symmetric negative entry is a cycle of two arcs.
    const s = file('sym.mtx', '%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 -1\n')
    await expect(run({ files: [s] })).rejects.toThrow(/sym\.mtx: negative cycle .* \(total weight -2\)/)
  })

  it('reads a pattern matrix, comments and blank lines, and names its vertices from 1', () => {
    const g = parseMtxGraph('%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n\n3 3 2\n2 1\n3 3\n', 'p.mtx')
    // The file's entries, then their mirrors (a diagonal entry has none), as scipy.io.mmread orders them.
    expect({ V: g.V, src: [...g.src], dst: [...g.dst], w: [...g.w] }).toEqual({ V: 3, src: [1, 2, 0], dst: [0, 2, 1], w: [1, 1, 1] })
    expect(vertexName(g, 0)).toBe('1')
  })
})
