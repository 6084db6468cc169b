// @vitest-environment happy-dom
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import { ApiError } from '../../src/shared/errors'
import { statsWorkload, type StatsParams } from '../../src/shared/workloads/stats'
import { defaultParams } from '../../src/shared/workloads/schema'
import StatsView from '../../src/renderer/workloads/stats/StatsView.vue'
import { EXAMPLE_DIR, exampleSetup, FakeApi } from './fake-api'
import { drawn, mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

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

/** What the form sends for every field left alone: the schema's defaults (files and optional ones aside). */
const defaults = defaultParams(statsWorkload.params)

const checkbox = (w: VueWrapper, id: string) => w.get<HTMLInputElement>(`[data-testid="${id}"]`)

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('StatsView form', () => {
  it('lists the data files; Run waits for a file; the fields hold the schema\'s defaults', async () => {
    const { wrapper } = mountWith(StatsView, fakeApi())
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-file-list"]').text()).toContain('1.05 GB')
    expect(checkbox(wrapper, 'stats-file-ACC_001.csv').element.checked).toBe(false)
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeDefined()
    // No file chosen yet: what to do, not a validation error.
    expect(wrapper.get('[data-testid="stats-problem"]').text()).toBe('Choose the files to read')

    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    expect(wrapper.find('[data-testid="stats-problem"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeUndefined()
    // Columns are optional: empty means the engine's default columns.
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-columns"]').element.value).toBe('')
    expect(wrapper.get('[data-testid="stats-columns"]').attributes('placeholder')).toBe('default')
    const backends = ['serial', 'simd', 'workers', 'workers-simd', 'gpu'].filter((b) => checkbox(wrapper, `stats-backend-${b}`).element.checked)
    expect(backends).toEqual(['workers-simd'])
    expect(checkbox(wrapper, 'stats-backend-all').element.checked).toBe(false)
    expect(wrapper.get<HTMLSelectElement>('[data-testid="stats-precision"]').element.value).toBe('f64')
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe('10')
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-batches"]').element.value).toBe('1')
  })

  it('builds the stats parameters from the controls', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await checkbox(wrapper, 'stats-file-ACC_001.csv').setValue(true)
    await wrapper.get('[data-testid="stats-columns"]').setValue(' acc_z ,acc_x,, acc_z ')
    await checkbox(wrapper, 'stats-backend-workers-simd').setValue(false)
    await checkbox(wrapper, 'stats-backend-gpu').setValue(true)
    await checkbox(wrapper, 'stats-backend-serial').setValue(true)
    await wrapper.get('[data-testid="stats-precision"]').setValue('f32')
    await wrapper.get('[data-testid="stats-repeat"]').setValue('3')
    await wrapper.get('[data-testid="stats-batches"]').setValue('4')
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    const { backends, ...rest } = api.started[0].params as StatsParams
    const { backends: defaultBackends, ...otherDefaults } = defaults
    expect(defaultBackends).toEqual(['workers-simd'])
    expect(rest).toEqual({ ...otherDefaults, files: ['/data/ACC_001.csv', '/data/small.csv'], columns: ['acc_z', 'acc_x'], precision: 'f32', repeat: 3, batches: 4 })
    // As a set: the backend's validation puts backends in canonical order, whatever order they were ticked in.
    expect([...backends].sort()).toEqual(['gpu', 'serial'])
    expect(api.started.map((s) => [s.workload, s.jobId])).toEqual([['stats', 'job-1']])
  })

  it('runs with the schema\'s defaults, leaving the optional columns out', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect(api.started[0].params).toEqual({ ...defaults, files: ['/data/small.csv'] })
    expect(api.started[0].params).toMatchObject({ backends: ['workers-simd'], precision: 'f64', repeat: 10, batches: 1 })
    expect('columns' in (api.started[0].params as object)).toBe(false)
  })

  it('"all" ticks every backend, including the GPU when there is one', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    expect(checkbox(wrapper, 'stats-backend-gpu').element.disabled).toBe(false)
    await checkbox(wrapper, 'stats-backend-all').setValue(true)
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect((api.started[0].params as StatsParams).backends).toEqual(['serial', 'simd', 'workers', 'workers-simd', 'gpu'])
  })

  it('refuses to run without a backend', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await checkbox(wrapper, 'stats-backend-workers-simd').setValue(false)
    expect(wrapper.get('[data-testid="stats-problem"]').text()).toBe('Backends must be a non-empty list of serial, simd, workers, workers-simd, gpu; got []')
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeDefined()
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
    await checkbox(wrapper, 'stats-backend-all').setValue(true)
    expect(checkbox(wrapper, 'stats-backend-all').element.checked).toBe(true)
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect((api.started[0].params as StatsParams).backends).toEqual(['serial', 'simd', 'workers', 'workers-simd'])
  })

  it('refuses a repeat count out of range, in the validation\'s words', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-repeat"]').setValue('0')
    expect(wrapper.get('[data-testid="stats-problem"]').text()).toBe('Repeat must be an integer in 1…1000; got 0')
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeDefined()
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await wrapper.get('[data-testid="stats-batches"]').setValue('2.5')
    await wrapper.get('[data-testid="stats-repeat"]').setValue('5')
    expect(wrapper.get('[data-testid="stats-problem"]').text()).toBe('Batches must be an integer in 1…10000; got 2.5')
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    expect(api.started).toEqual([])
  })

  it('adds and ticks the files the desktop app\'s open dialog returns', async () => {
    const api = fakeApi()
    api.transport = 'electron'
    api.opened = [{ path: '/home/ana/ACC_002.csv', name: 'ACC_002.csv', bytes: 2048 }, files[1]]
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    expect(checkbox(wrapper, 'stats-file-ACC_002.csv').element.checked).toBe(true)
    expect(checkbox(wrapper, 'stats-file-small.csv').element.checked).toBe(true)
    expect(wrapper.findAll('[data-testid="stats-file-list"] input')).toHaveLength(3)
  })

  it('lists greyed out but does not tick opened files that are not CSV', async () => {
    const api = fakeApi()
    api.transport = 'electron'
    api.opened = [
      { path: '/home/ana/notes.txt', name: 'notes.txt', bytes: 10 },
      { path: '/home/ana/ACC_003.CSV', name: 'ACC_003.CSV', bytes: 2048 },
    ]
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    expect(checkbox(wrapper, 'stats-file-notes.txt').element.checked).toBe(false)
    expect(checkbox(wrapper, 'stats-file-notes.txt').element.disabled).toBe(true)
    expect(checkbox(wrapper, 'stats-file-ACC_003.CSV').element.checked).toBe(true)
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

describe('StatsView example', () => {
  const examplePath = `${EXAMPLE_DIR}/stats/acc-example.csv`

  it('"Try the example" runs its file with its parameters, lists the file unticked, and its settings end with it: the next run is the user\'s', async () => {
    const api = fakeApi()
    const { wrapper, errors } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-precision"]').setValue('f32')
    await wrapper.get('[data-testid="stats-example"]').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['stats'])

    // The example's run reads the example's file alone.
    const example = { ...defaults, files: [examplePath], backends: ['serial', 'simd', 'workers', 'workers-simd'], precision: 'f64', repeat: 3, batches: 10 }
    expect(api.started).toEqual([{ workload: 'stats', params: example, jobId: 'job-1' }])
    expect(wrapper.get('[data-testid="stats-example"]').attributes('disabled')).toBeDefined()
    expect(errors.notices.value).toEqual([])

    // Its file is listed, in a group of its own, unticked; the user's tick is as it was.
    expect(wrapper.findAll('[data-testid="stats-file-list"] input')).toHaveLength(3)
    expect(wrapper.get('[data-testid="stats-folder-example"]').text()).toContain('acc-example.csv')
    expect(checkbox(wrapper, 'stats-file-acc-example.csv').element.checked).toBe(false)
    expect(checkbox(wrapper, 'stats-file-small.csv').element.checked).toBe(true)
    expect(wrapper.get('[data-testid="stats-selection"]').text()).toBe('1 file selected')
    // While it runs its parameters are in the fields, and the page says whose they are.
    const ticked = () => ['serial', 'simd', 'workers', 'workers-simd', 'gpu'].filter((b) => checkbox(wrapper, `stats-backend-${b}`).element.checked)
    expect(ticked()).toEqual(['serial', 'simd', 'workers', 'workers-simd'])
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe('3')
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-batches"]').element.value).toBe('10')
    expect(wrapper.get<HTMLSelectElement>('[data-testid="stats-precision"]').element.value).toBe('f64')
    expect(wrapper.get('[data-testid="stats-example-settings"]').text()).toContain('yours come back when it ends')

    // When it ends, the fields are the user's again, and the next Run reads exactly those and what is ticked.
    api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope: statsEnvelope(statsResult()) })
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-example-settings"]').exists()).toBe(false)
    expect(ticked()).toEqual(defaults.backends)
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe(String(defaults.repeat))
    expect(wrapper.get<HTMLSelectElement>('[data-testid="stats-precision"]').element.value).toBe('f32')
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect(api.started[1]).toEqual({ workload: 'stats', params: { ...defaults, precision: 'f32', files: ['/data/small.csv'] }, jobId: 'job-2' })
  })

  it('a cancelled or failed example run gives the fields back too', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-example"]').trigger('click')
    await flushPromises()
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe('3')
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'cancelled', message: 'cancelled' } })
    await flushPromises()
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe(String(defaults.repeat))
  })

  it('while the example is being made, its button waits (no second request)', async () => {
    const api = fakeApi()
    let answer!: (setup: Awaited<ReturnType<FakeApi['example']>>) => void
    api.example = (id) => (api.examples.push(id), new Promise((resolve) => (answer = resolve)))
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-example"]').trigger('click')
    expect(wrapper.get('[data-testid="stats-example"]').attributes('disabled')).toBeDefined()
    await wrapper.get('[data-testid="stats-example"]').trigger('click')
    expect(api.examples).toEqual(['stats'])
    expect(api.started).toEqual([])
    answer(exampleSetup('stats'))
    await flushPromises()
    expect(api.started).toHaveLength(1)
  })

  it('a failing example is reported and starts nothing', async () => {
    const api = fakeApi()
    api.exampleFailure = new ApiError('io', 'cannot write /cache/paralab/examples: read-only file system')
    const { wrapper, errors } = mountWith(StatsView, api)
    await flushPromises()
    await checkbox(wrapper, 'stats-file-small.csv').setValue(true)
    await wrapper.get('[data-testid="stats-example"]').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['stats'])
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Could not prepare the example: cannot write /cache/paralab/examples: read-only file system'])
    expect(api.started).toEqual([])
    // Nothing of the example reached the form.
    expect(wrapper.find('[data-testid="stats-file-acc-example.csv"]').exists()).toBe(false)
    expect(checkbox(wrapper, 'stats-file-small.csv').element.checked).toBe(true)
    expect(wrapper.get<HTMLInputElement>('[data-testid="stats-repeat"]').element.value).toBe('10')
    expect(wrapper.get('[data-testid="stats-example"]').attributes('disabled')).toBeUndefined()
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
    api.emit({ type: 'progress', jobId: 'job-1', workload: 'stats', phase: 'parsing ACC_001.csv', fraction: 0.42, throughput: { value: 412.3, unit: 'MB/s' } })
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

  it('renders the reference table, the backend table and the charts from the result', async () => {
    const { api, wrapper } = await running()
    const file = statsFile('/data/small.csv', data, ['serial', 'gpu'], prefixes, 'f32')
    api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope: statsEnvelope(statsResult(file)) })
    await flushPromises()
    const results = wrapper.get('[data-testid="stats-results"]')

    const reference = results.get('[data-testid="stats-table"]').findAll('tbody tr').map((r) => r.findAll('th, td').map((c) => c.text()))
    // acc_x = 1,2,3,4,10,6: mean 13/3, median 3.5, |x − 3.5| = 2.5,1.5,.5,.5,6.5,2.5 → MAD 2
    expect(reference[0].slice(0, 4)).toEqual(['acc_x', '6', '0', '4.33333'])
    expect(reference[0][6]).toBe('3.5')
    expect(reference[0][7]).toBe('2')
    expect(reference[1][0]).toBe('acc_y')

    const gpuRows = results.get('[data-testid="stats-result-backend-gpu"]').findAll('tr').map((r) => r.findAll('th, td').map((c) => c.text()))
    // compute median, min, max (one run here), upload
    expect(gpuRows[0].slice(0, 7)).toEqual(['gpu', 'f32', '20 ms', '20 ms', '20 ms', '1.5 ms', 'acc_x'])
    expect(gpuRows[0].slice(-2)).toEqual(['2×10⁻⁷', '2×10⁻⁸'])
    expect(gpuRows[1][0]).toBe('acc_y')
    expect(results.get('[data-testid="stats-result-backend-serial"]').text()).toContain('—') // no upload on the CPU

    for (const kind of ['time', 'speedup', 'cv', 'mad']) expect(results.find(`[data-testid="stats-chart-${kind}"] canvas`).exists()).toBe(true)
    const charts = wrapper.findAllComponents(Chart).map((c) => drawn(c))
    expect(charts).toHaveLength(4)
    const [time, , cv, mad] = charts.map((c) => c.data)
    expect(time.datasets.map((d) => d.label)).toEqual(['serial', 'gpu'])
    expect(time.datasets[1].data).toEqual(prefixes.map((p) => ({ x: p, y: file.batches[prefixes.indexOf(p)].backends.gpu.compute_ms })))
    // Both backends computed the same CV and MAD here: a line per column, and a note saying so.
    expect(cv.datasets.map((d) => d.label)).toEqual(['acc_x', 'acc_y'])
    expect(charts[2].options.plugins.subtitle?.text).toBe('identical for serial, gpu')
    expect(mad.datasets[0].data.map((p) => p.y)).toEqual(file.batches.map((b) => b.backends.serial.columns.acc_x.mad))
    expect(charts[0].options.scales.y.type).toBe('logarithmic')
    expect(charts[2].options.scales.y.type).toBe('linear')
  })

  it('one backend: one chart series per column', async () => {
    const { api, wrapper } = await running()
    api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope: statsEnvelope(statsResult(statsFile('/data/small.csv', data, ['workers'], prefixes))) })
    await flushPromises()
    const cv = drawn(wrapper.findAllComponents(Chart)[1]).data
    expect(cv.datasets.map((d) => d.label)).toEqual(['acc_x', 'acc_y'])
    expect(wrapper.get('[data-testid="stats-backend-table"]').text()).not.toContain('Δ CV')
  })

  it('exports what a chart shows: log toggle and x range included', async () => {
    const { api, wrapper } = await running()
    api.exportAnswer = { fileName: 'small-time.svg', mime: 'image/svg+xml', savedPath: '/tmp/small-time.svg' }
    api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope: statsEnvelope(statsResult(statsFile('/data/small.csv', data, ['serial', 'simd'], prefixes))) })
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
    if (req.chart.kind !== 'series') throw new Error(`series expected, got ${req.chart.kind}`)
    expect(req.chart.data.logY).toBe(false)
    expect(req.chart.data.x).toEqual([4, 6])
    expect(req.chart.data.title).toBe('Time vs prefix size — small.csv')
    expect(wrapper.text()).toContain('Saved to /tmp/small-time.svg')

    await wrapper.get('[data-testid="export-png-mad"]').trigger('click')
    await flushPromises()
    const mad = api.chartExports[1]
    expect(mad.fileName).toBe('small-mad.png')
    if (mad.chart.kind !== 'series') throw new Error(`series expected, got ${mad.chart.kind}`)
    expect(mad.chart.data.title).toBe('Median absolute deviation vs prefix size — small.csv')
    expect(mad.chart.data.x).toEqual(prefixes)
  })

  it('speaks the dashboard\'s words: fields, not flags; a failed file\'s path once; a zero mean\'s CV as the command line prints it', async () => {
    const { api, wrapper, errors } = await running()
    const file = statsFile('/data/small.csv', { acc_x: [-1, 1, -1, 1] }, ['serial'], [4])
    // Through JSON a zero mean's CV (σ/μ = 1/0) arrives as null, as in a real envelope.
    const envelope = JSON.parse(JSON.stringify(statsEnvelope({ files: [file], skipped: [], failed: [{ path: '/data/x.csv', error: { code: 'invalid-input', message: '/data/x.csv: none of the default columns acc_x, acc_y, acc_z; columns are: "a", "b" (choose with --columns)' } }] })))
    expect(envelope.results.files[0].columns.acc_x.cv).toBeNull()
    api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope })
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-failed"] li').text()).toBe('/data/x.csv: none of the default columns acc_x, acc_y, acc_z; columns are: "a", "b" (choose with “Columns”)')
    const cvCell = wrapper.get('[data-testid="stats-table"] tbody tr').findAll('td')[4]
    // ∞ as the command line prints it, marked: a zero mean's CV says nothing of the spread.
    expect(cvCell.text()).toBe('∞ mean ≈ 0: undefined in practice')
    const serial = wrapper.get('[data-testid="stats-result-backend-serial"]').findAll('td')
    expect(serial[serial.length - 2].text()).toBe('∞ mean ≈ 0: undefined in practice')

    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'failed', jobId: 'job-2', workload: 'stats', error: { code: 'invalid-argument', message: 'stats: --backend gpu: no GPU adapter; choose others with --backend' } })
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Statistics failed: stats: “Backends” gpu: no GPU adapter; choose others with “Backends”'])
  })

  it('exports the job\'s envelope: each result table as CSV, the whole as JSON', async () => {
    const { api, wrapper } = await running()
    const envelope = statsEnvelope(statsResult(statsFile('/data/small.csv', data, ['serial'], prefixes)))
    api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope })
    await flushPromises()
    const tables = statsWorkload.tables(envelope.results).map((t) => t.name)
    // The per-row results come first: the plain "CSV" button.
    expect(tables[0]).toBe('results')
    expect(wrapper.findAll('[data-testid^="export-results-csv"]')).toHaveLength(tables.length)
    for (const [i, table] of tables.entries()) await wrapper.get(`[data-testid="export-results-csv${i ? `-${table}` : ''}"]`).trigger('click')
    await wrapper.get('[data-testid="export-results-json"]').trigger('click')
    await flushPromises()
    expect(api.resultExports).toEqual([
      ...tables.map((table) => ({ envelope, format: 'csv', table, fileName: `stats-${table}.csv` })),
      { envelope, format: 'json', fileName: 'stats-results.json' },
    ])
    expect(api.resultExports[0].envelope).toBe(envelope)
  })

  it('a failed run reports the backend message and allows another run', async () => {
    const { api, wrapper, errors } = await running()
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'invalid-input', message: 'small.csv line 3: "abc" is not a number in column acc_x' } })
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Statistics failed: small.csv line 3: "abc" is not a number in column acc_x'])
    expect(wrapper.find('[data-testid="stats-results"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="stats-run"]').attributes('disabled')).toBeUndefined()
  })
})
