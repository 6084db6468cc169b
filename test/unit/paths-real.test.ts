// Shortest paths on real weights: the readers (a fraction makes a graph f64, integer files keep the
// int32 path, hostile weights refused by file and line), the CPU's f64 Floyd–Warshall bit for bit
// scipy.sparse.csgraph.floyd_warshall's result on Matrix Market, CSV and DIMACS files (negative
// weights included), negative cycles named, the job's results and exports saying which arithmetic
// was used, and the distances' .npy read back by numpy with inf for unreachable pairs.
import { execFileSync } from 'node:child_process'
import { open } from 'node:fs/promises'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import type { PathsResult } from '../../src/shared/workloads/paths/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { keptDistanceFile } from '../../src/main/workloads/paths/distance-files'
import { type FileData, writeFileAtomic } from '../../src/main/io/atomic-write'
import { isReal } from '../../src/main/workloads/paths/graph'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { readGraph } from '../../src/main/workloads/paths/read-graph'
import { parseCsvEdges } from '../../src/main/workloads/paths/read-csv-edges'
import { parseDimacsGraph } from '../../src/main/workloads/paths/read-dimacs'
import { parseMtxGraph } from '../../src/main/workloads/paths/read-mtx'
import { f32Gamma, fromF32, outsideF32Bound } from '../../src/main/workloads/paths/real'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { jobContext } from '../helpers/job-context'
import { realGraph, writers } from '../helpers/real-graphs'

const dir = mkdtempSync(join(tmpdir(), 'paralab-paths-real-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const ctx = jobContext()

async function run(input: Record<string, unknown>): Promise<PathsResult> {
  return (await runPathsJob(validateParams('paths', pathsWorkload.params, { repeat: 1, backends: ['serial'], ...input }), ctx)).results
}

/** SciPy's floyd_warshall on the Matrix Market file, as float64 bytes (row-major). */
function scipyDistances(mtx: string): Buffer {
  const out = `${mtx}.scipy.npy`
  execFileSync('python3', [
    '-c',
    'import sys, numpy as np, scipy.io\nfrom scipy.sparse.csgraph import floyd_warshall\nA = scipy.io.mmread(sys.argv[1]).tocsr()\nnp.save(sys.argv[2], np.ascontiguousarray(floyd_warshall(A, directed=True), dtype="<f8"))',
    mtx,
    out,
  ])
  const bytes = readFileSync(out)
  return bytes.subarray(10 + bytes.readUInt16LE(8))
}

const f64Bytes = (d: Int32Array | Float64Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength)

describe('readers', () => {
  it('a weight with a fraction makes the graph f64 in every text format; integer files keep int32', () => {
    const real = { V: 3, arcs: [[0, 1, 0.37], [1, 2, 3], [0, 2, -1.5e-3]] as [number, number, number][] }
    for (const g of [parseMtxGraph(writers.mtx(real), 'g.mtx'), parseCsvEdges(writers.csv(real), 'g.csv'), parseDimacsGraph(writers.gr(real), 'g.gr')]) {
      expect(isReal(g)).toBe(true)
      expect(Array.from(g.w)).toEqual([0.37, 3, -0.0015])
    }
    const ints = { V: 3, arcs: [[0, 1, 4], [1, 2, -3]] as [number, number, number][] }
    for (const g of [parseCsvEdges(writers.csv(ints), 'g.csv'), parseDimacsGraph(writers.gr(ints), 'g.gr')]) {
      expect(g.w).toBeInstanceOf(Int32Array)
      expect(Array.from(g.w)).toEqual([4, -3])
    }
    // A real field of integers (3.0, 3e0) is integer-valued: the exact int32 path.
    const g = parseMtxGraph('%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 3.0\n2 1 2e1\n', 'g.mtx')
    expect(g.w).toBeInstanceOf(Int32Array)
    expect(Array.from(g.w)).toEqual([3, 20])
  })

  it('an integer past the int32 weights (2^31, 1.5e200) makes the graph f64, exact; the largest is kept with its line', () => {
    const g = parseDimacsGraph('p sp 3 3\na 1 2 5\na 2 1 2147483648\na 2 3 -1.5e200\n', 'g.gr')
    expect(isReal(g)).toBe(true)
    expect(Array.from(g.w)).toEqual([5, 2147483648, -1.5e200])
    expect(g.largest).toEqual({ weight: 1.5e200, at: 'g.gr:4' })
  })

  it.each([
    ['nan', 'g.csv:3: weight "nan" is not a number'],
    ['inf', 'g.csv:3: weight "inf" is not a number'],
    ['-Infinity', 'g.csv:3: weight "-Infinity" is not a number'],
    ['0x10', 'g.csv:3: weight "0x10" is not a number'],
    ['1e400', 'g.csv:3: weight "1e400" is beyond ±1e+300, the largest weight taken'],
    ['-2e300', 'g.csv:3: weight "-2e300" is beyond ±1e+300'],
    ['1,5', 'g.csv:3: weight "1" is'],
  ])('a hostile weight %s is refused by file and line', (w, message) => {
    const text = `source,target,weight\na,b,0.5\nb,c,${w.includes(',') ? `"${w}"` : w}\n`
    expect(() => parseCsvEdges(text, 'g.csv')).toThrow(w === '1,5' ? 'g.csv:3: weight "1,5" is not a number' : message)
  })

  it('Matrix Market: an integer field refuses fractions; a real field takes them; hostile values by line', () => {
    expect(() => parseMtxGraph('%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 2.5\n', 'g.mtx')).toThrow('g.mtx:3: weight "2.5" is not an integer in ±1073741823')
    expect(() => parseMtxGraph('%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 2.5\n2 1 NaN\n', 'g.mtx')).toThrow('g.mtx:4: weight "NaN" is not a number')
    expect(() => parseMtxGraph('%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1E310\n', 'g.mtx')).toThrow('g.mtx:3: weight "1E310" is beyond ±1e+300')
    const sym = parseMtxGraph('%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.25\n3 2 1.5\n', 'g.mtx')
    expect([Array.from(sym.src), Array.from(sym.dst), Array.from(sym.w)]).toEqual([
      [1, 2, 0, 1],
      [0, 1, 1, 2],
      [0.25, 1.5, 0.25, 1.5],
    ])
  })
})

describe('f64 on the CPU: SciPy bit for bit', () => {
  it.each([
    [false, 1],
    [true, 2],
  ])('negative weights %s: every format gives floyd_warshall(directed=True) byte for byte', async (negative, seed) => {
    const arcs = realGraph(37, seed, negative)
    const mtx = join(dir, `g${seed}.mtx`)
    writeFileSync(mtx, writers.mtx(arcs))
    writeFileSync(join(dir, `g${seed}.csv`), writers.csv(arcs))
    writeFileSync(join(dir, `g${seed}.gr`), writers.gr(arcs))
    const want = scipyDistances(mtx)
    expect(want.length).toBe(37 * 37 * 8)
    for (const ext of ['mtx', 'gr']) {
      const g = await readGraph(join(dir, `g${seed}.${ext}`), `g.${ext}`)
      const p = prepareProblem(g, `g.${ext}`)
      expect(p.potential !== undefined).toBe(negative)
      const solved = await serialSolver.solve(p, false)
      expect(solved.arithmetic).toBe('f64')
      expect(f64Bytes(solved.d).equals(want)).toBe(true)
    }
    // CSV numbers its vertices by first appearance: another k order, so SciPy on the matrix in that order.
    const g = await readGraph(join(dir, `g${seed}.csv`), 'g.csv')
    const d = (await serialSolver.solve(prepareProblem(g, 'g.csv'), false)).d
    const index = new Map(g.names!.map((n, i) => [Number(n.slice(1)), i]))
    expect(g.V).toBe(index.size)
    const inCsvOrder = join(dir, `g${seed}.csv-order.mtx`)
    writeFileSync(inCsvOrder, writers.mtx({ V: g.V, arcs: arcs.arcs.map(([u, v, w]) => [index.get(u)!, index.get(v)!, w]) }))
    expect(f64Bytes(d).equals(scipyDistances(inCsvOrder))).toBe(true)
  })

  it('a negative cycle of real weights is named with its weight', async () => {
    const text = 'p sp 3 3\na 1 2 0.5\na 2 3 -0.25\na 3 2 -0.5\n'
    expect(() => prepareProblem(parseDimacsGraph(text, 'c.gr'), 'c.gr')).toThrow('c.gr: negative cycle 2 → 3 → 2 (total weight -0.75): shortest paths are undefined')
  })
})

describe('the job on real weights', () => {
  it('the default backend computes in f64; results, npy, csv and mtx say so; numpy reads inf where there is no path', async () => {
    const arcs = realGraph(29, 5, true)
    const mtx = join(dir, 'job.mtx')
    writeFileSync(mtx, writers.mtx(arcs))
    const want = scipyDistances(mtx)
    const npy = join(dir, 'job.npy')
    const r = await run({ files: [mtx], backends: ['workers-simd'], output: npy, format: 'npy', paths: true })
    const g = r.graphs[0]
    expect(g.arithmetic).toBe('f64')
    expect(g.runs.map((x) => [x.name, x.arithmetic, x.matches])).toEqual([['serial with successors', 'f64', true]])
    expect(r.skipped).toEqual([{ backend: 'workers-simd B=64', reason: expect.stringContaining("real weights: computed on the CPU by serial (f64 Floyd–Warshall in SciPy's order") }])
    const out = readFileSync(npy)
    expect(out.subarray(10 + out.readUInt16LE(8)).equals(want)).toBe(true)
    // numpy: f64, inf exactly where SciPy has no path, and the finite mean is SciPy's.
    const check = JSON.parse(
      execFileSync('python3', ['-c', 'import sys, json, numpy as np\nD = np.load(sys.argv[1]); R = np.load(sys.argv[2])\nprint(json.dumps({"dtype": str(D.dtype), "inf": int(np.isinf(D).sum()), "same_inf": bool((np.isinf(D) == np.isinf(R)).all()), "max": float(D[np.isfinite(D)].max()), "mean_equal": bool(D[np.isfinite(D)].mean() == R[np.isfinite(R)].mean())}))', npy, `${mtx}.scipy.npy`], { encoding: 'utf8' }),
    )
    expect(check).toMatchObject({ dtype: 'float64', same_inf: true, max: g.maxDistance, mean_equal: true })
    expect(check.inf).toBe(29 * 29 - 29 - g.reachablePairs)
    expect(check.inf).toBeGreaterThan(0)

    // The histogram's bins are real: from the least to the greatest distance.
    const bins = pathsWorkload.charts(r)
    expect(g.histogram.counts.reduce((x, y) => x + y, 0)).toBe(g.reachablePairs)
    expect(g.histogram.start).toBe(g.minDistance)
    expect(g.histogram.start + g.histogram.width * g.histogram.counts.length).toBeCloseTo(g.maxDistance!, 9)
    expect(JSON.stringify(bins)).toContain(`"${Number(g.minDistance!.toPrecision(4))}…`)
    const csv = join(dir, 'job.csv')
    await run({ files: [mtx], output: csv, format: 'csv' })
    const rows = readFileSync(csv, 'utf8').trimEnd().split('\n')
    expect(rows[0].startsWith('distance (real weights in f64) from \\ to,')).toBe(true)
    const scipy = new Float64Array(want.buffer.slice(want.byteOffset, want.byteOffset + want.length))
    expect(rows[1].split(',').slice(1).map((x) => (x === '' ? Infinity : Number(x)))).toEqual(Array.from(scipy.subarray(0, 29)))
    const outMtx = join(dir, 'job.out.mtx')
    await run({ files: [mtx], output: outMtx, format: 'mtx' })
    const text = readFileSync(outMtx, 'utf8')
    expect(text.startsWith('%%MatrixMarket matrix coordinate real general\n% shortest distance from row to column (real weights in f64)')).toBe(true)
    await expect(run({ files: [mtx], output: join(dir, 'job.bin'), format: 'bin' })).rejects.toThrow("the graph's weights are real, and bin is the course's int32 matrix: write --format npy (f64), csv or mtx")
  })

  it('integer graphs: npy distances are f64 too, inf for no path, the int32 values exact', async () => {
    const gr = join(dir, 'int.gr')
    writeFileSync(gr, 'p sp 4 3\na 1 2 7\na 2 3 -2\na 3 1 4\n')
    const npy = join(dir, 'int.npy')
    const r = await run({ files: [gr], output: npy, format: 'npy', backends: ['blocked'] })
    expect(r.graphs[0].arithmetic).toBe('int32')
    const D = JSON.parse(execFileSync('python3', ['-c', 'import sys, json, numpy as np\nD = np.load(sys.argv[1])\nprint(json.dumps({"dtype": str(D.dtype), "rows": [[None if np.isinf(x) else x for x in r] for r in D.tolist()], "max": float(D[np.isfinite(D)].max())}))', npy], { encoding: 'utf8' }))
    expect(D.dtype).toBe('float64')
    expect(D.rows).toEqual([
      [0, 7, 5, null],
      [2, 0, -2, null],
      [4, 11, 0, null],
      [null, null, null, 0],
    ])
    expect(D.max).toBe(11)
  })
})

describe('the dashboard\'s downloads of a real run', () => {
  it('npy, csv and mtx from the kept f64 matrix are byte for byte what --output writes', async () => {
    const mtx = join(dir, 'kept.mtx')
    writeFileSync(mtx, writers.mtx(realGraph(23, 8, true)))
    const keptDir = mkdtempSync(join(dir, 'kept-'))
    const keep = async (name: string, _bytes: number, data: FileData) => {
      await writeFileAtomic(join(keptDir, name), data)
      return join(keptDir, name)
    }
    const { results } = await runPathsJob(validateParams('paths', pathsWorkload.params, { repeat: 1, backends: ['serial'], files: [mtx] }), jobContext({ keep }))
    expect(results.graphs[0].arithmetic).toBe('f64')
    const opener = async (name: string) => {
      const file = await open(join(keptDir, name))
      return { file, size: (await file.stat()).size }
    }
    for (const format of ['npy', 'csv', 'mtx'] as const) {
      const out = join(dir, `kept-cli.${format}`)
      await run({ files: [mtx], output: out, format })
      const made = await keptDistanceFile(results, `distances-0.${format}`, opener)
      const chunks: Uint8Array[] = []
      for await (const piece of (made as { pieces: AsyncIterable<Uint8Array> }).pieces) chunks.push(piece)
      expect(Buffer.concat(chunks).equals(readFileSync(out)), format).toBe(true)
    }
  })
})

describe('the f32 bound', () => {
  it('holds an f32 rounding of the distances, and finds one ulp of f32 beyond it or a pair made unreachable', () => {
    const V = 3
    const exact = new Float64Array([0, 1 / 3, 7.1, Infinity, 0, 1e6 / 7, 2, 2.5, 0])
    const asF32 = new Float32Array(exact.map((x) => (x === Infinity ? 2 ** 126 : x)))
    const back = fromF32(new Int32Array(asF32.buffer), V, undefined)
    expect(outsideF32Bound(back, exact, V, 64, undefined)).toBeNull()
    const far = back.slice()
    far[5] = exact[5] * (1 + 4 * f32Gamma(64))
    expect(outsideF32Bound(far, exact, V, 64, undefined)).toMatchObject({ i: 1, j: 2 })
    const lost = back.slice()
    lost[1] = Infinity
    expect(outsideF32Bound(lost, exact, V, 64, undefined)).toMatchObject({ i: 0, j: 1, bound: 0 })
  })
})
