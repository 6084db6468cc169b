// `paralab paths`, `paralab paths query` and `paralab generate graph` as a user runs them: --output
// byte for byte the course's expected output, the --json envelope with its checksum, a GPU variant
// on the software adapter, saved successors queried without computing, the example, and bad input
// (exit 1, the place named, nothing written).
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { defaultParams } from '../../src/shared/workloads/schema'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import { INF } from '../../src/shared/workloads/paths/types'
import { errorLines, expectEnvelope, jsonOf, paralab } from './paralab'

const DATA = resolve(__dirname, '../../../shared/data/paths')
const DEFAULTS = defaultParams(pathsWorkload.params)

// The GPU variant compiles its shader on the software adapter first.
vi.setConfig({ testTimeout: 180_000 })

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-paths-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('paralab paths', () => {
  it('writes the course\'s expected output byte for byte and prints the checksum in --json', () => {
    const out = join(dir, 'c04.bin')
    const graph = join(DATA, 'c04.1')
    const r = paralab(['paths', graph, '--backend', 'serial,gpu', '--variant', 'coalesced', '--repeat', '2', '--output', out, '--json'])
    const env = jsonOf(r)
    const expected = readFileSync(join(DATA, 'c04.1.out'))
    expect(readFileSync(out).equals(expected)).toBe(true)
    expectEnvelope(env, {
      workload: 'paths',
      params: { ...DEFAULTS, files: [graph], backends: ['serial', 'gpu'], variants: ['coalesced'], repeat: 2, output: out },
      files: [graph],
      device: true,
      timings: { serial: 2, 'gpu coalesced': 2 },
      run: r,
    })
    const want = new Int32Array(expected.buffer, expected.byteOffset, expected.length / 4)
    const g = env.results.graphs[0]
    expect(g).toMatchObject({
      vertices: 40,
      edges: readFileSync(graph).readInt32LE(4),
      checksum: String(want.reduce((s, x) => (x === INF ? s : s + x), 0)),
      output: { path: out, format: 'bin', bytes: expected.length },
    })
    expect(g.runs.map((x: { name: string; matches: boolean }) => [x.name, x.matches])).toEqual([['serial', true], ['gpu coalesced', true]])
    expect(g.runs[1].upload_ms).toBeGreaterThan(0)
  })

  it('--zoom gives a block range of the distances at full resolution: the course\'s expected output there', () => {
    const graph = join(DATA, 'c05.1')
    const expected = new Int32Array(readFileSync(join(DATA, 'c05.1.out')).buffer.slice(0))
    const V = Math.sqrt(expected.length)
    const r = paralab(['paths', graph, '--repeat', '1', '--zoom', '3:12,60:69', '--json'])
    const zoom = jsonOf(r).results.zoom
    expect(zoom).toMatchObject({ path: graph, vertices: V, rows: [3, 12], cols: [60, 69], block: 1, kept: false })
    for (let i = 0; i < 10; i++)
      for (let j = 0; j < 10; j++) {
        const x = expected[(3 + i) * V + 60 + j]
        expect(zoom.min[i * 10 + j]).toBe(x === INF ? null : x)
      }
    expect(paralab(['paths', graph, '--repeat', '1', '--zoom', '0:9,0:19']).stderr).toMatch(/the rows and the columns span as many vertices \(10 and 20\)/)
  })

  it('refuses bad input with exit 1, naming the place, and writes nothing', () => {
    const bad = join(dir, 'short.1')
    writeFileSync(bad, Buffer.from(Int32Array.of(5, 3, 0, 1, 2, 1, 2).buffer))
    const out = join(dir, 'short.bin')
    const r = paralab(['paths', bad, '--output', out])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${bad}: the header announces 3 edges (44 bytes) but the file ends at byte 28: edge 1 (from 0), at byte 20, is cut short`])
    expect(existsSync(out)).toBe(false)

    const cycle = join(dir, 'cycle.csv')
    writeFileSync(cycle, 'source,target,weight\nA,B,2\nB,C,-1\nC,A,-2\n')
    const c = paralab(['paths', cycle, '--output', out])
    expect(c.code).toBe(1)
    expect(errorLines(c.stderr)[0]).toMatch(/^paralab: .*cycle\.csv: negative cycle ([ABC]) → ([ABC]) → ([ABC]) → \1 \(total weight -1\): shortest paths are undefined$/)
    expect(existsSync(out)).toBe(false)
  })

  it('runs its example: every CPU backend, successors and the path from 0 to 299', () => {
    const env = jsonOf(paralab(['paths', '--example', '--json'], { PARALAB_EXAMPLES: join(dir, 'examples') }))
    const g = env.results.graphs[0]
    expect(g).toMatchObject({ vertices: 300, edges: 6000, successors: true, query: { from: '0', to: '299' } })
    expect(g.runs.every((x: { matches: boolean }) => x.matches)).toBe(true)
    expect(g.query.path[0]).toBe('0')
    expect(g.query.path.at(-1)).toBe('299')
  })
})

describe('paralab generate graph and paths query', () => {
  it('writes --format csv past 2 000 vertices (refused before), streamed: names, distances, unreachable empty', () => {
    const V = 2100
    const graph = join(dir, 'g2100.bin')
    expect(paralab(['generate', 'graph', graph, '--vertices', String(V), '--edges', String(V * 6), '--seed', '6']).code).toBe(0)
    const out = join(dir, 'g2100.csv')
    const r = jsonOf(paralab(['paths', graph, '--backend', 'workers-simd', '--output', out, '--format', 'csv', '--repeat', '1', '--json']))
    const g = r.results.graphs[0]
    const text = readFileSync(out, 'utf8')
    expect(g.output.bytes).toBe(Buffer.byteLength(text))
    const lines = text.split('\n')
    expect(lines.length).toBe(V + 2)
    expect(lines[0].split(',').slice(0, 3)).toEqual(['distance from \\ to', '0', '1'])
    // Every row its vertex's name and V cells; the finite ones sum to the run's checksum.
    let sum = 0n
    let empty = 0
    for (let i = 0; i < V; i++) {
      const cells = lines[i + 1].split(',')
      expect(cells.length).toBe(V + 1)
      expect(cells[0]).toBe(String(i))
      for (const c of cells.slice(1)) if (c === '') empty++
      else sum += BigInt(c)
    }
    expect(sum.toString()).toBe(g.checksum)
    expect(empty).toBe(V * V - V - g.reachablePairs)
  })

  it('generates the same graph for a seed, and queries saved successors without computing', () => {
    const graph = join(dir, 'g.bin')
    const made = jsonOf(paralab(['generate', 'graph', graph, '--vertices', '70', '--edges', '400', '--max-weight', '9', '--seed', '4', '--json']))
    expect(made).toEqual({ path: graph, vertices: 70, edges: 400, bytes: 8 + 12 * 400, format: 'course' })
    const again = join(dir, 'g2.bin')
    paralab(['generate', 'graph', again, '--vertices', '70', '--edges', '400', '--max-weight', '9', '--seed', '4'])
    expect(readFileSync(again).equals(readFileSync(graph))).toBe(true)
    expect(paralab(['generate', 'graph', graph, '--vertices', '70', '--edges', '400']).code).toBe(1)

    const out = join(dir, 'g-dist.npy')
    const run = jsonOf(paralab(['paths', graph, '--backend', 'blocked', '--block', '16', '--paths', '--output', out, '--format', 'npy', '--from', '3', '--to', '61', '--json']))
    const query = run.results.graphs[0].query
    const saved = jsonOf(paralab(['paths', 'query', graph, '--from', '3', '--to', '61', '--next', join(dir, 'g-dist.next.npy'), '--json']))
    const computed = jsonOf(paralab(['paths', 'query', graph, '--from', '3', '--to', '61', '--backend', 'serial', '--json']))
    expect(saved).toEqual(query)
    expect(computed).toEqual(query)
    const text = paralab(['paths', 'query', graph, '--from', '3', '--to', '61', '--next', join(dir, 'g-dist.next.npy')])
    expect(text.stdout).toBe(`${query.path.join(' → ')}\nlength ${query.length}, ${query.path.length - 1} edges\n`)
    // Only the successors along the path are read: garbage everywhere else changes nothing.
    const npy = readFileSync(join(dir, 'g-dist.next.npy'))
    const offset = 10 + npy.readUInt16LE(8)
    const onPath = new Set(query.path.slice(0, -1).map((v: string) => offset + 4 * (Number(v) * 70 + 61)))
    for (let at = offset; at < npy.length; at += 4) if (!onPath.has(at)) npy.writeInt32LE(0x7fffffff, at)
    writeFileSync(join(dir, 'garbage.next.npy'), npy)
    expect(jsonOf(paralab(['paths', 'query', graph, '--from', '3', '--to', '61', '--next', join(dir, 'garbage.next.npy'), '--json']))).toEqual(query)
    // Successors of another graph are refused.
    const wrong = paralab(['paths', 'query', join(DATA, 'c01.1'), '--from', '0', '--to', '1', '--next', join(dir, 'g-dist.next.npy')])
    expect(wrong.code).toBe(1)
    expect(errorLines(wrong.stderr)[0]).toContain('has shape (70, 70); the graph needs (5, 5)')
  })
})

describe('Matrix Market', () => {
  it('generate graph writes .mtx; paths reads it as the same graph and writes .mtx by the extension; the envelope names each input\'s format', () => {
    const args = ['--vertices', '60', '--edges', '500', '--max-weight', '30', '--seed', '9']
    const mtx = join(dir, 'm.mtx')
    const bin = join(dir, 'm.bin')
    const made = jsonOf(paralab(['generate', 'graph', mtx, ...args, '--json']))
    expect(made).toMatchObject({ path: mtx, vertices: 60, edges: 500, bytes: readFileSync(mtx).length })
    expect(readFileSync(mtx, 'utf8')).toMatch(/^%%MatrixMarket matrix coordinate integer general\n%[^\n]*\n60 60 500\n/)
    paralab(['generate', 'graph', bin, ...args])

    const fromMtx = join(dir, 'm-dist.mtx')
    const fromBin = join(dir, 'b-dist.mtx')
    const r = paralab(['paths', mtx, '--backend', 'serial', '--repeat', '1', '--output', fromMtx, '--json'])
    const env = jsonOf(r)
    expectEnvelope(env, { workload: 'paths', params: { ...DEFAULTS, files: [mtx], backends: ['serial'], repeat: 1, output: fromMtx, format: 'mtx' }, files: [mtx], formats: ['mtx'], device: false, timings: { serial: 1 }, run: r })
    expect(env.results.graphs[0]).toMatchObject({ format: 'mtx', vertices: 60, edges: 500, output: { path: fromMtx, format: 'mtx' } })
    const b = jsonOf(paralab(['paths', bin, '--backend', 'serial', '--repeat', '1', '--output', fromBin, '--json']))
    expect(b.input.files[0].format).toBe('course')
    expect(readFileSync(fromMtx).equals(readFileSync(fromBin))).toBe(true)
    expect(readFileSync(fromMtx, 'utf8').split('\n')[0]).toBe('%%MatrixMarket matrix coordinate integer general')
  })

  it('generate graph writes the format the name says, and paths reads each back as the same graph: DIMACS .gr, a CSV edge list', () => {
    const args = ['--vertices', '60', '--edges', '500', '--max-weight', '30', '--seed', '9']
    const bin = join(dir, 'n.bin')
    expect(paralab(['generate', 'graph', bin, ...args]).code).toBe(0)
    const [gr, csv] = [join(dir, 'g.gr'), join(dir, 'g.csv')]
    expect(paralab(['generate', 'graph', gr, ...args]).stdout).toBe(`wrote ${gr} (DIMACS shortest-path graph): 60 vertices, 500 edges, ${readFileSync(gr).length} bytes\n`)
    expect(jsonOf(paralab(['generate', 'graph', csv, ...args, '--json']))).toEqual({ path: csv, vertices: 60, edges: 500, bytes: readFileSync(csv).length, format: 'csv-edges' })
    expect(readFileSync(gr, 'utf8')).toMatch(/^c [^\n]*\np sp 60 500\na \d+ \d+ \d+\n/)
    expect(readFileSync(csv, 'utf8')).toMatch(/^source,target,weight\n\d+,\d+,\d+\n/)
    // DIMACS numbers vertices as Matrix Market does (from 1): the same distance matrix as the binary's.
    const [fromGr, fromBin] = [join(dir, 'gr-dist.mtx'), join(dir, 'bin-dist.mtx')]
    const ofGr = jsonOf(paralab(['paths', gr, '--backend', 'serial', '--repeat', '1', '--output', fromGr, '--force', '--json']))
    const ofBin = jsonOf(paralab(['paths', bin, '--backend', 'serial', '--repeat', '1', '--output', fromBin, '--force', '--from', '0', '--to', '59', '--json']))
    expect(ofGr.input.files[0].format).toBe('dimacs')
    expect(readFileSync(fromGr).equals(readFileSync(fromBin))).toBe(true)
    // A CSV edge list names the vertices as the binary's numbers them: the same answers by name.
    const ofCsv = jsonOf(paralab(['paths', csv, '--backend', 'serial', '--repeat', '1', '--from', '0', '--to', '59', '--json']))
    expect(ofCsv.input.files[0].format).toBe('csv-edges')
    const pick = (env: any) => (({ vertices, edges, minDistance, maxDistance, reachablePairs, query }) => ({ vertices, edges, minDistance, maxDistance, reachablePairs, query }))(env.results.graphs[0])
    expect(pick(ofCsv)).toEqual(pick(ofBin))
    expect(pick(ofBin).query.path.length).toBeGreaterThan(1)
  })

  it('names every workload\'s formats in `paralab workloads` and in its --help', () => {
    const list = paralab(['workloads'])
    expect(list.stdout).toContain('format: Matrix Market (.mtx): reads coordinate or array; real, integer or pattern; general, symmetric, skew-symmetric or hermitian')
    const json = jsonOf(paralab(['workloads', '--json']))
    expect(json.find((w: any) => w.id === 'paths').formats.map((f: any) => f.id)).toEqual(['course', 'dimacs', 'csv-edges', 'mtx'])
    expect(json.find((w: any) => w.id === 'stats').formats.map((f: any) => f.id)).toContain('csv')
    const help = paralab(['paths', '--help']).stdout
    expect(help).toContain('File formats (a file\'s content decides')
    expect(help).toContain('  Matrix Market (.mtx): reads coordinate or array; real, integer or pattern; general, symmetric, skew-symmetric or hermitian: entry (i, j) is the arc i → j, duplicates summed (as SciPy); writes --format mtx')
    expect(paralab(['generate', 'graph', '--help']).stdout).toContain('Matrix Market (coordinate integer general) in .mtx')
  })
})

describe('paralab bench paths', () => {
  it('sweeps tuned tile shapes over several sizes in one run: a JSON array, one run per shape and size', () => {
    const shapes = ['b64-k64', 'b32x64-k8']
    const r = paralab(['bench', 'paths', '--vertices', '70,130', '--backend', 'gpu', '--variant', 'tuned', '--shapes', shapes.join(','), '--repeat', '1', '--no-scipy', '--json'])
    const benches = jsonOf(r)
    expect(benches.map((b: { graph: { vertices: number } }) => b.graph.vertices)).toEqual([70, 130])
    for (const b of benches) {
      expect(Object.keys(b.runs)).toEqual(shapes.map((s) => `gpu tuned B=64 ${s}`))
      expect(b.failed).toEqual([])
      for (const run of Object.values(b.runs) as { relaxations_per_s: number }[]) expect(run.relaxations_per_s).toBeGreaterThan(0)
    }
    const bad = paralab(['bench', 'paths', '--variant', 'tuned', '--shapes', 'b64-t4x4'])
    expect(bad.code).toBe(2)
    expect(errorLines(bad.stderr).join('\n')).toContain('--shapes: tuned shape "b64-t4x4" is not of the form')
  })

  it('writes the tuned variant\'s distances as npy from pieces: the expected output after the header', () => {
    const out = join(dir, 'c08-tuned.npy')
    jsonOf(paralab(['paths', join(DATA, 'c08.1'), '--backend', 'serial,gpu', '--variant', 'tuned', '--output', out, '--format', 'npy', '--repeat', '1', '--json']))
    const file = readFileSync(out)
    const offset = 10 + file.readUInt16LE(8)
    // f64, inf for no path: the int32 distances exact.
    const expected = readFileSync(join(DATA, 'c08.1.out'))
    const ints = new Int32Array(expected.buffer, expected.byteOffset, expected.length / 4)
    expect(file.subarray(offset).equals(Buffer.from(Float64Array.from(ints, (x) => (x === INF ? Infinity : x)).buffer))).toBe(true)
  })

  it('travel times from scipy.io.mmwrite (A * 0.37): the default backend\'s npy is floyd_warshall\'s array, equal in numpy', () => {
    const mtx = join(dir, 'times.mtx')
    const ref = join(dir, 'times-scipy.npy')
    execFileSync('python3', [
      '-c',
      'import sys, numpy as np, scipy.sparse as sp, scipy.io\nfrom scipy.sparse.csgraph import floyd_warshall\nA = sp.random(60, 60, density=0.06, random_state=3, format="csr")\nA.data = np.round(A.data * 100) * 0.37\nscipy.io.mmwrite(sys.argv[1], A)\nnp.save(sys.argv[2], floyd_warshall(scipy.io.mmread(sys.argv[1]).tocsr(), directed=True))',
      mtx,
      ref,
    ])
    const out = join(dir, 'times.npy')
    const env = jsonOf(paralab(['paths', mtx, '--repeat', '1', '--output', out, '--json']))
    const g = env.results.graphs[0]
    expect(g.arithmetic).toBe('f64')
    expect(g.runs.map((r: { name: string; arithmetic: string }) => [r.name, r.arithmetic])).toEqual([['serial', 'f64']])
    const check = execFileSync('python3', ['-c', 'import sys, numpy as np\nD = np.load(sys.argv[1]); R = np.load(sys.argv[2])\nprint(D.dtype, np.array_equal(D, R), int(np.isinf(D).sum()))', out, ref], { encoding: 'utf8' }).trim().split(' ')
    expect(check.slice(0, 2)).toEqual(['float64', 'True'])
    expect(Number(check[2])).toBeGreaterThan(0)
  })
})
