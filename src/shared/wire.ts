// Messages of the WebSocket transport (`paralab serve`). The Electron transport carries the
// same calls over IPC channels named `paralab:<method>` and events on `paralab:job-event`.
import type { ApiErrorShape, ApiMethod } from './api'
import type { JobEvent } from './jobs'

export interface WireRequest {
  id: number
  method: ApiMethod
  args: unknown[]
}

export type WireMessage =
  | { id: number; result: unknown }
  | { id: number; error: ApiErrorShape }
  | { event: 'job'; data: JobEvent }

/** Path of the API socket; the session token goes in the `token` query parameter. */
export const WIRE_PATH = '/api'
export const IPC_PREFIX = 'paralab:'
export const IPC_JOB_EVENT = 'paralab:job-event'
