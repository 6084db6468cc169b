// FLOPs and bytes of each GPU kernel per cell and step, counted from shaders/landslide/*.wgsl, and
// the measured roofline point of a run: arithmetic intensity, GFLOP/s and GB/s.
//
// Conventions as in src/shared/workloads/landslide/cell-work.ts (the f32 arithmetic per cell, which the
// CPU backends share); negations, selects and integer work count none; double-float counts the f32
// operations its functions execute (double_float.wgsl under its default DF_GUARD 1; the opaque ORs
// are integer work). Bytes: to and from device memory (neighbours' values come from cache or workgroup memory).
import type { GpuVariant, LandslideRun, RooflinePoint, RunArithmetic } from '../../../../shared/workloads/landslide/types'
import { CELL_FLOP as F32, NOMINAL_ROUNDS } from '../../../../shared/workloads/landslide/cell-work'

/** Neighbours still kept when it ends (of the three candidates, the cell's own is one). */
const KEPT_NEIGHBOURS = 2

export interface KernelCost {
  /** FLOP per step of every computed cell. */
  flop: number
  /** FLOP per step of each cell that holds debris or borders it, beyond `flop`: the double-float kernels skip them on dry cells. */
  debrisFlop: number
  /** Bytes to or from device memory per step of every computed cell. */
  bytes: number
  /** The cells a step computes: every interior cell, or (active) the debris' box. */
  domain: 'interior' | 'debris'
}

/** Bytes of one value, one cell's four outflows and one cell's wall bits (four cells to a u32). */
function sizes(a: RunArithmetic): { v: number; f: number; mask: number } {
  const v = a === 'f32' ? 4 : 8
  return { v, f: 4 * v, mask: 1 }
}

/** Double-float (sciddica_df.wgsl, double_float.wgsl), in f32 operations. */
const TWO_SUM = 6
const QUICK_TWO_SUM = 3
const DF_ADD = 2 * TWO_SUM + 1 + QUICK_TWO_SUM + 1 + QUICK_TWO_SUM // 20; df_sub the same
const DF_TIMES_3_OR_5 = 1 + TWO_SUM
/** By 3 or 5: three quotients, two exact remainders, summed; by 2 or 4 two multiplies; by 1 none. */
const dfDivide = (d: number): number => (d === 3 || d === 5 ? 3 + 2 * (DF_TIMES_3_OR_5 + DF_ADD) + QUICK_TWO_SUM + DF_ADD : d === 1 ? 0 : 2)
/** df_le: the high parts' < and ==; the low parts only on a tie. */
const DF_LE = 2
const DF = {
  outflows: (): number => {
    const rounds = NOMINAL_ROUNDS.reduce((s, c) => s + c * DF_ADD + dfDivide(c) + c * DF_LE, 0)
    // u: 5 df_adds; m = h − p_ε; the rounds; each kept neighbour's (average − u) × 0.5.
    return 5 * DF_ADD + DF_ADD + rounds + KEPT_NEIGHBOURS * (DF_ADD + 2)
  },
  // σ2: next + (inflow − own), four times.
  update: 4 * 2 * DF_ADD,
}

/** fused2's work per tile cell and two steps: outflows over the tile + 3 rings and + 1, updates over + 2 and the tile (16 × 16 tiles). */
const FUSED2 = { outflows: (22 * 22 + 18 * 18) / 256, updates: (20 * 20 + 256) / 256 }

/** The cost of `variant` in arithmetic `a` ('f64' has no GPU kernels: undefined). */
export function kernelCost(variant: GpuVariant, a: RunArithmetic): KernelCost | undefined {
  if (a === 'f64') return undefined
  const { v, f, mask } = sizes(a)
  // Three passes: reset writes f; flows reads z, h, mask, writes f; update reads h, f, writes h.
  const reset = f
  const flows = 2 * v + mask + f
  const update = 2 * v + f
  if (a === 'f32') {
    const step = F32.outflows() + F32.update
    switch (variant) {
      case 'monolithic':
      case 'grid-stride':
      case 'tiled':
      case 'tiled-halo':
        return { flop: step, debrisFlop: 0, bytes: reset + flows + update, domain: 'interior' }
      // One pass: reads z, h, mask, writes h; five minimizations (its own and each neighbour's
      // toward it) where debris is, none for a dry cell among dry neighbours.
      case 'fused':
        return { flop: 0, debrisFlop: 5 * F32.outflows() + F32.update, bytes: 3 * v + mask, domain: 'interior' }
      // Two steps a dispatch: z, h, mask read and h written once per two steps; the rings computed
      // again by each tile. Tiles without debris in reach skip the arithmetic; those with some also
      // compute their dry cells, so counting the debris cells alone is an estimate from below.
      case 'fused2':
        return { flop: 0, debrisFlop: (FUSED2.outflows * F32.outflows() + FUSED2.updates * F32.update) / 2, bytes: (3 * v + mask) / 2, domain: 'interior' }
      // No reset pass: flows writes every outflow of the box.
      case 'active':
        return { flop: step, debrisFlop: 0, bytes: flows + update, domain: 'debris' }
    }
  }
  // Double-float: outflows only where debris is (dry cells give none); the update everywhere computed.
  switch (variant) {
    case 'monolithic':
    case 'grid-stride':
      return { flop: DF.update, debrisFlop: DF.outflows(), bytes: reset + flows + update, domain: 'interior' }
    // fused_df skips a dry cell among dry neighbours entirely, else five outflows and the update.
    case 'fused':
      return { flop: 0, debrisFlop: 5 * DF.outflows() + DF.update, bytes: 3 * v + mask, domain: 'interior' }
    case 'active':
      return { flop: DF.update, debrisFlop: DF.outflows(), bytes: flows + update, domain: 'debris' }
    default:
      return undefined
  }
}

/** A GPU run's measured point; undefined for CPU runs, kernels without a cost, or nothing timed. */
export function rooflinePoint(run: LandslideRun, grid: { rows: number; cols: number }, debrisCells: number): RooflinePoint | undefined {
  const cost = run.backend === 'gpu' && run.variant ? kernelCost(run.variant, run.precision) : undefined
  if (!cost || !(run.ms_per_step > 0)) return undefined
  const interior = Math.max(0, grid.rows - 2) * Math.max(0, grid.cols - 2)
  const cells = cost.domain === 'interior' ? interior : Math.min(debrisCells, interior)
  const flop = cells * cost.flop + Math.min(debrisCells, cells) * cost.debrisFlop
  const bytes = cells * cost.bytes
  if (!(flop > 0 && bytes > 0)) return undefined
  const seconds = run.ms_per_step / 1000
  return {
    cells_per_step: cells,
    flop_per_step: flop,
    bytes_per_step: bytes,
    intensity: flop / bytes,
    GFLOP_per_s: flop / seconds / 1e9,
    GB_per_s: bytes / seconds / 1e9,
  }
}
