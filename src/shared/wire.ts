// Messages of the WebSocket transport (`paralab serve`), also spoken between the desktop app's
// main process and its backend process. The Electron window carries the same calls over IPC
// channels named `paralab:<method>` and events on `paralab:job-event`.
import type { ApiMethod } from './api'
import { ApiError, type ApiErrorShape } from './errors'
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

/**
 * Bytes a request may carry: its length is checked before it is parsed (a 36 MB chart took ~0.9 s
 * of JSON.parse before its values were refused). The largest the dashboard sends, a run's envelope
 * to export, is a few MB.
 */
export const MAX_REQUEST_BYTES = 16 * 2 ** 20

/** Bytes a reply may hold (a drawn chart or a file to download, in base64): beyond, an error says so instead. */
export const MAX_REPLY_BYTES = 96 * 2 ** 20

/** Bytes for messages: whole MiB when exact, else MB with one decimal. */
export function sizeText(bytes: number): string {
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${(bytes / 1e6).toFixed(1)} MB`
}

/** The reply to `method` as the text sent: past `max` characters, an error saying so instead. */
export function replyText(reply: WireReply, method: unknown, max = MAX_REPLY_BYTES): string {
  const text = JSON.stringify(reply)
  if (text.length <= max) return text
  const error = new ApiError('io', `the reply to ${String(method)} is ${sizeText(text.length)}, over the ${sizeText(max)} a reply may hold`)
  return JSON.stringify({ id: reply.id, error: error.toJSON() } satisfies WireReply)
}

/** The id of a request too large to parse, read from its start as the dashboard writes it (`{"id":N,…`); −1 when it is not there. */
export function peekRequestId(start: string): number {
  const m = /^\s*\{\s*"id"\s*:\s*(\d{1,15})\s*[,}]/.exec(start)
  return m ? Number(m[1]) : -1
}

/** The API socket, relative to the dashboard's address; the session token goes in the `token` query parameter. */
export const WIRE_PATH = 'api'
export const IPC_PREFIX = 'paralab:'
export const IPC_JOB_EVENT = 'paralab:job-event'
