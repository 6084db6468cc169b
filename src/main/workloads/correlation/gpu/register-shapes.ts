// Tile shapes of the register-blocked cross-product kernel (shaders/correlation/cross_register.wgsl):
// its override constants, named as `b<block>-t<rows>x<cols>-k<samples>[-c<chunk>]`, checked against
// the adapter's limits, the default per precision, and the shapes `bench correlation --shapes` times.
import { ApiError } from '../../../../shared/errors'
import type { Precision } from '../../../../shared/workloads/correlation/types'
import type { Gpu } from '../../../gpu/runtime'

export interface RegisterShape {
  /** Outputs per side of a workgroup's square block. */
  block: number
  /** Rows (series i) of the block per invocation. */
  tm: number
  /** Columns (series j) of the block per invocation. */
  tn: number
  /** Samples per step staged in workgroup memory. */
  bk: number
  /** Samples summed in plain f32 before each compensated addition (the f64 mode only). */
  chunk: number
}

/**
 * The shape of the f64 mode (compensated) and of the f32 mode, from `bench correlation --shapes` on
 * an H100 (M = 16 384, N = 4096; docs/benchmarks/history.md): f64 b128-t8x4-k16-c128 33.0 ms for the
 * cross-products (b128-t8x4-k8-c64, the earlier default, 38.5 ms in the same run); f32 b128-t8x8-k8
 * 33.1–33.2 ms.
 */
export const DEFAULT_REGISTER_SHAPE: Record<Precision, string> = { f64: 'b128-t8x4-k16-c128', f32: 'b128-t8x8-k8' }

/** Shapes `--shapes all` times; in f32 mode those differing only in chunk are timed once. */
export const SWEEP_SHAPES = [
  'b128-t8x8-k8',
  'b128-t8x8-k16',
  'b128-t8x4-k8',
  'b128-t8x4-k16',
  'b128-t4x8-k8',
  'b128-t4x4-k8',
  'b64-t8x8-k8',
  'b64-t8x8-k16',
  'b64-t8x4-k16',
  'b64-t4x4-k16',
  'b128-t8x8-k8-c64',
  'b128-t8x4-k8-c64',
  'b128-t8x4-k8-c128',
  'b128-t8x4-k16-c64',
  'b128-t8x4-k16-c128',
  'b64-t4x4-k16-c64',
] as const

/** The largest block: band rows are padded to it, so that every shape tiles every band. */
export const MAX_BLOCK = 128
/** The largest step: samples are padded to it. */
export const MAX_BK = 32
/** Registers the kernel holds per invocation: 16 vec4 of sums, 4 vec4 of next-step loads per side. */
const MAX_SUM_VEC4 = 16
const MAX_LOADS = 4
const DEFAULT_CHUNK = 32

const NAME = /^b(\d+)-t(\d+)x(\d+)-k(\d+)(?:-c(\d+))?$/

export function parseRegisterShape(name: string): RegisterShape {
  const m = NAME.exec(name.trim())
  if (!m) throw new ApiError('invalid-argument', `register shape "${name}" is not of the form b<block>-t<rows>x<cols>-k<samples>[-c<chunk>], e.g. b128-t8x8-k8`)
  const [block, tm, tn, bk] = m.slice(1, 5).map(Number)
  const shape = { block, tm, tn, bk, chunk: m[5] === undefined ? Math.max(DEFAULT_CHUNK, bk) : Number(m[5]) }
  const why = shapeError(shape)
  if (why) throw new ApiError('invalid-argument', `register shape ${name}: ${why}`)
  return shape
}

export function shapeName(s: RegisterShape): string {
  return `b${s.block}-t${s.tm}x${s.tn}-k${s.bk}${s.chunk === Math.max(DEFAULT_CHUNK, s.bk) ? '' : `-c${s.chunk}`}`
}

/** Shapes tried in turn when the adapter cannot run the default (a smaller workgroup or memory). */
const FALLBACK_SHAPES = ['b128-t8x8-k8', 'b64-t4x4-k16', 'b64-t4x4-k8', 'b32-t4x4-k4']

/** The default shape of a precision, or the first fallback this adapter can run. */
export function defaultRegisterShape(gpu: Gpu, precision: Precision): RegisterShape {
  const names = [DEFAULT_REGISTER_SHAPE[precision], ...FALLBACK_SHAPES]
  const shapes = names.map(parseRegisterShape)
  const usable = shapes.find((s) => shapeUnavailable(gpu, s) === null)
  if (!usable) throw new ApiError('gpu-unavailable', `the register cross-product kernel needs workgroups this adapter does not offer: ${shapeUnavailable(gpu, shapes[shapes.length - 1])}`)
  return usable
}

/** Invocations per workgroup: (block / tn) along j × (block / tm) along i. */
export function shapeThreads(s: RegisterShape): [x: number, y: number] {
  return [s.block / s.tn, s.block / s.tm]
}

/** Bytes of workgroup memory: two sides, two buffers, bk samples of block + 4 rows (the padding spreads the banks). */
export function shapeWorkgroupBytes(s: RegisterShape): number {
  return 2 * 2 * s.bk * (s.block + 4) * 4
}

/** Why a shape cannot be compiled whatever the adapter, or null. */
function shapeError(s: RegisterShape): string | null {
  if (![4, 8].includes(s.tm) || ![4, 8].includes(s.tn)) return 'rows and columns per invocation must be 4 or 8 (vec4 reads)'
  if (![32, 64, 128].includes(s.block)) return `the block must be 32, 64 or ${MAX_BLOCK}`
  if (![4, 8, 16, 32].includes(s.bk)) return `samples per step must be 4, 8, 16 or ${MAX_BK}`
  if (s.chunk % s.bk !== 0 || s.chunk <= 0) return `the chunk (${s.chunk}) must be a positive multiple of the samples per step (${s.bk})`
  if ((s.tm * s.tn) / 4 > MAX_SUM_VEC4) return `at most ${MAX_SUM_VEC4 * 4} sums per invocation`
  const [x, y] = shapeThreads(s)
  if ((s.block * s.bk) / 4 > MAX_LOADS * x * y) return `${x * y} invocations cannot load ${s.block} rows × ${s.bk} samples in ${MAX_LOADS} vec4 each`
  return null
}

/** Why the adapter cannot run a shape (workgroup size or memory), or null. */
export function shapeUnavailable(gpu: Gpu, s: RegisterShape): string | null {
  const [x, y] = shapeThreads(s)
  const l = gpu.limits
  if (x * y > l.maxComputeInvocationsPerWorkgroup || x > l.maxComputeWorkgroupSizeX || y > l.maxComputeWorkgroupSizeY)
    return `${x} × ${y} invocations exceed this adapter's workgroups (${l.maxComputeInvocationsPerWorkgroup} invocations, ${l.maxComputeWorkgroupSizeX} × ${l.maxComputeWorkgroupSizeY})`
  const bytes = shapeWorkgroupBytes(s)
  if (bytes > l.maxComputeWorkgroupStorageSize) return `${bytes} bytes of workgroup memory exceed this adapter's ${l.maxComputeWorkgroupStorageSize}`
  return null
}

/** The kernel's override constants for a shape. */
export function shapeConstants(s: RegisterShape): Record<string, number> {
  const [x, y] = shapeThreads(s)
  return { TM: s.tm, TN: s.tn, WX: x, WY: y, BK: s.bk, CHUNK_STEPS: s.chunk / s.bk }
}
