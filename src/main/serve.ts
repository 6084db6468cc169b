// `paralab serve`: the built dashboard and the API over HTTP + WebSocket, on 127.0.0.1 only.
// Every request must carry the random session token printed in the URL (query parameter on the
// first page load, then a same-site cookie), so other local users and web pages cannot use it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, resolve, sep } from 'node:path'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { ApiError } from '../shared/errors'
import type { JobEvent } from '../shared/jobs'
import { WIRE_PATH, type WireMessage, type WireRequest } from '../shared/wire'
import { Backend } from './backend/backend'
import { apiHandlers, handleRequest } from './backend/api-handlers'
import { CONTENT_SECURITY_POLICY } from './csp'
import { ENGINES } from './workloads'

export interface ServeOptions {
  port?: number
  dataDirs: string[]
  /** The built dashboard (out/renderer). */
  rendererDir: string
}

export interface RunningServer {
  url: string
  token: string
  port: number
  backend: Backend
  close(): Promise<void>
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}
const COOKIE = 'paralab_token'

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const token = randomBytes(24).toString('base64url')
  const backend = new Backend({ engines: ENGINES, dataDirs: opts.dataDirs })
  const handlers = apiHandlers(backend)
  const root = resolve(opts.rendererDir)
  await stat(join(root, 'index.html')).catch(() => {
    throw new ApiError('io', `${join(root, 'index.html')} is missing: run \`npm run build\` first`)
  })

  const authorized = (req: IncomingMessage): 'query' | 'cookie' | false => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (sameToken(url.searchParams.get('token'), token)) return 'query'
    const cookie = /(?:^|;\s*)paralab_token=([^;]+)/.exec(req.headers.cookie ?? '')?.[1]
    return sameToken(cookie, token) ? 'cookie' : false
  }

  const server = createServer(async (req, res) => {
    const how = authorized(req)
    if (!how) return send(res, 403, 'text/plain; charset=utf-8', 'Forbidden: this Paralab server needs the session token from the URL it printed.\n')
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'Method not allowed\n')
    if (how === 'query') res.setHeader('Set-Cookie', `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`)
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    const file = normalize(join(root, path === '/' ? 'index.html' : decodeURIComponent(path)))
    if (file !== root && !file.startsWith(root + sep)) return send(res, 404, 'text/plain', 'Not found\n')
    try {
      const body = await readFile(file)
      send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', body)
    } catch {
      send(res, 404, 'text/plain', 'Not found\n')
    }
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== WIRE_PATH || !authorized(req) || !sameOrigin(req)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws))
  })

  const sockets = new Set<WebSocket>()
  const broadcast = (data: JobEvent) => {
    const text = JSON.stringify({ event: 'job', data } satisfies WireMessage)
    for (const ws of sockets) ws.send(text)
  }
  backend.jobs.on('event', broadcast)

  function serveSocket(ws: WebSocket): void {
    sockets.add(ws)
    ws.on('close', () => sockets.delete(ws))
    ws.on('message', async (raw) => {
      let id = -1
      let reply: WireMessage
      try {
        const msg = JSON.parse(raw.toString()) as WireRequest
        id = typeof msg.id === 'number' ? msg.id : -1
        reply = { id, result: await handleRequest(handlers, msg.method, msg.args) }
      } catch (e) {
        reply = { id, error: ApiError.from(e).toJSON() }
      }
      ws.send(JSON.stringify(reply))
    })
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(opts.port ?? 0, '127.0.0.1', ok)
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    port,
    backend,
    close: async () => {
      backend.jobs.off('event', broadcast)
      backend.dispose()
      for (const ws of sockets) ws.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    },
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  })
  res.end(body)
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given || given.length !== token.length) return false
  return timingSafeEqual(Buffer.from(given), Buffer.from(token))
}

/** Browsers send cookies with cross-site WebSocket handshakes; only our own pages may connect. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin
  if (!origin) return true
  try {
    const o = new URL(origin)
    return (o.hostname === '127.0.0.1' || o.hostname === 'localhost') && o.host.endsWith(`:${req.socket.localPort}`)
  } catch {
    return false
  }
}
