// The transport-independent backend: the services behind every API call.
import { ApiError, type ChartExportRequest, type DataFile, type ResultsExportRequest } from '../../shared/api'
import type { DeviceInfo } from '../../shared/device'
import type { JobKind, JobParams } from '../../shared/jobs'
import { gpuInfo } from '../gpu/runtime'
import { renderChart } from '../charts/render'
import { formatResults } from '../workloads/stats/results-format'
import { DataAccess } from './data-files'
import { JobManager } from './jobs'
import { jobRunners } from './runners'

/** A file produced in memory, ready to be saved or handed to the browser. */
export interface RenderedFile {
  fileName: string
  mime: string
  bytes: Uint8Array
}

const MIME = { png: 'image/png', svg: 'image/svg+xml', csv: 'text/csv', json: 'application/json' } as const

export interface BackendOptions {
  /** Folders whose files may be read; undefined means any file (the CLI). */
  dataDirs?: string[]
}

export class Backend {
  readonly files: DataAccess
  readonly jobs: JobManager

  constructor(opts: BackendOptions = {}) {
    this.files = new DataAccess(opts.dataDirs)
    this.jobs = new JobManager(jobRunners(this.files))
  }

  deviceInfo(): Promise<DeviceInfo> {
    return gpuInfo()
  }

  startJob<K extends JobKind>(kind: K, params: JobParams[K]): string {
    return this.jobs.start(kind, params)
  }

  cancelJob(jobId: string): boolean {
    return this.jobs.cancel(jobId)
  }

  async renderChart(req: ChartExportRequest): Promise<RenderedFile> {
    const bytes = await renderChart(req.chart, req.format)
    return { fileName: withExtension(req.fileName, req.format), mime: MIME[req.format], bytes }
  }

  renderResults(req: ResultsExportRequest): RenderedFile {
    const text = formatResults(req.result, req.format)
    return { fileName: withExtension(req.fileName, req.format), mime: MIME[req.format], bytes: new TextEncoder().encode(text) }
  }

  listDataFiles(): Promise<DataFile[]> {
    return this.files.list()
  }

  allowFiles(paths: string[]): Promise<DataFile[]> {
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new ApiError('invalid-argument', 'paths must be a list of strings')
    return this.files.allow(paths)
  }

  dispose(): void {
    this.jobs.cancelAll()
  }
}

function withExtension(name: string, ext: string): string {
  return name.toLowerCase().endsWith(`.${ext}`) ? name : `${name}.${ext}`
}
