// @vitest-environment happy-dom
// The statistics view as a scientist needs it: min and max beside the median, the speedup chart (or
// why there is none), progress with elapsed time and an ETA, and a word on a software GPU adapter.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import type { AdapterInfo } from '../../src/shared/device'
import { timingOf } from '../../src/shared/workloads/envelope'
import { statsWorkload } from '../../src/shared/workloads/stats'
import JobProgress from '../../src/renderer/components/JobProgress.vue'
import ParamFields from '../../src/renderer/components/ParamFields.vue'
import { useWorkloadForm } from '../../src/renderer/composables/useWorkloadForm'
import StatsView from '../../src/renderer/workloads/stats/StatsView.vue'
import { FakeApi } from './fake-api'
import { drawn, mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

const data = { acc_x: [1, 2, 3, 4, 10, 6], acc_y: [-1, 0.5, 2, 2, 7, 3] }
const adapter = (isSoftware: boolean): AdapterInfo => ({
  vendor: 'google',
  architecture: '',
  device: '',
  description: isSoftware ? 'SwiftShader Device (Subzero)' : 'NVIDIA H100',
  isSoftware,
  source: 'hardware adapter',
})

function fakeApi(isSoftware = false): FakeApi {
  const api = new FakeApi()
  api.files = [{ path: '/data/small.csv', name: 'small.csv', bytes: 640 }]
  api.device = { available: true, adapter: adapter(isSoftware), features: [], limits: {} }
  return api
}

async function finished(backends: string[], timings: Record<string, number[]>) {
  const api = fakeApi()
  const mounted = mountWith(StatsView, api)
  await flushPromises()
  await mounted.wrapper.get('[data-testid="stats-file-small.csv"]').setValue(true)
  await mounted.wrapper.get('[data-testid="stats-run"]').trigger('click')
  await flushPromises()
  const envelope = statsEnvelope(statsResult(statsFile('/data/small.csv', data, backends, [2, 4, 6])))
  envelope.timings = Object.fromEntries(Object.entries(timings).map(([b, runs]) => [b, timingOf(runs)]))
  api.emit({ type: 'done', jobId: 'job-1', workload: 'stats', envelope })
  await flushPromises()
  return { api, ...mounted }
}

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('stats results', () => {
  it('show each backend\'s median, min and max time of the runs', async () => {
    const { wrapper } = await finished(['serial', 'simd'], { serial: [100, 120, 90], simd: [25, 30, 20] })
    const table = wrapper.get('[data-testid="stats-backend-table"]')
    expect(table.findAll('thead th').map((th) => th.text()).slice(0, 6)).toEqual(['backend', 'precision', 'compute (median)', 'min', 'max', 'upload'])
    expect(table.get('caption').text()).toContain('compute: whole columns, over 3 runs')
    const row = (b: string) => wrapper.get(`[data-testid="stats-result-backend-${b}"] tr`).findAll('th, td').map((c) => c.text())
    expect(row('serial').slice(0, 5)).toEqual(['serial', 'f64', '100 ms', '90 ms', '120 ms'])
    expect(row('simd').slice(0, 5)).toEqual(['simd', 'f64', '25 ms', '20 ms', '30 ms'])
  })

  it('draw the speedup over serial as bars with min–max whiskers, exported as drawn', async () => {
    const { api, wrapper } = await finished(['serial', 'simd'], { serial: [100, 120, 90], simd: [25, 30, 20] })
    expect(wrapper.find('[data-testid="stats-no-speedup"]').exists()).toBe(false)
    expect(wrapper.find('[data-testid="stats-chart-speedup"] canvas').exists()).toBe(true)
    const charts = wrapper.findAllComponents(Chart).map((c) => drawn(c))
    expect(charts.map((c) => c.options.plugins.title.text)).toEqual([
      'Time vs prefix size — small.csv',
      'Speedup over serial — small.csv',
      'Coefficient of variation vs prefix size — small.csv',
      'Median absolute deviation vs prefix size — small.csv',
    ])
    const speedup = charts[1]
    expect(speedup.type).toBe('barWithErrorBars')
    expect(speedup.data.datasets[0].data as unknown).toEqual([
      { y: 1, yMin: 90 / 120, yMax: 120 / 90 },
      { y: 4, yMin: 3, yMax: 6 },
    ])
    expect(speedup.options.scales.y).toMatchObject({ type: 'linear', min: 0, title: { text: 'speedup over serial (×)' } })

    // The log toggle applies to the bars too, and the export carries what is shown.
    await wrapper.get('[data-testid="log-y-speedup"]').setValue(true)
    await flushPromises()
    expect(drawn(wrapper.findAllComponents(Chart)[1]).options.scales.y.type).toBe('logarithmic')
    await wrapper.get('[data-testid="export-svg-speedup"]').trigger('click')
    await flushPromises()
    const req = api.chartExports[0]
    expect(req.fileName).toBe('small-speedup.svg')
    if (req.chart.kind !== 'bars') throw new Error(`bars expected, got ${req.chart.kind}`)
    expect(req.chart.data.logY).toBe(true)
    expect(req.chart.data.bars.map((b) => [b.label, b.value])).toEqual([['serial', 1], ['simd', 4]])
  })

  it('say why there is no speedup chart without serial', async () => {
    const { wrapper } = await finished(['simd', 'workers'], { simd: [25], workers: [10] })
    expect(wrapper.get('[data-testid="stats-no-speedup"]').text()).toBe('No speedup chart: serial did not run; tick it to compare the other backends with it.')
    expect(wrapper.find('[data-testid="stats-chart-speedup"]').exists()).toBe(false)
    expect(wrapper.findAllComponents(Chart)).toHaveLength(3)
  })
})

describe('job progress', () => {
  const mountProgress = () =>
    mount(JobProgress, { props: { progress: { phase: 'starting', fraction: 0 }, cancelling: false, testid: 'p', cancelTestid: 'c' }, attachTo: document.body })

  it('shows the elapsed time and, once there is a pace, the time left at that pace', async () => {
    vi.useFakeTimers({ now: 0 })
    const w = mountProgress()
    expect(w.get('[data-testid="job-elapsed"]').text()).toBe('0:00 elapsed')
    expect(w.find('[data-testid="job-eta"]').exists()).toBe(false)

    await vi.advanceTimersByTimeAsync(10_000)
    await w.setProps({ progress: { phase: 'serial f64 · a.csv · repeat 2 of 10', fraction: 0.25 } })
    expect(w.get('[data-testid="job-elapsed"]').text()).toBe('0:10 elapsed')
    // A quarter in 10 s: 30 s to go.
    expect(w.get('[data-testid="job-eta"]').text()).toBe('about 0:30 left')

    // Counting down between reports.
    await vi.advanceTimersByTimeAsync(5_000)
    expect(w.get('[data-testid="job-elapsed"]').text()).toBe('0:15 elapsed')
    expect(w.get('[data-testid="job-eta"]').text()).toBe('about 0:25 left')

    // A slower pace than thought: the estimate grows.
    await vi.advanceTimersByTimeAsync(25_000)
    await w.setProps({ progress: { phase: 'serial f64 · a.csv · repeat 5 of 10', fraction: 0.5 } })
    expect(w.get('[data-testid="job-eta"]').text()).toBe('about 0:40 left')

    await vi.advanceTimersByTimeAsync(3_600_000)
    expect(w.get('[data-testid="job-elapsed"]').text()).toBe('1:00:40 elapsed')
    // An hour without word, half done: never 0:00 with work ahead, but the pace including the wait.
    expect(w.get('[data-testid="job-eta"]').text()).toBe('about 1:00:40 left (slower than so far)')
    await w.setProps({ progress: { phase: 'done', fraction: 1 } })
    expect(w.find('[data-testid="job-eta"]').exists()).toBe(false)
  })

  it('gives no estimate from too little progress', async () => {
    vi.useFakeTimers({ now: 0 })
    const w = mountProgress()
    await vi.advanceTimersByTimeAsync(5_000)
    await w.setProps({ progress: { phase: 'loading a.csv', fraction: 0.01 } })
    expect(w.find('[data-testid="job-eta"]').exists()).toBe(false)
    expect(w.get('[data-testid="job-elapsed"]').text()).toBe('0:05 elapsed')
  })
})

describe('software GPU adapter', () => {
  it('is noted beside the gpu choice, which stays unticked', async () => {
    const { wrapper } = mountWith(StatsView, fakeApi(true))
    await flushPromises()
    const gpu = wrapper.get<HTMLInputElement>('[data-testid="stats-backend-gpu"]')
    expect(gpu.element.checked).toBe(false)
    expect(gpu.element.disabled).toBe(false)
    expect(wrapper.get('[data-testid="stats-backend-gpu-note"]').text()).toBe('software adapter — slow')
    expect(gpu.element.closest('label')?.textContent).toContain('software adapter — slow')
  })

  it('has no note on a hardware adapter', async () => {
    const { wrapper } = mountWith(StatsView, fakeApi(false))
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-backend-gpu-note"]').exists()).toBe(false)
  })

  it('ParamFields shows a note only beside a choice that can be used', () => {
    const form = useWorkloadForm(statsWorkload)
    const w = mount(ParamFields, {
      props: { definition: statsWorkload, values: form.values, notes: { backends: { gpu: 'slow', simd: 'fast' } }, unavailable: { backends: { simd: 'not built' } } },
    })
    expect(w.get('[data-testid="stats-backend-gpu-note"]').text()).toBe('slow')
    expect(w.find('[data-testid="stats-backend-simd-note"]').exists()).toBe(false)
  })
})
