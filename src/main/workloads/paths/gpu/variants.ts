// The study's GPU optimization steps as kernels: which shader and constants each variant compiles,
// the dispatches of each step (a k, or a round of three phases) and how many steps go in one submit.
import { ApiError } from '../../../../shared/errors'
import type { GpuVariant } from '../../../../shared/workloads/paths/types'
import type { Binding, Dispatch, Gpu, Kernel } from '../../../gpu/runtime'

/** The matrix side on the GPU: padded to whole 64-blocks (padding vertices are isolated). */
export const GPU_ALIGN = 64
/** Invocations per workgroup at most: WebGPU's default limit, which SwiftShader also has. */
const MAX_INVOCATIONS = 256

export interface VariantPlan {
  /** Steps of the run: one per k (per-k variants) or per round (blocked). */
  steps: number
  /** Steps per submit: cancellation and progress come between submits. */
  stepsPerSubmit: number
  /** The dispatches of one step, given the bind group maker for its parameters slot. */
  dispatches(step: number, bindings: (k: Kernel) => Binding[]): Dispatch[]
  /** Modelled bytes the kernels move to and from global memory over the whole run. */
  bytes: number
}

interface Shape {
  perK: boolean
  /** per-k: neighbouring invocations on neighbouring columns; cells per invocation. */
  coalesced?: boolean
  cells?: number
  branchless?: boolean
  tiled?: boolean
}

const SHAPES: Record<GpuVariant, Shape> = {
  baseline: { perK: true, coalesced: false, cells: 1 },
  coalesced: { perK: true, coalesced: true, cells: 1 },
  unrolled: { perK: true, coalesced: true, cells: 4 },
  shared: { perK: false },
  min: { perK: false, branchless: true },
  b64: { perK: false, branchless: true },
  tuned: { perK: false, branchless: true, tiled: true },
}

/** Per-k variants run this many k per submit; blocked ones one round, the tuned one 16. */
const K_PER_SUBMIT = 64
const TUNED_ROUNDS_PER_SUBMIT = 16

/** Workgroup memory of the blocked kernels: two B × B int32 tiles. */
export function workgroupBytes(B: number): number {
  return 2 * B * B * 4
}

/** Threads in a block's column: the workgroup is B × TY, at most 256 invocations. */
function rowsOfThreads(B: number): number {
  return Math.max(1, Math.min(B, MAX_INVOCATIONS / B))
}

/** Why the device cannot run this variant at this B, or null. */
export function unsupported(gpu: Gpu, variant: GpuVariant, B: number | undefined): string | null {
  if (SHAPES[variant].perK) return null
  const need = workgroupBytes(B!)
  const have = gpu.limits.maxComputeWorkgroupStorageSize
  if (need > have) return `${variant} at B = ${B} needs ${need / 1024} KiB of workgroup memory; the device allows ${have / 1024} KiB`
  return null
}

/** `bandRows`: rows per binding when the matrix is split (undefined: one binding, the kernels' default). */
export async function planVariant(gpu: Gpu, variant: GpuVariant, B: number | undefined, V: number, N: number, paths: boolean, bandRows?: number): Promise<VariantPlan> {
  const shape = SHAPES[variant]
  const PATHS = paths ? 1 : 0
  const banded: Record<string, number> = bandRows === undefined ? {} : { BAND_ROWS: bandRows }
  const words = paths ? 2 : 1
  if (shape.perK) {
    const cells = shape.cells!
    const kernel = await gpu.kernel('paths/per_k', { constants: { PATHS, COALESCED: shape.coalesced ? 1 : 0, CELLS: cells, ...banded } })
    const groups = N / 16
    const grid: [number, number] = shape.coalesced ? [N / (16 * cells), groups] : [groups, N / (16 * cells)]
    return {
      steps: V,
      stepsPerSubmit: K_PER_SUBMIT,
      dispatches: (_, bind) => [kernel.dispatch(kernel.bind(bind(kernel)), grid)],
      // Each k reads and writes every cell (row k and column k stay in cache).
      bytes: V * N * N * 8 * words,
    }
  }
  if (B === undefined || N % B !== 0) throw new ApiError('internal', `paths: ${variant} needs a blocking factor dividing ${N}, got ${B}`)
  const TY = rowsOfThreads(B)
  const constants = { PATHS, B, TY, BB: B * B, BRANCHLESS: shape.branchless ? 1 : 0, ...banded }
  const [phase1, phase2, phase3] = await Promise.all(
    ['phase1', 'phase2', shape.tiled ? 'phase3_tiled' : 'phase3'].map((entryPoint) => gpu.kernel('paths/blocked', { entryPoint, constants })),
  )
  if (shape.tiled && B !== 64) throw new ApiError('internal', `paths: the tuned kernel has 64-blocks, got B = ${B}`)
  const R = N / B
  const rounds = Math.ceil(V / B)
  return {
    steps: rounds,
    stepsPerSubmit: shape.tiled ? TUNED_ROUNDS_PER_SUBMIT : 1,
    dispatches: (_, bind) => [
      phase1.dispatch(phase1.bind(bind(phase1)), 1),
      phase2.dispatch(phase2.bind(bind(phase2)), [R, 2]),
      phase3.dispatch(phase3.bind(bind(phase3)), [R, R]),
    ],
    // Per round every block reads two tiles and reads and writes itself.
    bytes: rounds * R * R * B * B * 4 * 4 * words,
  }
}
