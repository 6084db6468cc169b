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
import { validateRequest } from '../shared/validate'
import type { JobEvent } from '../shared/jobs'
import { replyTo } from '../shared/rpc'
import { MAX_REQUEST_BYTES, peekRequestId, replyText, sizeText, WIRE_PATH, type WireMessage, type WireReply, type WireRequest } from '../shared/wire'
import { Backend } from './backend/backend'
import { apiHandlers, closePieces, handleRequest, RUN_FILE_PATH } from './backend/api-handlers'
import { defaultClusterRunsDir } from './backend/cluster-runs'
import { defaultHistoryDir } from './backend/history'
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
const TEXT = 'text/plain; charset=utf-8'
/**
 * Bytes a client may leave unread: a client that stops reading while replies and job events keep
 * coming is disconnected once this much waits for it, rather than buffered for without limit (it
 * may connect again). A client that reads gets any reply, the largest (a chart of ~60 MB) included.
 */
export const MAX_UNREAD_BYTES = 128 * 1024 * 1024

/** Sends `text` unless the client has left too much unread, in which case it is disconnected. */
function sendTo(ws: WebSocket, text: string): void {
  if (ws.readyState !== ws.OPEN) return
  if (ws.bufferedAmount > MAX_UNREAD_BYTES) ws.terminate()
  else ws.send(text)
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const token = randomBytes(24).toString('base64url')
  const backend = new Backend({ engines: ENGINES, dataDirs: opts.dataDirs, historyDir: defaultHistoryDir(), historyScope: opts.dataDirs, clusterRunsDir: defaultClusterRunsDir() })
  for (const dir of opts.dataDirs) {
    const s = await stat(dir).catch(() => null)
    if (!s?.isDirectory()) throw new ApiError('io', `--data ${dir}: ${s ? 'not a folder' : 'no such folder'}`)
  }
  const root = resolve(opts.rendererDir)
  await stat(join(root, 'index.html')).catch(() => {
    throw new ApiError('io', `${join(root, 'index.html')} is missing: run \`npm run build\` first`)
  })

  // The dashboard lives under a path of its own, and so does its cookie: browsers send cookies to
  // every port of a host, but only for paths under the cookie's, so other local services never get it.
  let base = '/'
  let cookie = 'paralab'
  const authorized = (url: URL, req: IncomingMessage): 'query' | 'cookie' | false => {
    if (sameToken(url.searchParams.get('token'), token)) return 'query'
    const given = new RegExp(`(?:^|;\\s*)${cookie}=([^;]+)`).exec(req.headers.cookie ?? '')?.[1]
    return sameToken(given, token) ? 'cookie' : false
  }

  const server = createServer(async (req, res) => {
    const url = requestUrl(req)
    if (!url) return send(res, 400, TEXT, 'Bad request: malformed request target\n')
    const how = authorized(url, req)
    if (!how) return send(res, 403, TEXT, 'Forbidden: this Paralab server needs the session token from the URL it printed.\n')
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, TEXT, 'Method not allowed\n')
    if (url.pathname === '/' || url.pathname === base.slice(0, -1)) {
      res.writeHead(302, { Location: `${base}${url.search}`, 'Cache-Control': 'no-store' })
      return res.end()
    }
    if (!url.pathname.startsWith(base)) return send(res, 404, TEXT, 'Not found\n')
    if (how === 'query') res.setHeader('Set-Cookie', `${cookie}=${token}; Path=${base}; HttpOnly; SameSite=Strict`)
    let path: string
    try {
      path = decodeURIComponent(url.pathname.slice(base.length))
    } catch {
      return send(res, 400, TEXT, 'Bad request: malformed percent-encoding\n')
    }
    if (path.startsWith(`${RUN_FILE_PATH}/`)) return streamRunFile(backend, req, res, path.slice(RUN_FILE_PATH.length + 1), url.searchParams.get('name'))
    const file = normalize(join(root, path === '' ? 'index.html' : path))
    if (path.includes('\0') || (file !== root && !file.startsWith(root + sep))) return send(res, 404, TEXT, 'Not found\n')
    try {
      const body = await readFile(file)
      send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', body)
    } catch {
      send(res, 404, TEXT, 'Not found\n')
    }
  })
  // A connection that breaks mid-request must not take the server with it.
  server.on('clientError', (_e, socket) => socket.destroy())

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 })
  wss.on('error', () => {})
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy())
    const url = requestUrl(req)
    if (!url || url.pathname !== `${base}${WIRE_PATH}` || !authorized(url, req) || !sameOrigin(req)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws))
  })

  const sockets = new Set<WebSocket>()
  const broadcast = (data: JobEvent) => {
    const text = JSON.stringify({ event: 'job', data } satisfies WireMessage)
    for (const ws of sockets) sendTo(ws, text)
  }
  backend.jobs.on('event', broadcast)

  function serveSocket(ws: WebSocket): void {
    sockets.add(ws)
    // A request that works only for this connection (a file recomputed for it) stops when it closes.
    const closed = new AbortController()
    const handlers = apiHandlers(backend, closed.signal)
    ws.on('close', () => {
      sockets.delete(ws)
      closed.abort(new ApiError('cancelled', 'the connection closed'))
    })
    // Protocol errors (a frame over the size limit, invalid UTF-8, an unmasked frame, a reserved
    // opcode): ws closes this connection with the matching code; the server goes on.
    ws.on('error', () => sockets.delete(ws))
    ws.on('message', async (data) => {
      const raw = data as Buffer
      // Measured before it is parsed: parsing is what a huge request would cost.
      if (raw.length > MAX_REQUEST_BYTES) {
        const id = peekRequestId(raw.subarray(0, 64).toString('latin1'))
        const error = new ApiError('invalid-argument', `a request of ${sizeText(raw.length)} is over the ${sizeText(MAX_REQUEST_BYTES)} a request may carry; it was not read`)
        return sendTo(ws, JSON.stringify({ id, error: error.toJSON() } satisfies WireReply))
      }
      let msg: Partial<WireRequest> | null = null
      try {
        msg = JSON.parse(raw.toString()) as Partial<WireRequest>
      } catch {
        // answered below as a bad request
      }
      const id = msg && typeof msg.id === 'number' ? msg.id : -1
      const reply = await replyTo(id, () => {
        if (!msg || typeof msg !== 'object' || Array.isArray(msg)) throw new ApiError('bad-request', 'a request is a JSON object { id, method, args }')
        return handleRequest(handlers, msg.method, msg.args)
      })
      sendTo(ws, replyText(reply, msg?.method))
    })
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'EADDRINUSE' ? new ApiError('io', `port ${opts.port} is in use`) : new ApiError('io', `cannot listen on 127.0.0.1:${opts.port}: ${e.message}`)),
    )
    server.listen(opts.port ?? 0, '127.0.0.1', ok)
  })
  const port = (server.address() as AddressInfo).port
  base = `/paralab-${port}/`
  cookie = `paralab_${port}`
  return {
    url: `http://127.0.0.1:${port}${base}?token=${token}`,
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

/**
 * `runs/<run id>/<file>?name=<file name>`: a run's file written to the connection as it is read
 * (Backend.runFile), so a 2 GiB matrix or its larger CSV costs a block of memory, not the file. The
 * run and the names are checked as exportRunFile's request is; a closed connection stops the reading,
 * and a failure midway breaks the connection rather than end a half file as if it were whole.
 */
async function streamRunFile(backend: Backend, req: IncomingMessage, res: ServerResponse, rest: string, name: string | null): Promise<void> {
  const closed = new AbortController()
  res.on('close', () => closed.abort(new ApiError('cancelled', 'the connection closed')))
  const parts = rest.split('/')
  let file
  try {
    if (parts.length !== 2) throw new ApiError('invalid-argument', 'a run\'s file is runs/<run id>/<file>')
    const request = { run: parts[0], file: parts[1], fileName: name ?? parts[1] }
    validateRequest('exportRunFile', [request])
    file = await backend.runFile(request, closed.signal)
  } catch (e) {
    const err = ApiError.from(e)
    return send(res, err.code === 'internal' ? 500 : err.code === 'io' ? 500 : 404, TEXT, `${err.message}\n`)
  }
  res.writeHead(200, {
    'Content-Type': file.mime,
    'Content-Disposition': `attachment; filename="${file.fileName}"`,
    ...(file.size !== undefined && { 'Content-Length': file.size }),
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  })
  if (req.method === 'HEAD') {
    await closePieces(file.pieces)
    return void res.end()
  }
  try {
    // A piece is written before the next is asked for: the pieces' buffers are used again (text-pieces.ts).
    for await (const piece of file.pieces) await written(res, piece, closed.signal)
    await new Promise<void>((ok) => res.end(ok))
  } catch {
    res.destroy()
  }
}

/** Writes `piece`; resolves once the socket has taken it (its buffer free again), rejects when the connection closes. */
function written(res: ServerResponse, piece: Uint8Array, closed: AbortSignal): Promise<void> {
  return new Promise((ok, fail) => {
    if (closed.aborted) return fail(closed.reason)
    const onClose = () => fail(closed.reason)
    closed.addEventListener('abort', onClose, { once: true })
    res.write(piece, (e) => {
      closed.removeEventListener('abort', onClose)
      if (e) fail(e)
      else ok()
    })
  })
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

/** The request's target as a URL, or null when it is not an origin-form path (`//`, `*`, garbage). */
function requestUrl(req: IncomingMessage): URL | null {
  const target = req.url ?? ''
  if (!target.startsWith('/') || target.startsWith('//')) return null
  try {
    return new URL(`http://127.0.0.1${target}`)
  } catch {
    return null
  }
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
