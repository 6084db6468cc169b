// A landslide run in ranks (processes started together, e.g. by `srun --ntasks R`) or with
// checkpoints: each rank simulates its band of rows with 2·S halo rows (halo-band.ts), exchanging
// them with its neighbours every S steps over src/main/ranks; the grid is gathered to rank 0 at
// every sample, so rank 0 reports the same results as a run on one machine (plus the ranks and the
// exchange interval), and every rank returns them. One rank alone (no ranks asked for, checkpoints
// only) is the same run without any exchange. Checkpoints (checkpoint.ts) hold every rank's band
// at one step.
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { timingOf } from '../../../shared/workloads/envelope'
import type { LandslideParams } from '../../../shared/workloads/landslide'
import type { CpuBackend, LandslideResult, LandslideSeries } from '../../../shared/workloads/landslide/types'
import type { EngineOutcome, JobContext } from '../../engine'
import type { RankPlacement } from '../../ranks/placement'
import { Ranks } from '../../ranks/ranks'
import {
  type Checkpoint,
  checkpointIdentity,
  commitCheckpoint,
  discardPending,
  latestCheckpoint,
  packSamples,
  pendingFolder,
  readCheckpointRows,
  unpackSamples,
  writeBand,
  type CheckpointBand,
} from './checkpoint'
import { sampleGrid, snapshot, thicknessMaps, type Snapshot } from './grid-stats'
import { HaloBand } from './halo-band'
import { hillshadeMap } from './hillshade'
import { readLandslideInput } from './inputs'
import { referenceMd5 } from './reference-format'
import { sampleEvery } from './run-landslide'
import { initialState, type InitialState } from './simulation'
import { splitRows } from './workers-simulation'
import { MAX_THICKNESS_MAPS } from '../../../shared/workloads/landslide/types'

/** Message tags of the halo exchange. */
const HALO = 1
const SAMPLE = 2

/** Steps between exchanges by default: halos of an eighth of the thinnest band. */
function defaultExchangeEvery(thinnest: number): number {
  return Math.max(1, Math.floor(thinnest / 16))
}

/** Whether a landslide job runs here rather than in runLandslideJob: in ranks, or with checkpoints. */
export function runsInRanks(params: LandslideParams, ctx: Pick<JobContext, 'ranks'>): boolean {
  // A job of one process (a cluster task of one) runs as on one machine unless it checkpoints.
  return (ctx.ranks?.size ?? 1) > 1 || params.checkpointEvery !== undefined
}

interface Plan {
  backend: CpuBackend
  placement: RankPlacement
  bands: { r0: number; r1: number }[]
  every: number
  halo: number
}

/** The run's split, or an error naming what cannot be run so: checked on every rank before any connects. */
function plan(params: LandslideParams, placement: RankPlacement, state: InitialState): Plan {
  const backend = params.backends[0]
  if (params.backends.length > 1 || (backend !== 'serial' && backend !== 'active'))
    throw new ApiError('invalid-argument', `a run in ranks or with checkpoints computes with one backend, serial or active, in each rank; got ${params.backends.join(', ')}`)
  if (params.repeat !== 1) throw new ApiError('invalid-argument', `a run in ranks or with checkpoints runs once; got --repeat ${params.repeat}`)
  const { rows, cols } = state
  const size = placement.size
  const interior = rows - 2
  if (size > interior) throw new ApiError('invalid-argument', `${size} ranks need a row each, and this grid has ${interior} interior rows (${rows} in all): use at most ${Math.max(1, interior)} ranks`)
  const bands = splitRows(rows, cols, state.mask, size)
  const thinnest = Math.min(...bands.map((b) => b.r1 - b.r0))
  const every = params.exchangeEvery ?? defaultExchangeEvery(thinnest)
  if (size > 1 && 2 * every > thinnest)
    throw new ApiError(
      'invalid-argument',
      `exchanging halos every ${every} steps needs bands of at least ${2 * every} rows; the thinnest of ${size} bands of this ${rows}-row grid has ${thinnest}: exchange more often or use fewer ranks`,
    )
  return { backend, placement, bands, every, halo: size > 1 ? 2 * every : 0 }
}

export async function runLandslideRanks(params: LandslideParams, ctx: JobContext): Promise<EngineOutcome<LandslideResult>> {
  const placement = ctx.ranks ?? { rank: 0, size: 1, job: `local-${process.pid}`, folder: '' }
  const checkpointDir = params.checkpointEvery === undefined ? undefined : (params.checkpointDir ?? (placement.folder ? join(placement.folder, 'checkpoints') : undefined))
  if (params.checkpointEvery !== undefined && !checkpointDir)
    throw new ApiError('invalid-argument', '--checkpoint-every needs a folder for the checkpoints: --checkpoint-dir DIR (a run in ranks defaults to checkpoints/ in its job folder)')

  ctx.progress({ phase: 'loading grids', fraction: 0 })
  const real: string[] = []
  for (const path of params.grids) real.push(await ctx.input(path))
  const input = await readLandslideInput(params.grids, real)
  const state = initialState(input)
  const p = plan(params, placement, state)
  const { rank, size } = placement
  const { rows, cols } = state
  const own = p.bands[rank]
  // The band's grid: global rows a … b−1; the first and last bands reach the grid's border rows.
  const a = rank === 0 ? 0 : own.r0 - p.halo
  const b = rank === size - 1 ? rows : own.r1 + p.halo
  const identity = checkpointIdentity(input, 'f64')
  const resumed: Checkpoint | undefined = checkpointDir ? await latestCheckpoint(checkpointDir, identity, params.steps) : undefined
  throwIfAborted(ctx.signal)

  const ranks = size > 1 ? await Ranks.connect(placement, { signal: ctx.signal }) : undefined
  const signal = ranks ? AbortSignal.any([ctx.signal, ranks.signal]) : ctx.signal
  let pending: string | undefined
  try {
    const sub: InitialState = {
      rows: b - a,
      cols,
      z: state.z.subarray(a * cols, b * cols),
      h: state.h.subarray(a * cols, b * cols),
      mask: state.mask && state.mask.subarray(a * cols, b * cols),
    }
    const band = new HaloBand(sub, p.backend === 'active')
    const start = resumed?.manifest.step ?? 0
    if (resumed) {
      // Every interior row of the band from the checkpoint (the border rows never change).
      const lo = Math.max(a, 1)
      const hi = Math.min(b, rows - 1)
      band.writeRows(lo - a, await readCheckpointRows(resumed, cols, lo, hi))
      band.done = start
    }

    const every = sampleEvery(params.steps, params.frames)
    const samples = resumed ? unpackSamples(resumed.manifest.samples) : { series: { step: [], mass: [], flooded: [], max_thickness: [], active: [] } as LandslideSeries, snapshots: [] as Snapshot[] }
    // Rows this rank reports: its own, and the grid's border rows with the first and last band.
    const from = rank === 0 ? 0 : own.r0
    const to = rank === size - 1 ? rows : own.r1
    /** The whole grid on rank 0 (undefined on the others). */
    const gather = async (): Promise<Float64Array | undefined> => {
      const mine = band.readRows(from - a, to - from)
      if (!ranks) return mine
      const parts = await ranks.gather(mine, Float64Array)
      if (!parts) return undefined
      const grid = new Float64Array(rows * cols)
      let at = 0
      for (const part of parts) {
        grid.set(part, at)
        at += part.length
      }
      return grid
    }
    /** Rank 0: the grid at the newest sample (the last step's, once the steps are done). */
    let finalGrid: Float64Array | undefined
    const record = async () => {
      const grid = await gather()
      if (!grid) return
      finalGrid = grid
      const s = sampleGrid(grid, rows, cols, input.walls)
      samples.series.step.push(band.done)
      samples.series.mass.push(s.mass)
      samples.series.flooded.push(s.flooded)
      samples.series.max_thickness.push(s.max_thickness)
      samples.series.active.push(s.active)
      samples.snapshots.push(snapshot(band.done, grid, rows, cols))
    }

    let exchangeMs = 0
    const exchange = async () => {
      if (!ranks) return
      const t = performance.now()
      // Send first (the sockets carry it while this rank waits), then the neighbours' rows.
      const north = ranks.previous
      const south = ranks.next
      if (north !== undefined) ranks.send(north, HALO, band.readRows(own.r0 - a, p.halo))
      if (south !== undefined) ranks.send(south, HALO, band.readRows(own.r1 - p.halo - a, p.halo))
      if (north !== undefined) band.writeRows(0, await ranks.recv(north, HALO, Float64Array))
      if (south !== undefined) band.writeRows(own.r1 - a, await ranks.recv(south, HALO, Float64Array))
      exchangeMs += performance.now() - t
    }

    let lastCheckpoint: number | null = resumed ? start : null
    const checkpoint = async () => {
      const step = band.done
      pending = pendingFolder(checkpointDir!, step, placement.job)
      const written = await writeBand(pending, rank, own.r0, own.r1, band.readRows(own.r0 - a, own.r1 - own.r0))
      const all = ranks ? await ranks.gather(new TextEncoder().encode(JSON.stringify(written)), Uint8Array) : [new TextEncoder().encode(JSON.stringify(written))]
      if (all) {
        const bands = all.map((bytes) => JSON.parse(new TextDecoder().decode(bytes)) as CheckpointBand)
        await commitCheckpoint(checkpointDir!, pending, { step, identity, bands, samples: packSamples(samples.series, samples.snapshots) })
      }
      // Every rank waits until the checkpoint is in place: none runs ahead of one that may yet fail it.
      await ranks?.barrier()
      pending = undefined
      lastCheckpoint = step
    }

    const key = p.backend
    const progress = (ms: number) =>
      ctx.progress({
        phase: `simulating ${key}${size > 1 ? ` on ${size} ranks` : ''}`,
        fraction: params.steps > 0 ? band.done / params.steps : 1,
        ...(ms > 0 && { throughput: { value: (rows * cols * (band.done - start)) / ms / 1e3, unit: 'M cell-steps/s' } }),
      })

    if (!resumed) await record()
    let since = 0
    let ms = 0
    while (band.done < params.steps) {
      const nextSample = (Math.floor(band.done / every) + 1) * every
      const nextCheckpoint = params.checkpointEvery ? (Math.floor(band.done / params.checkpointEvery) + 1) * params.checkpointEvery : Infinity
      const stop = Math.min(params.steps, nextSample, nextCheckpoint)
      while (band.done < stop) {
        const t = performance.now()
        if (size > 1 && since === p.every) {
          await exchange()
          since = 0
        }
        const count = Math.min(stop - band.done, size > 1 ? p.every - since : stop - band.done)
        await band.advance(count, signal)
        since += count
        ms += performance.now() - t
        progress(ms)
      }
      if (band.done === params.steps || band.done === nextSample) await record()
      if (band.done === nextCheckpoint && band.done < params.steps) await checkpoint()
    }

    // Every rank's exchange time, on rank 0.
    const times = ranks ? await ranks.gather(Float64Array.of(exchangeMs, ms), Float64Array) : [Float64Array.of(exchangeMs, ms)]
    let results: LandslideResult | undefined
    if (rank === 0) {
      results = finish(params, input, state, p, finalGrid!, samples.series, samples.snapshots, every, times!, ms)
      if (checkpointDir) results.checkpoints = { every: params.checkpointEvery!, folder: checkpointDir, resumed_from: start, last: lastCheckpoint }
    }
    // Every rank returns rank 0's results (whoever runs a rank gets the job's outcome).
    if (ranks) {
      const bytes = await ranks.broadcast(results && new TextEncoder().encode(JSON.stringify(results)), Uint8Array)
      results = JSON.parse(new TextDecoder().decode(bytes)) as LandslideResult
      await ranks.close()
    }
    return { results: results!, timings: { [key]: timingOf([ms]) } }
  } catch (e) {
    if (pending && rank === 0) await discardPending(pending).catch(() => {})
    if (ranks?.error) throw ranks.error
    await ranks?.abort(ApiError.from(e).message)
    throw e
  }
}

/** Rank 0's results from the final grid and the samples, shaped as runLandslideJob's. */
function finish(
  params: LandslideParams,
  input: Awaited<ReturnType<typeof readLandslideInput>>,
  state: InitialState,
  p: Plan,
  grid: Float64Array,
  series: LandslideSeries,
  snapshots: Snapshot[],
  every: number,
  times: Float64Array[],
  ms: number,
): LandslideResult {
  const { rows, cols } = input
  const md5 = referenceMd5(grid, rows, cols)
  let massStart = 0
  for (let k = 0; k < input.h.length; k++) massStart += input.h[k]
  let massEnd = 0
  for (let k = 0; k < grid.length; k++) massEnd += grid[k]
  const stride = Math.max(1, Math.ceil((snapshots.length - 1) / (MAX_THICKNESS_MAPS - 1)))
  const kept = snapshots.filter((_, i) => i % stride === 0 || i === snapshots.length - 1)
  const maps = thicknessMaps(kept, rows, cols)
  const hillshade = maps[0] && hillshadeMap(state.z, rows, cols, input.walls, input.header.cellsize, maps[0])
  const size = p.placement.size
  return {
    grid: {
      rows,
      cols,
      cellsize: input.header.cellsize,
      xllcorner: input.header.xllcorner,
      yllcorner: input.header.yllcorner,
      nodata: input.header.nodata,
      walls: input.wallCount,
      files: input.files,
    },
    steps: params.steps,
    reference: { backend: p.backend, md5, mass_start: massStart, mass_end: massEnd },
    runs: {
      [p.backend]: {
        backend: p.backend,
        precision: 'f64',
        ...(size > 1 && { ranks: size, exchange_every: p.every }),
        ms,
        ms_min: ms,
        ms_max: ms,
        ms_per_step: params.steps > 0 ? ms / params.steps : 0,
        md5,
        mass_end: massEnd,
      },
    },
    series,
    maps,
    sampling: { every, maps_every: every * stride },
    ...(hillshade && { hillshade }),
    skipped: [],
    ...(size > 1 && { ranks: { size, exchange_every: p.every, bands: p.bands.map((b, rank) => ({ rank, ...b, exchange_ms: times[rank][0] })) } }),
  }
}
