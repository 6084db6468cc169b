// The desktop app's backend process (an Electron utility process): jobs, CPU workers and the
// GPU run here, never on the window's main thread. It answers the main process's requests.
import { isAbsolute } from 'node:path'
import type { RunFileRequest } from '../shared/api'
import { ApiError } from '../shared/errors'
import { replyTo } from '../shared/rpc'
import { validateRequest } from '../shared/validate'
import { writeFileAtomic } from './io/atomic-write'
import type { WireMessage } from '../shared/wire'
import { Backend } from './backend/backend'
import { apiHandlers, handleRequest } from './backend/api-handlers'
import { defaultHistoryDir } from './backend/history'
import type { HostRequest } from './host-protocol'
import { ENGINES } from './workloads'

interface ParentPort {
  on(event: 'message', listener: (e: { data: HostRequest }) => void): void
  postMessage(message: WireMessage): void
}
const port = (process as unknown as { parentPort: ParentPort }).parentPort

// Only files the user picks (dialog or drag-and-drop) are readable.
const backend = new Backend({ engines: ENGINES, dataDirs: [], historyDir: defaultHistoryDir() })
const handlers = apiHandlers(backend)

backend.jobs.on('event', (data) => port.postMessage({ event: 'job', data }))

/** A run's file written where the user chose, as it is read: whole or not at all (writeFileAtomic). */
async function writeRunFile(req: unknown, path: unknown): Promise<string> {
  validateRequest('exportRunFile', [req])
  if (typeof path !== 'string' || !isAbsolute(path)) throw new ApiError('invalid-argument', 'the file to write must be an absolute path')
  const file = await backend.runFile(req as RunFileRequest)
  // The save dialog has asked before overwriting.
  await writeFileAtomic(path, file.pieces, { overwrite: true })
  return path
}

port.on('message', async ({ data: req }) => {
  const run = () =>
    req.method === 'allowFiles'
      ? backend.allowFiles(req.args[0] as string[])
      : req.method === 'writeRunFile'
        ? writeRunFile(req.args[0], req.args[1])
        : handleRequest(handlers, req.method, req.args)
  port.postMessage(await replyTo(req.id, run))
})
