// The one API of Paralab. The Electron preload (IPC) and `paralab serve` (WebSocket) are two
// transports of it; the dashboard only ever talks to this interface.
import type { ChartSpec } from './charts/spec'
import type { JobEvent, JobKind, JobParams } from './jobs'
import type { DeviceInfo } from './device'
import type { StatsResult } from './workloads/stats/types'

export type ExportFormat = 'png' | 'svg'

export interface ChartExportRequest {
  chart: ChartSpec
  format: ExportFormat
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
  cancelled?: boolean
}

export interface ResultsExportRequest {
  result: StatsResult
  format: 'csv' | 'json'
  fileName: string
}

/** A local file the backend may read. */
export interface DataFile {
  path: string
  name: string
  bytes: number
}

export interface ParalabApi {
  deviceInfo(): Promise<DeviceInfo>
  startJob<K extends JobKind>(kind: K, params: JobParams[K]): Promise<string>
  cancelJob(jobId: string): Promise<boolean>
  exportChart(req: ChartExportRequest): Promise<ExportResult>
  exportResults(req: ResultsExportRequest): Promise<ExportResult>
  /** Files the dashboard may offer: `serve`'s --data folders, or what the user opened in the app. */
  listDataFiles(): Promise<DataFile[]>
  /** Desktop app: the open-file dialog (returns the chosen files, now readable). `serve`: lists --data. */
  openFiles(): Promise<DataFile[]>
  /** Subscribes to progress and completion of every job; returns the unsubscribe function. */
  onJobEvent(listener: (event: JobEvent) => void): () => void
}

/** Request/response methods, in the order transports register them. */
export const API_METHODS = ['deviceInfo', 'startJob', 'cancelJob', 'exportChart', 'exportResults', 'listDataFiles', 'openFiles'] as const
export type ApiMethod = (typeof API_METHODS)[number]

/** Error codes a request or a job can end with. */
export type ErrorCode =
  | 'invalid-argument'
  | 'cancelled'
  | 'gpu-unavailable'
  | 'device-lost'
  | 'invalid-input'
  | 'io'
  | 'internal'

export interface ApiErrorShape {
  code: ErrorCode
  message: string
}

/** An error that crosses the transport with its code intact. */
export class ApiError extends Error implements ApiErrorShape {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  static from(e: unknown): ApiError {
    if (e instanceof ApiError) return e
    if (e && typeof e === 'object' && 'code' in e && 'message' in e && isErrorCode((e as ApiErrorShape).code))
      return new ApiError((e as ApiErrorShape).code, String((e as ApiErrorShape).message))
    return new ApiError('internal', e instanceof Error ? e.message : String(e))
  }

  toJSON(): ApiErrorShape {
    return { code: this.code, message: this.message }
  }
}

const ERROR_CODES: readonly ErrorCode[] = ['invalid-argument', 'cancelled', 'gpu-unavailable', 'device-lost', 'invalid-input', 'io', 'internal']
function isErrorCode(c: unknown): c is ErrorCode {
  return typeof c === 'string' && (ERROR_CODES as readonly string[]).includes(c)
}
