// @vitest-environment happy-dom
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import type { StatsParams } from '../../src/shared/workloads/stats/types'
import StatsView from '../../src/renderer/workloads/stats/StatsView.vue'
import { FakeApi } from './fake-api'
import { drawn, mountWith } from './mount'
import { statsFile, statsResult } from './stats-fixture'

const files = [
  { path: '/data/ACC_001.csv', name: 'ACC_001.csv', bytes: 1_050_000_000 },
  { path: '/data/small.csv', name: 'small.csv', bytes: 640 },
]

function fakeApi(gpu = true): FakeApi {
  const api = new FakeApi()
  api.files = files
  api.device = gpu ? { available: true, features: [], limits: {} } : { available: false, reason: 'no adapter: Vulkan driver missing', features: [], limits: {} }
  return api
}

const checkbox = (w: VueWrapper, id: string) => w.get<HTMLInputElement>(`[data-testid="${id}"]`)

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('StatsView form', () => {
  it('lists the data files; Run waits for a file; defaults are the default columns, f64, repeat 10, one batch', async () => {
    const { wrapper } = mountWith(StatsView, fakeApi())
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-file-list"]').text()).toContain('1.05 GB')
    expect(checkbox(wrapper, 'stats-file-ACC_001.csv').element.checked).toBe(false)
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeDefined()
    expect(wrapper.get('[data-testid="stats-problem"]').text()).toBe('Choose at least one file.')

    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    expect(wrapper.find('[data-testid="stats-problem"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeUndefined()
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-columns"]').element.value).toBe('acc_x, acc_y, acc_z')
    expect(wrapper.get<HTMLSelectElement>('[data-testid="stats-precision"]').element.value).toBe('f64')
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe('10')
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-batches"]').element.value).toBe('1')
  })

  it('builds StatsParams from the controls', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await checkbox(wrapper, 'stats-file-ACC_001.csv').setValue(true)
    await wrapper.get('[data-testid="stats-columns"]').setValue(' acc_z ,acc_x,, acc_z ')
    await checkbox(wrapper, 'stats-backend-all').setValue(false)
    await checkbox(wrapper, 'stats-backend-gpu').setValue(true)
    await checkbox(wrapper, 'stats-backend-serial').setValue(true)
    await wrapper.get('[data-testid="stats-precision"]').setValue('f32')
    await wrapper.get('[data-testid="stats-repeat"]').setValue('3')
    await wrapper.get('[data-testid="stats-batches"]').setValue('4')
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    const expected: StatsParams = {
      files: ['/data/ACC_001.csv', '/data/small.csv'],
      columns: ['acc_z', 'acc_x'],
      backends: ['serial', 'gpu'],
      precision: 'f32',
      repeat: 3,
      batches: 4,
    }
    expect(api.started).toEqual([{ kind: 'stats', params: expected, jobId: 'job-1' }])
  })

  it('runs with the defaults: every backend once the GPU is known, default columns', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    expect(checkbox(wrapper, 'stats-backend-all').element.checked).toBe(true)
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect(api.started[0].params).toEqual({
      files: ['/data/small.csv'],
      columns: ['acc_x', 'acc_y', 'acc_z'],
      backends: ['serial', 'simd', 'workers', 'workers-simd', 'gpu'],
      precision: 'f64',
      repeat: 10,
      batches: 1,
    })
  })

  it('offers no GPU when the adapter is unavailable, and says why', async () => {
    const api = fakeApi(false)
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    const gpu = checkbox(wrapper, 'stats-backend-gpu')
    expect(gpu.element.disabled).toBe(true)
    expect(gpu.element.checked).toBe(false)
    expect(gpu.element.closest('label')?.getAttribute('title')).toBe('GPU unavailable: no adapter: Vulkan driver missing')
    // "all" means all that can run.
    await checkbox(wrapper, 'stats-backend-all').setValue(false)
    await checkbox(wrapper, 'stats-backend-all').setValue(true)
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect((api.started[0].params as StatsParams).backends).toEqual(['serial', 'simd', 'workers', 'workers-simd'])
  })

  it('refuses a repeat count that is not a whole number', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-repeat"]').setValue('0')
    expect(wrapper.get('[data-testid="stats-problem"]').text()).toBe('Repeat must be a whole number ≥ 1 (got 0).')
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    expect(api.started).toEqual([])
  })

  it('adds and ticks the files the open dialog returns', async () => {
    const api = fakeApi()
    api.opened = [{ path: '/home/ana/ACC_002.csv', name: 'ACC_002.csv', bytes: 2048 }, files[1]]
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    expect(checkbox(wrapper, 'stats-file-ACC_002.csv').element.checked).toBe(true)
    expect(checkbox(wrapper, 'stats-file-small.csv').element.checked).toBe(true)
    expect(wrapper.findAll('[data-testid="stats-file-list"] input')).toHaveLength(3)
  })

  it('takes dropped files by their path in the desktop app, and explains why not in a browser', async () => {
    const drop = (w: VueWrapper, file: File) =>
      w.get('.file-picker').trigger('drop', { dataTransfer: { files: [file] } })
    const file = new File(['datetime,acc_x\n'], 'dropped.csv')

    const browser = mountWith(StatsView, fakeApi())
    await flushPromises()
    await drop(browser.wrapper, file)
    expect(browser.wrapper.get('[data-testid="stats-drop-note"]').text()).toContain('desktop app only')
    expect(browser.wrapper.find('[data-testid="stats-file-dropped.csv"]').exists()).toBe(false)
    browser.wrapper.unmount()

    const api = fakeApi()
    api.dropFiles = async (files) => files.map((f) => ({ path: `/home/ana/${f.name}`, name: f.name, bytes: f.size }))
    const desktop = mountWith(StatsView, api)
    await flushPromises()
    await drop(desktop.wrapper, file)
    expect(checkbox(desktop.wrapper, 'stats-file-dropped.csv').element.checked).toBe(true)
    await desktop.wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect((api.started[0].params as StatsParams).files).toEqual(['/home/ana/dropped.csv'])
  })
})

describe('StatsView run and results', () => {
  const data = { acc_x: [1, 2, 3, 4, 10, 6], acc_y: [-1, 0.5, 2, 2, 7, 3] }
  const prefixes = [2, 4, 6]

  async function running(api = fakeApi()) {
    const mounted = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(mounted.wrapper, 'stats-file-small.csv').setValue(true)
    await mounted.wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    return { api, ...mounted }
  }

  it('shows progress with phase, fraction and throughput; cancel cancels this job', async () => {
    const { api, wrapper } = await running()
    api.emit({ type: 'progress', jobId: 'job-1', kind: 'stats', phase: 'parsing ACC_001.csv', fraction: 0.42, throughput: { value: 412.3, unit: 'MB/s' } })
    await flushPromises()
    const progress = wrapper.get('[data-testid="stats-progress"]').text()
    expect(progress).toContain('parsing ACC_001.csv')
    expect(progress).toContain('42%')
    expect(progress).toContain('412 MB/s')
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeDefined()
    await wrapper.get('[data-testid="stats-cancel"]').trigger('click')
    await flushPromises()
    expect(api.cancelled).toEqual(['job-1'])
  })

  it('renders the reference table, the backend table and three charts from the result', async () => {
    const { api, wrapper } = await running()
    const file = statsFile('/data/small.csv', data, ['serial', 'gpu'], prefixes, 'f32')
    api.emit({ type: 'done', jobId: 'job-1', kind: 'stats', result: statsResult(file) })
    await flushPromises()
    const results = wrapper.get('[data-testid="stats-results"]')

    const reference = results.get('[data-testid="stats-table"]').findAll('tbody tr').map((r) => r.findAll('th, td').map((c) => c.text()))
    // acc_x = 1,2,3,4,10,6: mean 13/3, median 3.5, |x − 3.5| = 2.5,1.5,.5,.5,6.5,2.5 → MAD 2
    expect(reference[0].slice(0, 4)).toEqual(['acc_x', '6', '0', '4.33333'])
    expect(reference[0][6]).toBe('3.5')
    expect(reference[0][7]).toBe('2')
    expect(reference[1][0]).toBe('acc_y')

    const gpuRows = results.get('[data-testid="stats-result-backend-gpu"]').findAll('tr').map((r) => r.findAll('th, td').map((c) => c.text()))
    expect(gpuRows[0].slice(0, 5)).toEqual(['gpu', 'f32', '20 ms', '1.5 ms', 'acc_x'])
    expect(gpuRows[0].slice(-2)).toEqual(['2×10⁻⁷', '2×10⁻⁸'])
    expect(gpuRows[1][0]).toBe('acc_y')
    expect(results.get('[data-testid="stats-result-backend-serial"]').text()).toContain('—') // no upload on the CPU

    for (const kind of ['time', 'cv', 'mad']) expect(results.find(`[data-testid="stats-chart-${kind}"] canvas`).exists()).toBe(true)
    const charts = wrapper.findAllComponents(Chart).map((c) => drawn(c))
    expect(charts).toHaveLength(3)
    const [time, cv, mad] = charts.map((c) => c.data)
    expect(time.datasets.map((d) => d.label)).toEqual(['serial', 'gpu'])
    expect(time.datasets[1].data).toEqual(prefixes.map((p) => ({ x: p, y: file.batches[prefixes.indexOf(p)].backends.gpu.compute_ms })))
    expect(cv.datasets.map((d) => d.label)).toEqual(['acc_x · serial', 'acc_x · gpu', 'acc_y · serial', 'acc_y · gpu'])
    expect(mad.datasets[0].data.map((p) => p.y)).toEqual(file.batches.map((b) => b.backends.serial.columns.acc_x.mad))
    expect(charts[0].options.scales.y.type).toBe('logarithmic')
    expect(charts[1].options.scales.y.type).toBe('linear')
  })

  it('one backend: one chart series per column', async () => {
    const { api, wrapper } = await running()
    api.emit({ type: 'done', jobId: 'job-1', kind: 'stats', result: statsResult(statsFile('/data/small.csv', data, ['workers'], prefixes)) })
    await flushPromises()
    const cv = drawn(wrapper.findAllComponents(Chart)[1]).data
    expect(cv.datasets.map((d) => d.label)).toEqual(['acc_x', 'acc_y'])
    expect(wrapper.get('[data-testid="stats-backend-table"]').text()).not.toContain('Δ CV')
  })

  it('exports what a chart shows: log toggle and x range included', async () => {
    const { api, wrapper } = await running()
    api.exportAnswer = { fileName: 'small-time.svg', mime: 'image/svg+xml', savedPath: '/tmp/small-time.svg' }
    api.emit({ type: 'done', jobId: 'job-1', kind: 'stats', result: statsResult(statsFile('/data/small.csv', data, ['serial', 'simd'], prefixes)) })
    await flushPromises()

    await wrapper.get('[data-testid="log-y-time"]').setValue(false)
    await wrapper.get('[data-testid="zoom-min-time"]').setValue('3')
    await flushPromises()
    const time = drawn(wrapper.findAllComponents(Chart)[0])
    expect(time.options.scales.y.type).toBe('linear')
    expect(time.data.datasets[0].data.map((p) => p.x)).toEqual([4, 6])

    await wrapper.get('[data-testid="export-svg-time"]').trigger('click')
    await flushPromises()
    const req = api.chartExports[0]
    expect(req.format).toBe('svg')
    expect(req.fileName).toBe('small-time.svg')
    expect(req.chart.kind).toBe('stats-time')
    if (req.chart.kind === 'roofline') throw new Error('unexpected roofline')
    expect(req.chart.data.logY).toBe(false)
    expect(req.chart.data.x).toEqual([4, 6])
    expect(req.chart.data.title).toBe('Time vs prefix size — small.csv')
    expect(wrapper.text()).toContain('Saved to /tmp/small-time.svg')

    await wrapper.get('[data-testid="export-png-mad"]').trigger('click')
    await flushPromises()
    expect(api.chartExports[1].chart.kind).toBe('stats-mad')
    expect(api.chartExports[1].fileName).toBe('small-mad.png')
    if (api.chartExports[1].chart.kind === 'roofline') throw new Error('unexpected roofline')
    expect(api.chartExports[1].chart.data.x).toEqual(prefixes)
  })

  it('exports the results as CSV and JSON', async () => {
    const { api, wrapper } = await running()
    const result = statsResult(statsFile('/data/small.csv', data, ['serial'], prefixes))
    api.emit({ type: 'done', jobId: 'job-1', kind: 'stats', result })
    await flushPromises()
    await wrapper.get('[data-testid="export-results-csv"]').trigger('click')
    await wrapper.get('[data-testid="export-results-json"]').trigger('click')
    await flushPromises()
    expect(api.resultExports.map((r) => [r.format, r.fileName])).toEqual([
      ['csv', 'stats-results.csv'],
      ['json', 'stats-results.json'],
    ])
    expect(api.resultExports[0].result).toEqual(result)
  })

  it('a failed run reports the backend message and allows another run', async () => {
    const { api, wrapper, errors } = await running()
    api.emit({ type: 'failed', jobId: 'job-1', kind: 'stats', error: { code: 'invalid-input', message: 'small.csv line 3: "abc" is not a number in column acc_x' } })
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Statistics failed: small.csv line 3: "abc" is not a number in column acc_x'])
    expect(wrapper.find('[data-testid="stats-results"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeUndefined()
  })
})
