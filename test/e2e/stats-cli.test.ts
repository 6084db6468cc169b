// `paralab stats` and `paralab generate acc` as a user runs them: results against an independent
// computation on the real sample, the --json envelope, the example, folder summaries, --out files,
// and bad input.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { defaultParams } from '../../src/shared/workloads/schema'
import { statsWorkload } from '../../src/shared/workloads/stats'
import { envelopeFile, errorLines, expectEnvelope, jsonOf, paralab } from './paralab'

const SAMPLE = resolve(__dirname, '../../../shared/data/accelerometer/ACC_016_head.csv')
const CPU_BACKENDS = ['serial', 'simd', 'workers', 'workers-simd']
/** The schema's defaults, which every envelope's params fill in. */
const STATS_DEFAULTS = defaultParams(statsWorkload.params)

/** Sort-based statistics, independent of the engine. */
function expected(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b)
  const med = (s: number[]) => (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2)
  const median = med(sorted)
  const mean = values.reduce((a, b) => a + b, 0) / values.length
  const std = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length)
  return { n: values.length, mean, std, cv: std / mean, median, mad: med(values.map((v) => Math.abs(v - median)).sort((a, b) => a - b)) }
}

// The GPU backend compiles its shaders on the software adapter first (~15 s per precision).
vi.setConfig({ testTimeout: 240_000 })

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-stats-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Every file in `d` (recursively) with its modification time. */
function snapshot(d: string): Record<string, number> {
  return Object.fromEntries(readdirSync(d, { recursive: true, encoding: 'utf8' }).sort().map((f) => [f, statSync(join(d, f)).mtimeMs]))
}

describe('paralab stats', () => {
  it('computes the real sample on every CPU and GPU backend, matching a sort-based reference', () => {
    const r = paralab(['stats', SAMPLE, '--backend', 'all', '--repeat', '2', '--json'])
    const env = jsonOf(r)
    // The envelope: the GPU ran, so it names the (software) device; one timing per backend.
    expectEnvelope(env, {
      workload: 'stats',
      params: { ...STATS_DEFAULTS, files: [SAMPLE], backends: [...CPU_BACKENDS, 'gpu'], repeat: 2 },
      files: [SAMPLE],
      device: true,
      timings: Object.fromEntries([...CPU_BACKENDS, 'gpu'].map((b) => [b, 2])),
      run: r,
    })
    expect(env.input.files[0].bytes).toBe(statSync(SAMPLE).size)
    const file = env.results.files[0]
    expect(file.path).toBe(SAMPLE)
    expect(file.rows).toBe(100)
    expect(file.load_ms).toBeGreaterThan(0)
    const rows = readFileSync(SAMPLE, 'utf8').trim().split('\n').slice(1).map((l) => l.split(','))
    for (const [i, c] of ['acc_x', 'acc_y', 'acc_z'].entries()) {
      const want = expected(rows.map((row) => Number(row[i + 1])))
      const got = file.columns[c]
      expect(got.n).toBe(100)
      expect(got.missing).toBe(0)
      expect(got.median).toBe(want.median)
      expect(got.mad).toBe(want.mad)
      expect(Math.abs(got.cv - want.cv) / Math.abs(want.cv)).toBeLessThan(1e-12)
      for (const b of ['serial', 'simd', 'workers', 'workers-simd', 'gpu']) {
        const run = file.backends[b]
        expect(run.precision).toBe('f64')
        expect(run.compute_ms).toBeGreaterThan(0)
        expect(run.columns[c].median, `${b} ${c}`).toBe(want.median)
        expect(run.columns[c].mad, `${b} ${c}`).toBe(want.mad)
        expect(Math.abs(run.columns[c].cv - want.cv) / Math.abs(want.cv), `${b} ${c}`).toBeLessThan(1e-12)
      }
    }
    expect(file.backends.gpu.upload_ms).toBeGreaterThanOrEqual(0)
    // One batch: the file's backend time is the sum over columns of each column's median, the
    // envelope's timing the median of the per-repeat sums; both come from the same two runs.
    for (const b of [...CPU_BACKENDS, 'gpu']) {
      const t = env.timings[b]
      expect(file.backends[b].compute_ms, b).toBeGreaterThanOrEqual(t.min * 0.999)
      expect(file.backends[b].compute_ms, b).toBeLessThanOrEqual(t.max * 1.001)
    }
  })

  it('fills in the defaults and names no device when only CPU backends ran', () => {
    // Defaults: workers-simd, f64, 10 repeats, 1 batch; columns left to the engine.
    const cpu = paralab(['stats', SAMPLE, '--json'])
    const env = jsonOf(cpu)
    expectEnvelope(env, {
      workload: 'stats',
      params: { ...STATS_DEFAULTS, files: [SAMPLE] },
      files: [SAMPLE],
      device: false,
      timings: { 'workers-simd': 10 },
      run: cpu,
    })
    expect(Object.keys(env.results.files[0].backends)).toEqual(['workers-simd'])
    // Chosen columns are recorded as given.
    const one = jsonOf(paralab(['stats', SAMPLE, '--columns', 'acc_z', '--backend', 'simd', '--repeat', '1', '--json']))
    expect(one.params.columns).toEqual(['acc_z'])
    expect(Object.keys(one.results.files[0].columns)).toEqual(['acc_z'])
  })

  it('states the deviation of f32 results from f64', () => {
    const r = paralab(['stats', SAMPLE, '--backend', 'serial', '--precision', 'f32', '--repeat', '1', '--json'])
    const env = jsonOf(r)
    expectEnvelope(env, {
      workload: 'stats',
      params: { ...STATS_DEFAULTS, files: [SAMPLE], backends: ['serial'], precision: 'f32', repeat: 1 },
      files: [SAMPLE],
      device: false,
      timings: { serial: 1 },
      run: r,
    })
    const run = env.results.files[0].backends.serial
    expect(run.precision).toBe('f32')
    expect(run.columns.acc_x.deviation.cv_rel).toBeLessThan(1e-5)
    expect(run.columns.acc_x.deviation.median_abs).toBe(0)
  })

  it('runs a folder of files with batches and writes charts and results with --out', () => {
    const data = join(dir, 'folder')
    mkdirSync(data)
    for (const [name, seed] of [['a.csv', '1'], ['b.csv', '2']]) expect(paralab(['generate', 'acc', join(data, name), '--rows', '3000', '--seed', seed]).code).toBe(0)
    const out = join(dir, 'out')
    const r = paralab(['stats', data, '--backend', 'serial,workers', '--batches', '3', '--repeat', '2', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Summary (f64 reference)')
    expect(r.stdout).toMatch(/a\.csv.*\n.*b\.csv/)
    const written = readdirSync(out).sort()
    // results.json is the envelope; with several files the timings are per file and backend.
    const files = ['a.csv', 'b.csv'].map((f) => join(data, f))
    const env = envelopeFile(join(out, 'results.json'))
    // The envelope, every result table as CSV and Parquet, and each file's three charts as SVG and PNG.
    const charts = ['a', 'b'].flatMap((s) => ['cv', 'mad', 'speedup', 'time'].flatMap((c) => [`${s}-${c}.png`, `${s}-${c}.svg`]))
    const tables = statsWorkload.tables(env.results).flatMap((t) => [`${t.name}.csv`, `${t.name}.parquet`])
    expect(tables).toContain('results.csv')
    expect(written).toEqual([...charts, ...tables, 'results.json'].sort())
    expectEnvelope(env, {
      workload: 'stats',
      params: { ...STATS_DEFAULTS, files, backends: ['serial', 'workers'], batches: 3, repeat: 2 },
      files,
      device: false,
      timings: Object.fromEntries(files.flatMap((f: string) => ['serial', 'workers'].map((b) => [`${f}: ${b}`, 2]))),
      run: r,
    })
    expect(env.results.files.map((f: { path: string }) => f.path)).toEqual(files)
    expect(env.results.files[0].batches.map((b: { rows: number }) => b.rows)).toEqual([1000, 2000, 3000])
    expect(readFileSync(join(out, 'a-time.png')).subarray(1, 4).toString()).toBe('PNG')
    const svg = readFileSync(join(out, 'b-cv.svg'), 'utf8')
    expect(svg).toMatch(/<svg[^>]*viewBox=/)
    expect(svg).not.toContain('<image')
    // One row per file × column: the reference, each backend, and each backend at each prefix.
    const csv = readFileSync(join(out, 'results.csv'), 'utf8').trim().split('\n')
    expect(csv[0]).toBe('file,prefix_rows,column,backend,precision,n,missing,mean,std,cv,median,mad,compute_ms,upload_ms,compile_ms')
    expect(csv).toHaveLength(1 + 2 * 3 * (1 + 2 + 3 * 2))
    const ref = csv.find((l) => l.startsWith(`${files[1]},3000,acc_y,reference,f64,3000,0,`))
    expect(ref).toBeDefined()
    expect(ref!.split(',')[9]).toBe(String(env.results.files[1].columns.acc_y.cv))

    // Without --force nothing is replaced, nor written beside the existing files.
    const before = snapshot(out)
    const again = paralab(['stats', data, '--backend', 'serial', '--repeat', '1', '--out', out])
    expect(again.code).toBe(1)
    expect(errorLines(again.stderr)).toEqual([expect.stringMatching(/^paralab: .*\/out(\/results\.json)? exists \(use --force to (overwrite|replace it)\)$/)])
    expect(snapshot(out)).toEqual(before)
    // One existing file where the results would go stops them all.
    const partial = join(dir, 'partial')
    mkdirSync(partial)
    writeFileSync(join(partial, 'b-mad.png'), 'mine')
    const blocked = paralab(['stats', data, '--backend', 'serial', '--repeat', '1', '--out', partial])
    expect(blocked.code).toBe(1)
    expect(errorLines(blocked.stderr)).toEqual([expect.stringMatching(/^paralab: .*\/partial(\/b-mad\.png)? exists \(use --force to (overwrite|replace it)\)$/)])
    expect(readdirSync(partial)).toEqual(['b-mad.png'])
    expect(readFileSync(join(partial, 'b-mad.png'), 'utf8')).toBe('mine')

    // With --force everything is replaced.
    const forced = paralab(['stats', data, '--backend', 'serial,workers', '--repeat', '1', '--out', out, '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(readdirSync(out).sort()).toEqual(written)
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).params).toMatchObject({ backends: ['serial', 'workers'], repeat: 1 })
    for (const f of written) expect(statSync(join(out, f)).mtimeMs, f).toBeGreaterThanOrEqual(before[f])
  })

  it('--example makes the example recording once, then reuses it, and runs the example\'s backends', () => {
    const examples = join(dir, 'examples')
    const file = join(examples, 'stats', 'acc-example.csv')
    const first = paralab(['stats', '--example', '--json'], { PARALAB_EXAMPLES: examples })
    const env = jsonOf(first)
    expect(existsSync(file)).toBe(true)
    expectEnvelope(env, {
      workload: 'stats',
      params: { ...STATS_DEFAULTS, files: [file], backends: CPU_BACKENDS, repeat: 3, batches: 10 },
      files: [file],
      device: false,
      timings: Object.fromEntries(CPU_BACKENDS.map((b) => [b, 3])),
      run: first,
    })
    const result = env.results.files[0]
    expect(result.rows).toBe(20_000)
    expect(Object.keys(result.backends)).toEqual(CPU_BACKENDS)
    expect(result.batches.map((b: { rows: number }) => b.rows)).toEqual(Array.from({ length: 10 }, (_, i) => 2000 * (i + 1)))
    expect(Object.keys(result.columns)).toEqual(['acc_x', 'acc_y', 'acc_z'])
    const modified = statSync(file).mtimeMs
    expect(readdirSync(join(examples, 'stats'))).toEqual(['acc-example.csv'])

    // The second run reuses the file (same mtime, same statistics); flags given beside --example win.
    const second = paralab(['stats', '--example', '--json', '--backend', 'serial', '--repeat', '1'], { PARALAB_EXAMPLES: examples })
    const again = jsonOf(second)
    expect(statSync(file).mtimeMs).toBe(modified)
    expect(again.input.files).toEqual(env.input.files)
    expect(again.params).toEqual({ ...env.params, backends: ['serial'], repeat: 1 })
    expect(Object.keys(again.results.files[0].backends)).toEqual(['serial'])
    expect(again.results.files[0].columns).toEqual(result.columns)

    // Without --json: the summary on stdout.
    const text = paralab(['stats', '--example', '--backend', 'simd', '--repeat', '1', '--batches', '1'], { PARALAB_EXAMPLES: examples })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('acc-example.csv')
    expect(statSync(file).mtimeMs).toBe(modified)
  })

  it('prints a zero mean\'s CV as ∞, as the dashboard shows it', () => {
    const zero = join(dir, 'zero-mean.csv')
    writeFileSync(zero, 'acc_x\n-1\n1\n-1\n1\n')
    const r = paralab(['stats', zero, '--backend', 'serial', '--repeat', '1'])
    expect(r.code, r.stderr).toBe(0)
    const row = r.stdout.split('\n').find((l) => /^acc_x\s+4\s/.test(l))!
    expect(row.trim().split(/\s+/)).toEqual(['acc_x', '4', '0', '0', '1', '∞', '0', '1'])
    expect(r.stdout).not.toContain('Infinity')
  })

  it('fails on bad input with one line naming the file and the cause', () => {
    const bad = join(dir, 'bad.csv')
    writeFileSync(bad, 'datetime, acc_x, acc_y, acc_z\n2020-01-01 00:00:00.000000,1.0,2.0,3.0\n2020-01-01 00:00:00.031250,1.0,oops,3.0\n')
    const r = paralab(['stats', bad, '--backend', 'serial'])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${bad}:3:3: column "acc_y": "oops" is not a number`])

    const noColumn = paralab(['stats', SAMPLE, '--columns', 'acc_q'])
    expect(noColumn.code).toBe(1)
    expect(errorLines(noColumn.stderr)).toEqual([
      expect.stringMatching(/^paralab: .*ACC_016_head\.csv: no column "acc_q"; columns are: "?datetime"?, "?acc_x"?, "?acc_y"?, "?acc_z"?$/),
    ])

    // Before any work: a missing input, an unknown backend (usage: 2).
    const out = join(dir, 'never')
    const missing = paralab(['stats', join(dir, 'missing.csv'), '--out', out])
    expect(missing.code).toBe(1)
    expect(errorLines(missing.stderr)).toEqual([`paralab: ${join(dir, 'missing.csv')}: no such file or directory`])
    expect(existsSync(out)).toBe(false)
    expect(paralab(['stats', SAMPLE, '--backend', 'cuda', '--out', out]).code).toBe(2)
    expect(existsSync(out)).toBe(false)
  })
})

describe('paralab generate acc', () => {
  it('writes the dataset layout deterministically and refuses to overwrite', () => {
    const a = join(dir, 'g1.csv')
    const b = join(dir, 'g2.csv')
    expect(paralab(['generate', 'acc', a, '--rows', '500', '--seed', '9']).code).toBe(0)
    expect(paralab(['generate', 'acc', b, '--rows', '500', '--seed', '9']).code).toBe(0)
    const text = readFileSync(a, 'utf8')
    expect(text).toBe(readFileSync(b, 'utf8'))
    const lines = text.trim().split('\n')
    expect(lines[0]).toBe('datetime, acc_x, acc_y, acc_z')
    expect(lines).toHaveLength(501)
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}(,-?\d{1,3}\.0){3}$/)
    const again = paralab(['generate', 'acc', a, '--rows', '10'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`${a} already exists`)
    expect(paralab(['generate', 'acc', a]).code).toBe(2)
  })
})
