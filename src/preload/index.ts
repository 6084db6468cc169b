// Exposes the Paralab API to the dashboard as named functions, nothing else.
import { contextBridge, ipcRenderer, webUtils } from 'electron'
import { apiClient } from '../shared/rpc'
import { IPC_JOB_EVENT, IPC_PREFIX, type IpcReply } from '../shared/wire'
import type { JobEvent } from '../shared/jobs'
import { IPC_CONNECT_REQUEST, IPC_CONNECT_SERVER } from '../shared/server-url'

async function invoke(channel: string, args: unknown[]): Promise<unknown> {
  const reply = (await ipcRenderer.invoke(IPC_PREFIX + channel, ...args)) as IpcReply
  // Only an Error's message crosses the context bridge: carry the code inside it.
  if ('error' in reply) throw new Error(JSON.stringify(reply.error))
  return reply.ok
}

const api = {
  ...apiClient(invoke),
  onJobEvent(listener: (event: JobEvent) => void): () => void {
    const handler = (_e: unknown, event: JobEvent) => listener(event)
    ipcRenderer.on(IPC_JOB_EVENT, handler)
    return () => ipcRenderer.off(IPC_JOB_EVENT, handler)
  },
  /** Makes dropped files readable by the backend; returns them as DataFile entries. */
  dropFiles: (files: File[]) => invoke('dropFiles', [Array.from(files, (f) => webUtils.getPathForFile(f))]),
  /** Reloads the window on a `paralab serve` (its printed address), or on this app's own backend (null). */
  connectServer: (url: string | null) => invoke(IPC_CONNECT_SERVER.slice(IPC_PREFIX.length), [url]).then(() => undefined),
  /** The menu's "Connect to a Paralab server…". */
  onConnectRequest(listener: () => void): () => void {
    const handler = () => listener()
    ipcRenderer.on(IPC_CONNECT_REQUEST, handler)
    return () => ipcRenderer.off(IPC_CONNECT_REQUEST, handler)
  },
}

contextBridge.exposeInMainWorld('paralab', api)
