// `paralab bench stats`: the Polars comparison (nodejs-polars, a dev dependency) and how the
// figures are printed. Timings are not checked: benchmarks are commands, not tests.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { describe as describeBench } from '../../src/main/workloads/stats/bench-command'
import { type StatsBenchResult, findPolars, polarsReadScript, rawColumnNames } from '../../src/main/workloads/stats/bench'

const dir = mkdtempSync(join(tmpdir(), 'paralab-bench-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function result(load: Partial<StatsBenchResult['load']>): StatsBenchResult {
  return {
    machine: { cpu: 'cpu', cores: 2, memory_GB: 8, gpu: 'none' },
    file: { path: '/tmp/acc.csv', rows: 10, bytes: 430 },
    load: { paralab_ms: 1000, threads: 2, range_MB: 16, ...load },
    compute: { serial: { compute_ms: 100, ratio_vs_serial: 1 } },
    end_to_end: [
      { backend: 'workers-simd', paralab_ms: 1500, ratio_vs_first: 1, peak_rss_MB: 700 },
      { backend: 'gpu', paralab_ms: 1200, ratio_vs_first: 0.8, peak_rss_MB: 650 },
    ],
    notes: [],
  }
}

describe('bench stats output', () => {
  it('shows Polars beside Paralab with the ratio when it ran', () => {
    const text = describeBench(result({ polars_ms: 800, polars_version: '0.24.1', polars_peak_rss_MB: 900, ratio_vs_polars: 1.25 }))
    expect(text).toMatch(/^load +paralab 1000 ms \(2 threads, ranges of 16\.0 MiB\)$/m)
    expect(text).toMatch(/^ +Polars +800 ms readCSV \(nodejs-polars 0\.24\.1, fresh process each, peak RSS 900 MB\); paralab\/Polars +\(1\.25×\)$/m)
    expect(text).toMatch(/^ +workers-simd +1500 ms +\(1\.00×\) +peak RSS 700 MB$/m)
    expect(text).toMatch(/^ +gpu +1200 ms +\(0\.80×\) +peak RSS 650 MB$/m)
  })

  it('leaves Polars out when it did not run, and says why in a note', () => {
    const r = result({})
    r.notes.push('Polars (nodejs-polars) is not installed or does not load here: comparisons with it were skipped')
    const text = describeBench(r)
    expect(text).not.toMatch(/^ +Polars /m)
    expect(text).toContain('note      Polars (nodejs-polars) is not installed')
  })

  it('lists --no-polars in its help', () => {
    const help = execFileSync(process.execPath, ['out/main/cli.js', 'bench', 'stats', '--help'], { encoding: 'utf8' })
    expect(help).toContain('--no-polars')
  })
})

describe('Polars, the load baseline', () => {
  it('finds the header names as the file spells them', async () => {
    const path = join(dir, 'acc.csv')
    writeFileSync(path, 'datetime, acc_x, acc_y, acc_z\n2020-02-13 15:28:50.000000,-31.0,11.0,44.0\n')
    expect(await rawColumnNames(path, ['acc_x', 'acc_y', 'acc_z'])).toEqual([' acc_x', ' acc_y', ' acc_z'])
    writeFileSync(join(dir, 'q.csv'), '"a","b"\n1,2\n')
    expect(await rawColumnNames(join(dir, 'q.csv'), ['a'])).toBeUndefined()
  })

  it('reads the same columns and rows in a child process when nodejs-polars is installed', async () => {
    const polars = await findPolars()
    // A dev dependency: present wherever `npm ci` ran on a platform Polars ships a binary for.
    if (!polars) return
    expect(polars.version).toMatch(/^\d+\.\d+/)
    const path = join(dir, 'acc.csv')
    const out = execFileSync(process.execPath, ['-e', polarsReadScript(polars.module), path, JSON.stringify([' acc_x', ' acc_z'])], { encoding: 'utf8' })
    const r = JSON.parse(out) as { ms: number; rows: number; dtypes: string[] }
    expect(r.rows).toBe(1)
    expect(r.dtypes).toHaveLength(2)
    expect(r.ms).toBeGreaterThanOrEqual(0)
  })
})
