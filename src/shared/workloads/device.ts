// Device: the WebGPU adapter Paralab uses, its features and limits, and (when measured) the
// ceilings every timing is compared with: the GPU's read bandwidth, f32 FMA throughput and
// transfers, and the CPU's read bandwidth and f64 FMA throughput of each CPU backend.
import { deviceRoofline } from '../charts/roofline'
import { adapterName, type CpuBenchResult, type DeviceBenchResult, type DeviceInfo } from '../device'
import { checkValue, type ComparableRun } from './comparable'
import { defineWorkload, type NamedChart, type ResultTable } from './definition'
import type { ResultEnvelope } from './envelope'
import type { ParamValues } from './schema'

export interface DeviceResult {
  info: DeviceInfo
  /** The GPU's ceilings: present when the job measured and a GPU was there. */
  bench?: DeviceBenchResult
  /** The CPU's ceilings: present when the job measured (runs recorded before the CPU was measured have none). */
  cpu?: CpuBenchResult
}

function deviceTables(r: DeviceResult): ResultTable[] {
  const a = r.info.adapter
  const rows: ResultTable['rows'] = [
    ['available', r.info.available, ''],
    ...(a ? ([['adapter', adapterName(a), ''], ['software adapter', a.isSoftware, ''], ['found by', a.source, '']] as ResultTable['rows']) : []),
  ]
  const b = r.bench
  if (b)
    rows.push(
      ['read bandwidth', b.read_bandwidth_GB_per_s, 'GB/s'],
      ['f32 FMA', b.fma_f32_GFLOP_per_s, 'GFLOP/s'],
      ['upload', b.upload_GB_per_s, 'GB/s'],
      ['readback', b.readback_GB_per_s, 'GB/s'],
    )
  const c = r.cpu
  if (c)
    rows.push(
      ['cpu', c.cpu, ''],
      ['cpu threads', c.threads, ''],
      ['cpu read bandwidth', c.read_bandwidth_GB_per_s, 'GB/s'],
      ['cpu f64 FMA serial', c.serial_GFLOP_per_s, 'GFLOP/s'],
      ['cpu f64 FMA simd', c.simd_GFLOP_per_s, 'GFLOP/s'],
      ['cpu f64 FMA workers', c.workers_GFLOP_per_s, 'GFLOP/s'],
      ['cpu f64 FMA workers-simd', c.workers_simd_GFLOP_per_s, 'GFLOP/s'],
    )
  const measured = [
    b && `on the adapter (median of ${b.repeats} runs, ${b.timing}): read bandwidth and f32 FMA throughput are the GPU roof's ceilings, upload and readback host↔device copies`,
    c &&
      `on the CPU (median of ${c.repeats} runs, wall clock): ${c.threads} threads reading ${Math.round(c.read_bytes / 1e6)} MB, and f64 multiply-adds as each CPU backend computes (${c.simd === 'relaxed' ? 'SIMD ones fused' : 'a multiply, then an add'}); the read and workers-simd are the CPU roof's ceilings`,
  ].filter(Boolean)
  return [
    {
      name: 'device',
      columns: ['quantity', 'value', 'unit'],
      rows,
      note: measured.length
        ? `${r.info.available ? 'The adapter, and what' : 'What'} was measured ${measured.join('; and ')} (GB/s = 10⁹ bytes/s).`
        : 'The adapter the GPU runtime chose and how it found it; nothing was measured (run with measure for the ceilings).',
    },
    { name: 'limits', columns: ['limit', 'value'], rows: Object.entries(r.info.limits), note: 'The adapter\'s WebGPU limits as it reports them: the most a kernel may request (bytes, counts or dimensions, by the limit\'s name).' },
    ...(r.info.host
      ? [
          {
            name: 'gpus',
            columns: ['bus', 'vendor', 'node', 'separate'],
            rows: r.info.host.gpus.map((g) => [g.bus, g.vendor, g.node ?? null, g.separate]),
            note: `Every GPU of the machine by its PCI address; separate: Paralab can give a process this GPU alone, by ${r.info.host.route}.`,
          },
        ]
      : []),
  ]
}

function deviceCharts(r: DeviceResult): NamedChart[] {
  const data = deviceRoofline(r)
  return data ? [{ name: 'roofline', spec: { kind: 'roofline', data } }] : []
}

/** The CPU's measurements: timing key, what one timed batch did (bytes or FLOP), unit and rate. */
function cpuMeasured(c: CpuBenchResult): [string, string, number][] {
  return [
    ['cpu read bandwidth', 'GB/s', c.read_bandwidth_GB_per_s],
    ['cpu fma serial', 'GFLOP/s', c.serial_GFLOP_per_s],
    ['cpu fma simd', 'GFLOP/s', c.simd_GFLOP_per_s],
    ['cpu fma workers', 'GFLOP/s', c.workers_GFLOP_per_s],
    ['cpu fma workers-simd', 'GFLOP/s', c.workers_simd_GFLOP_per_s],
  ]
}

/** Each measurement for Compare: its work the bytes moved or FLOPs done, its check the rate reached. */
function deviceCompared(envelope: ResultEnvelope<DeviceResult>): ComparableRun[] {
  const { bench: b, cpu: c } = envelope.results
  const gpu: [string, number, string, number][] = b
    ? [
        ['upload', b.transfer_bytes, 'GB/s', b.upload_GB_per_s],
        ['read bandwidth', b.read_bytes, 'GB/s', b.read_bandwidth_GB_per_s],
        ['readback', b.transfer_bytes, 'GB/s', b.readback_GB_per_s],
        ['fma f32', b.fma_flops, 'GFLOP/s', b.fma_f32_GFLOP_per_s],
      ]
    : []
  const runs = (backend: string, measured: [string, number, string, number][]): ComparableRun[] =>
    measured.flatMap(([name, count, rateUnit, rate]) => {
      const timing = envelope.timings[name]
      if (!timing) return []
      const work = { count, unit: rateUnit === 'GB/s' ? 'byte' : 'FLOP' }
      return [{ input: '', backend, variant: name, timing, work, checks: [{ name: rateUnit, value: checkValue(rate, 4) }] }]
    })
  // A CPU batch's work is what its median time at its rate covered.
  const cpu = c ? cpuMeasured(c).map(([name, unit, rate]): [string, number, string, number] => [name, (envelope.timings[name]?.median ?? 0) * rate * 1e6, unit, rate]) : []
  return [...runs('gpu', gpu), ...runs('cpu', cpu)]
}

export const deviceWorkload = defineWorkload<DeviceResult>()({
  id: 'device',
  title: 'Device',
  summary: "The WebGPU adapter Paralab uses, its features and limits; --measure adds the GPU's and the CPU's bandwidth and FMA ceilings.",
  params: {
    measure: {
      type: 'boolean',
      label: 'Measure',
      default: false,
      help: "also measure the GPU's read bandwidth, f32 FMA throughput, upload and readback, and the CPU's read bandwidth and f64 FMA throughput per CPU backend (the CPU alone without a GPU)",
    },
    readMb: {
      type: 'int',
      label: 'Read size',
      unit: 'MB',
      min: 1,
      max: 16384,
      optional: true,
      help: 'megabytes (10^6 bytes) read by the bandwidth kernel (default: 256 on hardware, 16 on a software adapter)',
    },
    repeat: {
      type: 'int',
      label: 'Repeat',
      min: 1,
      max: 1000,
      optional: true,
      help: "timed repetitions per measurement; the median is reported (default 10 as in bench stats; the GPU's 3 on a software adapter)",
    },
  },
  phases: [
    { id: 'cpu read bandwidth', summary: 'every worker thread reading its slice of a buffer beyond the last-level cache' },
    { id: 'cpu fma serial', summary: 'f64 multiply-adds, scalar, one thread' },
    { id: 'cpu fma simd', summary: 'f64 multiply-adds, WebAssembly SIMD, one thread' },
    { id: 'cpu fma workers', summary: 'f64 multiply-adds, scalar, every thread' },
    { id: 'cpu fma workers-simd', summary: 'f64 multiply-adds, WebAssembly SIMD, every thread' },
    { id: 'upload', summary: 'host → GPU copies' },
    { id: 'read bandwidth', summary: 'a kernel reading a large buffer' },
    { id: 'readback', summary: 'GPU → host copies' },
    { id: 'fma f32', summary: 'a compute-bound FMA kernel' },
  ],
  backends: [
    { id: 'gpu', summary: 'the WebGPU adapter in use' },
    { id: 'cpu', summary: 'the CPU as the CPU backends use it: one thread or a worker pool, scalar or SIMD' },
  ],
  example: { summary: 'The adapter in use, measured with small buffers.', files: [], params: { measure: true, readMb: 16, repeat: 3 } },
  tables: deviceTables,
  charts: deviceCharts,
  compared: deviceCompared,
})

export type DeviceParams = ParamValues<typeof deviceWorkload.params>
