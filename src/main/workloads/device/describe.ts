// How the device workload reads on a terminal.
import { adapterName, type CpuBenchResult, type DeviceBenchResult, type DeviceInfo, type HostGpus } from '../../../shared/device'

/** Every GPU of the machine: its PCI address, vendor, device node and whether Paralab can give a process it alone. */
export function describeHostGpus(host: HostGpus): string {
  if (!host.listed) return `GPUs of this machine: not listed (${host.route})\n`
  const lines = [`GPUs of this machine: ${host.gpus.length}`]
  for (const g of host.gpus) lines.push(`  ${g.bus}  ${g.vendor.padEnd(7)} ${(g.node ?? '-').padEnd(13)} ${g.separate ? 'opened separately' : 'not separately'}`)
  lines.push(`separately by: ${host.route}`)
  return lines.join('\n') + '\n'
}

export function describeDevice(info: DeviceInfo): string {
  const host = info.host ? describeHostGpus(info.host) : ''
  if (!info.available) return `GPU backend unavailable: ${info.reason}\nCPU backends keep working.\n${host}`
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
  return lines.join('\n') + '\n' + host
}

export function describeBench(r: DeviceBenchResult): string {
  return [
    `adapter            ${adapterName(r.adapter)}${r.adapter.isSoftware ? ' (software adapter)' : ''}`,
    `read bandwidth     ${r.read_bandwidth_GB_per_s.toFixed(1)} GB/s  (${(r.read_bytes / 1e6).toFixed(0)} MB)`,
    `f32 FMA            ${r.fma_f32_GFLOP_per_s.toFixed(1)} GFLOP/s`,
    `upload             ${r.upload_GB_per_s.toFixed(2)} GB/s`,
    `readback           ${r.readback_GB_per_s.toFixed(2)} GB/s  (${(r.transfer_bytes / 1e6).toFixed(0)} MB)`,
    `timing             ${r.timing}, median of ${r.repeats}`,
  ].join('\n') + '\n'
}

export function describeCpuBench(r: CpuBenchResult): string {
  const llc = r.last_level_cache_bytes ? `, last-level caches ${(r.last_level_cache_bytes / 2 ** 20).toFixed(0)} MiB` : ''
  const rows: [string, string][] = [
    ['cpu', `${r.cpu}, ${r.threads} threads`],
    ['read bandwidth', `${r.read_bandwidth_GB_per_s.toFixed(1)} GB/s  (${(r.read_bytes / 1e6).toFixed(0)} MB, every thread${llc})`],
    ['f64 FMA serial', `${r.serial_GFLOP_per_s.toFixed(2)} GFLOP/s  (one thread, scalar)`],
    ['f64 FMA simd', `${r.simd_GFLOP_per_s.toFixed(2)} GFLOP/s  (one thread, WebAssembly SIMD${r.simd === 'relaxed' ? ', fused' : ''})`],
    ['f64 FMA workers', `${r.workers_GFLOP_per_s.toFixed(2)} GFLOP/s  (every thread, scalar)`],
    ['f64 FMA workers-simd', `${r.workers_simd_GFLOP_per_s.toFixed(2)} GFLOP/s  (every thread, SIMD: the CPU's roof)`],
    ['timing', `${r.timing}, median of ${r.repeats}`],
  ]
  return rows.map(([k, v]) => `${k.padEnd(22)} ${v}`).join('\n') + '\n'
}
