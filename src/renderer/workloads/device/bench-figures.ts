// What the Device view shows of a measurement: each figure with its unit, the GPU's and the CPU's,
// and the roofline's note on where its points come from.
import type { CpuBenchResult, DeviceBenchResult } from '../../../shared/device'
import type { RunPoints } from './run-points'

export interface Figure {
  label: string
  value: number
  unit: string
  testid: string
}

export function gpuFigures(b: DeviceBenchResult): Figure[] {
  return [
    { label: 'Read bandwidth', value: b.read_bandwidth_GB_per_s, unit: 'GB/s', testid: 'bench-read-bandwidth' },
    { label: 'f32 FMA', value: b.fma_f32_GFLOP_per_s, unit: 'GFLOP/s', testid: 'bench-fma' },
    { label: 'Upload', value: b.upload_GB_per_s, unit: 'GB/s', testid: 'bench-upload' },
    { label: 'Readback', value: b.readback_GB_per_s, unit: 'GB/s', testid: 'bench-readback' },
  ]
}

/** The CPU's read and each CPU backend's f64 multiply-adds: workers-simd is the CPU's roof. */
export function cpuFigures(c: CpuBenchResult): Figure[] {
  return [
    { label: 'Read bandwidth', value: c.read_bandwidth_GB_per_s, unit: 'GB/s', testid: 'cpu-read-bandwidth' },
    { label: 'f64 FMA serial', value: c.serial_GFLOP_per_s, unit: 'GFLOP/s', testid: 'cpu-fma-serial' },
    { label: 'f64 FMA simd', value: c.simd_GFLOP_per_s, unit: 'GFLOP/s', testid: 'cpu-fma-simd' },
    { label: 'f64 FMA workers', value: c.workers_GFLOP_per_s, unit: 'GFLOP/s', testid: 'cpu-fma-workers' },
    { label: 'f64 FMA workers-simd', value: c.workers_simd_GFLOP_per_s, unit: 'GFLOP/s', testid: 'cpu-fma-workers-simd' },
  ]
}

/** The chart's line under its title: which run the points are of, and how a whole run's point is derived. */
export function pointsNote(p: RunPoints | null): string | undefined {
  if (!p) return undefined
  const derived = p.cpu.length || (p.gpu.length && !p.gpuKernels)
  return [
    `Points: the ${p.run.workload} run of ${new Date(p.run.createdAt).toLocaleString()}`,
    p.gpuKernels ? 'GPU kernels as the run measured them' : '',
    derived ? "whole runs at the workload's counted FLOPs (inputs read, outputs written once) over their median time" : '',
  ]
    .filter(Boolean)
    .join('; ')
}
