// The dashboard and its exports at the studies' sizes: correlation of 4 096 series on the CPU and on
// the GPU (SwiftShader's software adapter where there is no other) and shortest paths on a sparse
// graph of 8 000 vertices (the landslide on the Tessina grid tiled 12 × 14: landslide-sizes.test.ts,
// beside its result files' downloads). Each run is made once (the fixtures all cases share), through
// `paralab serve` as the dashboard starts it, then reopened from the history in Chromium and judged
// as test/e2e/layout.test.ts judges the examples (nothing sideways, no text overlapping or cut,
// screenful by screenful) at 800×600 and 2560×1440, then with the views the runs offer open (a
// heatmap cell's pair, zooms of 1 024 series and vertices). Every export the dashboard offers for it
// (each chart as PNG and SVG, each table as CSV, the envelope as JSON, the views' charts) is then
// asked of the server, and the server's resident memory may grow by each at most a quarter of the
// data's size and HEAP_SLACK.
//
// Every run is real and at the size its view and exports are judged at; what is cut is only what
// no view or export depends on:
// - correlation: 4 096 series of SAMPLES samples. The matrix (128 MiB in f64), the heatmap's
//   blocks, the ranking, and the GPU kernels' chart and roofline (one bar and point per kernel) are
//   those of any length; the length only sets the compute time, which on SwiftShader is minutes at
//   32 samples.
// - paths: V = 8 000 (a 256 MB distance matrix), the study's blocked Floyd–Warshall on the fastest
//   CPU backend: V³ relaxations whatever the edges, about a minute on 2 quiet cores.
// docs/benchmarks/history.md ("Layout at the studies' sizes") gives the times measured.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { WorkloadId } from '../../src/shared/workloads'
import { workload } from '../../src/shared/workloads'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { type ApiClient, connectApi } from '../helpers/api-client'
import { launchChromium } from '../helpers/browser'
import { judge } from '../helpers/layout'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'
import { describeExports, expectEachWithin, type MeasuredExport, measuredExport, reopenRun, runExports, SIZES } from '../helpers/study-sizes'

vi.setConfig({ testTimeout: 300_000 })

const SHOTS = resolve(__dirname, '../../test-output/layout-sizes')
const SERIES = 4096
const SAMPLES = 4
const PATHS_V = 8000

/** Each workload's run: its envelope, its id in the history, and the bytes of the data it stands for. */
const runs = {} as Record<'correlation' | 'paths', { envelope: ResultEnvelope; id: string; dataBytes: number }>
let dir: string
let serve: ServeProcess
let api: ApiClient
let browser: Browser
let page: Page
const pageErrors: string[] = []

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 })
  expect(r.status, r.stderr).toBe(0)
}

async function run(id: WorkloadId, params: Record<string, unknown>): Promise<ResultEnvelope> {
  const t0 = performance.now()
  const jobId = await api.call<string>('startJob', id, params)
  // A bound for a hang, not a timing: V = 8 000 took 276 s on the 2-core machine at a load of 19.
  const e = await api.event((e) => e.jobId === jobId && (e.type === 'done' || e.type === 'failed'), 600_000)
  expect(e.type, JSON.stringify(e.error)).toBe('done')
  console.log(`${id}: the run took ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return e.envelope
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-sizes-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  mkdirSync(SHOTS, { recursive: true })
  cli(['generate', 'walks', join(data, `w${SERIES}.npy`), '--series', String(SERIES), '--length', String(SAMPLES)])
  cli(['generate', 'graph', join(data, `g${PATHS_V}.1`), '--vertices', String(PATHS_V), '--edges', String(8 * PATHS_V)])
  serve = await startServe(['--data', data], { PARALAB_HISTORY: join(dir, 'history'), PARALAB_EXAMPLES: join(dir, 'examples') })
  api = await connectApi(serve)
  const made = {
    correlation: { envelope: await run('correlation', { files: [join(data, `w${SERIES}.npy`)], backends: ['workers-simd', 'gpu'], repeat: 1 }), dataBytes: SERIES * SERIES * 8 },
    paths: { envelope: await run('paths', { files: [join(data, `g${PATHS_V}.1`)], backends: ['workers-simd'], repeat: 1 }), dataBytes: PATHS_V * PATHS_V * 4 },
  }
  const listed = await api.call<{ id: string; workload: string }[]>('listRuns')
  for (const [w, m] of Object.entries(made)) runs[w as keyof typeof runs] = { ...m, id: listed.find((r) => r.workload === w)!.id }
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
}, 1_500_000)

afterAll(async () => {
  api?.close()
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const VIEWS = ['correlation', 'paths'] as const

/** Opens `view`'s run from the history at `size`. */
const reopen = (view: (typeof VIEWS)[number], size: (typeof SIZES)[number]) => reopenRun(page, view, runs[view].id, size)

/** A block range of the study's size: 1 024 a side, the most a zoom takes, drawn in blocks. */
const ZOOM = '0:1023'

describe.each(SIZES)('at $width×$height', (size) => {
  const name = (view: string) => `${view}-${SIZES.indexOf(size) ? 'large' : 'small'}`

  it.each(VIEWS)('%s at the study\'s size, reopened from the history: no sideways overflow, no text cut or overlapping', async (view) => {
    await reopen(view, size)
    await judge(page, name(view), size, SHOTS)
  })

  // The views a run offers, on the reopened runs. Not a path query: on a run that kept no
  // successors it solves V = 8 000 again with them, minutes of computing.
  it('correlation: a clicked cell\'s pair and a zoom of 1 024 series, drawn under the results', async () => {
    await reopen('correlation', size)
    const canvas = page.getByTestId('correlation-chart-heatmap').locator('canvas')
    await canvas.scrollIntoViewIfNeeded()
    const box = (await canvas.boundingBox())!
    await canvas.click({ position: { x: box.width * 0.5, y: box.height * 0.5 } })
    await page.getByTestId('correlation-pair-names').waitFor({ timeout: 60_000 })
    await page.getByTestId('correlation-zoom-rows').fill(ZOOM)
    await page.getByTestId('correlation-zoom').click()
    await page.getByTestId('correlation-chart-zoom').locator('canvas').waitFor({ timeout: 60_000 })
    await judge(page, name('correlation-views'), size, SHOTS)
  })

  it('paths: a zoom of 1 024 vertices read from the 8 000² matrix the run kept, drawn beside the heatmap', async () => {
    await reopen('paths', size)
    await page.getByTestId('paths-zoom-rows').fill(ZOOM)
    await page.getByTestId('paths-zoom').click()
    await page.getByTestId('paths-chart-zoom').locator('canvas').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('paths-zoom-source').innerText()).toMatch(/^Read from the distance matrix this run kept\./)
    await judge(page, name('paths-views'), size, SHOTS)
  })
})

describe('exports at the study\'s sizes', () => {
  // What is loaded once, on the first export (the chart renderer in its thread), is no export's growth: loaded first.
  beforeAll(async () => {
    const { envelope } = runs.paths
    const [chart] = workload('paths').charts(envelope.results as never, envelope as never)
    await api.call('exportChart', { chart: chart.spec, format: 'png', fileName: 'warm.png' })
  })

  /** A view of a run (a job the history does not list), as the dashboard starts it: its envelope. */
  async function viewOf(id: WorkloadId, params: Record<string, unknown>): Promise<ResultEnvelope> {
    const jobId = await api.call<string>('startView', id, params)
    const e = await api.event((e) => e.jobId === jobId && (e.type === 'done' || e.type === 'failed'), 120_000)
    expect(e.type, JSON.stringify(e.error)).toBe('done')
    return e.envelope
  }

  it('the views\' charts (a pair, the zooms of 1 024 series and vertices), each within the same fraction', async () => {
    const { params } = runs.correlation.envelope as { params: { files: string[]; layout: string } }
    const views = [
      { view: 'correlation' as const, envelope: await viewOf('correlation', { files: params.files, layout: params.layout, zoom: ZOOM }) },
      { view: 'correlation' as const, envelope: await viewOf('correlation', { files: params.files, layout: params.layout, pair: ['s0', 's1'] }) },
      { view: 'paths' as const, envelope: await viewOf('paths', { files: (runs.paths.envelope.params as { files: string[] }).files, backends: ['workers-simd'], repeat: 1, zoom: ZOOM }) },
    ]
    const asked: MeasuredExport[] = []
    for (const { view, envelope } of views) {
      const mine: MeasuredExport[] = []
      for (const chart of workload(view).charts(envelope.results as never, envelope as never))
        for (const format of ['png', 'svg'] as const) mine.push(await measuredExport(api, `${view} ${chart.name}.${format}`, 'exportChart', { chart: chart.spec, format, fileName: `${chart.name}.${format}` }))
      expectEachWithin(mine, runs[view].dataBytes)
      asked.push(...mine)
    }
    console.log(`views' exports: ${describeExports(asked)}`)
    expect(asked.map((a) => a.what)).toEqual(expect.arrayContaining(['correlation zoom.png', 'correlation pair.svg', 'paths g8000-zoom.png']))
  })

  it.each(VIEWS)('%s: every chart (PNG, SVG), every table (CSV) and the envelope (JSON), each within a fraction of the data\'s size', async (view) => {
    const { envelope, dataBytes } = runs[view]
    const asked = await runExports(api, view, envelope)
    // The GPU's own charts are among them: its run was made (on SwiftShader where there is no other GPU).
    if (view === 'correlation') expect(asked.map((a) => a.what)).toEqual(expect.arrayContaining(['variants.png', 'roofline.svg']))
    console.log(`${view} exports (${(dataBytes / 2 ** 20).toFixed(0)} MiB of data): ${describeExports(asked)}`)
    expectEachWithin(asked, dataBytes)
  })
})

it('raised no page errors', () => {
  expect(pageErrors).toEqual([])
})
