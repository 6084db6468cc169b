// A landslide job: read the grids, run the reference f64 simulation (the first CPU backend asked
// for, or `active`), recording the series and maps every K steps, then every other backend and
// GPU kernel, each `repeat` times. CPU runs report the md5 of their output, GPU runs their
// deviation from the reference grid (and, in double-float, their md5 too). One file: the job's
// sequence and its samples, shared by every backend's runs; the simulations are modules of their own.
import { availableParallelism } from 'node:os'
import { MAX_THREADS_PER_CORE } from '../../workers/pool'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import type { LandslideParams } from '../../../shared/workloads/landslide'
import {
  type CpuBackend,
  gpuArithmetic,
  type GpuVariant,
  type LandslideBackend,
  type LandslideResult,
  type LandslideRun,
  type LandslideSeries,
  MAX_SAMPLES,
  MAX_THICKNESS_MAPS,
  runKey,
  debrisVolume,
} from '../../../shared/workloads/landslide/types'
import { type EngineOutcome, type JobContext, withoutUnusableGpu } from '../../engine'
import { GpuSimulation, defaultStepsPerSubmit } from './gpu/gpu-simulation'
import { maxGpuBands, notInBands } from './gpu/gpu-bands'
import { type BandsRun, runBandProcesses } from './band-processes'
import { parseTiling, TILE_EXPECTED, tileInput, type Tiling } from './tiled-grid'
import { compileAhead } from '../../gpu/compile'
import { warmUp } from '../../gpu/timing'
import { rooflinePoint } from './gpu/kernel-costs'
import { meanDebrisCells } from '../../../shared/workloads/landslide/cell-work'
import { noDoubleFloat, VARIANTS } from './gpu/kernels'
import { keepFinalGrid } from './final-grid'
import { keepFinalGridFiles } from './kept-grid'
import { FrameKeeper, MAX_FRAME_BYTES, thicknessMapsInTurns } from './frames'
import { gridDeviation, appendSample } from './grid-stats'
import { reliefMap } from './hillshade'
import { gridSummary, readLandslideInput, type LandslideInput } from './inputs'
import { referenceMd5InTurns } from './reference-format'
import { initialStateInTurns, ThreadSimulation, type InitialState, type Simulation } from './simulation'
import { WorkersSimulation } from './workers-simulation'
import { ProgressPlan } from '../../../shared/progress-plan'
import { stepsAfterReading, weighGridFiles } from './progress-steps'

/** Samples over a run when `frames` is 0. */
const DEFAULT_SAMPLES = 20

interface Planned {
  backend: LandslideBackend
  variant?: GpuVariant
}

/** A progress slice long enough for the host's wait on a GPU not to count (see runOnce). */
const SLICE_MS = 100

/** Steps between samples: `frames`, or about 20 samples over the run; never more than MAX_SAMPLES samples. */
export function sampleEvery(steps: number, frames: number): number {
  return Math.max(frames > 0 ? frames : Math.ceil(steps / DEFAULT_SAMPLES), Math.ceil(steps / MAX_SAMPLES), 1)
}

/** How long a run computes before it lets the event loop answer others (requests, a cancel). */
const YIELD_MS = 50

/** A turn of the event loop for others (a server's requests, a cancel). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** What a caller may hand the job instead of having it compute them (bench landslide --tile). */
export interface GivenToJob {
  /** The grids, already in memory: `params.grids` are then only named, not read. */
  input?: LandslideInput
  /** The f64 thickness after `params.steps`, known otherwise: used instead of running `active` when no CPU backend is asked for. */
  reference?: Float64Array
  /** `input` is the grids' files tiled so (bench landslide --tile): how band processes build it again. */
  tile?: Tiling
}

export async function runLandslideJob(params: LandslideParams, ctx: JobContext, given: GivenToJob = {}): Promise<EngineOutcome<LandslideResult>> {
  const { signal } = ctx
  // Kernels that cannot run as asked (no double-float version, or not in bands) are left out, named;
  // all of them: the request is at fault.
  const arithmetic = gpuArithmetic(params.precision)
  const unusable = (v: GpuVariant): string | undefined =>
    arithmetic === 'double-float' && VARIANTS[v].doubleFloat === undefined ? noDoubleFloat(v) : (params.gpuBands ?? 1) > 1 ? notInBands(v) : undefined
  const lacking = params.backends.includes('gpu') ? params.variants.filter((v) => unusable(v) !== undefined) : []
  if (lacking.length > 0 && lacking.length === params.variants.length) throw new ApiError('invalid-argument', unusable(lacking[0])!)
  const tile = params.tile === undefined ? given.tile : tilingOf(params.tile)
  const ranks = params.ranks ?? availableParallelism()
  const every = sampleEvery(params.steps, params.frames)

  // Progress: reading the grids, every run's steps, checks and maps weighed by what they cost
  // (progress-steps.ts), the grid's cells guessed from the files' size until they are read.
  const plan = new ProgressPlan((p) => ctx.progress(p), [])
  const weigh = (cells: number, runs: Planned[], bands: number) =>
    stepsAfterReading({
      cells,
      runs,
      bands,
      activeFirst: !runs.some((q) => q.backend !== 'gpu') && !given.reference,
      steps: params.steps,
      repeat: params.repeat,
      samples: Math.ceil(params.steps / every) + 1,
      arithmetic,
      threads: ranks,
      warmupMs: params.warmup ?? 0,
      keep: !!ctx.keep,
    })
  const asked = runOrder(params.backends, params.variants)
  const input =
    given.input ??
    (await readJobInput(params, ctx, async (files) => {
      const { cost, cells } = await weighGridFiles(files, params.grids)
      plan.replan([{ key: 'loading', cost }, ...weigh(cells, asked, params.gpuBands ?? 1)])
      plan.begin('loading', 'loading grids')
    }))
  if (given.input) plan.replan(weigh(input.rows * input.cols, asked, params.gpuBands ?? 1))
  plan.begin('preparing', 'preparing the grids')
  // Each of these passes over a big grid takes a good part of a second: a turn for others between them.
  await turn()
  const state = await initialStateInTurns(input, turn)
  await turn()
  const bands = gpuBandsOf(params, state.rows)
  // Refused before any run: band processes rebuild the grid from its files.
  if (bands > 1 && params.backends.includes('gpu') && given.input && !tile)
    throw new ApiError('invalid-argument', `--gpu-bands ${bands} runs each band as a process, which reads the grids from their files; this job's grid was handed to it in memory`)
  throwIfAborted(signal)

  const skipped: LandslideResult['skipped'] = []
  const backends = await withoutUnusableGpu(params.backends, (b) => b === 'gpu', ctx, skipped)
  if (backends.includes('gpu')) for (const v of lacking) skipped.push({ backend: runKey('gpu', v), reason: unusable(v)! })
  const variants = params.variants.filter((v) => !lacking.includes(v))
  // The reference (the first CPU backend) runs first, whatever the order asked: GPU runs are measured against it.
  const order = runOrder(backends, variants)
  const firstCpu = backends.find((b): b is CpuBackend => b !== 'gpu')
  const referenceBackend: CpuBackend = firstCpu ?? 'active'
  const mostRanks = availableParallelism() * MAX_THREADS_PER_CORE
  if (ranks > mostRanks && backends.some((b) => b === 'workers' || b === 'workers-active'))
    throw new ApiError('invalid-argument', `--ranks ${ranks}: the workers backends run a thread a rank, and this machine runs at most ${mostRanks} (${MAX_THREADS_PER_CORE} per core)`)

  // The grid and the runs are known now: every step weighed by them.
  const cells = input.rows * input.cols
  plan.replan(weigh(cells, order, bands))
  const progress = (key: string, done: number, ms: number) =>
    plan.update(params.steps > 0 ? done / params.steps : 1, {
      phase: `simulating ${key} · step ${done} of ${params.steps}`,
      ...(ms > 0 && { throughput: { value: (cells * done) / ms / 1e3, unit: 'M cell-steps/s' } }),
    })

  const series: LandslideSeries = { step: [], mass: [], flooded: [], max_thickness: [], active: [] }
  // Every sample a frame of the animation, up to MAX_THICKNESS_MAPS of them and MAX_FRAME_BYTES of
  // snapshots (the first and last included); beyond, every stride-th, said in `sampling`. The count's
  // stride is chosen before the run from the samples it will take; the bytes' doubles it as needed.
  const samples = Math.ceil(params.steps / every) + 1
  const frames = new FrameKeeper(input.rows, input.cols, Math.max(1, Math.ceil((samples - 1) / (MAX_THICKNESS_MAPS - 1))))
  // Two passes over the grid (the totals, the debris' box): a turn for others after each.
  const record = async (step: number, h: Float64Array) => {
    appendSample(series, step, h, input.rows, input.cols, input.walls)
    await turn()
    frames.offer(step, h)
    await turn()
  }

  const runs: Record<string, LandslideRun> = {}
  const timings: Record<string, Timing> = {}
  let reference: { grid: Float64Array; md5: string } | undefined
  let partial = false

  /** A sampling run's last sample: the grid (one buffer, overwritten) and the time at a step the series holds. */
  let lastSample: { step: number; ms: number; grid: Float64Array } | undefined
  const lastGrid = new Float64Array(input.rows * input.cols)
  /** Set when the reference run was cancelled midway: the step its kept sample is of. */
  let stoppedAt: number | undefined

  const runOnce = async (p: Planned, sampling: boolean): Promise<{ ms: number; grid: Float64Array; sim: Simulation }> => {
    const key = runKey(p.backend, p.variant)
    const sim = await createSimulation(p, state, params, ranks, ctx)
    await turn()
    let ms = 0
    const sample = async () => {
      const h = await sim.thickness()
      await record(sim.done, h)
      lastGrid.set(h)
      lastSample = { step: sim.done, ms, grid: lastGrid }
    }
    let yielded = performance.now()
    try {
      if (sampling) await sample()
      // Slices for progress reports (a simulation yields within them to stay cancellable): a
      // fiftieth of the run at first, doubled while one takes under SLICE_MS, since on a fast GPU
      // each slice's wait for the device would otherwise cost more than its steps.
      // A GPU slice is two submits at least, so that its second is queued while its first runs (advance).
      let most = Math.max(1, Math.ceil(params.steps / 50), sim instanceof GpuSimulation ? 2 * sim.stepsPerSubmit : 0)
      while (sim.done < params.steps) {
        const next = sampling ? Math.min(params.steps, (Math.floor(sim.done / every) + 1) * every) : params.steps
        while (sim.done < next) {
          const t = performance.now()
          await sim.advance(Math.min(next - sim.done, most), signal)
          const dt = performance.now() - t
          ms += dt
          if (dt < SLICE_MS) most *= 2
          progress(key, sim.done, ms)
          // Short slices (a sample every step) would otherwise keep the event loop from anything else.
          if (performance.now() - yielded > YIELD_MS) {
            await new Promise((resolve) => setImmediate(resolve))
            throwIfAborted(signal)
            yielded = performance.now()
          }
        }
        if (sampling) await sample()
      }
      return { ms, grid: (await sim.thickness()).slice(), sim }
    } catch (e) {
      // The reference cancelled midway keeps the steps up to its last sample: a shorter run, marked partial.
      if (!sampling || !signal.aborted || !lastSample || lastSample.step === 0) throw e
      stoppedAt = lastSample.step
      return { ms: lastSample.ms, grid: lastSample.grid.slice(), sim }
    } finally {
      await sim.dispose()
    }
  }

  /** Untimed steps of a GPU kernel for `params.warmup` ms, so that its timed runs find the GPU's clock up. */
  const warmUpGpu = async (p: Planned): Promise<void> => {
    const key = runKey(p.backend, p.variant)
    plan.begin(`warm-up ${key}`, `warming up ${key}`)
    const sim = await createSimulation(p, state, params, ranks, ctx)
    const ms = params.warmup ?? 0
    const t0 = performance.now()
    try {
      await warmUp(() => sim.advance(Math.max(1, Math.min(params.steps, 100)), signal).then(() => plan.update((performance.now() - t0) / ms)), ms, signal)
    } finally {
      await sim.dispose()
    }
  }

  /** The steps the runs computed: all asked for, or those of a reference cancelled midway. */
  const steps = () => stoppedAt ?? params.steps

  /** The gpu backend in band processes (band-processes.ts): one run, as runOnce gives it. */
  const runInBands = async (p: Planned): Promise<{ ms: number; grid: Float64Array; run: BandsRun }> => {
    const files: string[] = []
    for (const path of params.grids) files.push(await ctx.input(path))
    return runBandProcesses({
      recipe: { files, ...(tile && { tile }) },
      bands,
      steps: params.steps,
      variant: p.variant ?? 'fused',
      precision: params.precision,
      warmup: params.warmup ?? 0,
      ...(params.exchangeEvery !== undefined && { exchangeEvery: params.exchangeEvery }),
      rows: input.rows,
      cols: input.cols,
      signal,
    })
  }

  const runPlanned = async (p: Planned, isReference: boolean): Promise<void> => {
    const key = runKey(p.backend, p.variant)
    const samples: number[] = []
    let grid!: Float64Array
    let sim: Simulation | undefined
    let inBands: BandsRun | undefined
    const banded = p.backend === 'gpu' && bands > 1
    // Band processes compile and warm up their own devices.
    const compile_ms =
      p.backend === 'gpu' && !banded ? await compileAhead((phase) => plan.begin(`compile ${key}`, phase), key, () => compileGpuKernels(p, params, ctx)) : undefined
    if (p.backend === 'gpu' && !banded && (params.warmup ?? 0) > 0) await warmUpGpu(p)
    for (let r = 0; r < params.repeat; r++) {
      if (banded) {
        // Heard of when it ends: the band processes report to nobody meanwhile.
        plan.begin(`run ${key}`, `simulating ${key} in ${bands} band processes`)
        const once = await runInBands(p)
        samples.push(once.ms)
        grid = once.grid
        inBands = once.run
        continue
      }
      plan.begin(`run ${key}`, `simulating ${key} · step 0 of ${params.steps}`)
      const once = await runOnce(p, isReference && r === 0)
      samples.push(once.ms)
      grid = once.grid
      sim = once.sim
      if (stoppedAt !== undefined) break
    }
    plan.begin(`check ${key}`, `checking ${key}`)
    const timing = timingOf(samples)
    timings[key] = timing
    const precision = p.backend === 'gpu' ? arithmetic : 'f64'
    // f64 and double-float grids: their md5 says whether they print as the reference does (f32 ones, judged by deviation, seldom would).
    const md5 = precision === 'f32' ? undefined : await referenceMd5InTurns(grid, input.rows, input.cols)
    if (isReference) reference = { grid, md5: md5! }
    let mass = 0
    for (let k = 0; k < grid.length; k++) mass += grid[k]
    runs[key] = {
      backend: p.backend,
      ...(p.variant && { variant: p.variant }),
      precision,
      ...(sim instanceof WorkersSimulation && { ranks: sim.ranks }),
      ms: timing.median,
      ms_min: timing.min,
      ms_max: timing.max,
      ms_per_step: steps() > 0 ? timing.median / steps() : 0,
      ...(sim instanceof GpuSimulation && { steps_per_submit: sim.stepsPerSubmit, passes_per_step: sim.passesPerStep }),
      ...inBands,
      ...(md5 !== undefined && { md5 }),
      ...(compile_ms !== undefined && { compile_ms }),
      mass_end: mass,
      volume_end: debrisVolume(mass, input.header.cellsize),
      ...(p.backend === 'gpu' && { deviation: gridDeviation(grid, reference!.grid) }),
    }
  }

  if (!firstCpu && given.reference) {
    reference = { grid: given.reference, md5: await referenceMd5InTurns(given.reference, input.rows, input.cols) }
    await record(0, input.h)
    await record(params.steps, given.reference)
  } else if (!firstCpu) {
    // Only GPU kernels asked for: their deviations need an f64 run to compare with.
    await runPlanned({ backend: 'active' }, true)
    delete runs.active
    delete timings.active
    // Cancelled within it: no run the user asked for had finished.
    if (stoppedAt !== undefined) throwIfAborted(signal)
  }
  for (const p of order) {
    try {
      await runPlanned(p, p.backend === firstCpu && reference === undefined)
      if (stoppedAt !== undefined) {
        partial = true
        break
      }
    } catch (e) {
      // Cancelled after some runs finished: keep those, marked partial.
      if (!signal.aborted || !reference || Object.keys(runs).length === 0) throw e
      partial = true
      break
    }
  }
  if (!reference) throw new ApiError('internal', 'landslide: no reference run')
  plan.begin('maps', 'maps')
  // Kept for the files made after the job (the final grid's downloads, the full-resolution frame).
  keepFinalGrid(input, steps(), reference.md5, reference.grid)

  // Every GPU run's roofline point, once the reference's series says where the debris was.
  const debrisCells = meanDebrisCells(series)
  // Not for runs in bands: their rate is several devices' (or one device's with halos), not a kernel's on one roof.
  for (const run of Object.values(runs)) {
    if (run.gpus_requested) continue
    const point = rooflinePoint(run, input, debrisCells)
    if (point) run.roofline = point
  }

  // The last sample is a frame too: the final state, which the reference's grid is.
  const lastStep = series.step.at(-1)
  const kept = lastStep === undefined ? [] : frames.finish(lastStep, reference.grid)
  let massStart = 0
  for (let k = 0; k < input.h.length; k++) massStart += input.h[k]
  const maps = await thicknessMapsInTurns(kept, input.rows, input.cols)
  // The relief the debris runs over: the DEM with the source carved out, as the simulation sees it.
  const hillshade = maps[0] && reliefMap(state.z, input.rows, input.cols, input.walls, input.header.cellsize, maps[0])
  const results: LandslideResult = {
    grid: gridSummary(input),
    steps: steps(),
    reference: {
      backend: referenceBackend,
      md5: reference.md5,
      mass_start: massStart,
      mass_end: series.mass.at(-1) ?? massStart,
      volume_start: debrisVolume(massStart, input.header.cellsize),
      volume_end: debrisVolume(series.mass.at(-1) ?? massStart, input.header.cellsize),
    },
    runs,
    series,
    maps,
    sampling: { every, maps_every: every * frames.stride, ...(params.frames > 0 && params.frames !== every && { asked: params.frames }), ...(frames.thinnedByBytes && { frame_bytes: MAX_FRAME_BYTES }) },
    ...(hillshade && { hillshade }),
    skipped,
  }
  // A dashboard's run keeps its final grid on disk, for its result files (kept-grid.ts).
  if (ctx.keep) {
    plan.begin('keeping', 'keeping the final grid')
    await keepFinalGridFiles(ctx.keep, results, { input, h: reference.grid })
  }
  // What was asked and did not finish: the runs not made, and the steps a reference stopped midway lacks.
  const missing = [
    ...(stoppedAt !== undefined ? [`steps ${stoppedAt + 1}–${params.steps}`] : []),
    ...order.map((p) => runKey(p.backend, p.variant)).filter((key) => !(key in runs)),
  ]
  plan.finish('done')
  return { results, timings, ...(partial && { partial, missing }) }
}


/** `--tile`'s RxC, or a refusal naming the value. */
function tilingOf(text: string): Tiling {
  const t = parseTiling(text)
  if (!t) throw new ApiError('invalid-argument', `tile must be ${TILE_EXPECTED}, got ${JSON.stringify(text)}`)
  return t
}

/**
 * The grids named by `grids`, through the job's inputs (one at a time: they are listed in order),
 * tiled as `tile` asks; `reading` is told their real paths before they are read (to weigh the job by their size).
 */
export async function readJobInput(
  params: Pick<LandslideParams, 'grids' | 'tile'>,
  ctx: Pick<JobContext, 'input' | 'signal'>,
  reading?: (files: string[]) => Promise<void>,
): Promise<LandslideInput> {
  const tile = params.tile === undefined ? undefined : tilingOf(params.tile)
  const real: string[] = []
  for (const path of params.grids) real.push(await ctx.input(path))
  await reading?.(real)
  const input = await readLandslideInput(params.grids, real, ctx.signal)
  return tile ? tileInput(input, tile) : input
}

/** The runs in the order a job makes them: the reference (the first CPU backend) first, whatever the order asked. */
function runOrder(backends: readonly LandslideBackend[], variants: readonly GpuVariant[]): Planned[] {
  const firstCpu = backends.find((b) => b !== 'gpu')
  const all = backends.flatMap((b): Planned[] => (b === 'gpu' ? variants.map((variant) => ({ backend: b, variant })) : [{ backend: b }]))
  return [...all.filter((q) => q.backend === firstCpu), ...all.filter((q) => q.backend !== firstCpu)]
}

/** A GPU run's kernels, compiled on the job's device ahead of its simulations (bands on other devices compile theirs as they open). */
async function compileGpuKernels(p: Planned, params: Pick<LandslideParams, 'precision'>, ctx: Pick<JobContext, 'gpu'>): Promise<void> {
  await GpuSimulation.kernels(await ctx.gpu(), p.variant ?? 'fused', { arithmetic: gpuArithmetic(params.precision) })
}

/** Row bands of the gpu backend asked for, at most as many as the grid can hold (each a process when more than one: band-processes.ts). */
function gpuBandsOf(params: Pick<LandslideParams, 'gpuBands'>, rows: number): number {
  return Math.min(params.gpuBands ?? 1, maxGpuBands(rows))
}

/** A simulation on this process (a gpu one on its one device; several bands run as processes, runBandProcesses). */
export async function createSimulation(
  p: Planned,
  state: InitialState,
  params: Pick<LandslideParams, 'steps' | 'stepsPerSubmit' | 'precision'>,
  ranks: number,
  ctx: Pick<JobContext, 'gpu'>,
): Promise<Simulation> {
  switch (p.backend) {
    case 'serial':
      return new ThreadSimulation(state, false)
    case 'active':
      return new ThreadSimulation(state, true)
    case 'workers':
      return new WorkersSimulation(state, ranks, false)
    case 'workers-active':
      return new WorkersSimulation(state, ranks, true)
    case 'gpu': {
      const gpu = await ctx.gpu()
      const variant = p.variant ?? 'fused'
      const stepsPerSubmit = params.stepsPerSubmit ?? defaultStepsPerSubmit(gpu)
      const arithmetic = gpuArithmetic(params.precision)
      return GpuSimulation.create(gpu, state, variant, stepsPerSubmit, { arithmetic })
    }
  }
}
