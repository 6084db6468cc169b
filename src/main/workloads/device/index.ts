// The device workload's engine: the adapter in use and, when asked, the GPU's and the CPU's measured ceilings.
import { deviceWorkload } from '../../../shared/workloads/device'
import type { WorkloadEngine } from '../../engine'
import { describeBench, describeCpuBench, describeDevice } from './describe'
import { benchReadCommand } from './read-sweep'

export const deviceEngine: WorkloadEngine<'device'> = {
  definition: deviceWorkload,
  lane: 'gpu',
  run: async (params, ctx) => (await import('./run-device')).runDeviceJob(params, ctx),
  cli: {
    describe: (r) => describeDevice(r.info) + (r.bench ? '\n' + describeBench(r.bench) : '') + (r.cpu ? '\n' + describeCpuBench(r.cpu) : ''),
    presets: [
      {
        name: 'bench device',
        summary: 'Measure the GPU (memory read bandwidth, f32 FMA throughput, upload and readback bandwidth) and the CPU (memory read bandwidth, f64 FMA throughput of each CPU backend).',
        params: { measure: true },
      },
    ],
    commands: [benchReadCommand],
  },
}
