// Tile shapes of the tuned variant's phase 3 (shaders/paths/minplus.wgsl): its override constants,
// named as `b<rows>[x<cols>]-t<rows>x<cols>-k<values of k>` (the workgroup's tile, an invocation's
// share of it, the values of k staged at a time), checked against the adapter's limits; the
// default, and the shapes `bench paths --shapes all` times.
import { ApiError } from '../../../../shared/errors'
import type { Gpu } from '../../../gpu/runtime'

export interface TunedShape {
  /** Rows and columns of a workgroup's tile. */
  rows: number
  cols: number
  /** Rows and columns per invocation. */
  tm: number
  tn: number
  /** Values of k staged in workgroup memory at a time. */
  kc: number
}

/**
 * An example shape, for messages. `tuned` runs the min-plus phase 3 only for a shape asked for
 * (`bench paths --shapes`): on an H100 every swept shape was slower than blocked.wgsl's 4 × 4 tiled
 * phase 3 (V = 5000: 150–163 ms against 93 ms, docs/benchmarks.md), so that one stays the default.
 */
export const EXAMPLE_SHAPE = 'b128-t8x8-k32'

/**
 * Shapes `--shapes all` times. Each fits WebGPU's 256 invocations and SwiftShader's 32 KiB of
 * workgroup memory, so that the tests run every one of them.
 */
export const TUNED_SWEEP_SHAPES = [
  'b64-t4x4-k64',
  'b64-t8x4-k64',
  'b64-t8x8-k64',
  'b128x64-t8x4-k32',
  'b128x64-t8x8-k32',
  'b64x128-t4x8-k32',
  'b128-t8x8-k16',
  'b128-t8x8-k32',
] as const

/** Columns of a round's pivot block: the kernel stages k in divisions of it. */
const ROUND_K = 64
/** Sums the kernel holds per invocation: 16 vec4. */
const MAX_CELLS = 64

const NAME = /^b(\d+)(?:x(\d+))?-t(\d+)x(\d+)-k(\d+)$/

export function parseTunedShape(name: string): TunedShape {
  const m = NAME.exec(name.trim())
  if (!m) throw new ApiError('invalid-argument', `tuned shape "${name}" is not of the form b<rows>[x<cols>]-t<rows>x<cols>-k<k>, e.g. ${EXAMPLE_SHAPE}`)
  const rows = Number(m[1])
  const shape = { rows, cols: m[2] === undefined ? rows : Number(m[2]), tm: Number(m[3]), tn: Number(m[4]), kc: Number(m[5]) }
  const why = shapeError(shape)
  if (why) throw new ApiError('invalid-argument', `tuned shape ${name}: ${why}`)
  return shape
}

export function tunedShapeName(s: TunedShape): string {
  return `b${s.rows}${s.cols === s.rows ? '' : `x${s.cols}`}-t${s.tm}x${s.tn}-k${s.kc}`
}

/** Invocations per workgroup: [along columns, along rows]. */
export function shapeThreads(s: TunedShape): [x: number, y: number] {
  return [s.cols / s.tn, s.rows / s.tm]
}

/** Workgroup memory: kc values of k for the tile's rows (A) and columns (B). */
export function shapeWorkgroupBytes(s: TunedShape): number {
  return s.kc * (s.rows + s.cols) * 4
}

/** Why a shape cannot be compiled whatever the adapter, or null. */
function shapeError(s: TunedShape): string | null {
  if (![4, 8].includes(s.tm) || ![4, 8].includes(s.tn)) return 'rows and columns per invocation must be 4 or 8 (vec4 reads)'
  if (s.tm * s.tn > MAX_CELLS) return `at most ${MAX_CELLS} cells per invocation`
  // A's staging gives 8 neighbouring invocations 8 groups of 4 rows.
  if (![32, 64, 128, 256].includes(s.rows) || ![32, 64, 128, 256].includes(s.cols)) return 'tile sides must be 32, 64, 128 or 256'
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
  return { TX: x, TY: y, TM: s.tm, TN: s.tn, KC: s.kc }
}
