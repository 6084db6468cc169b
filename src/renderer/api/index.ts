// Picks the transport: the desktop app's preload on its own page, else `paralab serve`'s WebSocket
// (in a browser, or in the desktop app connected to a server).
import { ApiError } from '../../shared/errors'
import { apiClient } from '../../shared/rpc'
import { WIRE_PATH } from '../../shared/wire'
import { desktopConnection, electronApi } from './electron'
import type { DashboardApi } from './types'
import { WebSocketApi } from './websocket'

export type { DashboardApi } from './types'

export function createApi(win: Window = window): DashboardApi {
  const token = new URLSearchParams(win.location.search).get('token')
  // The desktop app's own page; connected to a `paralab serve`, it shows that server's page (with its token).
  if (win.paralab && token === null) return electronApi(win.paralab)
  // The socket lives beside the page (`serve` serves the dashboard under a path of its own).
  const socket = new URL(WIRE_PATH, win.location.href)
  socket.protocol = win.location.protocol === 'https:' ? 'wss:' : 'ws:'
  const where = socket.href
  if (!token)
    return unreachableApi(
      `This page's address has no session token, so it cannot reach the Paralab server at ${where}. Open the address that \`paralab serve\` printed (it ends in ?token=…).`,
    )
  const api = new WebSocketApi(new WebSocket(`${where}?token=${encodeURIComponent(token)}`), where)
  // In the desktop app, the server's page can still go back to the app's own backend.
  return win.paralab ? Object.assign(api, { server: where }, desktopConnection(win.paralab)) : api
}

/** An API whose every call fails with `message`: the page still renders and says what is wrong. */
export function unreachableApi(message: string): DashboardApi {
  const fail = () => Promise.reject(new ApiError('io', message))
  return {
    transport: 'websocket',
    ...apiClient(fail),
    onJobEvent: () => () => {},
    onConnectionError(listener) {
      listener(message)
      return () => {}
    },
  }
}
