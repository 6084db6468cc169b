// A run's backends as points on a roofline, each for the roof of the hardware it ran on: the GPU's
// kernels where the workload's charts place them (measured per kernel), else the gpu backend's whole
// run; every CPU backend's whole run. A whole run's point is derived from what its definition tells
// Compare: its median time and its cost (FLOPs and compulsory bytes, comparable.ts's RunCost), so
// intensity = FLOP / byte and performance = FLOP / time.
import type { RooflineKernel } from '../charts/spec'
import type { ResultEnvelope } from './envelope'
import { isWorkloadId, workload } from './index'

export interface BackendPoints {
  /** Under the GPU's roof: on the adapter the envelope names. */
  gpu: RooflineKernel[]
  /** Under the CPU's roof: on the host the envelope names. */
  cpu: RooflineKernel[]
  /** The GPU's points are its kernels as the workload's roofline chart places them, not derived from whole runs. */
  gpuKernels: boolean
}

const fileName = (path: string) => path.split(/[\\/]/).pop() || path

/** The points of `envelope`'s timed runs, named after its workload ("correlation simd", "stats gpu on a.csv"). */
export function backendPoints(envelope: ResultEnvelope): BackendPoints {
  const none: BackendPoints = { gpu: [], cpu: [], gpuKernels: false }
  if (!isWorkloadId(envelope.workload)) return none
  const def = workload(envelope.workload)
  const runs = def.compared(envelope as never)
  const inputs = new Set(runs.map((r) => r.input)).size
  const derived = runs.flatMap((r) => {
    const ms = r.timing.median
    if (!r.cost || !(ms > 0) || !(r.cost.flop > 0) || !(r.cost.bytes > 0)) return []
    const name = [envelope.workload, r.backend, r.variant, inputs > 1 && r.input ? `on ${fileName(r.input)}` : ''].filter(Boolean).join(' ')
    return [{ gpu: r.backend === 'gpu', point: { name, intensity: r.cost.flop / r.cost.bytes, performance: r.cost.flop / ms / 1e6 } }]
  })
  const kernels = def
    .charts(envelope.results as never, envelope as never)
    .flatMap((c) => (c.spec.kind === 'roofline' ? (c.spec.data.kernels ?? []) : []))
    .map((k) => ({ ...k, name: `${envelope.workload} ${k.name}` }))
  return {
    gpu: kernels.length ? kernels : derived.filter((d) => d.gpu).map((d) => d.point),
    cpu: derived.filter((d) => !d.gpu).map((d) => d.point),
    gpuKernels: kernels.length > 0,
  }
}
