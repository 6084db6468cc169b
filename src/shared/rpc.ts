// Request/reply over any message channel (WebSocket, the backend process's port, IPC): the one
// place that numbers requests and matches replies to them, and the API built from a `call`.
import { API_METHODS, type ApiMethod, type ParalabApi } from './api'
import { ApiError } from './errors'
import type { WireReply } from './wire'

/** The request/response methods of the API: what API_METHODS names (everything but onJobEvent). */
export type ApiCalls = Pick<ParalabApi, ApiMethod>

/** The API's methods, each handing its name and arguments to `call`. */
export function apiClient(call: (method: ApiMethod, args: unknown[]) => Promise<unknown>): ApiCalls {
  const api: Record<string, unknown> = {}
  for (const method of API_METHODS) api[method] = (...args: unknown[]) => call(method, args)
  return api as ApiCalls
}

interface Pending {
  resolve(value: unknown): void
  reject(error: ApiError): void
}

/** Requests awaiting their reply, by id. */
export class RequestTracker {
  private nextId = 1
  private readonly pending = new Map<number, Pending>()

  /** Gives the request a fresh id for `send` to put on the wire; settles when its reply arrives. */
  request(send: (id: number) => void): Promise<unknown> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      try {
        send(id)
      } catch (e) {
        this.pending.delete(id)
        reject(ApiError.from(e))
      }
    })
  }

  /** Settles the request `reply` answers; a reply to no pending request (e.g. one already failed) is ignored. */
  settle(reply: WireReply): void {
    const pending = this.pending.get(reply.id)
    if (!pending) return
    this.pending.delete(reply.id)
    if ('error' in reply) pending.reject(ApiError.from(reply.error))
    else pending.resolve(reply.result)
  }

  /** Fails every pending request with `error`: the other side is gone and will not answer. */
  failAll(error: ApiError): void {
    for (const pending of this.pending.values()) pending.reject(error)
    this.pending.clear()
  }
}

/** Runs one request and makes its reply, the error's code intact. */
export async function replyTo(id: number, run: () => unknown): Promise<WireReply> {
  try {
    return { id, result: await run() }
  } catch (e) {
    return { id, error: ApiError.from(e).toJSON() }
  }
}
