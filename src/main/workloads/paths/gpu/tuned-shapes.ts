// Tile shapes of the tuned variant's phase 3 (shaders/paths/minplus.wgsl): its override constants,
// named as `b<rows>[x<cols>]-k<values of k>` (the workgroup's tile, whose invocations own 4 × 4 cells
// each, and the values of k staged at a time), checked against the adapter's limits; the default,
// and the shapes `bench paths --shapes all` times.
import { ApiError } from '../../../../shared/errors'
import type { Gpu } from '../../../gpu/runtime'

export interface TunedShape {
  /** Rows and columns of a workgroup's tile. */
  rows: number
  cols: number
  /** Values of k staged in workgroup memory at a time. */
  kc: number
}

/**
 * The shape `tuned` runs without successors unless another is asked for: the fastest on an H100
 * (phase 3 at ~10 T relax/s, docs/benchmarks/history.md), and within WebGPU's default limits.
 */
export const DEFAULT_TUNED_SHAPE = 'b64-k16'

/**
 * Shapes `--shapes all` times: all but the tiles of 32 × 32 staging 4 values of k at a time. Each
 * fits WebGPU's 256 invocations and SwiftShader's 32 KiB of workgroup memory, so that the tests run
 * every one of them. (Tiles of 128 rows or columns, 512 and 1024 invocations with 4 × 4 cells each,
 * ran phase 3 slower on an H100: docs/benchmarks/history.md.)
 */
export const TUNED_SWEEP_SHAPES = ['b64-k8', 'b64-k16', 'b64-k32', 'b64-k64', 'b32x64-k16', 'b64x32-k16', 'b32-k16'] as const

/** Columns of a round's pivot block: the kernel stages k in divisions of it. */
const ROUND_K = 64
/** Rows and columns per invocation. */
const CELLS_SIDE = 4

const NAME = /^b(\d+)(?:x(\d+))?-k(\d+)$/

export function parseTunedShape(name: string): TunedShape {
  const m = NAME.exec(name.trim())
  if (!m) throw new ApiError('invalid-argument', `tuned shape "${name}" is not of the form b<rows>[x<cols>]-k<k>, e.g. ${DEFAULT_TUNED_SHAPE}`)
  const rows = Number(m[1])
  const shape = { rows, cols: m[2] === undefined ? rows : Number(m[2]), kc: Number(m[3]) }
  const why = shapeError(shape)
  if (why) throw new ApiError('invalid-argument', `tuned shape ${name}: ${why}`)
  return shape
}

export function tunedShapeName(s: TunedShape): string {
  return `b${s.rows}${s.cols === s.rows ? '' : `x${s.cols}`}-k${s.kc}`
}

/** Invocations per workgroup: [along columns, along rows]. */
export function shapeThreads(s: TunedShape): [x: number, y: number] {
  return [s.cols / CELLS_SIDE, s.rows / CELLS_SIDE]
}

/** Workgroup memory: kc values of k for the tile's rows (A) and columns (B). */
export function shapeWorkgroupBytes(s: TunedShape): number {
  return s.kc * (s.rows + s.cols) * 4
}

/** Why a shape cannot be compiled whatever the adapter, or null. */
function shapeError(s: TunedShape): string | null {
  // A tile lies in one 64-block of a round; A's staging gives 8 neighbouring invocations 8 groups of 4 rows.
  if (![32, 64].includes(s.rows) || ![32, 64].includes(s.cols)) return 'tile sides must be 32 or 64'
  if (s.kc < 4 || s.kc % 4 !== 0 || ROUND_K % s.kc !== 0) return `values of k per stage must be a multiple of 4 dividing ${ROUND_K}`
  return null
}

/** Why the adapter cannot run a shape (workgroup size or memory), or null. */
export function shapeUnavailable(gpu: Gpu, s: TunedShape): string | null {
  const [x, y] = shapeThreads(s)
  const l = gpu.limits
  if (x * y > l.maxComputeInvocationsPerWorkgroup || x > l.maxComputeWorkgroupSizeX || y > l.maxComputeWorkgroupSizeY)
    return `${tunedShapeName(s)} has ${x} × ${y} invocations, beyond this adapter's workgroups (${l.maxComputeInvocationsPerWorkgroup} invocations, ${l.maxComputeWorkgroupSizeX} × ${l.maxComputeWorkgroupSizeY})`
  const bytes = shapeWorkgroupBytes(s)
  if (bytes > l.maxComputeWorkgroupStorageSize) return `${tunedShapeName(s)} needs ${bytes / 1024} KiB of workgroup memory; the device allows ${l.maxComputeWorkgroupStorageSize / 1024} KiB`
  return null
}

/** The kernel's override constants for a shape. */
export function shapeConstants(s: TunedShape): Record<string, number> {
  const [x, y] = shapeThreads(s)
  return { TX: x, TY: y, KC: s.kc }
}
