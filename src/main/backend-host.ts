// The desktop app's backend process (an Electron utility process): jobs, CPU workers and the
// GPU run here, never on the window's main thread. It answers the main process's requests.
import { replyTo } from '../shared/rpc'
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

port.on('message', async ({ data: req }) => {
  const run = () => (req.method === 'allowFiles' ? backend.allowFiles(req.args[0] as string[]) : handleRequest(handlers, req.method, req.args))
  port.postMessage(await replyTo(req.id, run))
})
