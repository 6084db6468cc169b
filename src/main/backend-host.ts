// The desktop app's backend process (an Electron utility process): jobs, CPU workers and the
// GPU run here, never on the window's main thread. It answers the main process's requests.
import { ApiError } from '../shared/api'
import type { WireMessage } from '../shared/wire'
import { Backend } from './backend/backend'
import { apiHandlers, handleRequest } from './backend/api-handlers'
import type { HostRequest } from './host-protocol'

interface ParentPort {
  on(event: 'message', listener: (e: { data: HostRequest }) => void): void
  postMessage(message: WireMessage): void
}
const port = (process as unknown as { parentPort: ParentPort }).parentPort

// Only files the user picks (dialog or drag-and-drop) are readable.
const backend = new Backend({ dataDirs: [] })
const handlers = apiHandlers(backend)

backend.jobs.on('event', (data) => port.postMessage({ event: 'job', data }))

port.on('message', async ({ data: req }) => {
  try {
    const result = req.method === 'allowFiles' ? await backend.allowFiles(req.args[0] as string[]) : await handleRequest(handlers, req.method, req.args)
    port.postMessage({ id: req.id, result })
  } catch (e) {
    port.postMessage({ id: req.id, error: ApiError.from(e).toJSON() })
  }
})
