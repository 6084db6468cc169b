import { adapterName, type DeviceBenchResult, type DeviceInfo } from '../../../shared/device'
import { gpuInfo } from '../../gpu/runtime'
import { intOption, writeJson, type Command } from '../../cli/command'
import { runJob } from '../../cli/run-job'

export const deviceCommand: Command = {
  name: 'device',
  summary: 'Show the WebGPU adapter Paralab uses, with its features and limits.',
  usage: 'paralab device [--json]',
  help: '  --json      print one JSON object on stdout',
  options: { json: { type: 'boolean' } },
  async run(values) {
    const info = await gpuInfo()
    if (values.json) writeJson(info)
    else process.stdout.write(describeDevice(info))
    return 0
  },
}

export const benchDeviceCommand: Command = {
  name: 'bench device',
  summary: 'Measure the GPU: memory read bandwidth, f32 FMA throughput, upload and readback bandwidth.',
  usage: 'paralab bench device [--json] [--read-mb N] [--repeats R]',
  help: [
    '  --json        print one JSON object on stdout (figures carry their unit in the key)',
    '  --read-mb N   megabytes read by the bandwidth kernel (default: 256 MiB on hardware, 16 MiB on a software adapter)',
    '  --repeats R   timed repetitions per measurement; the median is reported (default 5)',
  ].join('\n'),
  options: { json: { type: 'boolean' }, 'read-mb': { type: 'string' }, repeats: { type: 'string' } },
  async run(values) {
    const readMb = intOption(values['read-mb'], 'read-mb', 1, 16384)
    const repeats = intOption(values.repeats, 'repeats', 1, 100)
    const result = await runJob('bench-device', { readBytes: readMb && readMb * 1e6, repeats })
    if (values.json) writeJson(result)
    else process.stdout.write(describeBench(result))
    return 0
  },
}

function describeDevice(info: DeviceInfo): string {
  if (!info.available) return `GPU backend unavailable: ${info.reason}\nCPU backends keep working.\n`
  const a = info.adapter!
  const lines = [
    `adapter       ${adapterName(a)}${a.isSoftware ? '  (software adapter)' : ''}`,
    `description   ${a.description}`,
    `vendor        ${a.vendor}`,
    `architecture  ${a.architecture}`,
    `device        ${a.device}`,
    `found by      ${a.source}`,
    `features      ${info.features.join(', ')}`,
    'limits',
    ...Object.entries(info.limits).map(([k, v]) => `  ${k.padEnd(42)} ${v}`),
  ]
  return lines.join('\n') + '\n'
}

function describeBench(r: DeviceBenchResult): string {
  return [
    `adapter            ${adapterName(r.adapter)}${r.adapter.isSoftware ? ' (software adapter)' : ''}`,
    `read bandwidth     ${r.read_bandwidth_GB_per_s.toFixed(1)} GB/s  (${(r.read_bytes / 1e6).toFixed(0)} MB)`,
    `f32 FMA            ${r.fma_f32_GFLOP_per_s.toFixed(1)} GFLOP/s`,
    `upload             ${r.upload_GB_per_s.toFixed(2)} GB/s`,
    `readback           ${r.readback_GB_per_s.toFixed(2)} GB/s  (${(r.transfer_bytes / 1e6).toFixed(0)} MB)`,
    `timing             ${r.timing}, median of ${r.repeats}`,
  ].join('\n') + '\n'
}
