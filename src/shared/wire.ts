// Messages of the WebSocket transport (`paralab serve`), also spoken between the desktop app's
// main process and its backend process. The Electron window carries the same calls over IPC
// channels named `paralab:<method>` and events on `paralab:job-event`.
import type { ApiMethod } from './api'
import type { ApiErrorShape } from './errors'
import type { JobEvent } from './jobs'

/** A call of `method`; its reply carries the same id. */
export interface WireRequest<Method extends string = ApiMethod> {
  id: number
  method: Method
  args: unknown[]
}

/** The answer to request `id`: its result, or the error it ended with. */
export type WireReply = { id: number; result: unknown } | { id: number; error: ApiErrorShape }

export type WireMessage = WireReply | { event: 'job'; data: JobEvent }

/** What the main process answers an IPC call with: ApiErrors do not survive ipcRenderer.invoke's rejections. */
export type IpcReply = { ok: unknown } | { error: ApiErrorShape }

/** The API socket, relative to the dashboard's address; the session token goes in the `token` query parameter. */
export const WIRE_PATH = 'api'
export const IPC_PREFIX = 'paralab:'
export const IPC_JOB_EVENT = 'paralab:job-event'
