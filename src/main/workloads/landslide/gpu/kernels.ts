// The GPU variants' passes: which shader entry points a step dispatches, the bindings each uses
// (their automatic layouts hold only those) and how many workgroups each launches.
import { ApiError } from '../../../../shared/errors'
import { GPU_VARIANTS, type GpuVariant } from '../../../../shared/workloads/landslide/types'

/** Binding numbers, as shaders/landslide/layers.wgsl and active.wgsl declare them. */
export const B = { grid: 0, z: 1, h: 2, f: 3, mask: 4, box: 5, region: 6, args: 7 } as const
/** fused.wgsl's: the thickness read and the one written. */
export const FUSED = { grid: 0, z: 1, hIn: 2, hOut: 3, mask: 4 } as const

export type Launch = 'cells' | 'stride' | 'one' | 'indirect-flows' | 'indirect-update'

export interface Pass {
  entry: string
  bindings: readonly number[]
  launch: Launch
}

const RESET: Pass = { entry: 'reset', bindings: [B.grid, B.f], launch: 'cells' }
const FLOWS: Pass = { entry: 'flows', bindings: [B.grid, B.z, B.h, B.f, B.mask], launch: 'cells' }
const UPDATE: Pass = { entry: 'update', bindings: [B.grid, B.h, B.f], launch: 'cells' }
const stride = (p: Pass): Pass => ({ ...p, launch: 'stride' })

/**
 * Per variant, its shader, its double-float shader where it has one (--precision accurate: the same
 * passes on vec2(hi, lo) values, shaders/landslide/*_df.wgsl) and the passes of one step. Their
 * FLOPs and bytes per cell and step are counted in kernel-costs.ts.
 */
export const VARIANTS: Record<GpuVariant, { shader: string; doubleFloat?: string; passes: readonly Pass[] }> = {
  monolithic: { shader: 'landslide/monolithic', doubleFloat: 'landslide/monolithic_df', passes: [RESET, FLOWS, UPDATE] },
  'grid-stride': { shader: 'landslide/grid_stride', doubleFloat: 'landslide/grid_stride_df', passes: [RESET, FLOWS, UPDATE].map(stride) },
  'tiled-halo': { shader: 'landslide/tiled_halo', passes: [RESET, FLOWS, UPDATE] },
  tiled: { shader: 'landslide/tiled', passes: [RESET, FLOWS, UPDATE] },
  fused: {
    shader: 'landslide/fused',
    doubleFloat: 'landslide/fused_df',
    passes: [{ entry: 'main', bindings: [FUSED.grid, FUSED.z, FUSED.hIn, FUSED.hOut, FUSED.mask], launch: 'cells' }],
  },
  // Two steps a dispatch, then fused's one step where an odd count leaves one (fused2.wgsl holds both).
  fused2: {
    shader: 'landslide/fused2',
    passes: [
      { entry: 'two_steps', bindings: [FUSED.grid, FUSED.z, FUSED.hIn, FUSED.hOut, FUSED.mask], launch: 'cells' },
      { entry: 'main', bindings: [FUSED.grid, FUSED.z, FUSED.hIn, FUSED.hOut, FUSED.mask], launch: 'cells' },
    ],
  },
  active: {
    shader: 'landslide/active',
    doubleFloat: 'landslide/active_df',
    passes: [
      { entry: 'plan', bindings: [B.grid, B.box, B.region, B.args], launch: 'one' },
      { entry: 'flows', bindings: [B.grid, B.z, B.h, B.f, B.mask, B.region], launch: 'indirect-flows' },
      { entry: 'update', bindings: [B.grid, B.h, B.f, B.box, B.region], launch: 'indirect-update' },
    ],
  },
}

/**
 * How the double-float kernels guard their TwoSums against a compiler that re-associates float
 * additions (double_float.wgsl's DF_GUARD): 0 none, 1 opaque intermediates (the default), 2 integer
 * error terms. PARALAB_DF_GUARD=0|1|2 in the environment, read once here, picks one for every run
 * of this process, so benchmarks compare them without rebuilding; unset, the shader's default.
 */
export const DF_GUARDS = [0, 1, 2] as const
export type DfGuard = (typeof DF_GUARDS)[number]
const DF_GUARD_ENV = process.env.PARALAB_DF_GUARD

/** The guard PARALAB_DF_GUARD names, undefined when unset; a value not in DF_GUARDS throws. */
export function envDfGuard(): DfGuard | undefined {
  if (DF_GUARD_ENV === undefined || DF_GUARD_ENV === '') return undefined
  const g = DF_GUARDS.find((v) => String(v) === DF_GUARD_ENV.trim())
  if (g === undefined) throw new ApiError('invalid-argument', `PARALAB_DF_GUARD must be one of ${DF_GUARDS.join(', ')}, got ${DF_GUARD_ENV}`)
  return g
}

/** fused2's invocations: one per slot of a tile's 24 × 24 region, or 16 × 16 (fused2.wgsl). */
export const FUSED2_THREADS = [576, 256] as const
const FUSED2_ENV = process.env.PARALAB_FUSED2_THREADS

/**
 * fused2's workgroup shape: 24 × 24 where the device allows 576 invocations, else 16 × 16;
 * PARALAB_FUSED2_THREADS=256|576 picks one for every run of this process (benchmarks compare them).
 */
export function fused2Workgroup(limits: Record<string, number>): { WG_X: number; WG_Y: number } {
  const asked = FUSED2_ENV ? FUSED2_THREADS.find((n) => String(n) === FUSED2_ENV.trim()) : undefined
  if (FUSED2_ENV && asked === undefined) throw new ApiError('invalid-argument', `PARALAB_FUSED2_THREADS must be one of ${FUSED2_THREADS.join(', ')}, got ${FUSED2_ENV}`)
  const fits = limits.maxComputeInvocationsPerWorkgroup >= 576 && limits.maxComputeWorkgroupSizeX >= 24 && limits.maxComputeWorkgroupSizeY >= 24
  const side = (asked ?? (fits ? 576 : 256)) === 576 ? 24 : 16
  return { WG_X: side, WG_Y: side }
}

/** Side of the 16 × 16 workgroups. */
export const TILE = 16
/** Threads per grid-stride workgroup. */
export const STRIDE_WG = 256
/** Grid-stride workgroups at most: enough to fill a large GPU, fewer than the cells of a big grid. */
export const STRIDE_GROUPS = 1024

/** The variants with double-float kernels. */
export const DOUBLE_FLOAT_VARIANTS: readonly GpuVariant[] = GPU_VARIANTS.filter((v) => VARIANTS[v].doubleFloat !== undefined)

/** Why `variant` cannot run under --precision accurate (or f64). */
export function noDoubleFloat(variant: GpuVariant): string {
  return `gpu/${variant} has no double-float kernels (its workgroup tiles hold f32 values); --precision accurate runs ${DOUBLE_FLOAT_VARIANTS.join(', ')}`
}
