// Graph files read in bounded chunks and saved runs read at offsets, as V = 40 000 needs (edge files
// and matrices beyond 2 GiB), checked at small scale with tiny chunks: edges, the header, lines and
// UTF-8 characters split between reads give the graph a whole-file read gives, errors still name
// the file and the edge or line, and a query reads only the successors along its path.
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { allocateEdges, type Graph } from '../../src/main/workloads/paths/graph'
import { generateGraph } from '../../src/main/workloads/paths/generate-graph'
import { successors } from '../../src/main/workloads/paths/matrix'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { followPath, followSavedPath } from '../../src/main/workloads/paths/query'
import { courseGraphBytes } from '../../src/main/workloads/paths/read-course'
import { parseCsvEdges } from '../../src/main/workloads/paths/read-csv-edges'
import { parseDimacsGraph } from '../../src/main/workloads/paths/read-dimacs'
import { readGraph } from '../../src/main/workloads/paths/read-graph'
import { openIntMatrix, readIntMatrix } from '../../src/main/workloads/paths/read-matrix'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { writeMatrices } from '../../src/main/workloads/paths/write-matrix'

const DATA = join(__dirname, '../../../shared/data/paths')
const SAMPLES = readdirSync(DATA).filter((f) => /^c\d+\.1$/.test(f))

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paths-files-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})
afterEach(() => {
  vi.restoreAllMocks()
})

/** The course format decoded the old way, from the whole file at once: the reference. */
function wholeCourseFile(bytes: Buffer): Graph {
  const words = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
  const E = words[1]
  const edge = (k: number) => Int32Array.from({ length: E }, (_, e) => words[2 + 3 * e + k])
  return { format: 'course', V: words[0], src: edge(0), dst: edge(1), w: edge(2) }
}

/** A course file from int32 words. */
const course = (...words: number[]) => new Uint8Array(Int32Array.from(words).buffer)

const plain = (g: Graph) => ({ ...g, src: [...g.src], dst: [...g.dst], w: [...g.w] })

/** Chunk sizes that split the 8-byte header and the 12-byte edges everywhere, and a large one. */
const CHUNKS = [1, 5, 7, 12, 13, 4099]

describe('graph files read in chunks', () => {
  it.each(SAMPLES)('%s: the same graph from every chunk size as from the whole file', async (name) => {
    const file = join(DATA, name)
    const want = plain(wholeCourseFile(readFileSync(file)))
    // At most 20 000 reads a file: 4099 bytes (not a multiple of 12) still splits edges in the largest.
    for (const chunk of CHUNKS.filter((c) => readFileSync(file).length / c <= 20_000)) expect(plain(await readGraph(file, name, chunk)), `chunk ${chunk}`).toEqual(want)
    expect(plain(await readGraph(file, name))).toEqual(want)
  })

  it.each([
    [40, 0],
    [1, 0],
    [60, 500],
    [200, 1500],
  ])('generated V = %i, E = %i: the generator\'s edges in course, DIMACS and CSV files', async (V, E) => {
    const g = generateGraph({ vertices: V, edges: E, maxWeight: 50, seed: V + E })
    const want = { V, src: [...g.src], dst: [...g.dst], w: [...g.w] }
    const bin = join(dir, `g${V}-${E}.1`)
    await writeFile(bin, courseGraphBytes(V, g.src, g.dst, g.w))
    // DIMACS with CRLF endings and comments between arcs: line endings split between reads too.
    const arcs = Array.from(g.src, (s, e) => `a ${s + 1} ${g.dst[e] + 1} ${g.w[e]}${e % 97 === 0 ? '\r\nc a comment' : ''}`)
    const gr = join(dir, `g${V}-${E}.gr`)
    await writeFile(gr, ['c generated', `p sp ${V} ${E}`, ...arcs].join('\r\n') + '\r\n')
    // CSV with a BOM and vertices named in several scripts: characters of 2, 3 and 4 bytes split between reads.
    const names = Array.from({ length: V }, (_, v) => `${['ü', '東京', '🌍', 'v'][v % 4]}${v}`)
    const csv = join(dir, `g${V}-${E}.csv`)
    await writeFile(csv, '\ufeffsource,target,weight\n' + Array.from(g.src, (s, e) => `${names[s]},${names[g.dst[e]]},${g.w[e]}\n`).join(''))
    const text = await readFile(csv, 'utf8')
    const grText = await readFile(gr, 'utf8')

    // Single bytes only from the smaller files, which would otherwise take long.
    const small = (await readFile(gr)).length < 20_000
    for (const chunk of small ? [1, 5, 13, 4099] : [5, 13, 4099]) {
      expect(plain(await readGraph(bin, bin, chunk)), `course, chunk ${chunk}`).toMatchObject({ format: 'course', ...want })
      const fromGr = plain(await readGraph(gr, gr, chunk))
      expect(fromGr, `DIMACS, chunk ${chunk}`).toEqual(plain(parseDimacsGraph(grText, gr)))
      expect(fromGr, `DIMACS, chunk ${chunk}`).toMatchObject({ format: 'dimacs', ...want })
      // A CSV file with no edges has no vertices: refused.
      if (E === 0) continue
      const fromCsv = await readGraph(csv, csv, chunk)
      expect(plain(fromCsv), `CSV, chunk ${chunk}`).toEqual(plain(parseCsvEdges(text, csv)))
      // CSV numbers vertices in order of first appearance: map them back by name.
      const back = (i: number) => names.indexOf(fromCsv.names![i])
      expect({ src: Array.from(fromCsv.src, back), dst: Array.from(fromCsv.dst, back), w: [...fromCsv.w] }).toEqual({ src: want.src, dst: want.dst, w: want.w })
    }
  })

  it.each([
    ['a file shorter than the header', course(5).subarray(0, 3), 2, 'g.1: 3 bytes, shorter than the 8-byte header (int32 V, int32 E)'],
    ['V = 0', course(0, 0), 5, 'g.1: byte 0: the vertex count V is 0; it must be positive'],
    ['E < 0, the header split', course(3, -1), 3, 'g.1: byte 4: the edge count E is -1; it must not be negative'],
    ['an edge missing', course(3, 2, 0, 1, 5), 5, 'g.1: the header announces 2 edges (32 bytes) but the file ends at byte 20: edge 1 (from 0), at byte 20, is missing'],
    ['an edge cut short', course(3, 2, 0, 1, 5, 2), 7, 'g.1: the header announces 2 edges (32 bytes) but the file ends at byte 24: edge 1 (from 0), at byte 20, is cut short'],
    ['a source out of range, split between reads', course(3, 2, 0, 1, 5, 3, 0, 1), 7, 'g.1: edge 1 at byte 20: source 3 is outside 0…2'],
    ['a target out of range, split between reads', course(3, 3, 0, 1, 5, 2, 0, 1, 1, 7, 1), 13, 'g.1: edge 2 at byte 36: target 7 is outside 0…2'],
    ['a negative weight in the last read', course(3, 2, 0, 1, 5, 2, 0, -7), 12, 'g.1: edge 1 at byte 28: weight -7 is negative (the course format has 0 ≤ weight)'],
    ['bytes after the edges', course(3, 1, 0, 1, 5, 9), 5, 'g.1: 4 bytes follow the 1 edges the header announces (from byte 20)'],
  ])('refuses %s, naming the file and the place', async (_, bytes, chunk, message) => {
    const file = join(dir, 'g.1')
    await writeFile(file, bytes)
    await expect(readGraph(file, 'g.1', chunk)).rejects.toThrow(message)
  })

  it('refuses bad text lines by number, and bytes that are not UTF-8, across reads', async () => {
    const gr = join(dir, 'bad.gr')
    await writeFile(gr, `p sp 3 31\n${'a 1 2 3\n'.repeat(30)}a 1 4 3\n`)
    await expect(readGraph(gr, 'bad.gr', 7)).rejects.toThrow('bad.gr:32: target "4" is not a vertex 1…3')
    await writeFile(gr, `p sp 3 31\n${'a 1 2 3\n'.repeat(30)}`)
    await expect(readGraph(gr, 'bad.gr', 7)).rejects.toThrow('bad.gr: the problem line (line 1) declares 31 arcs but the file has 30')
    // More arcs than the file's bytes can hold are refused at the problem line, before they are read.
    await writeFile(gr, `p sp 3 40\n${'a 1 2 3\n'.repeat(30)}`)
    await expect(readGraph(gr, 'bad.gr', 7)).rejects.toThrow("bad.gr:1: the problem line announces 40 arcs, but the file's 250 bytes hold at most 31")
    const csv = join(dir, 'bad.csv')
    await writeFile(csv, 'source,target,weight\r\nA,B,1\r\nB,C,x\r\n')
    await expect(readGraph(csv, 'bad.csv', 3)).rejects.toThrow('bad.csv:3: weight "x" is not a number')
    await writeFile(csv, Buffer.concat([Buffer.from('source,target,weight\nA,B,1\n'), Buffer.from([0xc3, 0x28]), Buffer.from(',B,1\n')]))
    await expect(readGraph(csv, 'bad.csv', 4)).rejects.toThrow('bad.csv: not UTF-8 text (a CSV edge list was expected from its extension)')
    // A character cut off at the end of the file.
    await writeFile(gr, Buffer.concat([Buffer.from('p sp 1 0\nc '), Buffer.from([0xe6, 0x9d])]))
    await expect(readGraph(gr, 'bad.gr', 2)).rejects.toThrow('bad.gr: not UTF-8 text (a DIMACS graph was expected from its extension)')
    await expect(readGraph(join(dir, 'none.1'), 'none.1')).rejects.toThrow(/^cannot read none\.1: ENOENT/)
  })

  it('names V, E and the bytes needed when the edge arrays cannot be allocated', () => {
    expect(() => allocateEdges(2 ** 40, 'g.1: V = 40000, E = 1099511627776')).toThrow(
      'g.1: V = 40000, E = 1099511627776: the edge arrays (source, target and weight, 12 bytes an edge) need 13194139533312 bytes (12288.0 GiB), more than can be allocated here',
    )
  })
})

describe('a saved run queried at offsets', () => {
  const V = 300
  let next: Int32Array
  let bin: string
  let npy: string
  const pairs: [number, number][] = [
    [0, 2],
    [0, 7],
    [3, 251],
    [0, 299],
    [17, 17],
    [120, 5],
    [299, 0],
  ]

  beforeAll(async () => {
    // Sparse: long paths, and some pairs unreachable.
    const g = generateGraph({ vertices: V, edges: 420, maxWeight: 9, seed: 12 })
    const solved = await serialSolver.solve(prepareProblem({ format: 'course', V, ...g }, 'g'), true)
    next = successors(solved.key!, V)
    bin = join(dir, 'run.bin')
    npy = join(dir, 'run.npy')
    await writeMatrices(bin, 'bin', V, String, solved.d, next, false)
    await writeMatrices(npy, 'npy', V, String, solved.d, next, false)
  })

  /** Bytes asked of every FileHandle.read while `fn` runs. */
  async function bytesRead<T>(fn: () => Promise<T>): Promise<{ result: T; bytes: number }> {
    const handle = await open(join(DATA, 'c01.1'))
    const proto = Object.getPrototypeOf(handle)
    await handle.close()
    const read = vi.spyOn(proto, 'read')
    const result = await fn()
    const bytes = read.mock.calls.reduce((sum, call) => sum + (call[2] as number), 0)
    read.mockRestore()
    return { result, bytes }
  }

  it.each(['next.bin', 'next.npy'])('%s: the paths of the matrix in memory, reading one entry a hop', async (ext) => {
    const file = join(dir, `run.${ext}`)
    // Opening reads the header (npy) only.
    const header = (await bytesRead(async () => (await openIntMatrix(file, V)).close())).bytes
    expect(header).toBeLessThan(ext === 'next.npy' ? 256 : 1)
    let long = 0
    for (const [from, to] of pairs) {
      const want = await followPath((v) => next[v * V + to], V, from, to)
      const { result, bytes } = await bytesRead(() => followSavedPath(file, V, from, to))
      expect(result, `${from} → ${to}`).toEqual(want)
      // The header (npy) and one 4-byte entry per hop; an unreachable pair reads one entry.
      const hops = from === to ? 0 : want ? want.length - 1 : 1
      expect(bytes, `${from} → ${to}`).toBe(header + 4 * hops)
      long = Math.max(long, hops)
    }
    expect(long).toBeGreaterThan(3)
    expect(pairs.some(([from, to]) => next[from * V + to] < 0)).toBe(true)
  })

  it('answers the same from a file whose entries off the path are garbage', async () => {
    const [from, to] = pairs[0]
    const path = (await followPath((v) => next[v * V + to], V, from, to))!
    const used = new Set(path.slice(0, -1).map((v) => v * V + to))
    const garbage = Int32Array.from(next, (x, i) => (used.has(i) ? x : i % 2 ? -123456 : 0x7fffffff))
    const file = join(dir, 'garbage.next.bin')
    await writeFile(file, new Uint8Array(garbage.buffer))
    expect(await followSavedPath(file, V, from, to)).toEqual(path)
    // A broken matrix is refused, not followed out of the file.
    const broken = Int32Array.from(next, (x, i) => (i === from * V + to ? V + 5 : x))
    await writeFile(file, new Uint8Array(broken.buffer))
    await expect(followSavedPath(file, V, from, to)).rejects.toThrow(`the successors of ${from} → ${to} do not lead there`)
  })

  it('keeps the file checks: size, npy header and shape, CSV refused', async () => {
    await expect(followSavedPath(bin.replace('.bin', '.next.bin'), V + 1, 0, 1)).rejects.toThrow(`run.next.bin: 360000 bytes of data; a ${V + 1} × ${V + 1} int32 matrix has 362404`)
    await expect(followSavedPath(npy.replace('.npy', '.next.npy'), 70, 0, 1)).rejects.toThrow(`has shape (${V}, ${V}); the graph needs (70, 70)`)
    const fake = join(dir, 'fake.npy')
    await writeFile(fake, 'not numpy')
    await expect(followSavedPath(fake, V, 0, 1)).rejects.toThrow('fake.npy: not a .npy file (no \\x93NUMPY magic at byte 0)')
    const f4 = join(dir, 'f4.npy')
    // The successors' npy is int32 (the distances' is f64).
    const nextNpy = npy.replace('.npy', '.next.npy')
    const npyBytes = await readFile(nextNpy)
    await writeFile(f4, Buffer.from(npyBytes.toString('latin1').replace("'<i4'", "'<f4'"), 'latin1'))
    await expect(followSavedPath(f4, V, 0, 1)).rejects.toThrow('f4.npy: holds <f4, not <i4')
    await expect(followSavedPath(join(dir, 'run.csv'), V, 0, 1)).rejects.toThrow(/^cannot read .*run\.csv: ENOENT/)
    await writeFile(join(dir, 'run.csv'), 'x')
    await expect(followSavedPath(join(dir, 'run.csv'), V, 0, 1)).rejects.toThrow('run.csv: a CSV matrix holds names; read back bin or npy files')
    expect(Buffer.from((await readIntMatrix(nextNpy, V)).buffer).equals(npyBytes.subarray(npyBytes.length - V * V * 4))).toBe(true)
  })
})
