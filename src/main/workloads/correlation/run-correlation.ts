// A correlation job, as the study ran it and past it: load the series, run steps 2–5 on every
// chosen backend R times (each stage timed; on the GPU each chosen kernel), compare every matrix
// with the f64 reference, rank the series by their correlation with the others, and write the
// matrix if asked. With `pair`, only the two series' overlay. One file: the job's sequence, whose
// steps share its progress plan and the partial result a cancel returns; each step's work is in a
// module of its own (load-series, cpu-engine, gpu/, ranking, write-matrix-file).
import { access, stat } from 'node:fs/promises'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import { median } from '../../../shared/median'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import type { CorrelationParams } from '../../../shared/workloads/correlation'
import {
  type BackendRun,
  type CorrelationBackend,
  type CorrelationResult,
  type CpuCorrelationBackend,
  type CrossVariant,
  type MeansVariant,
  type Precision,
  type Spread,
  type Stage,
  type VariantRun,
  STAGES,
} from '../../../shared/workloads/correlation/types'
import { type EngineOutcome, type JobContext, withoutUnusableGpu } from '../../engine'
import { createCpuCorrelationEngine } from './cpu-engine'
import { compileGpuCorrelationKernels, createGpuCorrelationEngine } from './gpu/gpu-engine'
import { compileAhead } from '../../gpu/compile'
import { meansUnavailable } from './gpu/kernels'
import { checkMatrixWritable } from './limits'
import { keepSeries, keptSeries } from './kept-series'
import { keepMatrix } from './kept-matrix'
import { loadSeries } from './load-series'
import { matrixFormatOf, writeMatrixFile } from './write-matrix-file'
import { pairIndices, pairOverlay } from './pair'
import { parseZoom, zoomHeatmap } from './zoom'
import { heatmapOf, heatmapOrder, histogramOf, maxAbsDifference, rankSeries } from './ranking'
import { type SeriesMatrix, seriesMatrix } from './series-matrix'
import { WASM_MAX_BYTES, wasmBytes } from './simd/wasm-module'
import { maxOf, minOf } from '../../../shared/extent'
import { ProgressPlan } from '../../../shared/progress-plan'
import { loadCost, stepsAfterLoading, type StepsAfterLoading, viewStep } from './progress-steps'

/** Characters a CSV spends on a value with its comma, to guess a series' length from the file's size. */
const CSV_VALUE_BYTES = 12

/** Reports a run's beginning (the r-th of the backend's, from 0) and its own fraction as it goes. */
interface RunTrack {
  begin(r: number): void
  update(fraction: number): void
}

type Matrix = Float64Array | Float32Array

export async function runCorrelationJob(params: CorrelationParams, ctx: JobContext): Promise<EngineOutcome<CorrelationResult>> {
  const { signal } = ctx
  if (params.files.length !== 1) throw new ApiError('invalid-argument', `correlation reads one file at a time; got ${params.files.length}: ${params.files.join(', ')}`)
  const [shown] = params.files
  const matrixPath = await matrixTarget(params)
  const path = await ctx.input(shown)

  // Loading, then every step after it weighed by its cost once the file's header tells the shape
  // (until then, loading is guessed at a fifth of the job). A view (a pair, a zoom) is loading and
  // the view itself.
  const bytes = (await stat(path)).size
  const viewJob = !!(params.pair || params.zoom)
  const plan = new ProgressPlan(
    (p) => ctx.progress(p),
    [
      { key: 'loading', cost: loadCost(bytes, undefined) },
      { key: 'rest', cost: 4 * loadCost(bytes, undefined) },
    ],
  )
  const view = (m: number, n: number) => viewStep({ n, ...(params.zoom && { zoomCells: zoomCells(parseZoom(params.zoom, m)) }) })
  const after = (m: number, n: number, backends: readonly CorrelationBackend[], reference?: CorrelationBackend): StepsAfterLoading => ({
    m,
    n,
    reference,
    backends,
    repeat: params.repeat,
    sweep: params.sweep > 1 ? sweepSizes({ m, n }, params.sweep, params.sweepOver) : [],
    keep: !!ctx.keep,
    ...(matrixPath && { matrix: matrixFormatOf(matrixPath) }),
  })
  // A pair (a heatmap click) or a zoom comes after the job that drew the heatmap: its series are kept.
  let loaded = viewJob ? await keptSeries(path, params) : null
  if (!loaded) {
    plan.begin('loading', `loading ${baseName(shown)}`)
    loaded = await loadSeries(shown, path, {
      layout: params.layout,
      precision: params.precision,
      columns: params.columns,
      dataset: params.dataset,
      names: params.names,
      signal,
      progress: (f) => plan.update(f),
      shape: ({ m, n, format }) => {
        const length = n ?? Math.max(2, Math.round(bytes / (m * CSV_VALUE_BYTES)))
        const reference = params.precision === 'f64' && !params.backends.some((b) => b !== 'gpu') ? 'workers-simd' : undefined
        const load = { key: 'loading', cost: loadCost(bytes, format) }
        plan.replan(viewJob ? [load, view(m, length)] : [load, ...stepsAfterLoading(after(m, length, params.backends, reference))])
      },
    })
    await keepSeries(path, params, loaded)
  }
  const { series } = loaded
  if (matrixPath) await checkMatrixWritable(matrixPath, series.m, params.precision)
  const result: CorrelationResult = {
    input: {
      path: shown,
      format: loaded.format,
      layout: params.layout,
      series: series.m,
      length: series.n,
      bytes: loaded.bytes,
      load_ms: loaded.load_ms,
      ...(loaded.leftOut.length && { left_out: loaded.leftOut }),
    },
    precision: params.precision,
    reference: null,
    runs: [],
    constant: series.names.filter((_, i) => series.constant[i]),
    ranking: [],
    threshold: params.threshold,
    gap: params.gap,
    top: params.top,
    skipped: [],
  }
  if (viewJob) {
    plan.replan([view(series.m, series.n)])
    plan.begin('view', params.pair ? 'pair' : 'zoom')
    if (params.pair) {
      const [a, b] = pairIndices(series, params.pair, shown)
      result.pair = pairOverlay(series, a, b)
    } else {
      const { rows, cols } = parseZoom(params.zoom!, series.m)
      result.zoom = zoomHeatmap(series, rows, cols, undefined, signal)
    }
    plan.finish('done')
    return { results: result, timings: {} }
  }

  const backends = await withoutUnusableGpu(params.backends, (b) => b === 'gpu', ctx, result.skipped)
  const means = variantsOf(params.variants, 'means', 'unrolled') as MeansVariant[]
  const cross = variantsOf(params.variants, 'cross', 'register') as CrossVariant[]
  const gpuMeans = backends.includes('gpu') ? await usableMeans(means, ctx, result) : means
  const referenceBackend = params.precision === 'f64' ? backends.find((b) => b !== 'gpu') : undefined
  const sweep = params.sweep > 1 ? sweepSizes(series, params.sweep, params.sweepOver) : []
  const referenceRun = referenceBackend ? undefined : wasmBytes(series.m, series.n, 'f64') <= WASM_MAX_BYTES ? 'workers-simd' : 'workers'
  // The shape is known now, and the backends that will run: every step after loading, weighed.
  plan.replan(stepsAfterLoading(after(series.m, series.n, backends, referenceRun)))
  const track = (backend: CorrelationBackend, key = `run ${backend}`): RunTrack => ({
    begin: (r) => plan.begin(key, key.startsWith('sweep') ? `sweep ${backend}, run ${r + 1}` : `${backend} ${params.precision}, run ${r + 1} of ${params.repeat}`),
    update: (f) => plan.update(f),
  })

  // The f64 reference: an f64 CPU backend of the run itself, or one run of the fastest that fits.
  let reference: Float64Array | undefined
  if (referenceRun) {
    plan.begin('reference', `f64 reference (${referenceRun})`)
    const engine = await createCpuCorrelationEngine(referenceRun, series, 'f64', { signal })
    try {
      await engine.run(undefined, (f) => plan.update(f))
      reference = Float64Array.from(engine.matrix())
    } finally {
      await engine.dispose()
    }
    result.reference = referenceRun
  }

  const timings: Record<string, Timing> = {}
  const hostMeans = meansOf(series)
  let firstMatrix: Matrix | undefined
  let partial = false
  let missing: string[] = []
  for (const [b, backend] of backends.entries()) {
    try {
      if (backend === 'gpu') plan.begin('compile', 'gpu: preparing')
      const outcome =
        backend === 'gpu'
          ? await runGpu(series, params.precision, gpuMeans, cross, params.repeat, ctx, hostMeans, () => reference, track(backend), (p) => plan.update(0, { phase: p }))
          : await runCpu(backend, series, params.precision, params.repeat, ctx, track(backend))
      if (backend === referenceBackend) {
        reference = Float64Array.from(outcome.matrix)
        result.reference = backend
      }
      outcome.run.max_abs_dr = reference ? maxAbsDifference(outcome.matrix, reference, series.m) : NaN
      firstMatrix ??= outcome.matrix
      result.runs.push(outcome.run)
      timings[backend] = outcome.timing
      for (const [name, t] of Object.entries(outcome.variantTimings ?? {})) timings[`gpu ${name}`] = t
      if (sweep.length) {
        result.sweep ??= { over: params.sweepOver as 'series' | 'length', points: sweep.map((s) => ({ series: s.m, length: s.n, backends: {} })) }
        await runSweep(backend, series, params.precision, sweep, params.repeat, gpuMeans, cross, ctx, result, track(backend, `sweep ${backend}`))
      }
    } catch (e) {
      // Cancelled: the backends that finished are kept, and the result is marked partial.
      if (!signal.aborted || result.runs.length === 0 || !reference) throw e
      partial = true
      missing = backends.slice(b)
      break
    }
  }
  throwIfAborted(partial ? undefined : signal)

  plan.begin('ranking', 'ranking')
  const ranked = reference!
  result.ranking = rankSeries(ranked, series.m, series.names, params.threshold, params.gap)
  plan.update(0.6)
  // In ranking order the flagged series come first, a cell each.
  const alone = params.order === 'ranking' ? result.ranking.filter((e) => e.flagged).length : 0
  result.heatmap = heatmapOf(ranked, series.m, series.names, heatmapOrder(params.order, result.ranking), params.order, undefined, alone)
  plan.update(0.9)
  result.histogram = histogramOf(ranked, series.m)
  // The dashboard's backends keep the full matrix on disk for its downloads (the CLI has --matrix).
  if (ctx.keep) {
    plan.begin('keeping', 'keeping the matrix')
    await keepMatrix(ctx.keep, ranked, series.m, series.names)
  }
  if (matrixPath && !partial) {
    plan.begin('writing', `writing the matrix (.${matrixFormatOf(matrixPath)})`)
    // f64: the exact reference; f32: the first backend's f32 matrix.
    const written = params.precision === 'f64' ? ranked : firstMatrix!
    result.matrix = await writeMatrixFile(matrixPath, written, series.m, series.names, params.force)
  }
  plan.finish('done')
  return { results: result, timings, ...(partial && { partial, missing }) }
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path
}

/**
 * The --matrix target, checked before any work: a .npy or .csv path, not an existing file unless --force.
 * Only the command line may name one (the parameter is cliOnly: dashboard backends refuse it).
 */
async function matrixTarget(params: CorrelationParams): Promise<string | undefined> {
  const target = params.matrix
  if (target === undefined) return undefined
  if (!matrixFormatOf(target)) throw new ApiError('invalid-argument', `matrix file ${target} must end in .npy or .csv`)
  if (!params.force && (await access(target).then(() => true, () => false))) throw new ApiError('io', `${target} exists (use --force to replace it)`)
  return target
}


/** The chosen variants of a stage (`means-naive` → `naive`), or its default when none is. */
function variantsOf(chosen: string[], stage: 'means' | 'cross', fallback: string): string[] {
  const picked = chosen.filter((v) => v.startsWith(`${stage}-`)).map((v) => v.slice(stage.length + 1))
  return picked.length ? picked : [fallback]
}

/** Means variants the adapter can run; the others are skipped with the reason (all of them: an error). */
async function usableMeans(means: MeansVariant[], ctx: JobContext, result: CorrelationResult): Promise<MeansVariant[]> {
  const gpu = await ctx.gpu()
  const usable = means.filter((v) => {
    const why = meansUnavailable(gpu, v)
    if (why) result.skipped.push({ backend: 'gpu', reason: `means-${v}: ${why}` })
    return !why
  })
  if (usable.length === 0) throw new ApiError('gpu-unavailable', result.skipped.map((s) => s.reason).join('; '))
  return usable
}

function spread(samples: number[]): Spread {
  return { median: median(samples), min: minOf(samples), max: maxOf(samples) }
}

function meansOf(series: SeriesMatrix): Float64Array {
  const out = new Float64Array(series.m)
  for (let i = 0; i < series.m; i++) {
    let s = 0
    for (let k = 0; k < series.n; k++) s += series.values[i * series.n + k]
    out[i] = s / series.n
  }
  return out
}

interface RunOutcome {
  run: BackendRun
  matrix: Matrix
  timing: Timing
  variantTimings?: Record<string, Timing>
}

async function runCpu(backend: CpuCorrelationBackend, series: SeriesMatrix, precision: Precision, repeat: number, ctx: JobContext, track: RunTrack): Promise<RunOutcome> {
  const engine = await createCpuCorrelationEngine(backend, series, precision, { signal: ctx.signal })
  try {
    const samples: Record<Stage, number[]> = { means: [], squares: [], cross: [], coefficients: [] }
    const totals: number[] = []
    for (let r = 0; r < repeat; r++) {
      track.begin(r)
      const ms = await engine.run(undefined, track.update)
      for (const s of STAGES) samples[s].push(ms[s])
      totals.push(STAGES.reduce((sum, s) => sum + ms[s], 0))
    }
    const matrix = engine.matrix()
    return {
      run: {
        backend,
        arithmetic: precision,
        threads: engine.threads,
        stages: Object.fromEntries(STAGES.map((s) => [s, spread(samples[s])])) as Record<Stage, Spread>,
        total: spread(totals),
        max_abs_dr: 0,
      },
      // The engine's memory goes with it: keep a copy.
      matrix: precision === 'f64' ? Float64Array.from(matrix) : Float32Array.from(matrix),
      timing: timingOf(totals),
    }
  } finally {
    await engine.dispose()
  }
}

async function runGpu(
  series: SeriesMatrix,
  precision: Precision,
  means: MeansVariant[],
  cross: CrossVariant[],
  repeat: number,
  ctx: JobContext,
  hostMeans: Float64Array,
  reference: () => Float64Array | undefined,
  track: RunTrack,
  /** Reports a phase between the runs (compiling kernels). */
  phase: (phase: string) => void,
): Promise<RunOutcome> {
  const gpu = await ctx.gpu()
  const compile_ms = await compileAhead(phase, 'gpu', () => compileGpuCorrelationKernels(gpu, precision, { means, cross }), ctx.signal)
  const engine = await createGpuCorrelationEngine(gpu, series, precision, { means, cross, signal: ctx.signal })
  try {
    const meanSamples: Partial<Record<MeansVariant, number[]>> = {}
    const crossSamples: Partial<Record<CrossVariant, { cross: number[]; coefficients: number[]; download: number[] }>> = {}
    const squares: number[] = []
    const deviation: Record<string, number> = {}
    const m = series.m
    for (let r = 0; r < repeat; r++) {
      const checks =
        r === 0
          ? {
              means: (v: MeansVariant, got: Float32Array) => {
                let worst = 0
                for (let i = 0; i < m; i++) worst = Math.max(worst, Math.abs(got[i] - hostMeans[i]) / Math.max(Math.abs(hostMeans[i]), Number.MIN_VALUE))
                deviation[`means-${v}`] = worst
              },
              cross: (v: CrossVariant, got: Matrix) => {
                const ref = reference()
                deviation[`cross-${v}`] = ref ? maxAbsDifference(got, ref, m) : NaN
              },
            }
          : {}
      track.begin(r)
      const t = await engine.run(checks)
      for (const v of means) (meanSamples[v] ??= []).push(t.means[v]!)
      squares.push(t.squares)
      for (const v of cross) {
        const c = (crossSamples[v] ??= { cross: [], coefficients: [], download: [] })
        c.cross.push(t.cross[v]!.cross)
        c.coefficients.push(t.cross[v]!.coefficients)
        c.download.push(t.cross[v]!.download)
      }
    }
    // The run's stages are its fastest kernels'.
    const bestMeans = means.reduce((a, b) => (median(meanSamples[b]!) < median(meanSamples[a]!) ? b : a))
    const bestCross = cross.reduce((a, b) => (median(crossSamples[b]!.cross) < median(crossSamples[a]!.cross) ? b : a))
    const best = crossSamples[bestCross]!
    const totals = Array.from({ length: repeat }, (_, r) => meanSamples[bestMeans]![r] + squares[r] + best.cross[r] + best.coefficients[r])
    const work = engine.work()
    const variants: VariantRun[] = [
      ...means.map((v): VariantRun => ({ stage: 'means', variant: v, ms: spread(meanSamples[v]!), ...work.means, deviation: deviation[`means-${v}`] })),
      ...cross.map((v): VariantRun => ({ stage: 'cross', variant: v, ms: spread(crossSamples[v]!.cross), ...work.cross[v], deviation: deviation[`cross-${v}`] })),
    ]
    const variantTimings: Record<string, Timing> = {}
    for (const v of means) variantTimings[`means-${v}`] = timingOf(meanSamples[v]!)
    for (const v of cross) variantTimings[`cross-${v}`] = timingOf(crossSamples[v]!.cross)
    return {
      run: {
        backend: 'gpu',
        arithmetic: precision === 'f64' ? 'f32-compensated' : 'f32',
        stages: { means: spread(meanSamples[bestMeans]!), squares: spread(squares), cross: spread(best.cross), coefficients: spread(best.coefficients) },
        total: spread(totals),
        upload_ms: engine.uploadMs,
        compile_ms,
        download_ms: median(best.download),
        max_abs_dr: 0,
        variants,
      },
      // The last cross variant's matrix, as every one is checked against the reference: the engine's
      // host array itself (its GPU buffers go with it, this stays), not a copy of up to 2 GiB.
      matrix: engine.matrix(),
      timing: timingOf(totals),
      variantTimings,
    }
  } finally {
    engine.dispose()
  }
}

/** Sizes of the sweep's points: K prefixes of the series or of their length, at least 2 each. */
function sweepSizes(series: { m: number; n: number }, k: number, over: string): { m: number; n: number }[] {
  const sizes = Array.from({ length: k }, (_, i) => {
    const f = (i + 1) / k
    return over === 'series' ? { m: Math.max(2, Math.round(series.m * f)), n: series.n } : { m: series.m, n: Math.max(2, Math.round(series.n * f)) }
  })
  return sizes.filter((s, i) => i === 0 || s.m !== sizes[i - 1].m || s.n !== sizes[i - 1].n)
}

/** The first m series' first n samples, as a data set of their own (for the GPU, which uploads what it runs on). */
function prefix(series: SeriesMatrix, m: number, n: number): SeriesMatrix {
  const values = new Float64Array(m * n)
  for (let i = 0; i < m; i++) values.set(series.values.subarray(i * series.n, i * series.n + n), i * n)
  return seriesMatrix(series.names.slice(0, m), values, m, n)
}

async function runSweep(
  backend: CorrelationBackend,
  series: SeriesMatrix,
  precision: Precision,
  sizes: { m: number; n: number }[],
  repeat: number,
  means: MeansVariant[],
  cross: CrossVariant[],
  ctx: JobContext,
  result: CorrelationResult,
  track: RunTrack,
): Promise<void> {
  const points = result.sweep!.points
  if (backend === 'gpu') {
    const gpu = await ctx.gpu()
    for (const [i, size] of sizes.entries()) {
      const engine = await createGpuCorrelationEngine(gpu, prefix(series, size.m, size.n), precision, { means: [means[0]], cross: [cross[0]], signal: ctx.signal })
      try {
        const totals: number[] = []
        for (let r = 0; r < repeat; r++) {
          track.begin(r)
          const t = await engine.run()
          const c = t.cross[cross[0]]!
          totals.push(t.means[means[0]]! + t.squares + c.cross + c.coefficients)
        }
        points[i].backends[backend] = median(totals)
      } finally {
        engine.dispose()
      }
    }
    return
  }
  const engine = await createCpuCorrelationEngine(backend, series, precision, { signal: ctx.signal })
  try {
    for (const [i, size] of sizes.entries()) {
      const totals: number[] = []
      for (let r = 0; r < repeat; r++) {
        track.begin(r)
        const ms = await engine.run(size, track.update)
        totals.push(STAGES.reduce((sum, s) => sum + ms[s], 0))
      }
      points[i].backends[backend] = median(totals)
    }
  } finally {
    await engine.dispose()
  }
}

/** Cells of a zoom's block range. */
function zoomCells({ rows, cols }: ReturnType<typeof parseZoom>): number {
  return (rows[1] - rows[0] + 1) * (cols[1] - cols[0] + 1)
}
