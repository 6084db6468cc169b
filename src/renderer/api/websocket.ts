// The browser transport: `paralab serve`'s WebSocket (messages in src/shared/wire.ts).
import { ApiError, type ApiMethod } from '../../shared/api'
import type { JobEvent, JobKind, JobParams } from '../../shared/jobs'
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

interface Pending {
  resolve(value: unknown): void
  reject(error: ApiError): void
}

export class WebSocketApi implements DashboardApi {
  readonly transport = 'websocket' as const
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
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
    this.opened = socket.readyState === OPEN
    socket.addEventListener('open', () => {
      this.opened = true
      for (const text of this.queued.splice(0)) socket.send(text)
    })
    socket.addEventListener('message', (event) => this.receive(event.data))
    socket.addEventListener('close', (event) => this.closed(event.code, event.reason))
  }

  deviceInfo = () => this.call<Awaited<ReturnType<DashboardApi['deviceInfo']>>>('deviceInfo', [])
  startJob = <K extends JobKind>(kind: K, params: JobParams[K]) => this.call<string>('startJob', [kind, params])
  cancelJob = (jobId: string) => this.call<boolean>('cancelJob', [jobId])
  exportChart: DashboardApi['exportChart'] = (req) => this.call('exportChart', [req])
  exportResults: DashboardApi['exportResults'] = (req) => this.call('exportResults', [req])
  listDataFiles: DashboardApi['listDataFiles'] = () => this.call('listDataFiles', [])
  openFiles: DashboardApi['openFiles'] = () => this.call('openFiles', [])

  onJobEvent(listener: (event: JobEvent) => void): () => void {
    this.jobListeners.add(listener)
    return () => this.jobListeners.delete(listener)
  }

  onConnectionError(listener: (message: string) => void): () => void {
    this.lostListeners.add(listener)
    if (this.lost !== null) listener(this.lost)
    return () => this.lostListeners.delete(listener)
  }

  private call<T>(method: ApiMethod, args: unknown[]): Promise<T> {
    if (this.lost !== null) return Promise.reject(new ApiError('io', this.lost))
    const id = this.nextId++
    const request: WireRequest = { id, method, args }
    const text = JSON.stringify(request)
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
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
    const pending = this.pending.get(message.id)
    if (!pending) return // an answer to a request this page no longer waits for
    this.pending.delete(message.id)
    if ('error' in message) pending.reject(ApiError.from(message.error))
    else pending.resolve(message.result)
  }

  private closed(code: number, reason: string): void {
    const detail = reason ? `code ${code}: ${reason}` : `code ${code}`
    const message = REFUSED_CODES.has(code)
      ? `The Paralab server at ${this.where} refused this page's session token (${detail}). Open the address that \`paralab serve\` printed, with its ?token=….`
      : this.opened
        ? `The connection to the Paralab server at ${this.where} closed (${detail}). Restart \`paralab serve\` if it stopped, then reload this page.`
        : `Could not connect to the Paralab server at ${this.where} (${detail}): it is not running, or it refused this page's session token. Open the address that \`paralab serve\` printed.`
    this.lost = message
    const error = new ApiError('io', message)
    for (const pending of this.pending.values()) pending.reject(error)
    this.pending.clear()
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
