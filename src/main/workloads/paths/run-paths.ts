// A shortest-paths job: read and check each graph, run every planned backend and variant `repeat`
// times (the median time kept), check each result against the first byte for byte, then summarize
// the distances, follow the queried path and write --output. Bad input fails before any work.
import { stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { median } from '../../../shared/median'
import type { GpuPlacement } from '../../../shared/gpu-placement'
import type { PathsParams } from '../../../shared/workloads/paths'
import type { PathQuery, PathsGraphResult, PathsResult, PathsRun } from '../../../shared/workloads/paths/types'
import { timingOf, type Timing } from '../../../shared/workloads/envelope'
import { type EngineOutcome, type JobContext, withoutUnusableGpu } from '../../engine'
import { compileAhead } from '../../gpu/compile'
import { checkCheckpointRun, familyOf, fileSha256, latestPathsCheckpoint, prepareCheckpointFolder, type RoundCheckpointTask } from './checkpoint'
import { checkReached } from './distance-range'
import { type Graph, edgeCount, vertexIndex, vertexName } from './graph'
import { type Distances, MAX_PATHS_VERTICES, noPath, successors, unweight } from './matrix'
import { checkMemory, checkSimdMemory, checkVertexCount } from './matrix-bounds'
import { planRuns, type RunSpec } from './plan'
import { prepareProblem } from './prepare-problem'
import { type Problem } from './problem'
import { f32Gamma, REAL_BACKENDS, REAL_BACKENDS_REASON, realResultsAgree } from './real'
import { followPath } from './query'
import { graphFormatOfName, readGraph } from './read-graph'
import { runName, type Solved } from './solver-contract'
import { createSolver } from './pick-solver'
import { summarize } from './summary'
import { checkOutput, writeMatrices } from './write-matrix'
import { maxOf, minOf } from '../../../shared/extent'
import { parseZoomRange } from '../../../shared/workloads/zoom-range'
import { keepDistances, keptDistances, zoomKept } from './kept-distances'
import { rowsOf, zoomDistances } from './zoom'
import { ProgressPlan } from '../../../shared/progress-plan'
import { graphSteps } from './progress-steps'

export async function runPathsJob(params: PathsParams, ctx: JobContext): Promise<EngineOutcome<PathsResult>> {
  const { signal } = ctx
  const { from, to, output, zoom } = params
  // Its grammar now; its range once the graph's vertices are known.
  if (zoom !== undefined) parseZoomRange(zoom, Number.MAX_SAFE_INTEGER, 'vertices')
  if ((from === undefined) !== (to === undefined)) throw new ApiError('invalid-argument', 'a path query needs both --from and --to')
  if (output !== undefined && params.files.length > 1) throw new ApiError('invalid-argument', `--output takes one graph; got ${params.files.length}`)
  if (from !== undefined && params.files.length > 1)
    throw new ApiError('invalid-argument', `--from and --to query one graph; got ${params.files.length}`)
  // A query follows successors: it computes them.
  const paths = params.paths || from !== undefined
  // A run's label says what it computed: keeping successors costs several times the distances alone.
  const labelOf = (spec: Parameters<typeof runName>[0]) => (paths ? `${runName(spec)} with successors` : runName(spec))

  const planned = planRuns(params)
  checkCheckpointRun(params, planned.runs)
  // As the landslide's: a cluster task checkpoints into its task folder unless told otherwise.
  const checkpointDir = params.checkpointEvery === undefined ? undefined : (params.checkpointDir ?? (ctx.ranks?.folder ? join(ctx.ranks.folder, 'checkpoints') : undefined))
  if (params.checkpointEvery !== undefined && !checkpointDir)
    throw new ApiError('invalid-argument', '--checkpoint-every needs a folder for the checkpoints: --checkpoint-dir DIR (a cluster task defaults to checkpoints/ in its task folder)')
  // A folder where no checkpoint can be written is refused now, not after the first interval's work.
  if (checkpointDir) await prepareCheckpointFolder(checkpointDir)
  const result: PathsResult = { graphs: [], skipped: planned.skipped }
  const runs = await withoutUnusableGpu(planned.runs, (r) => r.backend === 'gpu', ctx, result.skipped)
  const inputs: { shown: string; path: string; bytes: number }[] = []
  for (const shown of params.files) {
    const path = await ctx.input(shown)
    inputs.push({ shown, path, bytes: (await stat(path)).size })
  }

  // Progress: every graph's reading, runs, checks and files weighed by what they cost
  // (progress-steps.ts), a graph's vertices guessed from its size until it is read, then weighed again.
  const shape = { runs, repeat: params.repeat, successors: paths, ...(output !== undefined && { output: params.format }), keep: !!ctx.keep }
  const stepsOf = (n: number, known?: Pick<Graph, 'V' | 'format'> & { runs: RunSpec[] }) =>
    graphSteps(inputs[n].bytes, known?.format ?? graphFormatOfName(inputs[n].shown), { ...shape, ...(known && { V: known.V, runs: known.runs }) })
  const plan = new ProgressPlan((p) => ctx.progress(p), inputs.flatMap((_, n) => stepsOf(n)))

  // A zoom of a graph whose run the dashboard kept reads the block range from that matrix: no solving.
  if (zoom !== undefined) {
    if (inputs.length !== 1) throw new ApiError('invalid-argument', `--zoom reads one graph; got ${inputs.length}`)
    const found = await keptDistances(inputs[0].path)
    if (found) {
      const { rows, cols } = parseZoomRange(zoom, found.V, 'vertices')
      plan.replan([{ key: 'zoom', cost: 1 }])
      plan.begin('zoom', 'zoom')
      const cells = await zoomKept(found.file, found.V, rows, cols, signal, found.real)
      result.zoom = { path: inputs[0].shown, vertices: found.V, ...cells, kept: true }
      plan.finish('done')
      return { results: result, timings: {} }
    }
  }

  const timings: Record<string, Timing> = {}
  const unusable = new Set<string>()
  let partial = false
  let missing: string[] = []
  for (const [n, input] of inputs.entries()) {
    const name = basename(input.shown)
    plan.begin('reading', `reading ${name}`)
    const t0 = performance.now()
    const graph = await readGraph(input.path, input.shown, undefined, undefined, (f) => plan.update(f))
    const problem = prepareProblem(graph, input.shown, signal)
    const read_ms = performance.now() - t0
    const real = problem.real !== undefined
    const graphRuns = real ? realRuns(runs, problem, result.skipped) : runs
    plan.replan([...stepsOf(n, { V: graph.V, format: graph.format, runs: graphRuns }), ...inputs.slice(n + 1).flatMap((_, j) => stepsOf(n + 1 + j))])
    const ends = from !== undefined ? [vertexIndex(graph, from, input.shown, '--from'), vertexIndex(graph, to!, input.shown, '--to')] : undefined
    if (paths && graph.V > MAX_PATHS_VERTICES) throw new ApiError('invalid-input', `${input.shown}: successors are kept for at most ${MAX_PATHS_VERTICES} vertices; this graph has ${graph.V}`)
    if (output !== undefined) await checkOutput(output, params.format, graph.V, paths, params.force ?? false, real)
    if (real && checkpointDir) throw new ApiError('invalid-argument', `${input.shown}: the graph's weights are real; checkpoints are of the blocked int32 backends' rounds`)
    // The V × V matrices are made only now that the whole file is read: for vertices its edges name, within the SIMD backends' and this machine's memory.
    checkSimdMemory(input.shown, graph.V, paths, graphRuns.map((r) => r.backend))
    checkMemory(input.shown, graph.V, paths, graphRuns.length * params.repeat, undefined, real)
    checkVertexCount(graph, input.shown)
    // (No run left when the GPU cannot be used: the job fails below, saying why.)
    const checkpoint = checkpointDir && graphRuns[0] ? await checkpointTask(checkpointDir, params.checkpointEvery!, graphRuns[0], input, graph.V, paths, problem.potential !== undefined, ctx) : undefined

    // Each run is checked against the first at once: only the first run's matrices are kept.
    const done: ({
      spec: RunSpec
      threads?: number
      bytes?: number
      matches: boolean
      samples: number[]
      upload: number[]
      readback: number[]
      compile_ms?: number
      /** On several GPUs: where they are, and each repeat's exchange time and rounds. */
      several?: Pick<PathsRun, 'gpus' | 'gpus_note' | keyof GpuPlacement> & { exchange: number[]; rounds: number }
    } & Pick<PathsRun, 'arithmetic' | 'relative_error_bound'>)[] = []
    let checkpoints: PathsGraphResult['checkpoints']
    let reference: Solved | undefined
    const V = graph.V
    const agrees = (a: Solved, b: Solved) => (a.d instanceof Float64Array && b.d instanceof Float64Array ? realResultsAgree({ ...a, d: a.d }, { ...b, d: b.d }, V, problem.potential, () => sameResult(a, b)) : sameResult(a, b))
    for (const [k, spec] of graphRuns.entries()) {
      const label = labelOf(spec)
      if (unusable.has(label)) continue
      try {
        let solver
        try {
          solver = await createSolver(spec, ctx.gpu)
        } catch (e) {
          // A variant this device cannot run (e.g. too little workgroup memory) is skipped when others run.
          const err = ApiError.from(e)
          if (err.code !== 'gpu-unavailable' || graphRuns.length === 1) throw err
          unusable.add(label)
          result.skipped.push({ backend: runName(spec), reason: err.message })
          continue
        }
        try {
          const compile_ms = solver.compile && (await compileAhead((phase) => plan.begin(`compile ${k}`, `${phase} · ${name}`), label, () => solver.compile!(problem, paths), ctx.signal))
          const samples: number[] = []
          const upload: number[] = []
          const readback: number[] = []
          const exchange: number[] = []
          let solved!: Solved
          for (let r = 0; r < params.repeat; r++) {
            plan.begin(`run ${k}`, `${label} · ${name}${params.repeat > 1 ? ` · run ${r + 1} of ${params.repeat}` : ''}`)
            solved = await solver.solve(problem, paths, {
              signal,
              progress: (f) => plan.update(f),
              ...(checkpoint && { checkpoint }),
            })
            if (checkpoint && solved.checkpoints) checkpoints = { every: checkpoint.every, folder: checkpoint.dir, ...solved.checkpoints }
            samples.push(solved.compute_ms)
            if (solved.upload_ms !== undefined) upload.push(solved.upload_ms)
            if (solved.readback_ms !== undefined) readback.push(solved.readback_ms)
            if (solved.exchange_ms !== undefined) exchange.push(solved.exchange_ms)
          }
          const several =
            solved.gpus !== undefined
              ? { gpus: solved.gpus, ...(solver.observe && (await solver.observe(solved.gpus))), ...(solver.gpusNote !== undefined && { gpus_note: solver.gpusNote }), exchange, rounds: solved.rounds ?? 1 }
              : undefined
          done.push({
            spec,
            threads: solver.threads,
            bytes: solved.bytes,
            matches: !reference || agrees(solved, reference),
            samples,
            upload,
            readback,
            compile_ms,
            ...(several && { several }),
            ...(solved.arithmetic && { arithmetic: solved.arithmetic }),
            ...(solved.arithmetic === 'f32' && { relative_error_bound: f32Gamma(solved.side!) }),
          })
          reference ??= solved
          timings[inputs.length === 1 ? label : `${name}: ${label}`] = timingOf(samples)
        } finally {
          await solver.dispose()
        }
      } catch (e) {
        // Cancelled: what finished is kept, and the result is marked partial.
        if (!signal.aborted || !reference) throw e
        partial = true
        // As the timings name them: by run, and by graph too where there are several graphs.
        const left = graphRuns.slice(k).map(labelOf).filter((l) => !unusable.has(l))
        missing = [...(inputs.length === 1 ? left : left.map((l) => `${name}: ${l}`)), ...inputs.slice(n + 1).map((i) => i.shown)]
        break
      }
    }

    if (!reference) throw new ApiError('gpu-unavailable', `nothing could run: ${result.skipped.map((s) => `${s.backend}: ${s.reason}`).join('; ')}`)
    const ref = reference
    const runsOut: PathsRun[] = done.map(({ spec, threads, bytes, matches, samples, upload, readback, compile_ms, several, arithmetic, relative_error_bound }) => {
      const compute_ms = median(samples)
      return {
        name: labelOf(spec),
        backend: spec.backend,
        ...(spec.variant && { variant: spec.variant }),
        ...(spec.block !== undefined && { block: spec.block }),
        ...(threads !== undefined && { threads }),
        compute_ms,
        compute_range_ms: [minOf(samples), maxOf(samples)],
        ...(upload.length && { upload_ms: median(upload) }),
        ...(readback.length && { readback_ms: median(readback) }),
        ...(compile_ms !== undefined && { compile_ms }),
        relaxations_per_s: V ** 3 / (Math.max(compute_ms, 1e-6) / 1000),
        ...(bytes !== undefined && { bandwidth_GB_per_s: bytes / (Math.max(compute_ms, 1e-6) / 1000) / 1e9 }),
        ...(several && {
          gpus: several.gpus,
          ...(several.gpus_requested && { gpus_requested: several.gpus_requested, gpus_observed: several.gpus_observed, gpus_observed_by: several.gpus_observed_by, ...(several.gpus_shared && { gpus_shared: several.gpus_shared }) }),
          ...(several.gpus_note !== undefined && { gpus_note: several.gpus_note }),
          exchange_ms: median(several.exchange),
          exchange_round_ms: median(several.exchange) / several.rounds,
        }),
        matches,
        ...(arithmetic && { arithmetic }),
        ...(relative_error_bound !== undefined && { relative_error_bound }),
      }
    })

    plan.begin('checking', `checking and summarizing · ${name}`)
    const d = ref.d
    await checkReached(graph, problem, d, input.shown, (v) => vertexName(graph, v), signal)
    if (problem.potential) unweight(d, V, problem.potential, input.shown, (v) => vertexName(graph, v))
    const next = paths && ref.key ? successors(ref.key, V) : undefined
    const graphResult: PathsGraphResult = {
      path: input.shown,
      format: graph.format,
      bytes: input.bytes,
      vertices: V,
      edges: edgeCount(graph),
      duplicates: ref.duplicates,
      selfLoops: problem.selfLoops,
      negativeWeights: problem.potential !== undefined,
      arithmetic: ref.arithmetic ?? 'int32',
      read_ms,
      ...summarize(d, V),
      runs: runsOut,
      successors: next !== undefined,
      ...(checkpoints && { checkpoints }),
      ...(ends && next && { query: await query(graph, d, next, ends[0], ends[1]) }),
    }
    // Nothing is written from a cancelled run, nor from results that disagree.
    if (output !== undefined && !partial && runsOut.every((r) => r.matches)) {
      plan.begin('writing', `writing ${basename(output)}`)
      const t1 = performance.now()
      const written = await writeMatrices(output, params.format, V, (v) => vertexName(graph, v), d, next, params.force ?? false, undefined, ref.arithmetic)
      graphResult.output = { path: output, format: params.format, ...written, write_ms: performance.now() - t1 }
    }
    if (zoom !== undefined) {
      const { rows, cols } = parseZoomRange(zoom, V, 'vertices')
      result.zoom = { path: input.shown, vertices: V, ...(await zoomDistances(rowsOf(d, V, cols), rows, cols, signal, undefined, noPath(d))), kept: false }
    }
    // The dashboard's backends keep the distances on disk for the zooms of this run.
    if (ctx.keep) {
      plan.begin('keeping', `keeping the distances · ${name}`)
      await keepDistances(ctx.keep, input.path, n, d, V, graph.names)
    }
    result.graphs.push(graphResult)
    if (partial) break
  }
  plan.finish('done')
  return { results: result, timings, ...(partial && { partial, missing }) }
}

/** Where the run's checkpoints go and the one it resumes from, checked against this graph and run (checkpoint.ts). */
async function checkpointTask(dir: string, every: number, spec: RunSpec, input: { shown: string; path: string }, V: number, paths: boolean, reweighted: boolean, ctx: JobContext): Promise<RoundCheckpointTask> {
  const block = spec.block!
  const identity = { graph: await fileSha256(input.path, ctx.signal), file: input.shown, vertices: V, block, successors: paths, family: familyOf(spec), reweighted }
  const resume = await latestPathsCheckpoint(dir, identity, Math.ceil(V / block))
  return { dir, every, attempt: ctx.ranks?.job ?? `local-${process.pid}`, identity, ...(resume && { resume }) }
}

/**
 * The runs of a real-weighted graph: serial first (its f64 result is SciPy's, the reference the
 * others are checked against), the backends without real kernels and a GPU whose f32 cannot hold
 * the distances skipped, saying why (once per job). A CPU backend skipped brings in serial, so that
 * the default backend computes a real graph too.
 */
function realRuns(runs: RunSpec[], p: Problem, skipped: PathsResult['skipped']): RunSpec[] {
  const skip = (spec: RunSpec, reason: string) => {
    const backend = runName(spec)
    if (!skipped.some((s) => s.backend === backend && s.reason === reason)) skipped.push({ backend, reason })
  }
  const kept: RunSpec[] = []
  for (const spec of runs) {
    if (!REAL_BACKENDS.includes(spec.backend) || (spec.gpus ?? 1) > 1) skip(spec, REAL_BACKENDS_REASON)
    else if (spec.backend === 'gpu' && p.real?.f32Refused) skip(spec, p.real.f32Refused)
    else kept.push(spec)
  }
  const cpuSkipped = runs.some((s) => s.backend !== 'gpu' && s.backend !== 'serial')
  const serial = kept.filter((s) => s.backend === 'serial')
  return [...(serial.length || !cpuSkipped ? serial : [{ backend: 'serial' as const }]), ...kept.filter((s) => s.backend !== 'serial')]
}

/** Compared in slices of 2^28 words: a byte view of a whole matrix beyond 4 GiB cannot be made. */
const SLICE = 2 ** 28

function sameResult(a: Solved, b: Solved): boolean {
  const bytes = (m: Int32Array | Uint32Array | Float64Array, at: number) => {
    const part = m.subarray(at, at + SLICE)
    return Buffer.from(part.buffer, part.byteOffset, part.byteLength)
  }
  const eq = (x?: Int32Array | Uint32Array | Float64Array, y?: Int32Array | Uint32Array | Float64Array) => {
    if (!x || !y) return x === y
    if (x.length !== y.length) return false
    for (let at = 0; at < x.length; at += SLICE) if (!bytes(x, at).equals(bytes(y, at))) return false
    return true
  }
  return eq(a.d, b.d) && eq(a.key, b.key)
}

async function query(g: Graph, d: Distances, next: Int32Array, from: number, to: number): Promise<PathQuery> {
  const path = await followPath((v) => next[v * g.V + to], g.V, from, to)
  return {
    from: vertexName(g, from),
    to: vertexName(g, to),
    path: path && path.map((v) => vertexName(g, v)),
    length: path ? d[from * g.V + to] : null,
  }
}
