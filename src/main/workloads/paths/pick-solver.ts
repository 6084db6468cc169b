// The solver of each planned run: CPU backends on a thread of their own, GPU variants here, and a
// process a part on several GPUs.
import type { Gpu } from '../../gpu/runtime'
import { gpuBandsSolver } from './gpu/bands-solver'
import { processParts } from './gpu/part-links'
import { cpuThreadSolver } from './cpu-thread'
import { gpuSolver } from './gpu/gpu-solver'
import type { RunSpec } from './plan'
import type { Solver } from './solver-contract'

export async function createSolver(spec: RunSpec, gpu: () => Promise<Gpu>): Promise<Solver> {
  const { backend } = spec
  if (backend === 'gpu' && (spec.gpus ?? 1) > 1) return gpuBandsSolver(spec.gpus!, processParts, spec.shape === undefined ? {} : { shape: spec.shape })
  if (backend === 'gpu') return gpuSolver(await gpu(), spec.variant!, spec.block, spec.shape === undefined ? {} : { shape: spec.shape })
  return cpuThreadSolver({ ...spec, backend })
}
