// How a landslide run is split into ranks, checked on every rank before any connects: one
// backend, its bands of rows, the steps between halo exchanges, and whether exchanges overlap the
// steps (GPU ranks) and blocks are pipelined.
import { ApiError } from '../../../shared/errors'
import type { LandslideParams } from '../../../shared/workloads/landslide'
import { type CpuBackend, gpuArithmetic, type GpuVariant } from '../../../shared/workloads/landslide/types'
import type { JobContext } from '../../engine'
import type { RankPlacement } from '../../ranks/placement'
import { notInBands } from './gpu/gpu-bands'
import { noDoubleFloat, VARIANTS } from './gpu/kernels'
import { type InitialState } from './simulation'
import { splitRows } from './workers-simulation'
import { minOf } from '../../../shared/extent'

/** GPU ranks exchange at least this often by default (see defaultExchangeEvery). */
export const GPU_EXCHANGE_EVERY_MOST = 30

/**
 * Steps between exchanges by default: halos of an eighth of the thinnest band; for gpu ranks at
 * most GPU_EXCHANGE_EVERY_MOST steps. A gpu rank recomputes 6·S rows for each neighbour's edges
 * (its strips) besides its 2·S halo rows a side, so its work grows with S, while each exchange
 * costs its host a few ms: on 4 × H200 (Tessina tiled 12 × 14, 4000 steps, pipelined), S = 50, 30
 * and 20 gave 916, 909, 939 ms on 2 ranks and 974, 927, 1 171 ms on 4.
 */
export function defaultExchangeEvery(thinnest: number, backend: Plan['backend']): number {
  const eighth = Math.max(1, Math.floor(thinnest / 16))
  return backend === 'gpu' ? Math.min(eighth, GPU_EXCHANGE_EVERY_MOST) : eighth
}

/** Whether a landslide job runs here rather than in runLandslideJob: in ranks, or with checkpoints. */
export function runsInRanks(params: LandslideParams, ctx: Pick<JobContext, 'ranks'>): boolean {
  // A job of one process (a cluster task of one) runs as on one machine unless it checkpoints.
  return (ctx.ranks?.size ?? 1) > 1 || params.checkpointEvery !== undefined
}

export interface Plan {
  backend: CpuBackend | 'gpu'
  /** The gpu backend's kernel. */
  variant?: GpuVariant
  placement: RankPlacement
  bands: { r0: number; r1: number }[]
  every: number
  halo: number
}

/**
 * Whether ranks overlap their exchanges with their steps (the header says how): gpu ranks do, CPU
 * ranks do not, unless PARALAB_RANKS_OVERLAP=on|off says otherwise. The strips recompute the rows
 * within 3·S of each band's edge: where debris crowds the edges (Tessina split in two: the strips
 * doubled the active cells computed, 2 ranks in one process took 5.3–6.1 s against 3.1 s) that costs
 * more than a CPU rank's exchange, a few rows over loopback; a GPU rank's exchange waits on a
 * readback, the transfer and an upload, which the overlap hides.
 */
export function overlapsExchanges(backend: Plan['backend'], env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.PARALAB_RANKS_OVERLAP === 'on') return true
  if (env.PARALAB_RANKS_OVERLAP === 'off') return false
  return backend === 'gpu'
}

/**
 * Whether gpu ranks queue a block's steps without waiting for the last block's to finish (the
 * neighbours' rows are written behind them in the device's queue, so the GPU never waits on the
 * host between blocks): on unless PARALAB_RANKS_PIPELINE=off, for comparison.
 */
export function pipelinesBlocks(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PARALAB_RANKS_PIPELINE !== 'off'
}

/** Why a gpu run cannot write checkpoints (their rows are f64; see the refusal). */
export const GPU_CHECKPOINTS_REFUSED =
  'checkpoints hold f64 rows, and a gpu rank keeps f32 or double-float pairs: a double-float pair read back from its f64 sum need not be the same pair, so a run resumed from one could end with other bits than an uninterrupted run; checkpoint with --backend serial or active'

/** The run's split, or an error naming what cannot be run so: checked on every rank before any connects. */
export function planRanks(params: LandslideParams, placement: RankPlacement, state: InitialState): Plan {
  const backend = params.backends[0]
  if (params.backends.length > 1 || (backend !== 'serial' && backend !== 'active' && backend !== 'gpu'))
    throw new ApiError('invalid-argument', `a run in ranks or with checkpoints computes with one backend, serial, active or gpu, in each rank; got ${params.backends.join(', ')}`)
  if (params.repeat !== 1) throw new ApiError('invalid-argument', `a run in ranks or with checkpoints runs once; got --repeat ${params.repeat}`)
  let variant: GpuVariant | undefined
  if (backend === 'gpu') {
    if (params.checkpointEvery !== undefined) throw new ApiError('invalid-argument', `--checkpoint-every with --backend gpu: ${GPU_CHECKPOINTS_REFUSED}`)
    if (params.variants.length !== 1) throw new ApiError('invalid-argument', `gpu ranks run one kernel; got --variant ${params.variants.join(',')}`)
    variant = params.variants[0]
    const refused = notInBands(variant) ?? (gpuArithmetic(params.precision) === 'double-float' && VARIANTS[variant].doubleFloat === undefined ? noDoubleFloat(variant) : undefined)
    if (refused) throw new ApiError('invalid-argument', refused)
  }
  const { rows, cols } = state
  const size = placement.size
  const interior = rows - 2
  if (size > interior) throw new ApiError('invalid-argument', `${size} ranks need a row each, and this grid has ${interior} interior rows (${rows} in all): use at most ${Math.max(1, interior)} ranks`)
  const bands = splitRows(rows, cols, state.mask, size)
  const thinnest = minOf(bands.map((b) => b.r1 - b.r0))
  const every = params.exchangeEvery ?? defaultExchangeEvery(thinnest, backend)
  if (size > 1 && 2 * every > thinnest)
    throw new ApiError(
      'invalid-argument',
      `exchanging halos every ${every} steps needs bands of at least ${2 * every} rows; the thinnest of ${size} bands of this ${rows}-row grid has ${thinnest}: exchange more often or use fewer ranks`,
    )
  return { backend, variant, placement, bands, every, halo: size > 1 ? 2 * every : 0 }
}
