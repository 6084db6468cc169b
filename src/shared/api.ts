// The one API of Paralab. The Electron preload (IPC) and `paralab serve` (WebSocket) are two
// transports of it; the dashboard only ever talks to this interface.
import type { ChartSpec } from './charts/spec'
import type { ClusterInfo, ClusterRequest, ClusterRun, ClusterSubmission } from './cluster'
import type { JobEvent } from './jobs'
import type { DeviceInfo } from './device'
import type { ContentKind } from './formats'
import type { GridComparison } from './grid-difference'
import type { ResultEnvelope } from './workloads/envelope'
import type { InputOf, WorkloadId } from './workloads'

export type ExportFormat = 'png' | 'svg'

/** Size of an exported chart: layout in CSS pixels, and PNG pixels per CSS pixel (default 960 × 600 at scale 2). */
export interface ChartSize {
  width?: number
  height?: number
  scale?: number
}

export const CHART_SIZE_LIMITS = { side: [100, 8000], scale: [0.5, 8] } as const

export interface ChartExportRequest {
  chart: ChartSpec
  format: ExportFormat
  size?: ChartSize
  /** Suggested file name, e.g. `roofline.png`. */
  fileName: string
}

/** What an export produced: a saved file (desktop app) or the bytes for the browser to download (serve). */
export interface ExportResult {
  fileName: string
  mime: string
  /** Absolute path written by the desktop app; absent when the user cancelled or in `serve`. */
  savedPath?: string
  /** File content, base64, when the transport hands the file to the browser. */
  base64?: string
  /** `serve`: where the browser downloads a file too large to carry in a reply, relative to the dashboard's page. */
  url?: string
  cancelled?: boolean
}

export interface ResultsExportRequest {
  envelope: ResultEnvelope
  /** `json`: the whole envelope; `csv`: one of the workload's result tables; `html`: the run's report (one self-contained file). */
  format: 'csv' | 'json' | 'html'
  /** For `csv`: the table's name; default the workload's first table. */
  table?: string
  fileName: string
}

/**
 * A file the backend makes from a finished run's results on request, e.g. the landslide's final
 * grid as `.asc` or `.npy`: big arrays stay in the backend, which rebuilds or keeps them.
 */
export interface ResultFileRequest {
  workload: WorkloadId
  results: unknown
  /** One of the names the workload's engine offers (its `resultFiles`). */
  file: string
  fileName: string
}

/**
 * A file made from a run in the history and the files the backend kept of it (the full correlation
 * matrix as `.npy` or `.csv`), written as it is read: `serve` answers with a download address, the
 * desktop app saves it where the user chooses.
 */
export interface RunFileRequest {
  /** The run's id (listRuns, or its envelope's `kept.run`). */
  run: string
  /** One of the names its workload's engine offers. */
  file: string
  fileName: string
}

/** A workload's example, ready to run: its parameters with the example's input files. */
export interface ExampleSetup {
  params: Record<string, unknown>
  files: DataFile[]
}

/** A local file the backend may read. */
export interface DataFile {
  path: string
  name: string
  bytes: number
  /** The data folder (`serve --data`) it lies in; absent for files the user opened or an example's. */
  root?: string
  /** With `root`: its path under the data folder, folders separated by '/' (the name alone at the top). */
  relative?: string
  /** What its first bytes say it is (src/main/io/sniff.ts); absent where the backend did not read them (past its limit per listing). */
  content?: ContentKind
  /** Why the reader of its content would refuse it, from its header alone (a TIFF of 3 bands, JPEG): the chooser greys it out. */
  refused?: string
  /** A text file's first line as CSV fields (at most HEADER_FIELDS of them): a format that needs named columns is told by it. */
  header?: string[]
}

/** The fields of a text file's first line a listing carries. */
export const HEADER_FIELDS = 64

/** Limits of one answer of browseData: a folder lists at most this many entries. */
export const DATA_FOLDER_LIMIT = 5000

/** One folder of the data folders, as the chooser of `paralab serve` browses them. */
export interface DataFolder {
  /** The folder's path; null at the top, whose folders are the data folders themselves. */
  path: string | null
  /** Its subfolders, by name. */
  folders: { path: string; name: string }[]
  /** Its files, by name (every kind: the dashboard greys out what a workload cannot read). */
  files: DataFile[]
  /** It holds more entries than DATA_FOLDER_LIMIT: the rest are left out. */
  truncated: boolean
}

/** A dataset (variable) of an HDF5 or NetCDF file, as the dashboard offers it to choose. */
export interface DatasetEntry {
  /** `/group/name`. */
  path: string
  shape: number[]
  /** int8–64, uint8–64, float16, float32, float64, or what else the file says (string, compound, …). */
  dtype: string
  /** Why its elements are not read as numbers, when they are not. */
  unreadable?: string
}

/** One run in the history: a finished job's envelope, kept in the user's data folder. */
export interface RunSummary {
  id: string
  workload: string
  /** ISO 8601, when the job started. */
  createdAt: string
  /** One line: the input files and the backends timed, e.g. "acc.csv · serial, gpu". */
  summary: string
  /** Cancelled: the envelope holds only what had finished. */
  partial: boolean
  /** What each input was, for the History: its name, format, dataset, sha256 and generator, as the envelope records them. */
  provenance?: string[]
  /** Finished in this backend since it started, rather than in an earlier session. */
  thisSession: boolean
  /** The user's name for the run ("before the fix", "Tessina 10 m"), if given. */
  label?: string
}

/** A run's label: at most this many characters, no control characters; '' removes it. */
export const RUN_LABEL_MAX = 80

/** What a run id looks like: its start time, its workload and a random suffix (never a path). */
export const RUN_ID_PATTERN = /^\d{8}T\d{9}Z-[a-z0-9-]{1,60}$/

export interface ParalabApi {
  deviceInfo(): Promise<DeviceInfo>
  /** Starts a job running `workload`; the parameters are validated against its definition. */
  startJob<Id extends WorkloadId>(workload: Id, params: InputOf<Id>): Promise<string>
  /**
   * Starts a job that looks at a run rather than making one (a heatmap's pair, a zoom, a path
   * query): as startJob, but the history does not keep it, since the History lists runs.
   */
  startView<Id extends WorkloadId>(workload: Id, params: InputOf<Id>): Promise<string>
  cancelJob(jobId: string): Promise<boolean>
  exportChart(req: ChartExportRequest): Promise<ExportResult>
  exportResults(req: ResultsExportRequest): Promise<ExportResult>
  /** A file made from a run's results by its workload's engine (see ResultFileRequest). */
  exportResultFile(req: ResultFileRequest): Promise<ExportResult>
  /** A file of a run in the history, streamed from its kept files (see RunFileRequest). */
  exportRunFile(req: RunFileRequest): Promise<ExportResult>
  /** Files the dashboard may offer: `serve`'s --data folders, or what the user opened in the app. */
  listDataFiles(): Promise<DataFile[]>
  /** Desktop app: the open-file dialog (returns the chosen files, now readable). `serve` has no dialog: see browseData. */
  openFiles(): Promise<DataFile[]>
  /** `serve`: one folder of the --data folders (null: the data folders themselves), for the dashboard's chooser. */
  browseData(folder: string | null): Promise<DataFolder>
  /** The datasets of an HDF5 or NetCDF file the backend may read (none for any other file). */
  listDatasets(path: string): Promise<DatasetEntry[]>
  /** The workload's example (its input made on first use and made readable). */
  example(workload: WorkloadId): Promise<ExampleSetup>
  /** The runs in the history, newest first (`paralab serve` and the desktop app keep them; the CLI does not). */
  listRuns(): Promise<RunSummary[]>
  /** A run's envelope, by the id listRuns gave. */
  openRun(id: string): Promise<ResultEnvelope>
  /** Names a run of the history (`''` removes its label); the label shows in the history and in Compare. */
  labelRun(id: string, label: string): Promise<void>
  /**
   * The final grids of two runs in the history set against each other, B − A, read from the files
   * each run kept (the landslide's thickness): exact statistics over the full grids and the
   * difference reduced to a map; or why they cannot be compared (see GridComparison).
   */
  compareGrids(a: string, b: string): Promise<GridComparison>
  /** Whether this backend can run workloads on a Slurm cluster (`serve` where Slurm's commands are on the PATH). */
  clusterInfo(): Promise<ClusterInfo>
  /**
   * Submits a run to Slurm: the workload's parameters as for startJob, and the Slurm fields. The
   * backend chooses the run's folder (under its cluster runs folder); a request never names one.
   * When the run's merge ends, its merged results are kept in the history and announced as a
   * `done` job event with the id `cluster-<job id>`.
   */
  submitClusterJob<Id extends WorkloadId>(workload: Id, params: InputOf<Id>, request: ClusterRequest): Promise<ClusterSubmission>
  /** This user's Paralab runs on the cluster, newest first, with their tasks' states and progress. */
  listClusterJobs(): Promise<ClusterRun[]>
  /** Cancels a cluster job, or one task of an array (`1234_2`). */
  cancelClusterJob(jobId: string): Promise<void>
  /** Subscribes to progress and completion of every job; returns the unsubscribe function. */
  onJobEvent(listener: (event: JobEvent) => void): () => void
}

/** Request/response methods, in the order transports register them. */
export const API_METHODS = ['deviceInfo', 'startJob', 'startView', 'cancelJob', 'exportChart', 'exportResults', 'exportResultFile', 'exportRunFile', 'listDataFiles', 'openFiles', 'browseData', 'listDatasets', 'example', 'listRuns', 'openRun', 'labelRun', 'compareGrids', 'clusterInfo', 'submitClusterJob', 'listClusterJobs', 'cancelClusterJob'] as const
export type ApiMethod = (typeof API_METHODS)[number]
