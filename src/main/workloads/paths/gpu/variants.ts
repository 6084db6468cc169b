// The study's GPU optimization steps as kernels: which shader and constants each variant compiles,
// the dispatches of each step (a k, or a round of three phases) and how many steps go in one submit.
// `tuned` runs phase 1 with as many invocations as the device allows; without successors phase 2 as
// one product with the closed pivot (phase2_closed) and phase 3 as a register-blocked min-plus
// product (minplus.wgsl) of its tile shape; with successors the stepwise phase 2 and blocked.wgsl's
// 4 × 4 tiled phase 3.
import { ApiError } from '../../../../shared/errors'
import type { GpuVariant } from '../../../../shared/workloads/paths/types'
import type { Binding, Dispatch, Gpu, Kernel } from '../../../gpu/runtime'
import { type TunedShape, shapeConstants, shapeUnavailable } from './tuned-shapes'

/** The matrix side on the GPU: padded to whole 64-blocks (padding vertices are isolated). */
export const GPU_ALIGN = 64
/** Invocations per workgroup at most: WebGPU's default limit, which SwiftShader also has. */
const MAX_INVOCATIONS = 256

export interface VariantPlan {
  /** Steps of the run: one per k (per-k variants) or per round (blocked). */
  steps: number
  /** Steps per submit: cancellation and progress come between submits. 'timed': as many as take ~SUBMIT_MS, from the submits before. */
  stepsPerSubmit: number | 'timed'
  /** The dispatches of one step, given its bindings: distances 0–3, keys 4–7, its parameters slot 8. */
  dispatches(step: number, bindings: () => Binding[]): Dispatch[]
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

/** Side of the blocks of the tuned variant's rounds (phases 1 and 2 in workgroup memory). */
const TUNED_BLOCK = 64

/** Workgroup memory of the blocked kernels: two B × B int32 tiles. */
export function workgroupBytes(B: number): number {
  return 2 * B * B * 4
}

/** Threads in a block's column: the workgroup is B × TY, at most 256 invocations. */
function rowsOfThreads(B: number): number {
  return Math.max(1, Math.min(B, MAX_INVOCATIONS / B))
}

/** Why the device cannot run this variant at this B (and the tuned one at this shape), or null. */
export function unsupported(gpu: Gpu, variant: GpuVariant, B: number | undefined, shape?: TunedShape): string | null {
  if (SHAPES[variant].perK) return null
  const need = workgroupBytes(B!)
  const have = gpu.limits.maxComputeWorkgroupStorageSize
  if (need > have) return `${variant} at B = ${B} needs ${need / 1024} KiB of workgroup memory; the device allows ${have / 1024} KiB`
  return shape ? shapeUnavailable(gpu, shape) : null
}

/** Rows of band b when the N rows are split into bands of `bandRows` (the last one may be shorter). */
export function bandHeight(N: number, bandRows: number, b: number): number {
  return Math.min(N, (b + 1) * bandRows) - b * bandRows
}

/** The matrix side on the GPU: V padded to whole 64-blocks (padding vertices are isolated). */
export function paddedSide(V: number): number {
  return Math.ceil(V / GPU_ALIGN) * GPU_ALIGN
}

/**
 * `N`: the side from paddedSide; `bandRows`: rows per binding when the matrix is split (undefined:
 * one binding, the kernels' default); `tile`: the tile shape of the tuned variant's phase 3 without successors;
 * `real`: the matrix holds f32 distances as bits (real.ts), summed in f32 (params.wgsl's REAL).
 */
export async function planVariant(
  gpu: Gpu,
  variant: GpuVariant,
  B: number | undefined,
  V: number,
  N: number,
  paths: boolean,
  bandRows?: number,
  tile?: TunedShape,
  real = false,
): Promise<VariantPlan> {
  const shape = SHAPES[variant]
  const PATHS = paths ? 1 : 0
  // Constants every kernel takes: the bands' rows, and the arithmetic of real weights.
  const banded: Record<string, number> = { ...(bandRows !== undefined && { BAND_ROWS: bandRows }), ...(real && { REAL: 1 }) }
  const words = paths ? 2 : 1
  if (shape.perK) {
    const cells = shape.cells!
    const kernel = await gpu.kernel('paths/per_k', { constants: { PATHS, COALESCED: shape.coalesced ? 1 : 0, CELLS: cells, ...banded } })
    const groups = N / 16
    const grid: [number, number] = shape.coalesced ? [N / (16 * cells), groups] : [groups, N / (16 * cells)]
    return {
      steps: V,
      // As many k as take ~SUBMIT_MS: a fixed count would be 30 s a submit on a software adapter.
      stepsPerSubmit: 'timed',
      dispatches: (_, bind) => [kernel.dispatch(kernel.bind(bind()), grid)],
      // Each k reads and writes every cell (row k and column k stay in cache).
      bytes: V * N * N * 8 * words,
    }
  }
  if (B === undefined || N % B !== 0) throw new ApiError('internal', `paths: ${variant} needs a blocking factor dividing ${N}, got ${B}`)
  if (shape.tiled && B !== TUNED_BLOCK) throw new ApiError('internal', `paths: the tuned kernel has ${TUNED_BLOCK}-blocks, got B = ${B}`)
  const TY = rowsOfThreads(B)
  const constants = { PATHS, B, TY, BB: B * B, BRANCHLESS: shape.branchless ? 1 : 0, ...banded }
  // Without successors the tuned variant's phases 2 and 3 are min-plus products: phase 2 one with the
  // closed pivot (no step waits for another), phase 3 register-blocked in tiles of its shape.
  const minplus = shape.tiled && !paths
  if (minplus && !tile) throw new ApiError('internal', 'paths: the tuned variant without successors needs a tile shape')
  // Phase 1, one workgroup a round that waits on itself B times, takes as many invocations as the device allows (tuned).
  const phase1Constants = shape.tiled ? { ...constants, TY: Math.max(1, Math.min(B, Math.floor(gpu.limits.maxComputeInvocationsPerWorkgroup / B))) } : constants
  const [phase1, phase2, phase3Blocked] = await Promise.all([
    gpu.kernel('paths/blocked', { entryPoint: 'phase1', constants: phase1Constants }),
    gpu.kernel('paths/blocked', { entryPoint: minplus ? 'phase2_closed' : 'phase2', constants }),
    minplus ? undefined : gpu.kernel('paths/blocked', { entryPoint: shape.tiled ? 'phase3_tiled' : 'phase3', constants }),
  ])
  const R = N / B
  const rounds = Math.ceil(V / B)
  // phase2_closed and minplus.wgsl (no successors) bind the distances (0–3) and the parameters (8) only.
  const distancesOnly = (all: Binding[]) => ({ 0: all[0], 1: all[1], 2: all[2], 3: all[3], 8: all[8] })
  // minplus.wgsl: one dispatch per band of tiles, its pipeline chosen by that band and the pivot's.
  const bands = bandRows === undefined ? 1 : Math.ceil(N / bandRows)
  const bandOf = (row: number) => (bandRows === undefined ? 0 : Math.floor(row / bandRows))
  const rowsOfBand = (b: number) => (bandRows === undefined ? N : bandHeight(N, bandRows, b))
  const minplusKernels = minplus
    ? await Promise.all(
        Array.from({ length: bands * bands }, (_, i) =>
          gpu.kernel('paths/minplus', { constants: { ...shapeConstants(tile!), ...banded, TILE_BAND: Math.floor(i / bands), PIVOT_BAND: i % bands } }),
        ),
      )
    : []
  const phase3 = (round: number, all: Binding[]): Dispatch[] => {
    if (!minplus) return [phase3Blocked!.dispatch(phase3Blocked!.bind(all), [R, R])]
    const pivotBand = bandOf(round * B)
    return Array.from({ length: bands }, (_, t) => {
      const k = minplusKernels[t * bands + pivotBand]
      return k.dispatch(k.bind(distancesOnly(all)), [N / tile!.cols, rowsOfBand(t) / tile!.rows])
    })
  }
  // Per round every block reads itself and writes it back; phase 3 reads its A and B (a tile's for minplus).
  const tileBytes = minplus ? (N / tile!.rows) * (N / tile!.cols) * B * (tile!.rows + tile!.cols) * 4 : R * R * B * B * 4 * 2
  return {
    steps: rounds,
    // Few submits on a fast GPU (the tuned variant: all 79 rounds of V = 5000 in the second), and
    // still prompt progress and cancel on a slow one.
    stepsPerSubmit: 'timed',
    dispatches: (round, bind) => {
      const all = bind()
      return [phase1.dispatch(phase1.bind(all), 1), phase2.dispatch(phase2.bind(minplus ? distancesOnly(all) : all), [R, 2]), ...phase3(round, all)]
    },
    bytes: rounds * (N * N * 4 * 2 * words + tileBytes * words),
  }
}
