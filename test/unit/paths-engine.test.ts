// The shortest-paths job as the backend runs it: --output in every format (bin byte for byte the
// course's expected output), the checksum and counts, successors that reproduce the distances,
// path queries by name, charts and tables, and bad input refused before anything is written.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { chartConfig } from '../../src/shared/charts'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import { INF, type PathsResult } from '../../src/shared/workloads/paths/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { followPath } from '../../src/main/workloads/paths/query'
import { readIntMatrix } from '../../src/main/workloads/paths/read-matrix'
import { jobContext, NO_ADAPTER } from '../helpers/job-context'

const DATA = join(__dirname, '../../../shared/data/paths')
const dir = mkdtempSync(join(tmpdir(), 'paralab-paths-engine-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ctx = jobContext()

async function run(input: Record<string, unknown>): Promise<PathsResult> {
  return (await runPathsJob(validateParams('paths', pathsWorkload.params, { repeat: 1, backends: ['serial', 'workers-simd'], ...input }), ctx)).results
}

describe('--output', () => {
  it.each(['c03', 'c08'])('%s in bin: byte for byte the expected output; npy and csv hold the same', async (c) => {
    const expected = readFileSync(join(DATA, `${c}.1.out`))
    const bin = join(dir, `${c}.bin`)
    const r = await run({ files: [join(DATA, `${c}.1`)], output: bin })
    expect(readFileSync(bin).equals(expected)).toBe(true)
    expect(r.graphs[0].output).toMatchObject({ path: bin, format: 'bin', bytes: expected.length })

    const V = Math.sqrt(expected.length / 4)
    const npy = join(dir, `${c}.npy`)
    await run({ files: [join(DATA, `${c}.1`)], output: npy, format: 'npy', backends: ['simd'] })
    const bytes = readFileSync(npy)
    expect(bytes.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY')
    const headerEnd = 10 + bytes.readUInt16LE(8)
    expect(headerEnd % 64).toBe(0)
    // Distances' npy is f64, inf for no path (numpy's mean and max see no sentinel), the int32 values exact.
    expect(bytes.toString('latin1', 10, headerEnd)).toContain(`'descr': '<f8', 'fortran_order': False, 'shape': (${V}, ${V})`)
    const ints = new Int32Array(expected.buffer, expected.byteOffset, V * V)
    const f64 = Float64Array.from(ints, (x) => (x === INF ? Infinity : x))
    expect(bytes.subarray(headerEnd).equals(Buffer.from(f64.buffer))).toBe(true)

    const csv = join(dir, `${c}.csv`)
    await run({ files: [join(DATA, `${c}.1`)], output: csv, format: 'csv', backends: ['blocked'] })
    const rows = readFileSync(csv, 'utf8').trimEnd().split('\n')
    expect(rows).toHaveLength(V + 1)
    expect(rows[0].split(',').slice(1)).toEqual(Array.from({ length: V }, (_, i) => String(i)))
    const want = new Int32Array(expected.buffer, expected.byteOffset, V * V)
    for (const i of [0, V - 1]) expect(rows[i + 1].split(',')).toEqual([String(i), ...Array.from(want.subarray(i * V, i * V + V), (x) => (x === INF ? '' : String(x)))])
  })

  it('refuses, before any work, an existing file without --force', async () => {
    const taken = join(dir, 'taken.bin')
    writeFileSync(taken, 'keep')
    await expect(run({ files: [join(DATA, 'c01.1')], output: taken })).rejects.toThrow(`${taken} exists (use --force to replace it)`)
    expect(readFileSync(taken, 'utf8')).toBe('keep')
    await run({ files: [join(DATA, 'c01.1')], output: taken, force: true })
    expect(readFileSync(taken).equals(readFileSync(join(DATA, 'c01.1.out')))).toBe(true)

  })

  it('writes nothing for a graph with a fault', async () => {
    const bad = join(dir, 'bad.1')
    writeFileSync(bad, Buffer.from(Int32Array.of(4, 2, 0, 1, 5, 1, 9, 2).buffer))
    const out = join(dir, 'bad.bin')
    await expect(run({ files: [bad], output: out })).rejects.toThrow(`${bad}: edge 1 at byte 24: target 9 is outside 0…3`)
    expect(existsSync(out)).toBe(false)
  })
})

describe('results', () => {
  it('count reachable pairs and sum the finite distances, as the expected output has them', async () => {
    const r = await run({ files: [join(DATA, 'c05.1')], backends: ['serial', 'blocked', 'simd', 'workers', 'workers-simd'], blocks: ['16', '64'], repeat: 2 })
    const want = new Int32Array(readFileSync(join(DATA, 'c05.1.out')).buffer.slice(0))
    const V = Math.sqrt(want.length)
    let sum = 0
    let reachable = 0
    want.forEach((x, at) => {
      if (x !== INF) sum += x
      if (x !== INF && at % (V + 1) !== 0) reachable++
    })
    const g = r.graphs[0]
    expect(g).toMatchObject({ format: 'course', vertices: V, checksum: String(sum), reachablePairs: reachable, successors: false })
    expect(g.runs.map((x) => x.name)).toEqual(['serial', 'blocked B=16', 'blocked B=64', 'simd B=16', 'simd B=64', 'workers B=16', 'workers B=64', 'workers-simd B=16', 'workers-simd B=64'])
    expect(g.runs.every((x) => x.matches && x.compute_range_ms[0] <= x.compute_ms && x.compute_ms <= x.compute_range_ms[1])).toBe(true)
    expect(g.histogram.counts.reduce((a, b) => a + b)).toBe(reachable)
    expect(g.heatmap).toMatchObject({ size: V, cell: 1 })
    expect(g.heatmap.min.filter((x) => x === null).length).toBe(want.filter((x) => x === INF).length)

    // Tables and every chart draw from these results.
    expect(pathsWorkload.tables(r).map((t) => [t.name, t.rows.length])).toEqual([['runs', 9], ['graphs', 1]])
    const charts = pathsWorkload.charts(r)
    expect(charts.map((c) => c.name)).toEqual(['c05-steps', 'c05-blocks', 'c05-split', 'c05-heatmap', 'c05-histogram'])
    for (const c of charts) expect(() => chartConfig(c.spec), c.name).not.toThrow()
  })

  it('successors reproduce every distance along their paths, and the query follows them by name', async () => {
    const file = join(dir, 'ties.csv')
    // Zero weights and ties galore: a grid of named vertices with weights 0 or 1 both ways.
    const lines = ['source,target,weight']
    const name = (x: number, y: number) => `v${x}-${y}`
    for (let x = 0; x < 9; x++)
      for (let y = 0; y < 9; y++) {
        if (x < 8) lines.push(`${name(x, y)},${name(x + 1, y)},${(x + y) % 2}`, `${name(x + 1, y)},${name(x, y)},${(x * y) % 2}`)
        if (y < 8) lines.push(`${name(x, y)},${name(x, y + 1)},1`)
      }
    writeFileSync(file, lines.join('\n'))
    const out = join(dir, 'ties.bin')
    const r = await run({ files: [file], paths: true, from: 'v0-0', to: 'v8-8', output: out, backends: ['serial', 'blocked', 'workers-simd'], blocks: ['8'] })
    const g = r.graphs[0]
    expect(g.successors).toBe(true)
    // Each run's label says it kept successors (several times the work of the distances alone).
    expect(g.runs.map((x) => x.name)).toEqual(['serial with successors', 'blocked B=8 with successors', 'workers-simd B=8 with successors'])
    expect(g.runs.every((x) => x.matches)).toBe(true)
    expect(g.output!.next).toBe(join(dir, 'ties.next.bin'))
    const V = g.vertices
    const d = await readIntMatrix(out, V)
    const next = await readIntMatrix(g.output!.next!, V)
    const weight = new Map<string, number>()
    for (const line of lines.slice(1)) {
      const [s, t, w] = line.split(',')
      weight.set(`${s}>${t}`, Math.min(Number(w), weight.get(`${s}>${t}`) ?? Infinity))
    }
    const names: string[] = []
    for (const line of lines.slice(1)) for (const n of line.split(',').slice(0, 2)) if (!names.includes(n)) names.push(n)
    for (let i = 0; i < V; i++)
      for (let j = 0; j < V; j++) {
        const path = await followPath((v) => next[v * V + j], V, i, j)
        expect(path === null, `${i} → ${j}`).toBe(d[i * V + j] === INF)
        if (!path) continue
        let sum = 0
        for (let s = 0; s + 1 < path.length; s++) sum += weight.get(`${names[path[s]]}>${names[path[s + 1]]}`)!
        expect(sum, `${i} → ${j}`).toBe(d[i * V + j])
      }
    expect(g.query).toMatchObject({ from: 'v0-0', to: 'v8-8', length: d[names.indexOf('v8-8')] })
    expect(g.query!.path![0]).toBe('v0-0')
    expect(g.query!.path!.at(-1)).toBe('v8-8')
    expect(pathsWorkload.tables(r).find((t) => t.name === 'query')!.rows).toEqual([[file, 'v0-0', 'v8-8', g.query!.length, g.query!.path!.length - 1, g.query!.path!.join(' ')]])
  })

  it('a query with no path says so', async () => {
    const r = await run({ files: [join(DATA, 'c01.1')], from: '0', to: '0' })
    expect(r.graphs[0].query).toEqual({ from: '0', to: '0', path: ['0'], length: 0 })
    const file = join(dir, 'two.gr')
    writeFileSync(file, 'p sp 2 1\na 1 2 5\n')
    const back = await run({ files: [file], from: '2', to: '1' })
    expect(back.graphs[0].query).toEqual({ from: '2', to: '1', path: null, length: null })
  })

  it('skips the GPU, saying why, when there is none and other backends run', async () => {
    const r = await run({ files: [join(DATA, 'c01.1')], backends: ['serial', 'gpu'] })
    expect(r.skipped).toEqual([{ backend: 'gpu', reason: NO_ADAPTER }])
    expect(r.graphs[0].runs.map((x) => x.name)).toEqual(['serial'])
  })
})
