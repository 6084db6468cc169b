// The API as request handlers over a Backend, for transports that hand files to a browser
// (`serve`, and the desktop app's backend process, whose main process saves them instead).
import { Buffer } from 'node:buffer'
import type { ApiMethod, ExportResult } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { validateRequest } from '../../shared/validate'
import type { Backend, RenderedFile } from './backend'

export type ApiHandlers = Record<ApiMethod, (...args: any[]) => Promise<unknown>>

function asDownload(file: RenderedFile): ExportResult {
  return { fileName: file.fileName, mime: file.mime, base64: Buffer.from(file.bytes).toString('base64') }
}

/** `signal`: the connection the requests come over has closed (work done only for its asker stops). */
export function apiHandlers(backend: Backend, signal?: AbortSignal): ApiHandlers {
  return {
    deviceInfo: () => backend.deviceInfo(),
    startJob: async (workload, params) => backend.startJob(workload, params),
    cancelJob: async (jobId) => backend.cancelJob(jobId),
    exportChart: async (req) => asDownload(await backend.renderChart(req)),
    exportResults: async (req) => asDownload(backend.renderResults(req)),
    exportResultFile: async (req) => asDownload(await backend.renderResultFile(req, signal)),
    listDataFiles: () => backend.listDataFiles(),
    // A browser has no file dialog the backend could open: its dashboard browses the data folders.
    openFiles: async () => {
      throw new ApiError('invalid-argument', 'this backend has no file dialog: choose files in the data folders (browseData)')
    },
    browseData: (folder) => backend.files.folder(folder),
    listDatasets: (path) => backend.listDatasets(path),
    example: (workload) => backend.example(workload),
    listRuns: () => backend.listRuns(),
    openRun: (id) => backend.openRun(id),
    clusterInfo: () => backend.clusterInfo(),
    submitClusterJob: (workload, params, request) => backend.submitClusterJob(workload, params, request),
    listClusterJobs: () => backend.listClusterJobs(),
    cancelClusterJob: (jobId) => backend.cancelClusterJob(jobId),
  }
}

/** Validates and runs one request. */
export function handleRequest(handlers: ApiHandlers, method: unknown, args: unknown): Promise<unknown> {
  validateRequest(method, args)
  return handlers[method as ApiMethod](...args)
}
