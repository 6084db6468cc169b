// The backend against hostile requests and runs: a history bounded by bytes that lists runs one at
// a time, requests nested 5000 deep refused as invalid arguments, charts too large to draw refused
// before drawing, and CSV cells that spreadsheets would run as formulas written as text.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { HISTORY_MAX_BYTES, MAX_RUN_BYTES, RunHistory } from '../../src/main/backend/history'
import { ApiError } from '../../src/shared/errors'
import { MAX_CHART_VALUES, MAX_REQUEST_DEPTH, validateRequest } from '../../src/shared/validate'
import { tableCsv } from '../../src/shared/workloads/tables'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'

const root = mkdtempSync(join(tmpdir(), 'paralab-hardening-backend-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let folders = 0
const freshDir = () => join(root, `h${++folders}`)

function envelope(createdAt: string, paths: string[] = ['/data/a.csv']): ResultEnvelope {
  return {
    workload: 'stats',
    paralabVersion: '0.1.0',
    createdAt,
    params: { files: paths },
    input: { files: paths.map((path) => ({ path, bytes: 10, modified: createdAt })) },
    host: { cpu: 'cpu', cores: 2, memoryBytes: 1, os: 'linux', node: 'v20' },
    timings: { serial: { median: 2, min: 1, max: 3, runs: 3 } },
    results: { files: [] },
  }
}

const thrown = (f: () => unknown): ApiError => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    return e as ApiError
  }
  throw new Error('did not throw')
}

describe('history bounded by bytes', () => {
  it('refuses to keep a run of 10 000 long paths (121 MB once): its envelope is over the per-run cap', async () => {
    const dir = freshDir()
    const paths = Array.from({ length: 10_000 }, (_, i) => `/data/${'x'.repeat(4000)}/${i}.csv`)
    await expect(new RunHistory(dir).save(envelope('2026-01-01T00:00:00.000Z', paths))).rejects.toThrow(
      /the run's envelope takes \d+\.\d MiB; runs of at most 16\.0 MiB are kept/,
    )
    expect(existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : []).toEqual([])
  })

  it('drops the oldest runs once the folder passes its byte cap, newest kept', async () => {
    const dir = freshDir()
    const history = new RunHistory(dir, 200, undefined, 40_000)
    const big = Array.from({ length: 40 }, (_, i) => `/data/${'y'.repeat(200)}/${i}.csv`)
    const ids: string[] = []
    for (let i = 0; i < 10; i++) ids.push(await history.save(envelope(`2026-01-01T00:00:0${i}.000Z`, big)))
    const left = readdirSync(dir).filter((f) => f.endsWith('.json'))
    const bytes = left.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0)
    expect(bytes).toBeLessThanOrEqual(40_000)
    expect(left.length).toBeLessThan(10)
    expect(left.sort().at(-1)).toBe(`${ids[9]}.json`)
    expect(HISTORY_MAX_BYTES).toBe(256 * 2 ** 20)
  })

  it('lists without reading a file larger than any run, and refuses to open it', async () => {
    const dir = freshDir()
    mkdirSync(dir)
    const history = new RunHistory(dir)
    const id = await history.save(envelope('2026-01-02T00:00:00.000Z'))
    const huge = '20260101T000000000Z-stats-deadbeef'
    writeFileSync(join(dir, `${huge}.json`), Buffer.alloc(MAX_RUN_BYTES + 1, 0x20))
    expect((await history.list()).map((r) => r.id)).toEqual([id])
    await expect(history.open(huge)).rejects.toThrow(`run ${huge} in ${dir} takes 16.0 MiB; runs of at most 16.0 MiB are read`)
  })
})

describe('requests', () => {
  it('refuses JSON nested 5000 deep as an invalid argument, not a stack overflow', () => {
    const deep = JSON.parse('['.repeat(5000) + ']'.repeat(5000))
    const e = thrown(() => validateRequest('startJob', ['stats', { files: deep }]))
    expect(e.code).toBe('invalid-argument')
    expect(e.message).toBe(`startJob: the arguments nest more than ${MAX_REQUEST_DEPTH} levels deep`)
  })

  it('refuses a 2500 × 2500 heatmap for export before drawing it; the dashboard\'s 256 × 256 passes', () => {
    const heatmap = (size: number) => ({
      chart: { kind: 'heatmap', data: { title: 't', size, values: new Array(size * size).fill(0.5), labels: new Array(size).fill('s'), axisLabel: 's', min: 0, max: 1 } },
      format: 'png',
      fileName: 'h.png',
    })
    // Timed from the request made: refused by its size, before any value is looked at or drawn.
    const big = heatmap(2500)
    const t0 = performance.now()
    const e = thrown(() => validateRequest('exportChart', [big]))
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(e.code).toBe('invalid-argument')
    expect(e.message).toBe(`chart.data holds more than ${MAX_CHART_VALUES} values; a chart to export holds at most that many (a 256 × 256 heatmap fits)`)
    expect(() => validateRequest('exportChart', [heatmap(256)])).not.toThrow()
    expect(() => validateRequest('exportChart', [heatmap(363)])).toThrow('more than 131072 values')
  })
})

describe('CSV export', () => {
  it('writes cells a spreadsheet would run as formulas as text, numbers as numbers', () => {
    const csv = tableCsv({
      name: 't',
      columns: ['name', 'value'],
      rows: [
        ['=HYPERLINK("http://evil.example","x")', -3],
        ['+1+cmd', '-2.5e3'],
        ['-2+3', '@SUM(A1)'],
        ['\tx', '\rx'],
        ['plain', 1.5],
      ],
    })
    expect(csv).toBe(
      [
        'name,value',
        `"'=HYPERLINK(""http://evil.example"",""x"")",-3`,
        `'+1+cmd,-2.5e3`,
        `'-2+3,'@SUM(A1)`,
        `'\tx,"'\rx"`,
        'plain,1.5',
      ].join('\n') + '\n',
    )
  })
})

describe('worker pools', () => {
  it('refuse more threads than 4 per core', async () => {
    const { availableParallelism } = await import('node:os')
    const { WorkerPool } = await import('../../src/main/workers/pool')
    const cores = availableParallelism()
    const e = thrown(() => new WorkerPool('paths-worker', cores * 4 + 1))
    expect(e.code).toBe('invalid-argument')
    expect(e.message).toBe(`${cores * 4 + 1} threads asked for; this machine runs at most ${cores * 4} (4 per core on its ${cores} cores)`)
    const pool = new WorkerPool('paths-worker', cores * 4)
    await pool.terminate()
  })
})
