// Picks the transport: the desktop app's preload when present, else `paralab serve`'s WebSocket.
import { ApiError } from '../../shared/errors'
import { apiClient } from '../../shared/rpc'
import { WIRE_PATH } from '../../shared/wire'
import { SERVER_QUERY, parseServerUrl } from '../../shared/server-url'
import { desktopConnection, electronApi } from './electron'
import type { DashboardApi, PreloadApi } from './types'
import { WebSocketApi } from './websocket'

export type { DashboardApi } from './types'

export function createApi(win: Window = window): DashboardApi {
  if (win.paralab) {
    // The desktop app connected to a `paralab serve` loads this page with the server's address.
    const server = new URLSearchParams(win.location.search).get(SERVER_QUERY)
    return server === null ? electronApi(win.paralab) : desktopOnServer(win, win.paralab, server)
  }
  const token = new URLSearchParams(win.location.search).get('token')
  // The socket lives beside the page (`serve` serves the dashboard under a path of its own).
  const socket = new URL(WIRE_PATH, win.location.href)
  socket.protocol = win.location.protocol === 'https:' ? 'wss:' : 'ws:'
  const where = socket.href
  if (!token)
    return unreachableApi(
      `This page's address has no session token, so it cannot reach the Paralab server at ${where}. Open the address that \`paralab serve\` printed (it ends in ?token=…).`,
    )
  return new WebSocketApi(new WebSocket(`${where}?token=${encodeURIComponent(token)}`), where)
}

/** The desktop app talking to a `paralab serve` over its WebSocket, as a browser would, able to go back. */
function desktopOnServer(win: Window, bridge: PreloadApi, server: string): DashboardApi {
  let address
  try {
    address = parseServerUrl(server)
  } catch (e) {
    return { ...unreachableApi(ApiError.from(e).message), ...desktopConnection(bridge) }
  }
  const api = new WebSocketApi(new (win as Window & typeof globalThis).WebSocket(address.socket), address.where)
  return Object.assign(api, { server: address.where }, desktopConnection(bridge))
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
