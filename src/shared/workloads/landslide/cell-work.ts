// The SciddicaT step's arithmetic per cell, counted once for the GPU kernels' roofline points
// (src/main/workloads/landslide/gpu/kernel-costs.ts) and the CPU backends' (compare.ts): the CPU's
// f64 rows (sciddica.ts) do the f32 kernel's operations in the same order, on 8-byte values.
//
// Conventions. FLOP: every floating-point add, subtract, multiply, divide and comparison executed
// counts one. The minimization runs a data-dependent number of rounds: the counts take a cell on a
// slope, two rounds, the first over all five candidates (the cell's own altitude + p_ε and four
// neighbours), the second over the three left, after which nothing is eliminated. Bytes: each
// layer a pass touches read or written once per cell (neighbours' values come from cache): the
// compulsory traffic to memory.
import type { CpuBackend, LandslideGrid, LandslideSeries } from './types'

/** Candidates left in each round of the counted minimization. */
export const NOMINAL_ROUNDS = [5, 3] as const

/** f32 arithmetic (sciddica.wgsl; sciddica.ts in f64). A round over c candidates: c sums and c count increments, count > 0, a divide, 5 compares with the average. */
export const CELL_FLOP = {
  outflows: (): number => {
    const rounds = NOMINAL_ROUNDS.reduce((s, c) => s + 2 * c + 1 + 1 + 5, 0)
    // u: 4 sums z + h; m = h − p_ε and z + p_ε; the rounds; (average − u) × p_r over the four outflows.
    return 4 + 2 + rounds + 8
  },
  // σ2: next += inflow − own, four times.
  update: 8,
}

/**
 * Cells holding debris or bordering it, averaged over the reference's sampled steps: where the
 * active backends and the double-float kernels compute, and an estimate (from below) of the active kernels' box.
 */
export function meanDebrisCells(series: LandslideSeries): number {
  return series.active.length ? series.active.reduce((s, c) => s + c, 0) / series.active.length : 0
}

/**
 * A CPU backend's work per step: σ1 (reset folded in) reads z, h and the wall mask and writes four
 * outflows, σ2 reads h and the outflows and writes h, in f64; over every interior cell, or (the active
 * backends) the cells holding debris or bordering it.
 */
export function cpuStepWork(backend: CpuBackend, grid: Pick<LandslideGrid, 'rows' | 'cols'>, series: LandslideSeries): { flop: number; bytes: number } {
  const interior = Math.max(0, grid.rows - 2) * Math.max(0, grid.cols - 2)
  const cells = backend === 'active' || backend === 'workers-active' ? Math.min(meanDebrisCells(series), interior) : interior
  const v = 8
  const flows = 2 * v + 1 + 4 * v
  const update = 2 * v + 4 * v
  return { flop: cells * (CELL_FLOP.outflows() + CELL_FLOP.update), bytes: cells * (flows + update) }
}
