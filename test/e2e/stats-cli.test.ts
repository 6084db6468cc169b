// `paralab stats` and `paralab generate acc` as a user runs them: results against an independent
// computation on the real sample, folder summaries, --out files, and bad input that writes nothing.
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { CLI } from '../helpers/serve'

const SAMPLE = resolve(__dirname, '../../../shared/data/accelerometer/ACC_016_head.csv')

function paralab(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

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

describe('paralab stats', () => {
  it('computes the real sample on every CPU and GPU backend, matching a sort-based reference', () => {
    const r = paralab(['stats', SAMPLE, '--backend', 'all', '--repeat', '2', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout)
    const file = out.files[0]
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
  })

  it('states the deviation of f32 results from f64', () => {
    const r = paralab(['stats', SAMPLE, '--backend', 'serial', '--precision', 'f32', '--repeat', '1', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const run = JSON.parse(r.stdout).files[0].backends.serial
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
    expect(written).toEqual(
      ['a', 'b'].flatMap((s) => ['cv', 'mad', 'time'].flatMap((c) => [`${s}-${c}.png`, `${s}-${c}.svg`])).concat(['results.csv', 'results.json']).sort(),
    )
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    expect(results.files[0].batches.map((b: { rows: number }) => b.rows)).toEqual([1000, 2000, 3000])
    expect(readFileSync(join(out, 'a-time.png')).subarray(1, 4).toString()).toBe('PNG')
    expect(readFileSync(join(out, 'results.csv'), 'utf8').split('\n')[0]).toBe('file,prefix_rows,column,backend,precision,n,missing,mean,std,cv,median,mad,compute_ms,upload_ms')

    // Without --force nothing is replaced; with it everything is.
    const before = statSync(join(out, 'results.json')).mtimeMs
    const again = paralab(['stats', data, '--backend', 'serial', '--repeat', '1', '--out', out])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^paralab: .*a-time\.svg exists \(use --force to overwrite\)\n$/)
    expect(statSync(join(out, 'results.json')).mtimeMs).toBe(before)
    expect(paralab(['stats', data, '--backend', 'serial', '--repeat', '1', '--out', out, '--force']).code).toBe(0)
  })

  it('fails on bad input with one line naming the file, and writes no output', () => {
    const bad = join(dir, 'bad.csv')
    writeFileSync(bad, 'datetime, acc_x, acc_y, acc_z\n2020-01-01 00:00:00.000000,1.0,2.0,3.0\n2020-01-01 00:00:00.031250,1.0,oops,3.0\n')
    const out = join(dir, 'never')
    const r = paralab(['stats', bad, '--backend', 'serial', '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`paralab: ${bad}:3: column "acc_y": "oops" is not a number\n`)
    expect(existsSync(out)).toBe(false)

    const noColumn = paralab(['stats', SAMPLE, '--columns', 'acc_q', '--out', out])
    expect(noColumn.code).toBe(1)
    expect(noColumn.stderr).toContain('no column "acc_q"; columns are: datetime, acc_x, acc_y, acc_z')
    expect(existsSync(out)).toBe(false)

    expect(paralab(['stats', join(dir, 'missing.csv')]).stderr).toMatch(/missing\.csv: no such file or directory/)
    expect(paralab(['stats', SAMPLE, '--backend', 'cuda']).code).toBe(2)
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
