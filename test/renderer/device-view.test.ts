// @vitest-environment happy-dom
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import { chartConfig } from '../../src/shared/charts'
import type { AdapterInfo, CpuBenchResult, DeviceBenchResult } from '../../src/shared/device'
import { ApiError } from '../../src/shared/errors'
import type { DeviceResult } from '../../src/shared/workloads/device'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import DeviceView from '../../src/renderer/workloads/device/DeviceView.vue'
import { envelopeOf, HOST } from './envelope'
import { FakeApi } from './fake-api'
import { drawn, mountWith } from './mount'

const swiftshader: AdapterInfo = {
  vendor: 'google',
  architecture: 'swiftshader',
  device: 'SwiftShader Device (Subzero)',
  description: 'SwiftShader Device (Subzero)',
  isSoftware: true,
  source: 'SwiftShader (Vulkan ICD /usr/lib/chromium/vk_swiftshader_icd.json)',
}

const bench: DeviceBenchResult = {
  adapter: swiftshader,
  read_bandwidth_GB_per_s: 12.5,
  read_bytes: 64e6,
  fma_f32_GFLOP_per_s: 80,
  fma_flops: 1e9,
  upload_GB_per_s: 3.25,
  readback_GB_per_s: 2.5,
  transfer_bytes: 32e6,
  timing: 'wall clock to completion',
  repeats: 5,
}

/** The CPU's measurement on the test host: its roof is 20 GB/s and 40 GFLOP/s (workers-simd). */
const cpuBench: CpuBenchResult = {
  cpu: HOST.cpu,
  threads: 8,
  read_bandwidth_GB_per_s: 20,
  read_bytes: 268435456,
  last_level_cache_bytes: 32 * 2 ** 20,
  serial_GFLOP_per_s: 1.5,
  simd_GFLOP_per_s: 8,
  workers_GFLOP_per_s: 11,
  workers_simd_GFLOP_per_s: 40,
  simd: 'relaxed',
  timing: 'wall clock, work handed to the threads until their answers',
  repeats: 5,
}

/** The envelope of a measuring device job on `api`'s adapter (and, with `cpu`, of the test host's CPU). */
function benchEnvelope(api: FakeApi, cpu?: CpuBenchResult) {
  return envelopeOf<DeviceResult, unknown>('device', { measure: true }, { info: api.device, ...(api.device.available && { bench }), ...(cpu && { cpu }) })
}

function gpuApi(): FakeApi {
  const api = new FakeApi()
  api.device = { available: true, adapter: swiftshader, features: ['shader-f16', 'subgroups'], limits: { maxBufferSize: 268435456, maxBindGroups: 4 } }
  return api
}

// happy-dom has no 2D canvas: Chart.js says so on the console, which is expected here.
beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('DeviceView', () => {
  it('shows the adapter, the software badge, its source, features and limits', async () => {
    const { wrapper } = mountWith(DeviceView, gpuApi())
    await flushPromises()
    expect(wrapper.get('[data-testid="adapter-name"]').text()).toBe('SwiftShader Device (Subzero)')
    expect(wrapper.get('[data-testid="software-badge"]').text()).toBe('software adapter')
    expect(wrapper.get('[data-testid="adapter-source"]').text()).toContain('vk_swiftshader_icd.json')
    expect(wrapper.get('[data-testid="feature-list"]').text()).toContain('subgroups')
    const limits = wrapper.get('[data-testid="limits-table"]').findAll('tr').map((r) => r.text())
    expect(limits).toEqual(['maxBindGroups4', 'maxBufferSize268,435,456'])
    expect(wrapper.find('[data-testid="gpu-unavailable"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="run-bench"]').attributes('disabled')).toBeUndefined()
  })

  it("lists the machine's GPUs with their bus addresses and which Paralab opens separately", async () => {
    const api = gpuApi()
    api.device = {
      ...api.device,
      host: {
        listed: true,
        gpus: [
          { bus: '0000:00:06.0', tag: 'pci-0000_00_06_0', vendor: 'NVIDIA', node: '/dev/nvidia0', separate: true },
          { bus: '0000:00:07.0', tag: 'pci-0000_00_07_0', vendor: 'NVIDIA', node: '/dev/nvidia1', separate: true },
        ],
        route: 'a process per GPU, started in a mount namespace of its own (unshare -m, as root)',
      },
    }
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    const rows = wrapper.findAll('[data-testid="host-gpus"] tr').map((r) => r.text())
    expect(rows).toEqual(['0000:00:06.0NVIDIA/dev/nvidia0opened separately', '0000:00:07.0NVIDIA/dev/nvidia1opened separately'])
    expect(wrapper.get('[data-testid="host-gpus-route"]').text()).toMatch(/unshare -m/)
  })

  it('shows no badge for a hardware adapter', async () => {
    const api = gpuApi()
    api.device = { ...api.device, adapter: { ...swiftshader, isSoftware: false, description: 'NVIDIA H100 80GB HBM3' } }
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    expect(wrapper.get('[data-testid="adapter-name"]').text()).toBe('NVIDIA H100 80GB HBM3')
    expect(wrapper.find('[data-testid="software-badge"]').exists()).toBe(false)
  })

  it("says why the GPU is unavailable, and measures the CPU alone: its figures and its roof", async () => {
    const api = new FakeApi()
    api.device = { available: false, reason: 'no Vulkan driver found (VK_ICD_FILENAMES unset)', features: [], limits: {} }
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    const box = wrapper.get('[data-testid="gpu-unavailable"]').text()
    expect(box).toContain('no Vulkan driver found (VK_ICD_FILENAMES unset)')
    expect(box).toContain('CPU backends')
    expect(wrapper.find('[data-testid="adapter-name"]').exists()).toBe(false)
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    await flushPromises()
    expect(api.started).toEqual([{ workload: 'device', params: { measure: true }, jobId: 'job-1' }])
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope: benchEnvelope(api, cpuBench) })
    await flushPromises()
    expect(wrapper.find('[data-testid="bench-results"]').exists()).toBe(false)
    const cpu = wrapper.get('[data-testid="cpu-results"]')
    expect(cpu.get('[data-testid="cpu-read-bandwidth"]').text()).toBe('20 GB/s')
    expect(cpu.get('[data-testid="cpu-fma-serial"]').text()).toBe('1.5 GFLOP/s')
    expect(cpu.get('[data-testid="cpu-fma-workers-simd"]').text()).toBe('40 GFLOP/s')
    expect(wrapper.get('[data-testid="cpu-timing"]').text()).toMatch(/median of 5 repeats; 268 MB read by the 8 threads \(last-level caches: 33\.6 MB\)/)
    const chart = drawn(wrapper.getComponent(Chart))
    expect(chart.data.datasets.map((d) => d.label)).toEqual(['CPU roof: 20 GB/s, 40 GFLOP/s', 'CPU ridge point: 2 FLOP/byte'])
    expect(chart.options.plugins.title.text).toBe(`Roofline — ${HOST.cpu}`)
  })

  it('runs the benchmark: progress, then the figures and a roofline of the result', async () => {
    const api = gpuApi()
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    await flushPromises()
    // The benchmark is the device workload, measuring; the optional sizes are left to the engine.
    expect(api.started).toEqual([{ workload: 'device', params: { measure: true }, jobId: 'job-1' }])
    expect(wrapper.get('[data-testid="run-bench"]').attributes('disabled')).toBeDefined()

    api.emit({ type: 'progress', jobId: 'job-1', workload: 'device', phase: 'read bandwidth', fraction: 0.25, throughput: { value: 11.5, unit: 'GB/s' } })
    // Another job's events are not this view's.
    api.emit({ type: 'progress', jobId: 'job-9', workload: 'device', phase: 'elsewhere', fraction: 0.9 })
    // Nor are another workload's, even under the same job id.
    api.emit({ type: 'progress', jobId: 'job-1', workload: 'stats', phase: 'loading', fraction: 0.7 })
    await flushPromises()
    const progress = wrapper.get('[data-testid="job-progress"]')
    expect(progress.text()).toContain('read bandwidth')
    expect(progress.text()).toContain('25%')
    expect(progress.text()).toContain('11.5 GB/s')
    expect(progress.get('[role="progressbar"]').attributes('aria-valuenow')).toBe('25')
    expect(wrapper.find('[data-testid="bench-results"]').exists()).toBe(false)

    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope: benchEnvelope(api) })
    await flushPromises()
    expect(wrapper.find('[data-testid="job-progress"]').exists()).toBe(false)
    const results = wrapper.get('[data-testid="bench-results"]')
    expect(results.get('[data-testid="bench-read-bandwidth"]').text()).toBe('12.5 GB/s')
    expect(results.get('[data-testid="bench-fma"]').text()).toBe('80 GFLOP/s')
    expect(results.get('[data-testid="bench-upload"]').text()).toBe('3.25 GB/s')
    expect(results.get('[data-testid="bench-readback"]').text()).toBe('2.5 GB/s')

    const wrapperEl = wrapper.get('[data-testid="roofline-chart"]')
    expect(wrapperEl.find('canvas').exists()).toBe(true)
    const chart = drawn(wrapper.getComponent(Chart))
    const expected = chartConfig({ kind: 'roofline', data: { adapter: swiftshader.description, peak_GFLOP_per_s: 80, bandwidth_GB_per_s: 12.5 } })
    expect(chart.type).toBe('line')
    expect(chart.data).toEqual(expected.data)
    expect(chart.options.plugins.title.text).toBe('Roofline — SwiftShader Device (Subzero)')
  })

  it("draws under the roof the kernels of each workload's newest run on this adapter", async () => {
    const api = gpuApi()
    const gpuRun = (variant: 'fused' | 'monolithic', GFLOP_per_s: number) => ({
      backend: 'gpu' as const,
      variant,
      precision: 'f32' as const,
      ms: 1,
      ms_min: 1,
      ms_max: 1,
      ms_per_step: 0.01,
      mass_end: 1,
      roofline: { cells_per_step: 1, flop_per_step: 1, bytes_per_step: 1, intensity: variant === 'fused' ? 17 : 0.8, GFLOP_per_s, GB_per_s: 1 },
    })
    const landslide = (runs: Record<string, ReturnType<typeof gpuRun>>): LandslideResult => ({
      grid: { rows: 10, cols: 10, cellsize: 1, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'd', source: 's' } },
      steps: 100,
      reference: { backend: 'serial', md5: '', mass_start: 1, mass_end: 1 },
      runs,
      series: { step: [], mass: [], flooded: [], max_thickness: [], active: [] },
      maps: [],
      skipped: [],
    })
    const on = (adapter: string) => ({ device: { adapter, vendor: 'google', backend: 'Vulkan', software: true } })
    // An older landslide run on this adapter, then one on another (the newest: its points are not this roof's).
    api.keep({ ...envelopeOf('landslide', {}, landslide({ 'gpu/fused': gpuRun('fused', 3) }), on(swiftshader.description)), createdAt: '2025-01-01T00:00:00.000Z' })
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope: benchEnvelope(api) })
    await flushPromises()
    const roof = () => drawn(wrapper.getComponent(Chart))
    expect(roof().data.datasets.map((d) => d.label)).toEqual(['roof: 12.5 GB/s, 80 GFLOP/s', 'ridge point: 6.4 FLOP/byte', 'landslide gpu/fused (f32) (3.8% of roof)'])
    expect(roof().data.datasets[2].data).toEqual([{ x: 17, y: 3 }])
    expect(wrapper.get('[data-testid="roofline-kernels"]').text()).toMatch(/^Points from the landslide run of .+: 1 under the GPU's roof, 0 under the CPU's\.$/)

    // The newest landslide run, on another GPU: no points rather than a roof they were not measured under.
    api.keep({ ...envelopeOf('landslide', {}, landslide({ 'gpu/monolithic': gpuRun('monolithic', 9) }), on('NVIDIA H100')), createdAt: '2025-01-03T00:00:00.000Z' })
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    api.emit({ type: 'done', jobId: 'job-2', workload: 'device', envelope: { ...benchEnvelope(api), results: { info: api.device, bench: { ...bench, repeats: 6 } } } })
    await flushPromises()
    expect(roof().data.datasets).toHaveLength(2)
    expect(wrapper.find('[data-testid="roofline-kernels"]').exists()).toBe(false)
  })

  it("draws a correlation run's GPU kernels under the roof when it is the newest on this adapter", async () => {
    const api = gpuApi()
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
          variants: [
            { stage: 'means', variant: 'shared', ms: spread(0.1), flop: 1e5, bytes: 4e5, deviation: 0 },
            { stage: 'cross', variant: 'register', ms: spread(0.3), flop: 6e6, bytes: 1e5, deviation: 0 },
          ],
        },
      ],
      constant: [],
      ranking: [],
      threshold: -3.5,
      top: 10,
      skipped: [],
    }
    api.keep({ ...envelopeOf('correlation', {}, correlation, { device: { adapter: swiftshader.description, vendor: 'google', backend: 'Vulkan', software: true } }), createdAt: '2025-01-02T00:00:00.000Z' })
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope: benchEnvelope(api) })
    await flushPromises()
    const roof = drawn(wrapper.getComponent(Chart))
    expect(roof.data.datasets.slice(2).map((d) => [d.label, d.data])).toEqual([
      ['correlation gpu means shared (f32) (32% of roof)', [{ x: 0.25, y: 1 }]],
      ['correlation gpu cross register (f32) (25% of roof)', [{ x: 60, y: 20 }]],
    ])
    expect(wrapper.get('[data-testid="roofline-kernels"]').text()).toMatch(/^Points from the correlation run of .+: 2 under the GPU's roof, 0 under the CPU's\.$/)
  })

  it("draws both roofs, the newest run's GPU kernels under the GPU's and its CPU backends under the CPU's; a run of another CPU leaves its CPU points out", async () => {
    const api = gpuApi()
    const spread = (median: number) => ({ median, min: median, max: median })
    const cpuRun = (backend: 'serial' | 'simd', ms: number) => ({ backend, arithmetic: 'f64' as const, stages: { means: spread(0), squares: spread(0), cross: spread(ms), coefficients: spread(0) }, total: spread(ms), max_abs_dr: 0 })
    // 100 series of 1000 samples: 4·m·n + m(m − 1)·n + m(m − 1) = 10,309,900 FLOP; (m·n + m²) × 8 = 880,000 bytes.
    const correlation: CorrelationResult = {
      input: { path: '/data/walks.csv', format: 'csv', layout: 'columns', series: 100, length: 1000, bytes: 1e6, load_ms: 2 },
      precision: 'f64',
      reference: 'serial',
      runs: [
        cpuRun('serial', 10.3099),
        cpuRun('simd', 1.03099),
        {
          backend: 'gpu',
          arithmetic: 'f32-compensated',
          stages: { means: spread(0.1), squares: spread(0.2), cross: spread(0.3), coefficients: spread(0.1) },
          total: spread(0.7),
          max_abs_dr: 1e-7,
          variants: [{ stage: 'cross', variant: 'register', ms: spread(0.3), flop: 6e6, bytes: 1e5, deviation: 0 }],
        },
      ],
      constant: [],
      ranking: [],
      threshold: -3.5,
      top: 10,
      skipped: [],
    }
    const onSwiftshader = { device: { adapter: swiftshader.description, vendor: 'google', backend: 'Vulkan', software: true } }
    api.keep({ ...envelopeOf('correlation', {}, correlation, onSwiftshader), createdAt: '2025-01-02T00:00:00.000Z' })
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope: benchEnvelope(api, cpuBench) })
    await flushPromises()
    const chart = () => drawn(wrapper.getComponent(Chart))
    const intensity = 10_309_900 / 880_000
    expect(chart().data.datasets.map((d) => [d.label, d.data.length === 1 ? d.data : d.data.length])).toEqual([
      ['GPU roof: 12.5 GB/s, 80 GFLOP/s', expect.any(Number)],
      ['GPU ridge point: 6.4 FLOP/byte', [{ x: 6.4, y: 80 }]],
      ['CPU roof: 20 GB/s, 40 GFLOP/s', expect.any(Number)],
      ['CPU ridge point: 2 FLOP/byte', [{ x: 2, y: 40 }]],
      ['correlation gpu cross register (f32-compensated) (25% of GPU roof)', [{ x: 60, y: 20 }]],
      // 1 GFLOP/s and 10 GFLOP/s under the CPU's 40, beyond its ridge point.
      ['correlation serial (2.5% of CPU roof)', [{ x: intensity, y: expect.closeTo(1, 9) }]],
      ['correlation simd (25% of CPU roof)', [{ x: intensity, y: expect.closeTo(10, 9) }]],
    ])
    expect(chart().options.plugins.title.text).toBe(`Roofline — ${swiftshader.description} and ${HOST.cpu}`)
    expect(chart().options.plugins.subtitle?.text).toMatch(/^Points: the correlation run of .+; GPU kernels as the run measured them; whole runs at the workload's counted FLOPs/)
    expect(wrapper.get('[data-testid="roofline-kernels"]').text()).toMatch(/: 1 under the GPU's roof, 2 under the CPU's\.$/)

    // A newer run of the same adapter on another CPU (a run folder from elsewhere): its GPU kernel, no CPU point.
    api.keep({ ...envelopeOf('correlation', {}, correlation, onSwiftshader), host: { ...HOST, cpu: 'Other CPU' }, createdAt: '2025-01-03T00:00:00.000Z' })
    api.emit({ type: 'done', jobId: 'job-7', workload: 'correlation', envelope: envelopeOf('correlation', {}, correlation) })
    await flushPromises()
    expect(chart().data.datasets.slice(4).map((d) => d.label)).toEqual(['correlation gpu cross register (f32-compensated) (25% of GPU roof)'])
  })

  it('cancel asks the backend to cancel this job, and a cancelled job is not an error', async () => {
    const api = gpuApi()
    const { wrapper, errors } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    await flushPromises()
    await wrapper.get('[data-testid="cancel-job"]').trigger('click')
    await flushPromises()
    expect(api.cancelled).toEqual(['job-1'])
    expect(wrapper.get('[data-testid="cancel-job"]').text()).toBe('Cancelling…')
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'device', error: { code: 'cancelled', message: 'cancelled by the user' } })
    await flushPromises()
    expect(wrapper.find('[data-testid="job-progress"]').exists()).toBe(false)
    expect(wrapper.text()).toContain('Benchmark cancelled.')
    expect(errors.notices.value).toEqual([])
  })

  it('a failed benchmark reports the backend message', async () => {
    const api = gpuApi()
    const { wrapper, errors } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'device', error: { code: 'device-lost', message: 'GPU device lost: destroyed' } })
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Device benchmark failed: GPU device lost: destroyed'])
    expect(wrapper.get('[data-testid="run-bench"]').attributes('disabled')).toBeUndefined()
  })

  it('sends the read size and repeats typed in the fields; an invalid one shows why and blocks the run', async () => {
    const api = gpuApi()
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    // `measure` is what the button does, not a field.
    expect(wrapper.find('[data-testid="device-measure"]').exists()).toBe(false)
    const readMb = wrapper.get<HTMLInputElement>('[data-testid="device-read-mb"]')
    const repeats = wrapper.get<HTMLInputElement>('[data-testid="device-repeat"]')
    // Optional, no default: empty, the engine picks a size for the adapter.
    expect([readMb.element.value, repeats.element.value]).toEqual(['', ''])
    expect(readMb.attributes('placeholder')).toBe('auto')

    await readMb.setValue('0')
    expect(wrapper.get('[data-testid="device-problem"]').text()).toBe('Read size must be an integer in 1…16384; got 0')
    expect(wrapper.get('[data-testid="run-bench"]').attributes('disabled')).toBeDefined()
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    expect(api.started).toEqual([])

    await readMb.setValue('64')
    await repeats.setValue('2')
    expect(wrapper.find('[data-testid="device-problem"]').exists()).toBe(false)
    await wrapper.get('[data-testid="run-bench"]').trigger('click')
    await flushPromises()
    expect(api.started).toEqual([{ workload: 'device', params: { measure: true, readMb: 64, repeat: 2 }, jobId: 'job-1' }])
    // The fields are locked while the benchmark runs.
    expect(readMb.element.disabled).toBe(true)
  })

  it('"Try the example" fills the fields from the example and runs it', async () => {
    const api = gpuApi()
    const { wrapper, errors } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="device-example"]').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['device'])
    expect(wrapper.get<HTMLInputElement>('[data-testid="device-read-mb"]').element.value).toBe('16')
    expect(wrapper.get<HTMLInputElement>('[data-testid="device-repeat"]').element.value).toBe('3')
    expect(api.started).toEqual([{ workload: 'device', params: { measure: true, readMb: 16, repeat: 3 }, jobId: 'job-1' }])
    expect(wrapper.find('[data-testid="job-progress"]').exists()).toBe(true)
    expect(wrapper.get('[data-testid="device-example"]').attributes('disabled')).toBeDefined()
    expect(errors.notices.value).toEqual([])
  })

  it('a failing example is reported and starts nothing', async () => {
    const api = gpuApi()
    api.exampleFailure = new ApiError('io', 'connection lost')
    const { wrapper, errors } = mountWith(DeviceView, api)
    await flushPromises()
    await wrapper.get('[data-testid="device-example"]').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['device'])
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Could not prepare the example: connection lost'])
    expect(api.started).toEqual([])
    expect(wrapper.get<HTMLInputElement>('[data-testid="device-read-mb"]').element.value).toBe('')
    // The button is usable again for another try.
    expect(wrapper.get('[data-testid="device-example"]').attributes('disabled')).toBeUndefined()
  })

  it('offers the example without a GPU too: it measures the CPU', async () => {
    const api = new FakeApi()
    api.device = { available: false, reason: 'no adapter', features: [], limits: {} }
    const { wrapper } = mountWith(DeviceView, api)
    await flushPromises()
    expect(wrapper.get('[data-testid="device-example"]').attributes('disabled')).toBeUndefined()
  })

  async function withResults(api: FakeApi) {
    const mounted = mountWith(DeviceView, api)
    await flushPromises()
    await mounted.wrapper.get('[data-testid="run-bench"]').trigger('click')
    await flushPromises()
    const envelope = benchEnvelope(api)
    api.emit({ type: 'done', jobId: 'job-1', workload: 'device', envelope })
    await flushPromises()
    return { ...mounted, envelope }
  }

  it('exports the job\'s envelope: each result table as CSV, the whole as JSON', async () => {
    const api = gpuApi()
    const { wrapper, envelope } = await withResults(api)
    expect(wrapper.get('[data-testid="export-results-csv"]').text()).toBe('CSV: device')
    await wrapper.get('[data-testid="export-results-csv"]').trigger('click')
    await wrapper.get('[data-testid="export-results-csv-limits"]').trigger('click')
    await wrapper.get('[data-testid="export-results-json"]').trigger('click')
    await flushPromises()
    // The very envelope of the job: not a copy, and not a Vue proxy, which IPC could not clone.
    for (const r of api.resultExports) expect(r.envelope).toBe(envelope)
    expect(api.resultExports.map(({ format, table, fileName }) => ({ format, table, fileName }))).toEqual([
      { format: 'csv', table: 'device', fileName: 'device-device.csv' },
      { format: 'csv', table: 'limits', fileName: 'device-limits.csv' },
      { format: 'json', table: undefined, fileName: 'device-results.json' },
    ])
  })

  it('PNG export with bytes downloads them under the given name, then frees the URL', async () => {
    const api = gpuApi()
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255])
    api.exportAnswer = { fileName: 'roofline.png', mime: 'image/png', base64: Buffer.from(png).toString('base64') }
    const { wrapper } = await withResults(api)

    const blobs: Blob[] = []
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => (blobs.push(blob as Blob), 'blob:roofline'))
    const revoke = vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {})
    const clicked: HTMLAnchorElement[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this)
    })

    await wrapper.get('[data-testid="export-png"]').trigger('click')
    await flushPromises()
    expect(api.chartExports).toHaveLength(1)
    expect(api.chartExports[0].format).toBe('png')
    expect(api.chartExports[0].fileName).toBe('roofline.png')
    expect(api.chartExports[0].chart).toEqual({ kind: 'roofline', data: { adapter: swiftshader.description, peak_GFLOP_per_s: 80, bandwidth_GB_per_s: 12.5 } })

    expect(clicked).toHaveLength(1)
    expect(clicked[0].download).toBe('roofline.png')
    expect(clicked[0].href).toBe('blob:roofline')
    expect(blobs[0].type).toBe('image/png')
    expect(new Uint8Array(await blobs[0].arrayBuffer())).toEqual(png)
    await vi.waitFor(() => expect(revoke).toHaveBeenCalledWith('blob:roofline'))
  })

  it('SVG export saved by the desktop app says where; a cancelled one does nothing', async () => {
    const api = gpuApi()
    api.exportAnswer = { fileName: 'roofline.svg', mime: 'image/svg+xml', savedPath: '/home/ana/roofline.svg' }
    const { wrapper } = await withResults(api)
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click')
    await wrapper.get('[data-testid="export-svg"]').trigger('click')
    await flushPromises()
    expect(api.chartExports[0].fileName).toBe('roofline.svg')
    expect(wrapper.text()).toContain('Saved to /home/ana/roofline.svg')

    api.exportAnswer = { fileName: 'roofline.svg', mime: 'image/svg+xml', cancelled: true }
    await wrapper.get('[data-testid="export-svg"]').trigger('click')
    await flushPromises()
    expect(api.chartExports).toHaveLength(2)
    expect(wrapper.text()).not.toContain('Saved to')
    expect(click).not.toHaveBeenCalled()
  })
})
