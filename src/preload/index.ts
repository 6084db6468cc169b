// Exposes the Paralab API to the dashboard as named functions, nothing else.
import { contextBridge, ipcRenderer, webUtils } from 'electron'
import { API_METHODS, type ApiErrorShape } from '../shared/api'
import { IPC_JOB_EVENT, IPC_PREFIX } from '../shared/wire'
import type { JobEvent } from '../shared/jobs'

type Reply = { ok: unknown } | { error: ApiErrorShape }

async function invoke(channel: string, args: unknown[]): Promise<unknown> {
  const reply = (await ipcRenderer.invoke(IPC_PREFIX + channel, ...args)) as Reply
  // Only an Error's message crosses the context bridge: carry the code inside it.
  if ('error' in reply) throw new Error(JSON.stringify(reply.error))
  return reply.ok
}

const api: Record<string, unknown> = {}
for (const method of API_METHODS) api[method] = (...args: unknown[]) => invoke(method, args)

api.onJobEvent = (listener: (event: JobEvent) => void) => {
  const handler = (_e: unknown, event: JobEvent) => listener(event)
  ipcRenderer.on(IPC_JOB_EVENT, handler)
  return () => ipcRenderer.off(IPC_JOB_EVENT, handler)
}

/** Makes dropped files readable by the backend; returns them as DataFile entries. */
api.dropFiles = (files: File[]) => invoke('dropFiles', [Array.from(files, (f) => webUtils.getPathForFile(f))])

contextBridge.exposeInMainWorld('paralab', api)
