// An in-memory stand-in for the backend, implementing the dashboard's API: it records calls and lets
// a test play job events. The end-to-end tests drive the real backend; these check the dashboard.
import type { ChartExportRequest, DataFile, DataFolder, DatasetEntry, ExampleSetup, ExportResult, ResultFileRequest,
  RunFileRequest, ResultsExportRequest, RunSummary } from '../../src/shared/api'
import type { DeviceInfo } from '../../src/shared/device'
import type { GridComparison } from '../../src/shared/grid-difference'
import type { ClusterInfo, ClusterRequest, ClusterRun, ClusterSubmission } from '../../src/shared/cluster'
import type { JobEvent } from '../../src/shared/jobs'
import { workload as definitionOf, type InputOf, type WorkloadId } from '../../src/shared/workloads'
import type { ParamSpec } from '../../src/shared/workloads/schema'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import type { DashboardApi, TransportKind } from '../../src/renderer/api/types'

/** Where the fake "makes" examples' input files. */
export const EXAMPLE_DIR = '/cache/paralab/examples'

/** What the backend answers for `id`'s example: the definition's parameters with its input files, made readable. */
export function exampleSetup(id: WorkloadId): ExampleSetup {
  const def = definitionOf(id)
  const files: DataFile[] = def.example.files.map((name, i) => ({ path: `${EXAMPLE_DIR}/${id}/${name}`, name, bytes: 640_000 * (i + 1) }))
  const fileParam = Object.entries(def.params as Record<string, ParamSpec>).find(([, spec]) => spec.type === 'files')?.[0]
  return { params: { ...def.example.params, ...(fileParam && { [fileParam]: files.map((f) => f.path) }) }, files }
}

export class FakeApi implements DashboardApi {
  /** `paralab serve`'s by default; 'electron' for the desktop app's dialog. */
  transport: TransportKind = 'websocket'
  device: DeviceInfo = { available: true, features: [], limits: {} }
  files: DataFile[] = []
  opened: DataFile[] = []
  exportAnswer: ExportResult = { fileName: 'x', mime: 'application/octet-stream', cancelled: true }
  /** When set, example() rejects with it (e.g. the cache folder is not writable). */
  exampleFailure: unknown = null
  dropFiles?: (files: File[]) => Promise<DataFile[]>
  /** The run history, newest first: what listRuns answers, and the envelope openRun gives for each id. */
  runs: { summary: RunSummary; envelope: ResultEnvelope }[] = []

  readonly started: { workload: WorkloadId; params: unknown; jobId: string }[] = []
  readonly cancelled: string[] = []
  readonly chartExports: ChartExportRequest[] = []
  readonly resultExports: ResultsExportRequest[] = []
  readonly examples: WorkloadId[] = []
  readonly openedRuns: string[] = []
  private readonly listeners = new Set<(event: JobEvent) => void>()
  private nextJob = 1

  async deviceInfo(): Promise<DeviceInfo> {
    return this.device
  }
  async startJob<Id extends WorkloadId>(workload: Id, params: InputOf<Id>): Promise<string> {
    const jobId = `job-${this.nextJob++}`
    this.started.push({ workload, params, jobId })
    return jobId
  }
  async startView<Id extends WorkloadId>(workload: Id, params: InputOf<Id>): Promise<string> {
    return this.startJob(workload, params)
  }
  async cancelJob(jobId: string): Promise<boolean> {
    this.cancelled.push(jobId)
    return true
  }
  async exportChart(req: ChartExportRequest): Promise<ExportResult> {
    this.chartExports.push(req)
    return this.exportAnswer
  }
  async exportResults(req: ResultsExportRequest): Promise<ExportResult> {
    this.resultExports.push(req)
    return this.exportAnswer
  }
  readonly resultFileExports: ResultFileRequest[] = []
  async exportResultFile(req: ResultFileRequest): Promise<ExportResult> {
    this.resultFileExports.push(req)
    return this.exportAnswer
  }
  readonly runFileExports: RunFileRequest[] = []
  async exportRunFile(req: RunFileRequest): Promise<ExportResult> {
    this.runFileExports.push(req)
    return this.exportAnswer
  }
  async listDataFiles(): Promise<DataFile[]> {
    return this.files
  }
  async openFiles(): Promise<DataFile[]> {
    return this.opened
  }
  /** The datasets listDatasets answers, by file path. */
  datasets = new Map<string, DatasetEntry[]>()
  async listDatasets(path: string): Promise<DatasetEntry[]> {
    return this.datasets.get(path) ?? []
  }
  /** The data folders as browseData answers them: by folder path, null for the top. */
  folders = new Map<string | null, DataFolder>()
  readonly browsed: (string | null)[] = []
  async browseData(folder: string | null): Promise<DataFolder> {
    this.browsed.push(folder)
    const found = this.folders.get(folder)
    if (!found) throw { code: 'invalid-argument', message: `${folder} is outside the data folders` }
    return found
  }
  async example(workload: WorkloadId): Promise<ExampleSetup> {
    this.examples.push(workload)
    if (this.exampleFailure) throw this.exampleFailure
    return exampleSetup(workload)
  }
  async listRuns(): Promise<RunSummary[]> {
    return this.runs.map((r) => r.summary)
  }
  async labelRun(id: string, label: string): Promise<void> {
    const run = this.runs.find((r) => r.summary.id === id)
    if (!run) throw { code: 'invalid-argument', message: `no run "${id}" in the history` }
    run.summary = { ...run.summary, label: label || undefined }
  }
  async openRun(id: string): Promise<ResultEnvelope> {
    this.openedRuns.push(id)
    const run = this.runs.find((r) => r.summary.id === id)
    if (!run) throw { code: 'invalid-argument', message: `no run "${id}" in the history` }
    return run.envelope
  }
  /** What compareGrids answers, and the pairs of runs it was asked about. */
  gridComparison: GridComparison = { outcome: 'missing', runs: [] }
  readonly comparedGrids: [string, string][] = []
  async compareGrids(a: string, b: string): Promise<GridComparison> {
    this.comparedGrids.push([a, b])
    return this.gridComparison
  }
  /** Adds a run to the history as the backend keeps a finished job's envelope (newest first). */
  keep(envelope: ResultEnvelope, more: Partial<RunSummary> = {}): RunSummary {
    const summary: RunSummary = { id: `run-${this.runs.length + 1}`, workload: envelope.workload, createdAt: envelope.createdAt, summary: '', partial: !!envelope.partial, thisSession: true, ...more }
    this.runs.unshift({ summary, envelope })
    return summary
  }
  /** What clusterInfo answers: no Slurm unless a test gives it. */
  cluster: ClusterInfo = { available: false }
  /** What listClusterJobs answers. */
  clusterRuns: ClusterRun[] = []
  readonly clusterSubmitted: { workload: WorkloadId; params: unknown; request: ClusterRequest }[] = []
  readonly clusterCancelled: string[] = []
  async clusterInfo(): Promise<ClusterInfo> {
    return this.cluster
  }
  async submitClusterJob<Id extends WorkloadId>(workload: Id, params: InputOf<Id>, request: ClusterRequest): Promise<ClusterSubmission> {
    this.clusterSubmitted.push({ workload, params, request })
    const jobId = String(100 + 2 * this.clusterSubmitted.length)
    return { jobId, mergeJobId: String(Number(jobId) + 1), dir: `/home/user/paralab/cluster-runs/${workload}-${jobId}`, tasks: 1 }
  }
  async listClusterJobs(): Promise<ClusterRun[]> {
    return this.clusterRuns
  }
  async cancelClusterJob(jobId: string): Promise<void> {
    this.clusterCancelled.push(jobId)
  }
  onJobEvent(listener: (event: JobEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
  onConnectionError(): () => void {
    return () => {}
  }

  /** Plays an event as the backend would send it. */
  emit(event: JobEvent): void {
    for (const listener of [...this.listeners]) listener(event)
  }
  get listenerCount(): number {
    return this.listeners.size
  }
}
