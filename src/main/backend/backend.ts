// The transport-independent backend: the services behind every API call, for any workload engine
// it is given (the registry in src/main/workloads is handed in by the CLI, `serve` and the app).
import { join } from 'node:path'
import { checkClusterRequest, type ClusterInfo, type ClusterRequest, type ClusterRun, type ClusterSubmission } from '../../shared/cluster'
import type { ChartExportRequest, DataFile, DatasetEntry, ExampleSetup, ResultFileRequest, ResultsExportRequest, RunFileRequest, RunSummary } from '../../shared/api'
import type { AdapterInfo, DeviceInfo } from '../../shared/device'
import { ApiError } from '../../shared/errors'
import type { GridComparison } from '../../shared/grid-difference'
import { workload, type InputOf, type WorkloadId } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import { recordedParams, validateParams, type ParamSchema, type ParamValues } from '../../shared/workloads/schema'
import { tableCsv } from '../../shared/workloads/tables'
import type { AnyEngine, EngineOutcome, HistoryRun, JobContext, KeptFileOpener, MadeFile } from '../engine'
import type { FileData } from '../io/atomic-write'
import { KeptFiles } from './kept-files'
import { makeManagedFolder, managedEntry, ownedHere } from '../io/managed-folder'
import { getGpu, gpuInfo } from '../gpu/on-demand'
import { placementFromEnv, type RankPlacement } from '../ranks/placement'
import { renderChartInWorker } from '../charts/render-in-worker'
import type { ClusterRuns } from './cluster-runs'
import { DataAccess } from './data-files'
import { envelope } from '../results/envelope'
import { InputRecorder } from './input-provenance'
import { defaultExampleDir } from './examples'
import { RunHistory } from './history'
import { JobManager } from './jobs'

/** A file written as it is made (a run's kept matrix as CSV): its pieces stop when the asker leaves. */
export interface StreamedFile {
  fileName: string
  mime: string
  /** Bytes, when known ahead (an HTTP Content-Length). */
  size?: number
  /** Each valid until the next is asked for (engine.ts MadeFile). */
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>
}

/** A file produced in memory, ready to be saved or handed to the browser. */
export interface RenderedFile {
  fileName: string
  mime: string
  bytes: Uint8Array
}

const MIME = { png: 'image/png', svg: 'image/svg+xml', csv: 'text/csv', json: 'application/json', html: 'text/html' } as const

export interface BackendOptions {
  /** The workload engines this backend runs. */
  engines: readonly AnyEngine[]
  /** Folders whose files may be read; undefined means any file (the CLI). */
  dataDirs?: string[]
  /** Where examples' input files are made; default a per-user cache folder. */
  exampleDir?: string
  /** Where finished jobs' envelopes are kept (the dashboards); undefined keeps none (one-off CLI runs). */
  historyDir?: string
  /** The folders whose runs the history lists, with the examples' (`serve --data`); undefined lists every run. */
  historyScope?: string[]
  /**
   * Jobs run as this rank of a job of several processes (JobContext.ranks). Default: the placement
   * the environment describes (src/main/ranks/placement.ts: SLURM_PROCID, SLURM_NTASKS and the job
   * folder in PARALAB_JOB_DIR), none without a job folder; null: never.
   */
  ranks?: RankPlacement | null
  /**
   * Where runs submitted to Slurm from the dashboard get their folders (`serve` on a login node:
   * a folder the compute nodes share); undefined: this backend submits no cluster runs.
   */
  clusterRunsDir?: string
}

export class Backend {
  readonly files: DataAccess
  readonly jobs = new JobManager()
  private readonly engines: ReadonlyMap<string, AnyEngine>
  private readonly exampleDir: string
  private readonly examples = new Map<string, Promise<string[]>>()
  private readonly history?: RunHistory
  /** Files runs keep beside their history entries (backend/kept-files.ts); none where no history is kept. */
  private readonly kept?: KeptFiles
  private readonly ranks: BackendOptions['ranks']
  private readonly clusterRunsDir?: string
  /** Loaded with the first cluster request: a backend that submits none never loads the cluster code. */
  private cluster?: Promise<ClusterRuns>

  constructor(opts: BackendOptions) {
    this.ranks = opts.ranks
    this.files = new DataAccess(opts.dataDirs)
    this.engines = new Map(opts.engines.map((e) => [e.definition.id, e]))
    this.exampleDir = opts.exampleDir ?? defaultExampleDir()
    if (opts.historyDir !== undefined) {
      const kept = (this.kept = new KeptFiles(join(opts.historyDir, 'kept')))
      this.history = new RunHistory(opts.historyDir, undefined, opts.historyScope && { folders: opts.historyScope, examples: this.exampleDir }, undefined, (id) => kept.drop(id))
    }
    this.clusterRunsDir = opts.clusterRunsDir
  }

  deviceInfo(): Promise<DeviceInfo> {
    return gpuInfo()
  }

  /**
   * Validates `params` against the workload's definition (filling defaults) and starts its job.
   * `view`: the job looks at a run (a pair, a zoom, a path query) and is not kept as a run of its own.
   */
  startJob<Id extends WorkloadId>(id: Id, params: InputOf<Id>, opts: { view?: boolean } = {}): string {
    const engine = this.engine(id)
    const def = engine.definition
    const valid = this.validParams(engine, params)
    return this.jobs.start({
      workload: def.id,
      lane: engine.lane,
      run: async (control) => {
        const createdAt = new Date()
        const inputs = new InputRecorder(def.id, valid, { dir: join(this.exampleDir, def.id), files: def.example.files, generator: engine.exampleGenerator })
        let adapter: AdapterInfo | undefined
        const ctx: JobContext = {
          ...control,
          input: async (path) => {
            const real = await this.files.check(path)
            await inputs.add(real, path)
            return real
          },
          gpu: async () => {
            await control.gpuLane()
            const gpu = await getGpu()
            adapter = gpu.adapter
            return gpu
          },
        }
        const ranks = this.ranks === undefined ? placementFromEnv(process.env) : this.ranks
        if (ranks) ctx.ranks = ranks
        // A run the history keeps has its id from the start, so its files can be kept under it as it ends.
        const kept = this.history && this.kept && !opts.view ? { run: RunHistory.newId(def.id, createdAt), files: [] as string[], into: this.kept } : undefined
        if (kept)
          ctx.keep = async (name: string, bytes: number, data: FileData) => {
            if (!(await kept.into.write(kept.run, name, bytes, data))) return null
            if (!kept.files.includes(name)) kept.files.push(name)
            return kept.into.path(kept.run, name)
          }
        let outcome: EngineOutcome<unknown>
        try {
          // The registry pairs each engine with its definition, so `valid` fits this engine's run.
          outcome = await (engine.run as (p: unknown, c: JobContext) => Promise<EngineOutcome<unknown>>)(valid, ctx)
        } catch (e) {
          inputs.release()
          if (kept) await kept.into.drop(kept.run)
          throw e
        }
        const files = await inputs.finish(control.signal)
        const result = envelope(def.id, recordedParams(def.params as ParamSchema, valid), outcome, { createdAt, inputs: files, adapter })
        if (kept?.files.length) result.kept = { run: kept.run, files: kept.files }
        // Kept before the job's 'done' event, so a dashboard that lists runs then finds it.
        if (!opts.view) await this.keep(result, kept?.run)
        return result
      },
    })
  }

  cancelJob(jobId: string): boolean {
    return this.jobs.cancel(jobId)
  }

  clusterInfo(): Promise<ClusterInfo> {
    if (this.clusterRunsDir === undefined) return Promise.resolve({ available: false, reason: 'this backend submits no cluster runs (`paralab serve` on a login node does)' })
    return this.clusterRuns().then((c) => c.info())
  }

  /** Submits a run to Slurm: the parameters validated as for a job, its input files checked readable, its folder chosen here. */
  async submitClusterJob<Id extends WorkloadId>(id: Id, params: InputOf<Id>, request: ClusterRequest): Promise<ClusterSubmission> {
    const cluster = this.clusterRuns()
    const engine = this.engine(id)
    const valid: Record<string, unknown> = { ...this.validParams(engine, params) }
    const filesParam = Object.entries(engine.definition.params as ParamSchema).find(([, spec]) => spec.type === 'files')?.[0]
    if (filesParam) valid[filesParam] = await Promise.all((valid[filesParam] as string[]).map((p) => this.files.check(p)))
    return (await cluster).submit(engine, valid, checkClusterRequest(request as Record<string, unknown>))
  }

  listClusterJobs(): Promise<ClusterRun[]> {
    return this.clusterRuns().then((c) => c.list())
  }

  cancelClusterJob(jobId: string): Promise<void> {
    return this.clusterRuns().then((c) => c.cancel(jobId))
  }

  /** The workload's example: its input files made on first use (seeded), readable, with its parameters. */
  async example(id: WorkloadId): Promise<ExampleSetup> {
    const engine = this.engine(id)
    const { example, params } = engine.definition
    // One making at a time per workload; once settled, the next request checks the files again.
    let made = this.examples.get(id)
    if (!made) {
      made = this.makeExample(engine)
      this.examples.set(id, made)
      void made.finally(() => this.examples.delete(id)).catch(() => {})
    }
    const files = await this.files.allow(await made)
    const fileParam = Object.entries(params).find(([, spec]) => spec.type === 'files')?.[0]
    return { params: { ...example.params, ...(fileParam && { [fileParam]: files.map((f) => f.path) }) }, files }
  }

  async renderChart(req: ChartExportRequest): Promise<RenderedFile> {
    const bytes = await renderChartInWorker(req.chart, req.format, req.size)
    return { fileName: withExtension(req.fileName, req.format), mime: MIME[req.format], bytes }
  }

  async renderResults(req: ResultsExportRequest): Promise<RenderedFile> {
    const text = req.format === 'json' ? JSON.stringify(req.envelope, null, 2) + '\n' : req.format === 'html' ? await this.reportHtml(req.envelope) : this.tableText(req)
    return { fileName: withExtension(req.fileName, req.format), mime: MIME[req.format], bytes: new TextEncoder().encode(text) }
  }

  /** A file the run's engine makes from its results (e.g. the landslide's final grid), reading only what jobs may read. */
  async renderResultFile(req: ResultFileRequest, signal?: AbortSignal): Promise<RenderedFile> {
    const made = await this.makeFile(req.workload, req.results, req.file, signal)
    if ('pieces' in made) throw new ApiError('invalid-argument', `${req.file} is made from a run's kept files: ask for it by the run's id (exportRunFile)`)
    return { fileName: req.fileName, mime: made.mime, bytes: made.bytes }
  }

  /**
   * A file of a run in the history, made by its engine from the run's results and kept files, in
   * pieces: `run` names a run this backend lists (scope included), `file` one its engine offers.
   */
  async runFile(req: RunFileRequest, signal?: AbortSignal): Promise<StreamedFile> {
    if (!this.history || !this.kept) throw new ApiError('invalid-argument', 'this backend keeps no run history')
    const envelope = await this.history.open(req.run)
    const kept = this.kept
    const made = await this.makeFile(envelope.workload, envelope.results, req.file, signal, (name) => kept.open(req.run, name))
    if ('pieces' in made) return { fileName: req.fileName, mime: made.mime, pieces: made.pieces, ...(made.size !== undefined && { size: made.size }) }
    return { fileName: req.fileName, mime: made.mime, size: made.bytes.byteLength, pieces: [made.bytes] }
  }

  private async makeFile(workload: unknown, results: unknown, file: string, signal?: AbortSignal, kept?: KeptFileOpener): Promise<MadeFile> {
    const engine = this.engine(workload)
    const files = engine.resultFiles
    if (!files || !(files.names.includes(file) || files.matches?.test(file)))
      throw new ApiError('invalid-argument', `${engine.definition.id} makes no file ${JSON.stringify(file)}; it makes: ${files?.names.join(', ') || 'none'}`)
    return (files.make as (r: unknown, name: string, input: (path: string) => Promise<string>, signal?: AbortSignal, kept?: KeptFileOpener) => Promise<MadeFile>)(
      results,
      file,
      (path) => this.files.check(path),
      signal,
      kept,
    )
  }

  listDataFiles(): Promise<DataFile[]> {
    return this.files.list()
  }

  /** The datasets of an HDF5 or NetCDF file this backend may read; none for another kind of file. */
  async listDatasets(path: string): Promise<DatasetEntry[]> {
    const real = await this.files.check(path)
    const { arrayFormatOf, openArrayFile } = await import('../io/hdf5/array-file')
    const format = await arrayFormatOf(path, real)
    if (!format) return []
    const file = await openArrayFile(path, real, format)
    try {
      return file.datasets.map(({ path, shape, dtype, unreadable }) => ({ path, shape, dtype, ...(unreadable && { unreadable }) }))
    } finally {
      await file.close()
    }
  }

  allowFiles(paths: string[]): Promise<DataFile[]> {
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new ApiError('invalid-argument', 'paths must be a list of strings')
    return this.files.allow(paths)
  }

  listRuns(): Promise<RunSummary[]> {
    return this.history?.list() ?? Promise.resolve([])
  }

  async openRun(id: string): Promise<ResultEnvelope> {
    if (!this.history) throw new ApiError('invalid-argument', 'this backend keeps no run history')
    return this.history.open(id)
  }

  /**
   * Runs `a` and `b` of the history (ids checked, scope included, as openRun's), their final grids
   * set against each other by their workload's engine from the files each kept.
   */
  async compareGrids(a: string, b: string, signal?: AbortSignal): Promise<GridComparison> {
    if (!this.history || !this.kept) throw new ApiError('invalid-argument', 'this backend keeps no run history')
    const [ea, eb] = [await this.history.open(a), await this.history.open(b)]
    if (ea.workload !== eb.workload) throw new ApiError('invalid-argument', `run A is a ${ea.workload} run and run B a ${eb.workload} run: grids are compared between runs of one workload`)
    const engine = this.engine(ea.workload)
    if (!engine.compareGrids) throw new ApiError('invalid-argument', `${engine.definition.id} runs keep no grids to compare`)
    const kept = this.kept
    // The files are looked for under the run's own id (checked above), and only where its envelope says it kept some.
    const run = (id: string, e: ResultEnvelope): HistoryRun<unknown> => ({ id, results: e.results, partial: e.partial === true, kept: e.kept ? (name) => kept.open(id, name) : null })
    return (engine.compareGrids as (a: HistoryRun<unknown>, b: HistoryRun<unknown>, signal?: AbortSignal) => Promise<GridComparison>)(run(a, ea), run(b, eb), signal)
  }

  async labelRun(id: string, label: string): Promise<void> {
    if (!this.history) throw new ApiError('invalid-argument', 'this backend keeps no run history')
    await this.history.label(id, label)
  }

  dispose(): void {
    this.jobs.cancelAll()
    void this.cluster?.then((c) => c.dispose(), () => undefined)
  }

  /** `params` validated against the engine's definition (defaults filled in). */
  private validParams(engine: AnyEngine, params: unknown): ParamValues<ParamSchema> {
    const def = engine.definition
    const valid = validateParams(def.id, def.params as ParamSchema, params)
    // A dashboard's backend reads only what it may read, and writes nothing a request names.
    if (this.files.restricted)
      for (const [name, spec] of Object.entries(def.params as ParamSchema))
        if (spec.cliOnly && name in valid) throw new ApiError('invalid-argument', `${def.id}: parameter ${name} can only be given on the command line`)
    return valid
  }

  private clusterRuns(): Promise<ClusterRuns> {
    const dir = this.clusterRunsDir
    if (dir === undefined) throw new ApiError('invalid-argument', 'this backend submits no cluster runs (`paralab serve` on a login node does)')
    return (this.cluster ??= import('./cluster-runs').then(({ ClusterRuns }) => new ClusterRuns({ dir, history: this.history, announce: (e) => this.jobs.emit('event', e) })))
  }

  private engine(id: unknown): AnyEngine {
    const def = workload(id)
    const engine = this.engines.get(def.id)
    if (!engine) throw new ApiError('invalid-argument', `workload ${def.id} has no engine in this backend`)
    return engine
  }

  /** The history is a convenience: a full disk or a read-only folder must not fail the job. */
  private async keep(result: ResultEnvelope, id?: string): Promise<void> {
    try {
      await this.history?.save(result, id)
    } catch (e) {
      if (id) await this.kept?.drop(id)
      console.error(`paralab: the run was not kept in the history (${this.history?.dir}): ${e instanceof Error ? e.message : String(e)}`)
    }
  }

  /**
   * The run's report (src/main/report): the envelope, which comes from a page, checked as a file's
   * would be; its charts drawn on the chart thread, as exports are.
   */
  private async reportHtml(envelope: unknown): Promise<string> {
    const { makeReport } = await import('../report/make-report')
    const id = (envelope as { workload?: unknown }).workload
    return makeReport(envelope, { source: 'the run\'s envelope', engine: typeof id === 'string' ? this.engines.get(id) : undefined, renderSvg: (chart) => renderChartInWorker(chart, 'svg') })
  }

  private tableText(req: ResultsExportRequest): string {
    const def = workload(req.envelope.workload)
    let tables
    try {
      tables = def.tables(req.envelope.results as never)
    } catch (e) {
      throw new ApiError('invalid-argument', `envelope.results are not ${def.id} results: ${e instanceof Error ? e.message : String(e)}`)
    }
    const table = req.table === undefined ? tables[0] : tables.find((t) => t.name === req.table)
    if (!table) throw new ApiError('invalid-argument', `${def.id} has no table ${JSON.stringify(req.table)}; tables: ${tables.map((t) => t.name).join(', ')}`)
    return tableCsv(table)
  }

  private async makeExample(engine: AnyEngine): Promise<string[]> {
    const { id, example } = engine.definition
    if (example.files.length === 0) return []
    const dir = join(this.exampleDir, id)
    const paths = example.files.map((f) => join(dir, f))
    // Each a regular file of this user, never a link (a link would make the dashboard read, or the
    // generator overwrite, whatever it points to): anything else there is refused, naming it.
    let missing = false
    for (const f of example.files) {
      const { path, stat: s } = await managedEntry(this.exampleDir, [id, f])
      if (!s) missing = true
      else if (!s.isFile() || !ownedHere(s)) throw new ApiError('io', `${path} is ${s.isSymbolicLink() ? 'a symbolic link' : s.isFile() ? `a file of user ${s.uid}` : 'not a regular file'}, not an example Paralab made: remove it, and the example is made again`)
    }
    if (missing) {
      if (!engine.makeExample) throw new ApiError('internal', `workload ${id} names example files but cannot make them`)
      await makeManagedFolder(this.exampleDir, [id])
      await engine.makeExample(dir, new AbortController().signal)
    }
    return paths
  }
}

function withExtension(name: string, ext: string): string {
  return name.toLowerCase().endsWith(`.${ext}`) ? name : `${name}.${ext}`
}
