// `paralab serve` against what any local program or web page can send it: malformed request targets
// and malformed WebSocket frames over raw TCP. Each answer is checked, then that the server still
// answers a normal request. Also: refusing a missing --data folder and a port in use.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

let serve: ServeProcess
let root: string
let port: number
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'paralab-harden-'))
  mkdirSync(join(root, 'data'))
  writeFileSync(join(root, 'data', 'a.csv'), 'x\n1\n')
  serve = await startServe(['--data', join(root, 'data')])
  port = Number(new URL(serve.origin).port)
})
afterAll(async () => {
  await serve?.stop()
  rmSync(root, { recursive: true, force: true })
})

/** Sends raw bytes and collects what comes back until the server closes or `ms` pass. */
function raw(bytes: string | Buffer, ms = 1500, until?: (got: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let got = Buffer.alloc(0)
    const done = () => {
      socket.destroy()
      resolve(got)
    }
    const timer = setTimeout(done, ms)
    socket.on('data', (d) => {
      got = Buffer.concat([got, d])
      if (until?.(got)) {
        clearTimeout(timer)
        done()
      }
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(got)
    })
    socket.write(bytes)
  })
}

const statusOf = (response: Buffer) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response.toString('latin1'))?.[1])

/** The server still serves the dashboard and answers an API call. */
async function stillServing(): Promise<void> {
  expect((await fetch(serve.url)).status).toBe(200)
  const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
  const reply = await new Promise<{ result: unknown[] }>((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'listDataFiles', args: [] })))
    ws.on('message', (m) => resolve(JSON.parse(m.toString())))
    ws.once('error', reject)
  })
  ws.close()
  expect(reply.result).toHaveLength(1)
}

const handshake = () =>
  `GET /paralab-${port}/api?token=${serve.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'

/** A client frame: FIN + opcode, masked (as clients must) unless told otherwise. */
function frame(opcode: number, payload: Buffer, opts: { masked?: boolean; declaredLength?: number } = {}): Buffer {
  const masked = opts.masked ?? true
  const length = opts.declaredLength ?? payload.length
  const head = length < 126 ? Buffer.from([0x80 | opcode, (masked ? 0x80 : 0) | length]) : Buffer.alloc(10)
  if (length >= 126) {
    head[0] = 0x80 | opcode
    head[1] = (masked ? 0x80 : 0) | 127
    head.writeBigUInt64BE(BigInt(length), 2)
  }
  if (!masked) return Buffer.concat([head, payload])
  const mask = Buffer.from([1, 2, 3, 4])
  return Buffer.concat([head, mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))])
}

/** The close code in the server's close frame, after the 101 response. */
function closeCode(response: Buffer): number | null {
  const start = response.indexOf('\r\n\r\n') + 4
  const frames = response.subarray(start)
  const at = frames.indexOf(0x88)
  return at >= 0 && frames.length >= at + 4 ? frames.readUInt16BE(at + 2) : null
}

describe('malformed request targets', () => {
  it.each([
    ['`//` without a token', () => `GET // HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    ['`//x` with a token', () => `GET //x?token=${serve.token} HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    ['`/%` under the dashboard, with a token', () => `GET /paralab-${port}/%?token=${serve.token} HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    ['`*`', () => `OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    ['an absolute URL', () => `GET http://evil.example/ HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
  ])('%s gets %i and the server stays up', async (_what, request, status) => {
    expect(statusOf(await raw(request(), 1500, (b) => b.includes('\r\n\r\n')))).toBe(status)
    await stillServing()
  })

  it('the bare address redirects to the dashboard, token kept', async () => {
    const res = await fetch(`${serve.origin}/?token=${serve.token}`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`/paralab-${port}/?token=${serve.token}`)
  })
})

describe('malformed WebSocket frames close that connection with the right code', () => {
  it.each([
    ['a message over the 64 MiB limit', () => frame(0x1, Buffer.alloc(0), { declaredLength: 65 * 1024 * 1024 }), 1009],
    ['a text frame of invalid UTF-8', () => frame(0x1, Buffer.from([0xff, 0xfe, 0xfd])), 1007],
    ['an unmasked client frame', () => frame(0x1, Buffer.from('{}'), { masked: false }), 1002],
    ['a reserved opcode', () => frame(0x3, Buffer.from('x')), 1002],
  ])('%s: close code %i, the server goes on', async (_what, make, code) => {
    const response = await raw(Buffer.concat([Buffer.from(handshake()), make()]), 3000)
    expect(statusOf(response)).toBe(101)
    expect(closeCode(response)).toBe(code)
    await stillServing()
  })

  it('malformed JSON and unknown methods are bad requests', async () => {
    const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
    await new Promise((r) => ws.once('open', r))
    const replies: { id: number; error?: { code: string; message: string } }[] = []
    ws.on('message', (m) => replies.push(JSON.parse(m.toString())))
    ws.send('{not json')
    ws.send(JSON.stringify([1, 2]))
    ws.send(JSON.stringify({ id: 7, method: 'rmrf', args: [] }))
    ws.send(JSON.stringify({ id: 8, method: 'deviceInfo', args: 'x' }))
    await expect.poll(() => replies.length).toBe(4)
    ws.close()
    expect(replies.map((r) => [r.id, r.error?.code])).toEqual([
      [-1, 'bad-request'],
      [-1, 'bad-request'],
      [7, 'bad-request'],
      [8, 'bad-request'],
    ])
    await stillServing()
  })
})

describe('files outside --data', () => {
  it('get the same refusal whether they exist or not', async () => {
    const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
    await new Promise((r) => ws.once('open', r))
    const failures: string[] = []
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString())
      // A run in which no file could be read fails, with that file's error.
      if (msg.event === 'job' && msg.data.type === 'failed') failures.push(msg.data.error.message)
    })
    for (const path of ['/etc/passwd', '/etc/no-such-file-here']) ws.send(JSON.stringify({ id: 1, method: 'startJob', args: ['stats', { files: [path], backends: ['serial'], repeat: 1 }] }))
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(2)
    ws.close()
    // The two jobs run side by side, so their failures may arrive in either order.
    expect(failures.sort()).toEqual(['/etc/no-such-file-here is outside the data folders', '/etc/passwd is outside the data folders'])
  })
})

describe('files a request would make the server write', () => {
  it('are refused: only the command line may name an output file', async () => {
    const ws = new WebSocket(`${serve.api}?token=${serve.token}`)
    await new Promise((r) => ws.once('open', r))
    const target = join(root, 'written-by-a-page.bin')
    const reply = await new Promise<{ error?: { code: string; message: string } }>((resolve) => {
      ws.on('message', (m) => resolve(JSON.parse(m.toString())))
      ws.send(JSON.stringify({ id: 1, method: 'startJob', args: ['paths', { files: [join(root, 'data', 'a.csv')], output: target }] }))
    })
    ws.close()
    expect(reply.error).toEqual({ code: 'invalid-argument', message: 'paths: parameter output can only be given on the command line' })
    expect(existsSync(target)).toBe(false)
  })
})

describe('starting', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, 'serve', ...args], { encoding: 'utf8', timeout: 30_000 })

  it('refuses a --data folder that does not exist, naming it', () => {
    const r = run(['--data', '/nonexistent/paralab-data'])
    expect(r.status).toBe(1)
    expect(r.stderr).toBe('paralab: --data /nonexistent/paralab-data: no such folder\n')
  })

  it('says when the port is in use (exit 1, not a usage error)', () => {
    const r = run(['--port', String(port), '--data', join(root, 'data')])
    expect(r.status).toBe(1)
    expect(r.stderr).toBe(`paralab: port ${port} is in use\n`)
  })
})
