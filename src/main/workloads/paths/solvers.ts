// The solver of each planned run.
import type { Gpu } from '../../gpu/runtime'
import { blockedSolver } from './blocked'
import { gpuSolver } from './gpu/gpu-solver'
import type { RunSpec } from './plan'
import { serialSolver } from './serial'
import type { Solver } from './solver'

export async function createSolver(spec: RunSpec, gpu: () => Promise<Gpu>): Promise<Solver> {
  switch (spec.backend) {
    case 'serial':
      return serialSolver
    case 'gpu':
      return gpuSolver(await gpu(), spec.variant!, spec.block, spec.shape === undefined ? {} : { shape: spec.shape })
    default:
      return blockedSolver(spec.backend, spec.block!)
  }
}
