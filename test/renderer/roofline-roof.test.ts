// @vitest-environment happy-dom
// Rooflines draw the measured roof wherever the history holds one for the kernels' adapter: a
// correlation or landslide run's own chart, and the Device view's, which adds the kernels of runs
// finished after its benchmark.
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import type { AdapterInfo, DeviceBenchResult } from '../../src/shared/device'
import type { DeviceResult } from '../../src/shared/workloads/device'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import CorrelationResults from '../../src/renderer/workloads/correlation/CorrelationResults.vue'
import DeviceView from '../../src/renderer/workloads/device/DeviceView.vue'
import LandslideResults from '../../src/renderer/workloads/landslide/LandslideResults.vue'
import { envelopeOf } from './envelope'
import { FakeApi } from './fake-api'
import { drawn, mountWith } from './mount'
import { mount } from '@vue/test-utils'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'

const gpu: AdapterInfo = { vendor: 'nvidia', architecture: '', device: '', description: 'NVIDIA H100', isSoftware: false, source: 'hardware adapter' }
const bench: DeviceBenchResult = {
  adapter: gpu,
  read_bandwidth_GB_per_s: 2000,
  read_bytes: 64e6,
  fma_f32_GFLOP_per_s: 50_000,
  fma_flops: 1e9,
  upload_GB_per_s: 20,
  readback_GB_per_s: 20,
  transfer_bytes: 32e6,
  timing: 'timestamps',
  repeats: 5,
}
const on = { device: { adapter: 'NVIDIA H100', vendor: 'nvidia', backend: 'Vulkan', software: false } }
const spread = (median: number) => ({ median, min: median, max: median })

const correlation: CorrelationResult = {
  input: { path: '/data/walks.csv', format: 'csv', layout: 'columns', series: 3, length: 100, bytes: 3000, load_ms: 2 },
  precision: 'f32',
  reference: null,
  runs: [
    {
      backend: 'gpu',
      arithmetic: 'f32',
      stages: { means: spread(0.1), squares: spread(0.2), cross: spread(0.3), coefficients: spread(0.1) },
      total: spread(0.7),
      max_abs_dr: 0,
      variants: [{ stage: 'cross', variant: 'register', ms: spread(0.3), flop: 6e6, bytes: 1e5, deviation: 0 }],
    },
  ],
  constant: [],
  ranking: [],
  threshold: -3.5,
  top: 10,
  skipped: [],
}

const landslide: LandslideResult = {
  grid: { rows: 10, cols: 10, cellsize: 1, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'd', source: 's' } },
  steps: 100,
  reference: { backend: 'serial', md5: '', mass_start: 1, mass_end: 1 },
  runs: {
    'gpu/fused': {
      backend: 'gpu',
      variant: 'fused',
      precision: 'f32',
      ms: 1,
      ms_min: 1,
      ms_max: 1,
      ms_per_step: 0.01,
      mass_end: 1,
      roofline: { cells_per_step: 1, flop_per_step: 1, bytes_per_step: 1, intensity: 17, GFLOP_per_s: 300, GB_per_s: 1 },
    },
  },
  series: { step: [], mass: [], flooded: [], max_thickness: [], active: [] },
  maps: [],
  skipped: [],
}

function api(): FakeApi {
  const a = new FakeApi()
  a.device = { available: true, adapter: gpu, features: [], limits: {} }
  return a
}
const benchEnvelope = () => ({ ...envelopeOf<DeviceResult, unknown>('device', { measure: true }, { info: { available: true, adapter: gpu, features: [], limits: {} }, bench }), createdAt: '2025-01-01T00:00:00.000Z' })
const mountResults = (component: object, props: Record<string, unknown>, fake: FakeApi) =>
  mount(component, { props, global: { provide: dashboardProvides(fake, createErrorLog()) }, attachTo: document.body })
const labels = (canvasBox: ReturnType<ReturnType<typeof mountResults>['get']>) => drawn(canvasBox.getComponent(Chart)).data.datasets.map((d) => d.label)

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('rooflines under the measured roof', () => {
  it("a correlation run's kernels are drawn under the roof measured on their adapter, and alone under none", async () => {
    const fake = api()
    const view = mountResults(CorrelationResults, { result: correlation, adapter: 'NVIDIA H100' }, fake)
    await flushPromises()
    expect(labels(view.get('[data-testid="correlation-chart-roofline"]'))).toEqual(['gpu cross register (f32)'])

    // A Device benchmark finishes: the roof appears without reopening the run.
    fake.keep(benchEnvelope())
    fake.emit({ type: 'done', jobId: 'job-9', workload: 'device', envelope: benchEnvelope() })
    await flushPromises()
    expect(labels(view.get('[data-testid="correlation-chart-roofline"]'))).toEqual([
      'roof: 2,000 GB/s, 50,000 GFLOP/s',
      'ridge point: 25 FLOP/byte',
      'gpu cross register (f32) (0.04% of roof)',
    ])
  })

  it("a landslide run's kernels take the roof of this backend's adapter when shown without their envelope; another adapter's roof is not theirs", async () => {
    const fake = api()
    fake.keep(benchEnvelope())
    const view = mountResults(LandslideResults, { result: landslide, timings: {} }, fake)
    await flushPromises()
    expect(labels(view.get('[data-testid="landslide-chart-roofline"]'))[0]).toBe('roof: 2,000 GB/s, 50,000 GFLOP/s')

    const elsewhere = mountResults(LandslideResults, { result: landslide, timings: {}, adapter: 'SwiftShader Device (Subzero)' }, fake)
    await flushPromises()
    expect(labels(elsewhere.get('[data-testid="landslide-chart-roofline"]'))).toEqual(['gpu/fused (f32)'])
  })

  it('the Device view adds the kernels of a run finished after its benchmark', async () => {
    const fake = api()
    const { wrapper } = mountWith(DeviceView, fake)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    fake.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope: benchEnvelope() })
    await flushPromises()
    const roof = () => drawn(wrapper.getComponent(Chart)).data.datasets.map((d) => d.label)
    expect(roof()).toHaveLength(2)

    const later = { ...envelopeOf('landslide', {}, landslide, on), createdAt: '2025-01-02T00:00:00.000Z' }
    fake.keep(later)
    fake.emit({ type: 'done', jobId: 'job-2', workload: 'landslide', envelope: later })
    await flushPromises()
    expect(roof()).toEqual(['roof: 2,000 GB/s, 50,000 GFLOP/s', 'ridge point: 25 FLOP/byte', 'landslide gpu/fused (f32) (0.88% of roof)'])
  })
})
