// The thread side of WorkerPool: answers task requests with the named handler.
import { parentPort, type TransferListItem } from 'node:worker_threads'
import { ApiError } from '../../shared/errors'
import type { TaskReply, TaskRequest } from './protocol'

/** A handler returns its result, and optionally buffers to transfer instead of copy. */
export type TaskHandler = (payload: any) => unknown | { result: unknown; transfer: TransferListItem[] } | Promise<unknown>

export function transferable<T>(result: T, transfer: TransferListItem[]): { result: T; transfer: TransferListItem[] } {
  return Object.assign(Object.create(TRANSFER), { result, transfer })
}
const TRANSFER = {}

export function serveTasks(handlers: Record<string, TaskHandler>): void {
  const port = parentPort
  if (!port) throw new Error('serveTasks must run in a worker thread')
  port.on('message', async (req: TaskRequest) => {
    let reply: TaskReply
    let transfer: TransferListItem[] = []
    try {
      const handler = handlers[req.task]
      if (!handler) throw new ApiError('internal', `unknown worker task ${req.task}`)
      let out = await handler(req.payload)
      if (out && Object.getPrototypeOf(out) === TRANSFER) {
        transfer = (out as { transfer: TransferListItem[] }).transfer
        out = (out as { result: unknown }).result
      }
      reply = { id: req.id, result: out }
    } catch (e) {
      reply = { id: req.id, error: ApiError.from(e).toJSON() }
    }
    port.postMessage(reply, transfer)
  })
}
