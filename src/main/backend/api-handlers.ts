// The API as request handlers over a Backend, for transports that hand files to a browser
// (`serve`, and the desktop app's backend process, whose main process saves them instead).
import { Buffer } from 'node:buffer'
import type { ApiMethod, ExportResult, RunFileRequest } from '../../shared/api'
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
    startView: async (workload, params) => backend.startJob(workload, params, { view: true }),
    cancelJob: async (jobId) => backend.cancelJob(jobId),
    exportChart: async (req) => asDownload(await backend.renderChart(req)),
    exportResults: async (req) => asDownload(await backend.renderResults(req)),
    exportResultFile: async (req) => asDownload(await backend.renderResultFile(req, signal)),
    // Checked here (the run, the file), then fetched from the address, written as it is read (serve.ts).
    exportRunFile: async (req) => {
      const file = await backend.runFile(req, signal)
      await closePieces(file.pieces)
      return { fileName: file.fileName, mime: file.mime, url: runFileUrl(req) } satisfies ExportResult
    },
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
    labelRun: (id, label) => backend.labelRun(id, label),
    compareGrids: (a, b) => backend.compareGrids(a, b, signal),
    clusterInfo: () => backend.clusterInfo(),
    submitClusterJob: (workload, params, request) => backend.submitClusterJob(workload, params, request),
    listClusterJobs: () => backend.listClusterJobs(),
    cancelClusterJob: (jobId) => backend.cancelClusterJob(jobId),
  }
}

/** Where `serve` streams a run's file, relative to the dashboard's page (see RUN_FILE_PATH). */
export function runFileUrl(req: RunFileRequest): string {
  return `${RUN_FILE_PATH}/${req.run}/${req.file}?name=${encodeURIComponent(req.fileName)}`
}

/** The address's first folder under the dashboard's: `runs/<run id>/<file>?name=<file name>`. */
export const RUN_FILE_PATH = 'runs'

/** Pieces not to be read after all: their generator ends, closing what it opened. */
export async function closePieces(pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  const it = Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]()
  await it.return?.()
}

/** Validates and runs one request. */
export function handleRequest(handlers: ApiHandlers, method: unknown, args: unknown): Promise<unknown> {
  validateRequest(method, args)
  return handlers[method as ApiMethod](...args)
}
