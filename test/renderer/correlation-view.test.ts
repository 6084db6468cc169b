// @vitest-environment happy-dom
// The Correlation view with a fake backend, on results the real engine made: the form from the
// schema, the parameters Run sends, the tables and charts of a finished run, and a picked pair
// overlaid by a second job. The click on a heatmap cell itself runs in Chromium (test/e2e).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import { type CorrelationParams, correlationWorkload } from '../../src/shared/workloads/correlation'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { defaultParams, validateParams } from '../../src/shared/workloads/schema'
import { runCorrelationJob } from '../../src/main/workloads/correlation/run-correlation'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import CorrelationResults from '../../src/renderer/workloads/correlation/CorrelationResults.vue'
import CorrelationView from '../../src/renderer/workloads/correlation/CorrelationView.vue'
import { envelopeOf } from './envelope'
import { FakeApi } from './fake-api'
import { drawn, mountWith } from './mount'
import { jobContext } from '../helpers/job-context'

const dir = mkdtempSync(join(tmpdir(), 'paralab-correlation-view-'))
const file = join(dir, 'walks.csv')
const walk = { series: 12, length: 200, start: 100, eps: 0.01, seed: 4, anomalies: 1 }
let anomaly: string

/** Runs the real job on the file, as the backend would for these parameters. */
async function results(params: Partial<CorrelationParams>): Promise<{ params: CorrelationParams; results: CorrelationResult }> {
  const valid = validateParams('correlation', correlationWorkload.params, { files: [file], ...params }) as CorrelationParams
  const ctx = jobContext()
  return { params: valid, results: (await runCorrelationJob(valid, ctx)).results }
}

beforeAll(async () => {
  const made = generateWalks(walk)
  anomaly = `s${made.anomalies[0]}`
  await writeSeries(file, made.values, walk.series, walk.length, { layout: 'columns' })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

function fakeApi(): FakeApi {
  const api = new FakeApi()
  api.files = [{ path: file, name: 'walks.csv', bytes: 20_000 }]
  return api
}

const field = (w: VueWrapper, id: string) => w.find(`[data-testid="correlation-${id}"]`)

describe('CorrelationView', () => {
  it('makes its form from the schema, leaves the pair and matrix file out, and runs with the defaults', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(CorrelationView, api)
    await flushPromises()
    expect(field(wrapper, 'problem').text()).toBe('Choose the file to read')
    for (const id of ['layout', 'backend-serial', 'variant-cross-tiled', 'precision', 'repeat', 'top', 'threshold', 'gap', 'order', 'sweep', 'sweep-over']) expect(field(wrapper, id).exists(), id).toBe(true)
    expect(field(wrapper, 'pair').exists()).toBe(false)
    expect(field(wrapper, 'matrix').exists()).toBe(false)
    expect(field(wrapper, 'threshold').element).toHaveProperty('value', '-3.5')
    expect(field(wrapper, 'gap').element).toHaveProperty('value', '1.5')

    await wrapper.get('[data-testid="correlation-file-walks.csv"]').setValue(true)
    await field(wrapper, 'layout').setValue('rows')
    await field(wrapper, 'run').trigger('click')
    await flushPromises()
    expect(api.started).toEqual([{ workload: 'correlation', params: { ...defaultParams(correlationWorkload.params), files: [file], layout: 'rows' }, jobId: 'job-1' }])
  })

  it('shows a finished run: stage times, the ranking with its flags, and the charts', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(CorrelationView, api)
    await flushPromises()
    await wrapper.get('[data-testid="correlation-file-walks.csv"]').setValue(true)
    await field(wrapper, 'run').trigger('click')
    const run = await results({ backends: ['serial', 'simd'], repeat: 1, top: 4 })
    api.emit({ type: 'done', jobId: 'job-1', workload: 'correlation', envelope: envelopeOf('correlation', run.params, run.results) })
    await flushPromises()

    const runs = field(wrapper, 'runs-table')
    expect(runs.findAll('tbody tr').map((r) => r.find('th').text())).toEqual(['serial', 'simd'])
    const ranked = field(wrapper, 'ranking-table').findAll('tbody tr')
    expect(ranked).toHaveLength(4)
    expect(ranked[0].find('th').text()).toBe(anomaly)
    expect(ranked.map((r) => r.classes('flagged'))).toEqual([true, false, false, false])
    expect(field(wrapper, 'ranking-table').find('caption').text()).toContain("Series 1–4 of 12, most anomalous first: 1 flagged (z < -3.5, apart from the cluster's tail by a gap of ×1.5)")
    expect(field(wrapper, 'ranking-table').find('caption').text()).toContain('page 1 of 3')

    const charts = wrapper.findAllComponents(Chart).map((c) => drawn(c))
    expect(charts.map((c) => c.type)).toEqual(['matrix', 'bar', 'bar', 'bar'])
    const heat = charts[0].data.datasets[0].data as unknown as { x: number; y: number; v: number | null }[]
    expect(heat).toHaveLength(12 * 12)
    expect(heat[0]).toEqual({ x: 0, y: 0, v: 1 })
    expect(charts[0].options.plugins.title.text).toBe('Pearson r — walks.csv, 12 series')
  })

  it('overlays a picked pair with a job of its own on the same file and layout', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(CorrelationView, api)
    await flushPromises()
    await wrapper.get('[data-testid="correlation-file-walks.csv"]').setValue(true)
    await field(wrapper, 'run').trigger('click')
    const run = await results({ backends: ['serial'], repeat: 1 })
    api.emit({ type: 'done', jobId: 'job-1', workload: 'correlation', envelope: envelopeOf('correlation', run.params, run.results) })
    await flushPromises()

    const other = anomaly === 's0' ? 's1' : 's0'
    wrapper.findComponent(CorrelationResults).vm.$emit('pick', [other, anomaly])
    await flushPromises()
    expect(api.started[1]).toEqual({ workload: 'correlation', params: { files: [file], layout: 'columns', pair: [other, anomaly] }, jobId: 'job-2' })
    expect(field(wrapper, 'pair-progress').exists()).toBe(true)

    const pair = await results({ pair: [other, anomaly] })
    api.emit({ type: 'done', jobId: 'job-2', workload: 'correlation', envelope: envelopeOf('correlation', pair.params, pair.results) })
    await flushPromises()
    expect(field(wrapper, 'pair-names').text()).toBe(`${other} × ${anomaly} r = ${pair.results.pair!.r!.toFixed(4)}`)
    const overlay = drawn(wrapper.findAllComponents(Chart).at(-1)!)
    expect(overlay.data.datasets.map((d) => d.label)).toEqual([other, anomaly])
    expect(overlay.data.datasets[0].data).toHaveLength(walk.length)
    // The matrix's results stay shown above the pair.
    expect(field(wrapper, 'results').exists()).toBe(true)
  })

  it('names the columns of text a run left out, and a pair is read with the run\'s columns', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(CorrelationView, api)
    await flushPromises()
    await wrapper.get('[data-testid="correlation-file-walks.csv"]').setValue(true)
    await field(wrapper, 'run').trigger('click')
    const run = await results({ backends: ['serial'], repeat: 1, columns: ['s0', 's1', 's2'] })
    run.results.input.left_out = ['datetime']
    api.emit({ type: 'done', jobId: 'job-1', workload: 'correlation', envelope: envelopeOf('correlation', run.params, run.results) })
    await flushPromises()
    expect(field(wrapper, 'left-out').text()).toContain('Columns of text left out: datetime')
    wrapper.findComponent(CorrelationResults).vm.$emit('pick', ['s0', 's2'])
    await flushPromises()
    expect(api.started[1].params).toEqual({ files: [file], layout: 'columns', columns: ['s0', 's1', 's2'], pair: ['s0', 's2'] })
  })

  it('tries the example: the backend makes its file and the view runs it', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(CorrelationView, api)
    await flushPromises()
    await field(wrapper, 'example').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['correlation'])
    expect(api.started[0].params).toMatchObject({ ...correlationWorkload.example.params, files: [expect.stringMatching(/walks-example\.csv$/)] })
  })
})
