// A statistics job, as the accelerometer study ran it: load each file, then run every chosen
// backend R times on prefixes n/K, 2n/K, …, n of each column and keep the median time. The f64
// reference results are the first f64 backend's (all are exact), or for f32 runs a separate f64
// run of the fastest CPU backend.
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { ApiError } from '../../../shared/errors'
import {
  DEFAULT_STATS_COLUMNS,
  type BackendColumnStats,
  type BackendRun,
  type BatchPoint,
  type ColumnStats,
  type Deviation,
  type Precision,
  type StatsBackend,
  type StatsFileResult,
  type StatsResult,
} from '../../../shared/workloads/stats/types'
import type { StatsParams } from '../../../shared/workloads/stats'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import { throwIfAborted } from '../../../shared/cancel'
import { median } from '../../../shared/median'
import { type EngineOutcome, type JobContext, withoutUnusableGpu } from '../../engine'
import { compileAhead } from '../../gpu/compile'
import type { CsvTable } from '../../io/csv-loader'
import { loadTable, readTableHeader, tableFormat } from '../../io/table-loader'
import { nameList } from '../../io/quote'
import { createStatsEngine, type StatsEngine } from './stats-engine'
import type { CpuStatsBackend, PreparedColumn } from './cpu-engine'
import { CpuHeadStart } from './cpu-head-start'
import type { GpuHeadStart } from './gpu/head-start'
import { failureText } from './describe'
import { type ArrayFormat, arrayFormatOf } from '../../io/hdf5/array-file'
import { readDatasetColumns } from './read-datasets'
import { addSpan } from '../../timeline'
import { ProgressPlan } from '../../../shared/progress-plan'
import { fileSteps, type LoadFormat } from './progress-steps'

/** The backend of the f64 reference for f32 runs: exact, and the fastest on the CPU. */
const REFERENCE_BACKEND: StatsBackend = 'workers-simd'

export async function runStatsJob(params: StatsParams, ctx: JobContext): Promise<EngineOutcome<StatsResult>> {
  const { signal } = ctx
  const result: StatsResult = { files: [], failed: [], skipped: [] }
  const timings: Record<string, Timing> = {}
  // A file that cannot be analysed is that file's failure; the run goes on unless failFast.
  const fail = (path: string, e: unknown) => {
    if (params.failFast || signal.aborted) throw e
    // No GPU is the backend's problem, not the file's: every file would fail alike, so the run does, saying so.
    const err = ApiError.from(e)
    if (err.code === 'gpu-unavailable') throw new ApiError(err.code, `--backend gpu cannot run: ${err.message}`)
    result.failed.push({ path, error: ApiError.from(e).toJSON() })
  }
  const inputs: { shown: string; path: string; bytes: number }[] = []
  for (const shown of params.files) {
    try {
      const path = await ctx.input(shown)
      inputs.push({ shown, path, bytes: (await stat(path)).size })
    } catch (e) {
      fail(shown, e)
    }
  }
  const backends = await withoutUnusableGpu(params.backends, (b) => b === 'gpu', ctx, result.skipped)

  // Progress: every file's loading and runs weighed by what they cost (progress-steps.ts), a file's
  // rows guessed from its size until it is read, then weighed again.
  const formats: LoadFormat[] = []
  for (const input of inputs) formats.push((await arrayFormatOf(input.shown, input.path)) ?? (await tableFormat(input.path)))
  const shape = { columns: params.columns?.length ?? DEFAULT_STATS_COLUMNS.length, backends, precision: params.precision, reference: REFERENCE_BACKEND, batches: params.batches, repeat: params.repeat }
  const stepsOf = (k: number, known?: { rows: number; columns: number }) => fileSteps(inputs[k].bytes, formats[k], { ...shape, ...known })
  const plan = new ProgressPlan((p) => ctx.progress(p), inputs.flatMap((_, k) => stepsOf(k)))
  let partial = false
  let missing: string[] = []
  // Several files: runs are named by file and backend, as the timings name them.
  const named = (shown: string, backends: string[]) => (params.files.length === 1 ? backends : backends.map((b) => `${shown}: ${b}`))
  for (const [k, input] of inputs.entries()) {
    // Phases name the file, and which of several it is.
    const label = `${basename(input.shown)}${inputs.length > 1 ? ` (file ${k + 1} of ${inputs.length})` : ''}`
    const progress: FileProgress = {
      plan,
      loaded: (known) => plan.replan([...stepsOf(k, known), ...inputs.slice(k + 1).flatMap((_, j) => stepsOf(k + 1 + j))]),
    }
    try {
      const file = await statsForFile(input.shown, input.path, label, { ...params, backends }, ctx, progress)
      result.files.push(file.result)
      partial = file.partial
      if (partial) missing = named(input.shown, file.missing)
      // One file: timings by backend; several: by the file as given (a/x.csv and b/x.csv differ) and backend.
      for (const [backend, samples] of Object.entries(file.samples))
        timings[params.files.length === 1 ? backend : `${input.shown}: ${backend}`] = timingOf(samples)
    } catch (e) {
      if (signal.aborted && result.files.length > 0) {
        partial = true
        missing = [input.shown]
      } else fail(input.shown, e)
    }
    if (partial) {
      missing.push(...inputs.slice(k + 1).map((i) => i.shown))
      break
    }
  }
  if (result.files.length === 0 && result.failed.length > 0) throw noFileAnalysed(result.failed)
  plan.finish('done')
  return { results: result, timings, ...(partial && { partial, missing }) }
}

/** A run in which every file failed is a failed run (no result set is written), named by its files' errors. */
function noFileAnalysed(failed: StatsResult['failed']): ApiError {
  if (failed.length === 1) return new ApiError(failed[0].error.code, failureText(failed[0]))
  return new ApiError('invalid-input', `none of the ${failed.length} files could be analysed: ${failed.map(failureText).join('; ')}`)
}


/** A file's part of the job's progress plan. */
interface FileProgress {
  plan: ProgressPlan
  /** The file is read: its steps weighed again by its rows and columns. */
  loaded(known: { rows: number; columns: number }): void
}

/** What a backend's runs tell of themselves (runBackend). */
interface BackendTrack {
  /** Its kernels compile, before any timed run (`phase` names it). */
  compiling(phase: string): void
  /** The fraction of its runs' work done, in its repeat `repeat` (from 1). */
  running(fraction: number, repeat: number): void
}

/** One file's statistics, and per backend the milliseconds of each repeat over all its columns (whole column). */
async function statsForFile(
  shown: string,
  path: string,
  label: string,
  params: StatsParams,
  ctx: JobContext,
  progress: FileProgress,
): Promise<{ result: StatsFileResult; samples: Record<string, number[]>; partial: boolean; missing: string[] }> {
  progress.plan.begin('loading', `loading ${label}`)
  // HDF5 and NetCDF (known by content): each column a 1-D dataset, named with --columns.
  const arrays = await arrayFormatOf(shown, path)
  const columns = arrays ? (params.columns ?? []).map((c) => '/' + c.replace(/^\/+/, '')) : await chooseColumns(shown, path, params.columns)
  // The gpu backend's device, kernels and upload, and the first CPU backend's threads and
  // WebAssembly, start with the load, overlapping it. The GPU code is loaded only when it runs.
  const gpu = params.backends.includes('gpu') ? await import('./gpu/head-start') : undefined
  const headStart = gpu && new gpu.GpuHeadStart(columns.length, params.precision, ctx)
  const firstCpu = params.precision !== 'f64' ? REFERENCE_BACKEND : params.backends.find((b) => b !== 'gpu')
  const cpuStart = firstCpu && firstCpu !== 'gpu' ? new CpuHeadStart(firstCpu, ctx.signal) : undefined
  try {
    return await statsForTable(shown, path, label, columns, params, ctx, progress, { gpu: headStart, cpu: cpuStart, loaderThreads: gpu?.loaderThreadsBesideGpu, arrays })
  } finally {
    await Promise.all([headStart?.cancel(), cpuStart?.cancel()])
  }
}

/** Engines begun with the load (see gpu/head-start.ts and cpu-head-start.ts). */
interface HeadStarts {
  gpu?: GpuHeadStart
  cpu?: CpuHeadStart
  /** The loader's threads beside a GPU head start. */
  loaderThreads?: () => number
  /** The file is HDF5 or NetCDF: its columns are datasets. */
  arrays?: ArrayFormat
}

async function statsForTable(
  shown: string,
  path: string,
  label: string,
  columns: string[],
  params: StatsParams,
  ctx: JobContext,
  progress: FileProgress,
  starts: HeadStarts,
): Promise<{ result: StatsFileResult; samples: Record<string, number[]>; partial: boolean; missing: string[] }> {
  const { signal } = ctx
  const { plan } = progress
  const headStart = starts.gpu
  const t0 = performance.now()
  const table = starts.arrays
    ? await readDatasetColumns(shown, path, starts.arrays, params.columns, {
        signal,
        progress: (f) => {
          headStart?.loading()
          starts.cpu?.loading()
          plan.update(f)
        },
      })
    : await loadTable(path, {
        columns,
        signal,
        ...(headStart && starts.loaderThreads && { threads: starts.loaderThreads() }),
        progress: (p) => {
          headStart?.loading()
          starts.cpu?.loading()
          const s = (performance.now() - t0) / 1000
          plan.update(p.bytesRead / p.totalBytes, { phase: `loading ${label} · ${(p.rows / 1e6).toFixed(1)} M rows`, ...(s > 0 && { throughput: { value: p.bytesRead / 1e6 / s, unit: 'MB/s' } }) })
        },
        placed: headStart && ((prefixes) => headStart.grow(prefixes)),
      })

  addSpan(`load ${basename(shown)}`, t0, performance.now(), true)
  progress.loaded({ rows: table.rows, columns: columns.length })

  // Every backend is exact in f64, so an f64 run is itself the reference; f32 runs need one.
  const needReference = params.precision !== 'f64'
  /** A backend's runs as steps of the plan: a GPU's begin with its preparation (the device, the upload, the kernels). */
  const track = (key: string, phaseOf: (repeat: number) => string, preparing?: string): BackendTrack => {
    plan.begin(preparing ? 'compile' : key, preparing ?? phaseOf(1))
    let running = !preparing
    return {
      compiling: (phase) => plan.update(0, { phase: `${phase} · ${label}` }),
      running: (fraction, repeat) => {
        if (!running) plan.begin(key, phaseOf(repeat))
        running = true
        plan.update(fraction, { phase: phaseOf(repeat) })
      },
    }
  }

  const backends: Record<string, BackendRun> = {}
  const batches: BatchPoint[] = prefixes(table.rows, params.batches).map((rows) => ({ rows, backends: {} }))
  let reference: Record<string, BackendColumnStats> | undefined
  if (needReference) {
    reference = (await runBackend(REFERENCE_BACKEND, 'f64', table, columns, 1, 1, ctx, track('reference', () => `f64 reference · ${label}`), starts)).full
  }
  const samples: Record<string, number[]> = {}
  let partial = false
  let missing: string[] = []
  for (const [b, backend] of params.backends.entries()) {
    let run: BackendOutcome
    try {
      run = await runBackend(
        backend,
        params.precision,
        table,
        columns,
        params.batches,
        params.repeat,
        ctx,
        track(`run ${backend}`, (r) => `${backend} ${params.precision} · ${label} · repeat ${r} of ${params.repeat}`, backend === 'gpu' ? `gpu: preparing · ${label}` : undefined),
        starts,
      )
    } catch (e) {
      // Cancelled: the backends that finished are kept, and the result is marked partial.
      if (!signal.aborted || !reference || Object.keys(backends).length === 0) throw e
      partial = true
      missing = params.backends.slice(b)
      break
    }
    samples[backend] = run.fullSamples
    reference ??= run.full
    backends[backend] = {
      precision: params.precision,
      compute_ms: run.times.at(-1)!,
      ...(run.upload_ms !== undefined && { upload_ms: run.upload_ms }),
      ...(run.compile_ms !== undefined && { compile_ms: run.compile_ms }),
      columns: {},
    }
    run.perBatch.forEach((point, k) => (batches[k].backends[backend] = point))
    for (const c of columns) backends[backend].columns[c] = run.full[c]
  }
  const refColumns: Record<string, ColumnStats> = {}
  for (const c of columns) {
    const r = reference![c]
    refColumns[c] = { n: table.columns[c].values.length, missing: table.columns[c].missing, ...r }
    if (params.precision !== 'f64') for (const run of Object.values(backends)) run.columns[c] = { ...run.columns[c], deviation: deviation(run.columns[c], r) }
  }
  return { result: { path: shown, rows: table.rows, bytes: table.bytes, load_ms: table.load_ms, columns: refColumns, backends, batches }, samples, partial, missing }
}

/** The requested columns, or the dataset's acc_x, acc_y, acc_z that the file has. */
async function chooseColumns(shown: string, path: string, requested?: string[]): Promise<string[]> {
  if (requested?.length) return [...new Set(requested)]
  const header = await readTableHeader(path)
  const present = DEFAULT_STATS_COLUMNS.filter((c) => header.includes(c))
  if (present.length === 0)
    throw new ApiError('invalid-input', `${shown}: none of the default columns ${DEFAULT_STATS_COLUMNS.join(', ')}; columns are: ${nameList(header)} (choose with --columns)`)
  return present
}

/** Row counts of the K prefixes: n/K, 2n/K, …, n. */
export function prefixes(n: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.max(1, Math.round((n * (i + 1)) / k)))
}

interface BackendOutcome {
  full: Record<string, BackendColumnStats>
  /** Compute time per prefix: the sum over column groups (all columns, or one) of each group's median time. */
  times: number[]
  perBatch: BatchPoint['backends'][string][]
  /** Milliseconds of each repeat on the whole columns, summed over the columns. */
  fullSamples: number[]
  upload_ms?: number
  compile_ms?: number
}

/**
 * Runs one backend over every prefix, `repeat` times each. The GPU computes every column
 * together; CPU engines are given one column at a time, so that one that copies data (to shared
 * or wasm memory) holds one column's copy at once.
 */
async function runBackend(
  backend: StatsBackend,
  precision: Precision,
  table: CsvTable,
  columns: string[],
  batches: number,
  repeat: number,
  ctx: JobContext,
  track: BackendTrack,
  /** Engines begun with the load: the gpu backend's (with its columns), a CPU backend's. */
  starts: HeadStarts = {},
): Promise<BackendOutcome> {
  const { signal } = ctx
  const t0 = performance.now()
  const started = backend === 'gpu' ? await starts.gpu?.ready(columns.map((c) => table.columns[c].values)) : undefined
  let prepareMs = performance.now() - t0
  if (started) addSpan('gpu: waiting for the device and the upload', t0)
  const begun = backend === 'gpu' ? undefined : starts.cpu?.take(backend as CpuStatsBackend)
  const t1 = performance.now()
  const engine: StatsEngine = started?.engine ?? (await begun) ?? (await createStatsEngine(backend, { signal, gpu: ctx.gpu }))
  if (!started) addSpan(`${backend}: waiting for the engine after the load`, t1)
  const fullSamples = new Array<number>(repeat).fill(0)
  const times = new Array<number>(batches).fill(0)
  const perBatch: BackendOutcome['perBatch'] = Array.from({ length: batches }, () => ({ compute_ms: 0, columns: {} }))
  const full: Record<string, BackendColumnStats> = {}
  // Progress by values computed: every repeat of every prefix of every column.
  const prefixOf = (n: number, k: number) => Math.max(Math.min(n, 1), Math.round((n * k) / batches))
  let work = 0
  for (const c of columns) for (let k = 1; k <= batches; k++) work += repeat * prefixOf(table.columns[c].values.length, k)
  let done = 0
  const share = (values: number) => (work > 0 ? values / work : 1)
  try {
    let compile_ms: number | undefined
    for (const group of engine.columnsTogether ? [columns] : columns.map((c) => [c])) {
      const prepared: PreparedColumn[] = []
      try {
        const t = performance.now()
        for (const c of group) prepared.push(started?.columns[columns.indexOf(c)] ?? (await engine.prepare(table.columns[c].values, precision)))
        prepareMs += performance.now() - t
        if (!started) addSpan(`${backend}: preparing columns (copies, uploads)`, t)
        const tc = performance.now()
        // Compiled (begun beside the upload) before any timed run.
        if (engine.compileKernels) compile_ms = (compile_ms ?? 0) + (await compileAhead(track.compiling, `${backend} ${precision}`, () => engine.compileKernels!(precision)))
        if (engine.compileKernels) addSpan(`${backend}: waiting for its pipelines`, tc)
        for (let k = 1; k <= batches; k++) {
          const lengths = prepared.map((p) => prefixOf(p.n, k))
          const cost = lengths.reduce((a, b) => a + b, 0)
          const samples: number[] = []
          let stats!: BackendColumnStats[]
          for (let r = 0; r < repeat; r++) {
            throwIfAborted(signal)
            track.running(share(done), r + 1)
            const t = performance.now()
            stats = await engine.computeMany(prepared, lengths, (f) => track.running(share(done + f * cost), r + 1))
            samples.push(performance.now() - t)
            addSpan(`${backend} ${precision}: compute`, t)
            if (k === batches) fullSamples[r] += samples[r]
            done += cost
            track.running(share(done), r + 1)
          }
          times[k - 1] += median(samples)
          group.forEach((c, i) => {
            perBatch[k - 1].columns[c] = { cv: stats[i].cv, mad: stats[i].mad, median: stats[i].median }
            if (k === batches) full[c] = stats[i]
          })
        }
      } finally {
        for (const p of prepared) engine.release(p)
      }
    }
    times.forEach((ms, k) => (perBatch[k].compute_ms = ms))
    return { full, times, perBatch, fullSamples, ...(backend === 'gpu' && { upload_ms: prepareMs }), ...(compile_ms !== undefined && { compile_ms }) }
  } finally {
    await engine.dispose()
  }
}

function deviation(got: BackendColumnStats, ref: BackendColumnStats): Deviation {
  return {
    cv_rel: Math.abs(got.cv - ref.cv) / Math.abs(ref.cv),
    median_abs: Math.abs(got.median - ref.median),
    mad_abs: Math.abs(got.mad - ref.mad),
  }
}
