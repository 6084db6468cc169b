// `paralab serve` refuses requests that do not carry the session token, and reads only --data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { startServe, type ServeProcess } from '../helpers/serve'

let serve: ServeProcess
let dataDir: string

function wsResult(url: string, headers: Record<string, string> = {}): Promise<{ opened: boolean; status?: number; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => resolve({ opened: true, ws }))
    ws.once('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }))
    ws.once('error', () => resolve({ opened: false }))
  })
}

function call(ws: WebSocket, id: number, method: string, args: unknown[]): Promise<any> {
  return new Promise((resolve) => {
    const onMessage = (raw: WebSocket.RawData) => {
      const msg = JSON.parse(raw.toString())
      if (msg.id === id) {
        ws.off('message', onMessage)
        resolve(msg)
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ id, method, args }))
  })
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'paralab-data-'))
  writeFileSync(join(dataDir, 'a.csv'), 'x\n1\n')
  serve = await startServe(['--data', dataDir])
})
afterAll(() => serve?.stop())

describe('paralab serve', () => {
  it('binds to 127.0.0.1 and serves the dashboard with the token', async () => {
    expect(serve.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(serve.url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(await res.text()).toContain('<div id="app"')
  })

  it('refuses HTTP requests without the token or with a wrong one', async () => {
    expect((await fetch(serve.origin + '/')).status).toBe(403)
    expect((await fetch(serve.origin + '/?token=wrong')).status).toBe(403)
    expect((await fetch(serve.origin + '/index.html', { headers: { cookie: 'paralab_token=nope' } })).status).toBe(403)
  })

  it('accepts the cookie set by the first page load', async () => {
    const first = await fetch(serve.url)
    const cookie = first.headers.get('set-cookie')!.split(';')[0]
    expect((await fetch(serve.origin + '/index.html', { headers: { cookie } })).status).toBe(200)
  })

  it('refuses WebSocket connections without the token or from another origin', async () => {
    const ws = serve.origin.replace('http', 'ws') + '/api'
    expect((await wsResult(ws)).status).toBe(403)
    expect((await wsResult(`${ws}?token=wrong`)).status).toBe(403)
    expect((await wsResult(`${ws}?token=${serve.token}`, { Origin: 'http://evil.example' })).status).toBe(403)
  })

  it('answers API calls, validates arguments and reads only the --data folders', async () => {
    const { opened, ws } = await wsResult(`${serve.origin.replace('http', 'ws')}/api?token=${serve.token}`)
    expect(opened).toBe(true)
    const files = await call(ws!, 1, 'listDataFiles', [])
    expect(files.result.map((f: { name: string }) => f.name)).toEqual(['a.csv'])
    const bad = await call(ws!, 2, 'startJob', ['stats', { files: [], backends: ['serial'], precision: 'f64', repeat: 1, batches: 1 }])
    expect(bad.error).toEqual({ code: 'invalid-argument', message: 'files must not be empty' })
    const unknown = await call(ws!, 3, 'rmrf', [])
    expect(unknown.error.code).toBe('invalid-argument')
    // Listen before asking: the job may fail before its id comes back.
    const events: any[] = []
    ws!.on('message', (raw) => {
      const m = JSON.parse(raw.toString())
      if (m.event === 'job') events.push(m.data)
    })
    const outside = await call(ws!, 4, 'startJob', ['stats', { files: ['/etc/passwd'], backends: ['serial'], precision: 'f64', repeat: 1, batches: 1 }])
    const jobId = outside.result
    await expect.poll(() => events.find((e) => e.jobId === jobId && e.type === 'failed')).toBeTruthy()
    const failed = events.find((e) => e.jobId === jobId && e.type === 'failed')
    expect(failed.error.message).toBe('/etc/passwd is outside the data folders')
    ws!.close()
  })
})
