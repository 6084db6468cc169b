// A landslide run in ranks (processes started together, e.g. by `srun --ntasks R`) or with
// checkpoints: each rank simulates its band of rows with 2·S halo rows (halo-band.ts), exchanging
// them with its neighbours every S steps over src/main/ranks; the grid is gathered to rank 0 at
// every sample, so rank 0 reports the same results as a run on one machine (plus the ranks and the
// exchange interval), and every rank returns them. One rank alone (no ranks asked for, checkpoints
// only) is the same run without any exchange. Checkpoints (checkpoint.ts) hold every rank's band
// at one step. The split is planned in rank-plan.ts, a band is driven through rank-band.ts, and
// rank 0's results are made in rank-results.ts; here are the exchanges, samples and checkpoints.
import { basename, join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { timingOf } from '../../../shared/workloads/envelope'
import type { LandslideParams } from '../../../shared/workloads/landslide'
import { gpuArithmetic, type LandslideResult, type LandslideRun, type LandslideSeries, runKey } from '../../../shared/workloads/landslide/types'
import type { EngineOutcome, JobContext } from '../../engine'
import { Ranks } from '../../ranks/ranks'
import { NeighbourHalos } from '../../ranks/neighbour-halos'
import { type Checkpoint, checkpointIdentity, commitCheckpoint, discardPending, latestCheckpoint, makePendingFolder, packSamples, pendingFolderNamed, prepareCheckpointFolder, readCheckpointRows, unpackSamples, writeBand, type CheckpointBand } from './checkpoint'
import { snapshot, type Snapshot, appendSample } from './grid-stats'
import { HaloBand } from './halo-band'
import { warmUp } from '../../gpu/timing'
import { defaultStepsPerSubmit, altitudeBase } from './gpu/gpu-simulation'
import { GpuHaloBand } from './gpu/gpu-halo-band'
import { observeRank, rankGpu, type RankGpu } from './gpu/rank-gpu'
import { placementOf, type GpuPlacement } from '../../../shared/gpu-placement'
import { readJobInput, sampleEvery, type GivenToJob } from './run-landslide'
import { initialState, stateRows } from './simulation'
import type { RankPhases } from '../../../shared/workloads/landslide/types'
import { type RankBand, cpuBand, gpuBand } from './rank-band'
import { overlapsExchanges, pipelinesBlocks, planRanks } from './rank-plan'
import { finishRanks, gpuReference, type RankTimes } from './rank-results'
import { ProgressPlan } from '../../../shared/progress-plan'
import { rankStepsAfterReading, type RankSteps, weighGridFiles } from './progress-steps'

/** Message tags of the halo exchange. */
const HALO = 1
const SAMPLE = 2
const HALO_SETUP = 3
const HALO_NOTICE = 4

/** What the caller of a rank wants besides its results. */
export interface RankHooks {
  /** Rank 0: the final grid in f64 (a gpu run's widened from the GPU's), before the ranks part. */
  finalGrid?: (grid: Float64Array) => Promise<void>
  /** A gpu run without the f64 reference on rank 0 (its caller has one): no deviation, and the reference's md5 is the run's. */
  withoutReference?: boolean
}

export async function runLandslideRanks(params: LandslideParams, ctx: JobContext, given: GivenToJob = {}, hooks: RankHooks = {}): Promise<EngineOutcome<LandslideResult>> {
  const placement = ctx.ranks ?? { rank: 0, size: 1, job: `local-${process.pid}`, folder: '' }
  const checkpointDir = params.checkpointEvery === undefined ? undefined : (params.checkpointDir ?? (placement.folder ? join(placement.folder, 'checkpoints') : undefined))
  if (params.checkpointEvery !== undefined && !checkpointDir)
    throw new ApiError('invalid-argument', '--checkpoint-every needs a folder for the checkpoints: --checkpoint-dir DIR (a run in ranks defaults to checkpoints/ in its job folder)')

  // Progress: reading the grids, this rank's steps, rank 0's reference and results, weighed by what
  // they cost (progress-steps.ts), the grid's cells guessed from the files' size until they are read.
  const { rank, size } = placement
  const plan = new ProgressPlan((e) => ctx.progress(e), [])
  const arithmetic = gpuArithmetic(params.precision)
  const every = sampleEvery(params.steps, params.frames)
  const weigh = (cells: number, bandCells: number, backend: RankSteps['backend'], steps: number) =>
    rankStepsAfterReading({
      cells,
      bandCells,
      steps,
      backend,
      arithmetic,
      warmupMs: params.warmup ?? 0,
      ...(rank === 0 && backend === 'gpu' && !hooks.withoutReference && !given.reference && { reference: { steps: params.steps, samples: Math.ceil(params.steps / every) + 1 } }),
      finish: rank === 0,
    })
  const input =
    given.input ??
    (await readJobInput(params, ctx, async (files) => {
      const { cost, cells } = await weighGridFiles(files, params.grids)
      plan.replan([{ key: 'loading', cost }, ...weigh(cells, cells / size, params.backends[0], params.steps)])
      plan.begin('loading', 'loading grids')
    }))
  plan.begin('preparing', 'preparing the grids')
  const state = initialState(input)
  const p = planRanks(params, placement, state)
  // A folder where no checkpoint can be written is refused now, not after the first interval's work
  // (and after the parameters: a run refused for them makes no folder).
  if (checkpointDir) await prepareCheckpointFolder(checkpointDir)
  const { rows, cols } = state
  const own = p.bands[rank]
  // The band's grid: global rows a … b−1; the first and last bands reach the grid's border rows.
  const a = rank === 0 ? 0 : own.r0 - p.halo
  const b = rank === size - 1 ? rows : own.r1 + p.halo
  const identity = checkpointIdentity(input, 'f64')
  const resumed: Checkpoint | undefined = checkpointDir ? await latestCheckpoint(checkpointDir, identity, params.steps) : undefined
  throwIfAborted(ctx.signal)
  // The band and the steps left are known now.
  plan.replan(weigh(rows * cols, (b - a) * cols, p.backend, params.steps - (resumed?.manifest.step ?? 0)))

  const sub = stateRows(state, a, b)
  // The GPU band is made (and its kernels compiled, and the GPU warmed up) before the ranks meet, so no rank waits on another's start.
  let device: RankGpu | undefined
  let band: RankBand
  let warmUpGpu: (() => Promise<void>) | undefined
  let gpuInfo: Pick<LandslideRun, 'steps_per_submit' | 'passes_per_step' | 'gpus_note' | keyof GpuPlacement> = {}
  if (p.backend === 'gpu') {
    plan.begin('opening', 'opening the rank\'s GPU')
    device = await rankGpu(ctx.gpu)
    try {
      const stepsPerSubmit = params.stepsPerSubmit ?? defaultStepsPerSubmit(device.gpu)
      const opts = { arithmetic: gpuArithmetic(params.precision), altitudeBase: altitudeBase(state) }
      if ((params.warmup ?? 0) > 0) {
        const gpu = device.gpu
        // Run once every rank is connected, just before the timed steps: a GPU left idle while its rank waits for the others drops its clock again.
        warmUpGpu = async () => {
          plan.begin('warm-up', `warming up ${runKey('gpu', p.variant)}`)
          const spare = await GpuHaloBand.create(gpu, sub, p.variant!, stepsPerSubmit, opts)
          const t0 = performance.now()
          const advance = () => spare.advance(Math.max(1, Math.min(params.steps, 100)), ctx.signal).then(() => plan.update((performance.now() - t0) / params.warmup!))
          await warmUp(advance, params.warmup!, ctx.signal).finally(() => spare.dispose())
        }
      }
      const gpuBandOf = await GpuHaloBand.create(device.gpu, sub, p.variant!, stepsPerSubmit, opts)
      band = gpuBand(gpuBandOf, device)
      gpuInfo = { steps_per_submit: gpuBandOf.stepsPerSubmit, passes_per_step: gpuBandOf.passesPerStep, ...(device.note && { gpus_note: device.note }) }
    } catch (e) {
      device.close()
      throw e
    }
  } else band = cpuBand(new HaloBand(sub, p.backend === 'active'))

  let ranks: Ranks | undefined
  let halos: NeighbourHalos | undefined
  let pending: string | undefined
  try {
    ranks = size > 1 ? await Ranks.connect(placement, { signal: ctx.signal, ...(params.rankTimeout !== undefined && { rankTimeoutMs: params.rankTimeout * 1000 }) }) : undefined
    // Halo rows as the band holds them: f64 on the CPU, f32 or double-float pairs on the GPU.
    const cellBytes = p.backend === 'gpu' && gpuArithmetic(params.precision) === 'f32' ? 4 : 8
    if (ranks)
      halos = await NeighbourHalos.open(ranks, [ranks.previous, ranks.next].filter((r) => r !== undefined), p.halo * cols * cellBytes, { setup: HALO_SETUP, notice: HALO_NOTICE, data: HALO })
    const signal = ranks ? AbortSignal.any([ctx.signal, ranks.signal]) : ctx.signal
    const start = resumed?.manifest.step ?? 0
    if (resumed) {
      // Every interior row of the band from the checkpoint (the border rows never change).
      const lo = Math.max(a, 1)
      const hi = Math.min(b, rows - 1)
      await band.writeHalo(lo - a, await readCheckpointRows(resumed, cols, lo, hi, signal))
      band.done = start
    }

    const samples = resumed ? unpackSamples(resumed.manifest.samples) : { series: { step: [], mass: [], flooded: [], max_thickness: [], active: [] } as LandslideSeries, snapshots: [] as Snapshot[] }
    // Rows this rank reports: its own, and the grid's border rows with the first and last band.
    const from = rank === 0 ? 0 : own.r0
    const to = rank === size - 1 ? rows : own.r1
    /** The whole grid on rank 0 (undefined on the others). */
    const gather = async (): Promise<Float64Array | undefined> => {
      const mine = await band.readRows(from - a, to - from)
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
    const record = async (grid: Float64Array, step: number) => {
      appendSample(samples.series, step, grid, rows, cols, input.walls)
      samples.snapshots.push(snapshot(step, grid, rows, cols))
    }
    // GPU ranks sample the f64 reference instead (on rank 0, afterwards): only the final grid is gathered.
    const sampling = p.backend !== 'gpu'
    const sample = async () => {
      const grid = await gather()
      if (!grid) return
      finalGrid = grid
      if (sampling) await record(grid, band.done)
    }

    let exchangeMs = 0
    const phases: RankPhases = { blocks: 0, queue_ms: 0, readback_ms: 0, send_ms: 0, edges_wait_ms: 0, wait_ms: 0, upload_ms: 0, compute_wait_ms: 0 }
    const exchange = async () => {
      if (!ranks) return
      const t = performance.now()
      // Send first (the sockets carry it while this rank waits), then the neighbours' rows.
      const north = ranks.previous
      const south = ranks.next
      const [up, down] = await Promise.all([
        north === undefined ? undefined : band.readHalo(own.r0 - a, p.halo),
        south === undefined ? undefined : band.readHalo(own.r1 - p.halo - a, p.halo),
      ])
      if (up) halos!.send(north!, up)
      if (down) halos!.send(south!, down)
      const type = p.backend === 'gpu' ? Uint8Array : Float64Array
      const [fromNorth, fromSouth] = await Promise.all([
        north === undefined ? undefined : halos!.recv(north, type as typeof Float64Array),
        south === undefined ? undefined : halos!.recv(south, type as typeof Float64Array),
      ])
      await Promise.all([fromNorth && band.writeHalo(0, fromNorth), fromSouth && band.writeHalo(own.r1 - a, fromSouth)])
      exchangeMs += performance.now() - t
    }

    let lastCheckpoint: number | null = resumed ? start : null
    const checkpoint = async () => {
      const step = band.done
      // Rank 0 makes the folder (fresh, its name unpredictable) and tells the other ranks its name.
      const made = rank === 0 ? await makePendingFolder(checkpointDir!, step, placement.job) : undefined
      pending = made
      const named = ranks && new TextDecoder().decode(await ranks.broadcast(made === undefined ? undefined : new TextEncoder().encode(basename(made)), Uint8Array))
      const into = made ?? pendingFolderNamed(checkpointDir!, step, named!)
      const written = await writeBand(into, rank, own.r0, own.r1, await band.readRows(own.r0 - a, own.r1 - own.r0))
      const all = ranks ? await ranks.gather(new TextEncoder().encode(JSON.stringify(written)), Uint8Array) : [new TextEncoder().encode(JSON.stringify(written))]
      if (all) {
        const bands = all.map((bytes) => JSON.parse(new TextDecoder().decode(bytes)) as CheckpointBand)
        await commitCheckpoint(checkpointDir!, into, { step, identity, bands, samples: packSamples(samples.series, samples.snapshots) })
      }
      // Every rank waits until the checkpoint is in place: none runs ahead of one that may yet fail it.
      await ranks?.barrier()
      pending = undefined
      lastCheckpoint = step
    }

    const key = runKey(p.backend, p.variant)
    const simulating = (done: number) => `simulating ${key}${size > 1 ? ` on ${size} ranks` : ''} · step ${done} of ${params.steps}`
    const progress = (ms: number) =>
      plan.update(params.steps > start ? (band.done - start) / (params.steps - start) : 1, {
        phase: simulating(band.done),
        ...(ms > 0 && { throughput: { value: (rows * cols * (band.done - start)) / ms / 1e3, unit: 'M cell-steps/s' } }),
      })

    if (!resumed && sampling) await sample()
    const overlap = size > 1 && overlapsExchanges(p.backend)
    const north = ranks?.previous
    const south = ranks?.next
    // The rows each neighbour takes as its halo: this band's first and last 2·S own rows.
    const edges: ([number, number] | undefined)[] = [north === undefined ? undefined : [own.r0 - a, p.halo], south === undefined ? undefined : [own.r1 - p.halo - a, p.halo]]
    if (overlap) await band.prepare(Math.min(p.every, params.steps), edges)
    /** Overlap: the edges of the block under way, on their way to the neighbours. */
    let sending: Promise<void> | undefined
    const receive = async () => {
      const t = performance.now()
      await sending
      const t1 = performance.now()
      const type = p.backend === 'gpu' ? Uint8Array : Float64Array
      const [fromNorth, fromSouth] = await Promise.all([
        north === undefined ? undefined : halos!.recv(north, type as typeof Float64Array),
        south === undefined ? undefined : halos!.recv(south, type as typeof Float64Array),
      ])
      const t2 = performance.now()
      await Promise.all([fromNorth && band.writeHalo(0, fromNorth), fromSouth && band.writeHalo(own.r1 - a, fromSouth)])
      const t3 = performance.now()
      phases.edges_wait_ms += t1 - t
      phases.wait_ms += t2 - t1
      phases.upload_ms += t3 - t2
      exchangeMs += t3 - t
    }
    const pipeline = overlap && p.backend === 'gpu' && pipelinesBlocks()
    /** Pipeline: the steps of blocks queued and not yet awaited, oldest first. */
    const inFlight: Promise<void>[] = []
    const drain = async (keep: number) => {
      const t = performance.now()
      while (inFlight.length > keep) await inFlight.shift()
      phases.compute_wait_ms += performance.now() - t
    }
    await warmUpGpu?.()
    plan.begin('simulating', simulating(band.done))
    // Every rank starts its clock together.
    await ranks?.barrier()
    let ms = 0
    /** Where the block of steps between two exchanges ends (blocks start at the first step). */
    let blockEnd = start
    while (band.done < params.steps) {
      const nextSample = sampling ? (Math.floor(band.done / every) + 1) * every : params.steps
      const nextCheckpoint = params.checkpointEvery ? (Math.floor(band.done / params.checkpointEvery) + 1) * params.checkpointEvery : Infinity
      const stop = Math.min(params.steps, nextSample, nextCheckpoint)
      while (band.done < stop) {
        const t = performance.now()
        if (size > 1 && band.done === blockEnd) {
          // The halos of this step (none needed at the first), then the next block.
          if (band.done > start) await (overlap ? receive() : exchange())
          blockEnd = Math.min(params.steps, band.done + p.every)
          if (overlap && blockEnd < params.steps) {
            // The neighbours' rows at the block's end first, sent while this band's steps run.
            // Pipelined, at most one earlier block still runs: the host stays a block ahead of the GPU.
            if (pipeline) await drain(1)
            const tq = performance.now()
            const block = await band.block(blockEnd - band.done, Math.min(stop, blockEnd) - band.done, edges, signal)
            const queued = performance.now()
            phases.queue_ms += queued - tq
            phases.blocks++
            sending = block.edges.then((rows) => {
              const ts = performance.now()
              phases.readback_ms += ts - queued
              if (rows[0]) halos!.send(north!, rows[0])
              if (rows[1]) halos!.send(south!, rows[1])
              phases.send_ms += performance.now() - ts
            })
            sending.catch(() => {})
            if (pipeline) inFlight.push(block.done)
            else {
              const tw = performance.now()
              await block.done
              phases.compute_wait_ms += performance.now() - tw
            }
            ms += performance.now() - t
            progress(ms)
            continue
          }
        }
        if (pipeline) await drain(0)
        await band.advance(Math.min(stop, size > 1 ? blockEnd : stop) - band.done, signal)
        ms += performance.now() - t
        progress(ms)
      }
      if (band.done === params.steps || band.done === nextSample) await sample()
      if (band.done === nextCheckpoint && band.done < params.steps) await checkpoint()
    }
    if (params.steps === 0 && !sampling) await sample()

    // Every rank's exchange time, on rank 0.
    // Where this rank computed, asked of the driver while its band still holds its buffers.
    const seen = device && (await observeRank(device))
    const myTimes: RankTimes = { exchange_ms: exchangeMs, ms, phases, ...(halos && { halos: halos.by }), ...(device && seen && { gpu_requested: device.requested, gpu_observed: seen.gpu, observed_by: seen.by }) }
    const mine = new TextEncoder().encode(JSON.stringify(myTimes))
    const times = (ranks ? await ranks.gather(mine, Uint8Array) : [mine])?.map((bytes) => JSON.parse(new TextDecoder().decode(bytes)) as RankTimes)
    if (times && device) Object.assign(gpuInfo, placementOf(times.map((t) => t.gpu_requested!), { gpus: times.map((t) => t.gpu_observed!), by: times[0].observed_by! }, 'rank'))
    let results: LandslideResult | undefined
    if (rank === 0) {
      let reference: Float64Array | undefined
      if (!sampling && !hooks.withoutReference) {
        plan.begin('reference', 'reference: active (f64) on rank 0')
        reference = await gpuReference(params, input, state, samples, given, ctx, (f) => plan.update(f))
      }
      plan.begin('finishing', 'finishing the results')
      await hooks.finalGrid?.(finalGrid!)
      results = finishRanks(params, input, state, p, finalGrid!, samples.series, samples.snapshots, every, times!, ms, p.backend === 'gpu' ? { grid: reference, run: gpuInfo } : undefined)
      if (checkpointDir) results.checkpoints = { every: params.checkpointEvery!, folder: checkpointDir, resumed_from: start, last: lastCheckpoint }
    }
    // Every rank returns rank 0's results (whoever runs a rank gets the job's outcome).
    if (ranks) {
      const bytes = await ranks.broadcast(results && new TextEncoder().encode(JSON.stringify(results)), Uint8Array)
      results = JSON.parse(new TextDecoder().decode(bytes)) as LandslideResult
      await ranks.close()
    }
    plan.finish('done')
    return { results: results!, timings: { [key]: timingOf([ms]) } }
  } catch (e) {
    if (pending && rank === 0) await discardPending(pending).catch(() => {})
    if (ranks?.error) throw ranks.error
    await ranks?.abort(ApiError.from(e).message)
    throw e
  } finally {
    halos?.close()
    await band.dispose().catch(() => {})
  }
}

