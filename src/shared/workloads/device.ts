// Device: the WebGPU adapter Paralab uses, its features and limits, and (when measured) the
// ceilings every GPU timing is compared with: read bandwidth, f32 FMA throughput, transfers.
import { rooflineFromBench } from '../charts/roofline'
import { adapterName, type DeviceBenchResult, type DeviceInfo } from '../device'
import { checkValue, type ComparableRun } from './comparable'
import { defineWorkload, type NamedChart, type ResultTable } from './definition'
import type { ResultEnvelope } from './envelope'
import type { ParamValues } from './schema'

export interface DeviceResult {
  info: DeviceInfo
  /** Present when the job measured the device. */
  bench?: DeviceBenchResult
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
  return [
    {
      name: 'device',
      columns: ['quantity', 'value', 'unit'],
      rows,
      note: b
        ? `The adapter, and what was measured on it (median of ${b.repeats} runs, ${b.timing}): read bandwidth and f32 FMA throughput are the roofline's ceilings (GB/s = 10⁹ bytes/s); upload and readback are host↔device copies.`
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
  return r.bench ? [{ name: 'roofline', spec: { kind: 'roofline', data: rooflineFromBench(r.bench) } }] : []
}

/** Each measurement for Compare: its work the bytes moved or FLOPs done, its check the rate reached. */
function deviceCompared(envelope: ResultEnvelope<DeviceResult>): ComparableRun[] {
  const b = envelope.results.bench
  if (!b) return []
  const measured: [string, number, string, number][] = [
    ['upload', b.transfer_bytes, 'GB/s', b.upload_GB_per_s],
    ['read bandwidth', b.read_bytes, 'GB/s', b.read_bandwidth_GB_per_s],
    ['readback', b.transfer_bytes, 'GB/s', b.readback_GB_per_s],
    ['fma f32', b.fma_flops, 'GFLOP/s', b.fma_f32_GFLOP_per_s],
  ]
  return measured.flatMap(([name, count, rateUnit, rate]) => {
    const timing = envelope.timings[name]
    if (!timing) return []
    const work = { count, unit: rateUnit === 'GB/s' ? 'byte' : 'FLOP' }
    return [{ input: '', backend: 'gpu', variant: name, timing, work, checks: [{ name: rateUnit, value: checkValue(rate, 4) }] }]
  })
}

export const deviceWorkload = defineWorkload<DeviceResult>()({
  id: 'device',
  title: 'Device',
  summary: 'The WebGPU adapter Paralab uses, its features and limits; --measure adds bandwidth and FMA ceilings.',
  params: {
    measure: { type: 'boolean', label: 'Measure', default: false, help: 'also measure read bandwidth, f32 FMA throughput, upload and readback' },
    readMb: {
      type: 'int',
      label: 'Read size',
      unit: 'MB',
      min: 1,
      max: 16384,
      optional: true,
      help: 'megabytes (10^6 bytes) read by the bandwidth kernel (default: 256 on hardware, 16 on a software adapter)',
    },
    repeat: { type: 'int', label: 'Repeat', min: 1, max: 1000, optional: true, help: 'timed repetitions per measurement; the median is reported (default 10 as in bench stats, 3 on a software adapter)' },
  },
  phases: [
    { id: 'upload', summary: 'host → GPU copies' },
    { id: 'read bandwidth', summary: 'a kernel reading a large buffer' },
    { id: 'readback', summary: 'GPU → host copies' },
    { id: 'fma f32', summary: 'a compute-bound FMA kernel' },
  ],
  backends: [{ id: 'gpu', summary: 'the WebGPU adapter in use' }],
  example: { summary: 'The adapter in use, measured with small buffers.', files: [], params: { measure: true, readMb: 16, repeat: 3 } },
  tables: deviceTables,
  charts: deviceCharts,
  compared: deviceCompared,
})

export type DeviceParams = ParamValues<typeof deviceWorkload.params>
