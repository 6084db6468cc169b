// The desktop transport: the preload's `window.paralab`, with IPC errors turned back into ApiErrors.
import { ApiError } from '../../shared/api'
import type { JobKind, JobParams } from '../../shared/jobs'
import type { DashboardApi, PreloadApi } from './types'

export function electronApi(bridge: PreloadApi): DashboardApi {
  return {
    transport: 'electron',
    deviceInfo: () => guarded(() => bridge.deviceInfo()),
    startJob: <K extends JobKind>(kind: K, params: JobParams[K]) => guarded(() => bridge.startJob(kind, params)),
    cancelJob: (jobId) => guarded(() => bridge.cancelJob(jobId)),
    exportChart: (req) => guarded(() => bridge.exportChart(req)),
    exportResults: (req) => guarded(() => bridge.exportResults(req)),
    listDataFiles: () => guarded(() => bridge.listDataFiles()),
    openFiles: () => guarded(() => bridge.openFiles()),
    onJobEvent: (listener) => bridge.onJobEvent(listener),
    ...(bridge.dropFiles ? { dropFiles: (files: File[]) => guarded(() => bridge.dropFiles!(files)) } : {}),
    // IPC to the main process cannot drop; if the main process dies, so does this window.
    onConnectionError: () => () => {},
  }
}

async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (e) {
    throw ipcError(e)
  }
}

// ipcRenderer.invoke rejects with "Error invoking remote method 'paralab:x': Error: <message>",
// losing the error's class; the message (or a JSON ApiError inside it) is what the user needs.
const IPC_PREFIX = /^Error invoking remote method '[^']*': (?:[A-Za-z]*Error: )?/

export function ipcError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  const direct = ApiError.from(e)
  if (!(e instanceof Error) || direct.code !== 'internal') return direct
  const message = e.message.replace(IPC_PREFIX, '')
  if (message.startsWith('{')) {
    try {
      return ApiError.from(JSON.parse(message))
    } catch {
      // not JSON after all: keep the text
    }
  }
  return new ApiError('internal', message)
}
