// The desktop transport: the preload's `window.paralab`, with IPC errors turned back into ApiErrors.
import type { ApiMethod } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { apiClient } from '../../shared/rpc'
import type { DashboardApi, PreloadApi } from './types'

export function electronApi(bridge: PreloadApi): DashboardApi {
  const call = (method: ApiMethod, args: unknown[]) => guarded(() => (bridge[method] as (...args: unknown[]) => Promise<unknown>)(...args))
  return {
    transport: 'electron',
    ...apiClient(call),
    onJobEvent: (listener) => bridge.onJobEvent(listener),
    ...(bridge.dropFiles ? { dropFiles: (files: File[]) => guarded(() => bridge.dropFiles!(files)) } : {}),
    ...desktopConnection(bridge),
    // IPC to the main process cannot drop; if the main process dies, so does this window.
    onConnectionError: () => () => {},
  }
}

/** The desktop app's way to another backend: connecting to a `paralab serve`, and back. */
export function desktopConnection(bridge: PreloadApi): Pick<DashboardApi, 'connectServer' | 'onConnectRequest'> {
  return {
    ...(bridge.connectServer ? { connectServer: (url: string | null) => guarded(() => bridge.connectServer!(url)) } : {}),
    ...(bridge.onConnectRequest ? { onConnectRequest: (listener: () => void) => bridge.onConnectRequest!(listener) } : {}),
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
