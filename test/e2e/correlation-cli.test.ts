// `paralab correlation` as a user runs it: generated walks, the envelope --json prints, the matrix
// written with --matrix against Pearson's formula, --out files, f32 deviations, the GPU kernels on
// the software adapter, a pair, and bad input that exits 1 naming the place and writing nothing.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { correlationWorkload } from '../../src/shared/workloads/correlation'
import { defaultParams } from '../../src/shared/workloads/schema'
import { maxAbsDiff, pearsonMatrix } from '../helpers/correlation-reference'
import { errorLines, expectEnvelope, jsonOf, paralab } from './paralab'

// The GPU run compiles its kernels on the software adapter first.
vi.setConfig({ testTimeout: 180_000 })

const DEFAULTS = defaultParams(correlationWorkload.params)
const [M, N] = [30, 300]
let dir: string
let csv: string
let anomalies: string[]
/** The CSV's series, read here with no help from the workload. */
let values: Float64Array

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-correlation-cli-'))
  csv = join(dir, 'walks.csv')
  const made = JSON.parse(paralab(['generate', 'walks', csv, '--series', String(M), '--length', String(N), '--anomalies', '2', '--seed', '5', '--json']).stdout)
  anomalies = made.anomalies
  const rows = readFileSync(csv, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').map(Number))
  values = Float64Array.from({ length: M * N }, (_, i) => rows[i % N][Math.floor(i / N)])
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The data of a .npy matrix file NumPy wrote or we did: its header's shape and dtype, and the values. */
function readMatrix(path: string): { header: string; values: Float64Array } {
  const bytes = new Uint8Array(readFileSync(path))
  const length = bytes[8] | (bytes[9] << 8)
  return { header: new TextDecoder().decode(bytes.subarray(10, 10 + length)), values: new Float64Array(bytes.buffer.slice(10 + length)) }
}

describe('paralab correlation', () => {
  it('computes the matrix on two CPU backends, ranks the series, writes the matrix and --out', () => {
    const matrix = join(dir, 'r.npy')
    const out = join(dir, 'out')
    const r = paralab(['correlation', csv, '--backend', 'serial,workers-simd', '--repeat', '2', '--matrix', matrix, '--out', out, '--json'])
    const env = jsonOf(r)
    expectEnvelope(env, {
      workload: 'correlation',
      params: { ...DEFAULTS, files: [csv], backends: ['serial', 'workers-simd'], repeat: 2, matrix: matrix },
      files: [csv],
      device: false,
      timings: { serial: 2, 'workers-simd': 2 },
      run: r,
    })
    const res = env.results
    expect(res.input).toMatchObject({ path: csv, format: 'csv', layout: 'columns', series: M, length: N })
    expect(res.reference).toBe('serial')
    for (const run of res.runs) {
      expect(Object.keys(run.stages)).toEqual(['means', 'squares', 'cross', 'coefficients'])
      expect(run.max_abs_dr).toBeLessThanOrEqual(1e-12)
    }
    expect(res.ranking).toHaveLength(M)
    expect(Object.keys(res.ranking[0]).sort()).toEqual(['flagged', 'index', 'meanR', 'medianR', 'name', 'z'])
    expect(res.ranking.filter((e: { flagged: boolean }) => e.flagged).map((e: { name: string }) => e.name).sort()).toEqual([...anomalies].sort())
    expect(res.heatmap).toMatchObject({ size: M, block: 1, order: 'given' })
    expect(res.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe((M * (M - 1)) / 2)

    // The matrix file: NumPy's header, and r from the formula.
    expect(res.matrix).toEqual({ path: matrix, bytes: 128 + M * M * 8, dtype: '<f8' })
    const written = readMatrix(matrix)
    expect(written.header).toMatch(/^\{'descr': '<f8', 'fortran_order': False, 'shape': \(30, 30\), \} *\n$/)
    expect(maxAbsDiff(written.values, pearsonMatrix(values, M, N))).toBeLessThanOrEqual(1e-12)

    const files = readdirSync(out).sort()
    for (const f of ['results.json', 'runs.csv', 'ranking.csv', 'histogram.csv', 'heatmap.svg', 'heatmap.png', 'histogram.svg', 'ranking.svg', 'stages.svg']) expect(files).toContain(f)
    expect(readFileSync(join(out, 'ranking.csv'), 'utf8').split('\n')[0]).toBe('rank,name,index,mean_r,median_r,z,flagged')
    expect(readFileSync(join(out, 'heatmap.svg'), 'utf8')).toMatch(/<svg[^>]*viewBox="0 0 960 835"/)
    expect(readFileSync(join(out, 'histogram.svg'), 'utf8')).toMatch(/<svg[^>]*viewBox="0 0 960 600"/)
  })

  it('prints the ranking for people, the disturbed series first', () => {
    const r = paralab(['correlation', csv, '--backend', 'simd', '--repeat', '1', '--top', '3'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`Ranking of ${M} series, most anomalous first (robust z of mean r): 2 flagged (z < -3.5, apart from the cluster's tail by a gap of ×1.5)`)
    const top = r.stdout.split('\n').filter((l) => /^\d+ +s\d+/.test(l))
    expect(top).toHaveLength(3)
    expect(top.slice(0, 2).map((l) => l.split(/ +/)[1]).sort()).toEqual([...anomalies].sort())
  })

  it('reports f32 runs with their deviation from a separate f64 reference', () => {
    const res = jsonOf(paralab(['correlation', csv, '--backend', 'workers', '--precision', 'f32', '--repeat', '1', '--json'])).results
    expect(res.reference).toBe('workers-simd')
    expect(res.runs[0]).toMatchObject({ backend: 'workers', arithmetic: 'f32' })
    expect(res.runs[0].max_abs_dr).toBeGreaterThan(0)
    expect(res.runs[0].max_abs_dr).toBeLessThan(1e-4)
  })

  it('runs and times every GPU kernel on the software adapter, each checked against the reference, and sweeps', () => {
    const small = join(dir, 'small.npy')
    paralab(['generate', 'walks', small, '--series', '20', '--length', '70', '--layout', 'rows', '--seed', '2'])
    const r = paralab(['correlation', small, '--layout', 'rows', '--backend', 'gpu', '--variant', 'all', '--repeat', '2', '--sweep', '2', '--json'])
    const env = jsonOf(r)
    const kernels = ['means-naive', 'means-shared', 'means-unrolled', 'means-subgroup', 'cross-naive', 'cross-tiled', 'cross-register']
    expectEnvelope(env, {
      workload: 'correlation',
      params: { ...DEFAULTS, files: [small], layout: 'rows', backends: ['gpu'], variants: kernels, repeat: 2, sweep: 2 },
      files: [small],
      device: true,
      timings: { gpu: 2, ...Object.fromEntries(kernels.map((k) => [`gpu ${k}`, 2])) },
    })
    const [run] = env.results.runs
    expect(run).toMatchObject({ backend: 'gpu', arithmetic: 'f32-compensated' })
    expect(run.variants.map((v: { stage: string; variant: string }) => `${v.stage}-${v.variant}`)).toEqual(kernels)
    for (const v of run.variants) expect(v.deviation, v.variant).toBeLessThan(v.stage === 'means' ? 1e-7 : 2e-6)
    expect(run.max_abs_dr).toBeLessThan(2e-6)
    expect(env.results.reference).toBe('workers-simd')
    // The sweep runs the first kernel of each stage on the first 10 and all 20 series.
    expect(env.results.sweep.points.map((p: { series: number; backends: Record<string, number> }) => [p.series, p.backends.gpu > 0])).toEqual([
      [10, true],
      [20, true],
    ])
  })

  it('overlays a pair, downsampled, with its r', () => {
    const res = jsonOf(paralab(['correlation', csv, '--pair', `s3,${anomalies[0]}`, '--json'])).results
    expect(res.runs).toEqual([])
    expect(res.pair).toMatchObject({ names: ['s3', anomalies[0]], step: 1 })
    expect(res.pair.x).toHaveLength(N)
    const i = Number(anomalies[0].slice(1))
    const want = pearsonMatrix(values, M, N)[3 * M + i]
    expect(res.pair.r).toBeCloseTo(want, 12)
  })

  it('exits 1 on bad input, naming the line and series, and writes no matrix', () => {
    const ragged = join(dir, 'ragged.csv')
    writeFileSync(ragged, 'a,1,2,3\nb,4,5,6\nc,7,8\n')
    const matrix = join(dir, 'never.npy')
    const r = paralab(['correlation', ragged, '--layout', 'rows', '--matrix', matrix])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${ragged}:3: series "c" has 2 values; series "a" (line 1) has 3`])
    expect(existsSync(matrix)).toBe(false)
  })

  it('refuses a matrix file that exists, before any work, and replaces it with --force', () => {
    const existing = join(dir, 'exists.npy')
    writeFileSync(existing, 'keep')
    const r = paralab(['correlation', csv, '--matrix', existing])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${existing} exists (use --force to replace it)`)
    expect(readFileSync(existing, 'utf8')).toBe('keep')
    const forced = paralab(['correlation', csv, '--matrix', existing, '--force', '--repeat', '1'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(existing).subarray(0, 6).toString('latin1')).toBe('\x93NUMPY')
  })

  it('takes a matrix path with a comma as one file', () => {
    const target = join(dir, 'r,1.npy')
    const r = paralab(['correlation', csv, '--matrix', target, '--repeat', '1'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(target).subarray(0, 6).toString('latin1')).toBe('\x93NUMPY')
  })
})

describe('paralab correlation on a CSV with text columns', () => {
  const rows = Array.from({ length: 50 }, (_, i) => `2020-02-13 15:28:${String(i % 60).padStart(2, '0')},${i},${(i * 7) % 11},${-i * 2 + (i % 3)},label${i}`)
  const file = () => {
    const path = join(dir, 'acc.csv')
    writeFileSync(path, ['datetime,acc_x,acc_y,acc_z,tag', ...rows].join('\n') + '\n')
    return path
  }

  it('leaves the columns of text out, names them, and correlates the rest', () => {
    const r = paralab(['correlation', file(), '--repeat', '1', '--json'])
    const env = jsonOf(r)
    expect(env.results.input).toMatchObject({ series: 3, length: 50, left_out: ['datetime', 'tag'] })
    expect(env.results.ranking.map((s: { name: string }) => s.name).sort()).toEqual(['acc_x', 'acc_y', 'acc_z'])
    const text = paralab(['correlation', file(), '--repeat', '1'])
    expect(text.stdout).toContain('left out 2 columns of text: datetime, tag (choose the series with --columns)')
  })

  it('a numeric column with a stray text cell on its first line is a bad cell named by file:line:column, not a column of text', () => {
    const path = join(dir, 'stray.csv')
    const names = Array.from({ length: 12 }, (_, k) => `s${k}`)
    const body = Array.from({ length: 40 }, (_, i) => names.map((_, k) => (i === 0 && k === 5 ? 'oops' : String((i * (k + 3)) % 17))).join(','))
    writeFileSync(path, [names.join(','), ...body].join('\n') + '\n')
    const r = paralab(['correlation', path, '--repeat', '1', '--json'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(errorLines(r.stderr)).toEqual([`paralab: ${path}:2:6: column "s5": "oops" is not a number`])
  })

  it('--columns chooses the series; a column of text among them is an error naming its line', () => {
    const two = jsonOf(paralab(['correlation', file(), '--columns', 'acc_z,acc_x', '--repeat', '1', '--json']))
    expect(two.results.input).toMatchObject({ series: 2 })
    expect(two.results.input.left_out).toBeUndefined()
    expect(two.params.columns).toEqual(['acc_z', 'acc_x'])
    const bad = paralab(['correlation', file(), '--columns', 'datetime,acc_x'])
    expect(bad.code).toBe(1)
    expect(errorLines(bad.stderr).join('\n')).toMatch(/acc\.csv:2:1: column "datetime": "2020-02-13 15:28:00" is not a number/)
    const rowsLayout = paralab(['correlation', file(), '--columns', 'acc_x,acc_y', '--layout', 'rows'])
    expect(rowsLayout.code).toBe(1)
    expect(rowsLayout.stderr).toContain('--columns chooses columns of a CSV in the columns layout')
  })

  it('a file with fewer than two numeric columns says which were left out', () => {
    const path = join(dir, 'one.csv')
    writeFileSync(path, 'datetime,acc_x\n2020-01-01 00:00:00,1\n2020-01-01 00:00:01,2\n')
    const r = paralab(['correlation', path])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('1 series; correlation needs at least 2 (columns layout: a series per column; columns of text left out: "datetime")')
  })

  it('400 series (the stack overflowed from 360): every chart and table written, the matrix as CSV, a zoom exported', () => {
    const w = join(dir, 'w400.npy')
    expect(paralab(['generate', 'walks', w, '--series', '400', '--length', '200']).code).toBe(0)
    const out = join(dir, 'o400')
    const csvMatrix = join(dir, 'r400.csv')
    const r = paralab(['correlation', w, '--backend', 'workers-simd', '--repeat', '1', '--aggregate', 'max', '--matrix', csvMatrix, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    for (const f of ['heatmap.png', 'heatmap.svg', 'histogram.png', 'ranking.csv', 'runs.csv']) expect(existsSync(join(out, f)), f).toBe(true)
    const heatmap = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).results.heatmap
    expect([heatmap.size, heatmap.block]).toEqual([200, 2])
    expect(readFileSync(join(out, 'heatmap.svg'), 'utf8')).toContain('maximum of 2 × 2 blocks')
    const lines = readFileSync(csvMatrix, 'utf8').split('\n')
    expect(lines[0].startsWith('r,s0,s1,')).toBe(true)
    expect(lines.length).toBe(402)
    expect(lines[1].split(',')[1]).toBe('1')
    const zoomed = join(dir, 'z400')
    const z = paralab(['correlation', w, '--zoom', '100:149,300:349', '--out', zoomed])
    expect(z.code, z.stderr).toBe(0)
    expect(z.stdout).toContain('zoom: series 100–149 × 300–349, every pair')
    expect(readFileSync(join(zoomed, 'zoom.svg'), 'utf8')).toContain('series 100–149 × 300–349, full resolution')
    expect(existsSync(join(zoomed, 'zoom.png'))).toBe(true)
  })
})
