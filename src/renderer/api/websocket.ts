// The browser transport: `paralab serve`'s WebSocket (messages in src/shared/wire.ts).
import type { ApiMethod } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import type { JobEvent } from '../../shared/jobs'
import { apiClient, RequestTracker, type ApiCalls } from '../../shared/rpc'
import type { WireMessage, WireRequest } from '../../shared/wire'
import type { DashboardApi } from './types'

/** The part of a WebSocket the client uses, so tests can hand it a fake. */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'open' | 'error', listener: () => void): void
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void
}

const OPEN = 1
/** Close codes a server may use to turn a session away (policy violation, or 4000-range "unauthorized"). */
const REFUSED_CODES = new Set([1008, 4001, 4003, 4401, 4403])

// Merged into the class: the request/response methods, which the constructor assigns from apiClient.
export interface WebSocketApi extends ApiCalls {}

export class WebSocketApi implements DashboardApi {
  readonly transport = 'websocket' as const
  private readonly requests = new RequestTracker()
  private readonly queued: string[] = []
  private readonly jobListeners = new Set<(event: JobEvent) => void>()
  private readonly lostListeners = new Set<(message: string) => void>()
  private opened = false
  private lost: string | null = null

  /** `where` names the server in messages, e.g. "ws://127.0.0.1:7600/api" (never the token). */
  constructor(
    private readonly socket: SocketLike,
    private readonly where: string,
  ) {
    Object.assign(this, apiClient((method, args) => this.call(method, args)))
    this.opened = socket.readyState === OPEN
    socket.addEventListener('open', () => {
      this.opened = true
      for (const text of this.queued.splice(0)) socket.send(text)
    })
    socket.addEventListener('message', (event) => this.receive(event.data))
    socket.addEventListener('close', (event) => this.closed(event.code, event.reason))
  }

  onJobEvent(listener: (event: JobEvent) => void): () => void {
    this.jobListeners.add(listener)
    return () => this.jobListeners.delete(listener)
  }

  onConnectionError(listener: (message: string) => void): () => void {
    this.lostListeners.add(listener)
    if (this.lost !== null) listener(this.lost)
    return () => this.lostListeners.delete(listener)
  }

  private call(method: ApiMethod, args: unknown[]): Promise<unknown> {
    if (this.lost !== null) return Promise.reject(new ApiError('io', this.lost))
    return this.requests.request((id) => {
      const text = JSON.stringify({ id, method, args } satisfies WireRequest)
      if (this.socket.readyState === OPEN) this.socket.send(text)
      else this.queued.push(text)
    })
  }

  private receive(data: unknown): void {
    let message: WireMessage
    try {
      message = JSON.parse(String(data)) as WireMessage
    } catch {
      this.report(`The server at ${this.where} sent a message that is not JSON: ${preview(data)}`)
      return
    }
    if ('event' in message) {
      if (message.event === 'job') for (const listener of [...this.jobListeners]) listener(message.data)
      return
    }
    this.requests.settle(message)
  }

  private closed(code: number, reason: string): void {
    const detail = reason ? `code ${code}: ${reason}` : `code ${code}`
    const message = REFUSED_CODES.has(code)
      ? `The Paralab server at ${this.where} refused this page's session token (${detail}). Open the address that \`paralab serve\` printed, with its ?token=….`
      : this.opened
        ? `The connection to the Paralab server at ${this.where} closed (${detail}). Restart \`paralab serve\` if it stopped, then reload this page.`
        : `Could not connect to the Paralab server at ${this.where} (${detail}): it is not running, or it refused this page's session token. Open the address that \`paralab serve\` printed.`
    this.lost = message
    this.requests.failAll(new ApiError('io', message))
    this.queued.length = 0
    this.report(message)
  }

  private report(message: string): void {
    for (const listener of [...this.lostListeners]) listener(message)
  }
}

function preview(data: unknown): string {
  const text = String(data)
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
