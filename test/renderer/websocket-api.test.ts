import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import type { JobEvent } from '../../src/shared/jobs'
import type { WireRequest } from '../../src/shared/wire'
import { WebSocketApi, type SocketLike } from '../../src/renderer/api/websocket'
import { createApi } from '../../src/renderer/api'

/** A socket the test drives: it records what the client sends and plays what a server would. */
class FakeSocket implements SocketLike {
  readyState = 0
  readonly sent: WireRequest[] = []
  private readonly handlers: Record<string, ((event: never) => void)[]> = {}
  constructor(readonly url = '') {}
  send(data: string): void {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open')
    this.sent.push(JSON.parse(data))
  }
  close(): void {}
  addEventListener(type: string, listener: (event: never) => void): void {
    ;(this.handlers[type] ??= []).push(listener)
  }
  private fire(type: string, event: unknown): void {
    for (const h of this.handlers[type] ?? []) h(event as never)
  }
  open(): void {
    this.readyState = 1
    this.fire('open', {})
  }
  receive(message: unknown): void {
    this.fire('message', { data: typeof message === 'string' ? message : JSON.stringify(message) })
  }
  drop(code: number, reason = ''): void {
    this.readyState = 3
    this.fire('close', { code, reason })
  }
}

const WHERE = 'ws://127.0.0.1:7600/api'

describe('WebSocketApi', () => {
  it('sends requests queued before the socket opens, then matches answers by id in any order', async () => {
    const socket = new FakeSocket()
    const api = new WebSocketApi(socket, WHERE)
    const info = api.deviceInfo()
    const started = api.startJob('stats', { files: ['/d/a.csv'], backends: ['serial'], precision: 'f64', repeat: 1, batches: 1 })
    expect(socket.sent).toEqual([])
    socket.open()
    expect(socket.sent).toEqual([
      { id: 1, method: 'deviceInfo', args: [] },
      { id: 2, method: 'startJob', args: ['stats', { files: ['/d/a.csv'], backends: ['serial'], precision: 'f64', repeat: 1, batches: 1 }] },
    ])
    const cancelled = api.cancelJob('job-7')
    expect(socket.sent[2]).toEqual({ id: 3, method: 'cancelJob', args: ['job-7'] })

    socket.receive({ id: 2, result: 'job-7' })
    socket.receive({ id: 3, result: true })
    socket.receive({ id: 1, result: { available: false, reason: 'no adapter', features: [], limits: {} } })
    await expect(started).resolves.toBe('job-7')
    await expect(cancelled).resolves.toBe(true)
    await expect(info).resolves.toEqual({ available: false, reason: 'no adapter', features: [], limits: {} })
  })

  it('asks for a workload\'s example and hands back its setup', async () => {
    const socket = new FakeSocket()
    socket.open()
    const api = new WebSocketApi(socket, WHERE)
    const example = api.example('stats')
    expect(socket.sent).toEqual([{ id: 1, method: 'example', args: ['stats'] }])
    const setup = { params: { files: ['/x/acc-example.csv'], repeat: 3 }, files: [{ path: '/x/acc-example.csv', name: 'acc-example.csv', bytes: 10 }] }
    socket.receive({ id: 1, result: setup })
    await expect(example).resolves.toEqual(setup)
  })

  it('turns an error answer into an ApiError with its code and message', async () => {
    const socket = new FakeSocket()
    socket.open()
    const api = new WebSocketApi(socket, WHERE)
    const exported = api.exportChart({ chart: { kind: 'roofline', data: { adapter: 'x', peak_GFLOP_per_s: 0, bandwidth_GB_per_s: 1 } }, format: 'png', fileName: 'r.png' })
    socket.receive({ id: 1, error: { code: 'invalid-argument', message: 'roofline for x: peak compute must be a positive number of GFLOP/s, got 0' } })
    const error = await exported.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ code: 'invalid-argument', message: 'roofline for x: peak compute must be a positive number of GFLOP/s, got 0' })
  })

  it('dispatches job events to every listener until it unsubscribes; answers to no request are ignored', () => {
    const socket = new FakeSocket()
    socket.open()
    const api = new WebSocketApi(socket, WHERE)
    const a: JobEvent[] = []
    const b: JobEvent[] = []
    const offA = api.onJobEvent((e) => a.push(e))
    api.onJobEvent((e) => b.push(e))
    const progress: JobEvent = { type: 'progress', jobId: 'job-1', workload: 'stats', phase: 'parsing', fraction: 0.5 }
    socket.receive({ event: 'job', data: progress })
    offA()
    const done: JobEvent = { type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'cancelled', message: 'cancelled' } }
    socket.receive({ event: 'job', data: done })
    socket.receive({ id: 99, result: 'stray' })
    expect(a).toEqual([progress])
    expect(b).toEqual([progress, done])
  })

  it('reports a message that is not JSON', () => {
    const socket = new FakeSocket()
    socket.open()
    const api = new WebSocketApi(socket, WHERE)
    const lost: string[] = []
    api.onConnectionError((m) => lost.push(m))
    socket.receive('<html>')
    expect(lost).toEqual([`The server at ${WHERE} sent a message that is not JSON: "<html>"`])
  })

  it('fails pending and later calls when the connection closes, and says so once', async () => {
    const socket = new FakeSocket()
    socket.open()
    const api = new WebSocketApi(socket, WHERE)
    const lost: string[] = []
    api.onConnectionError((m) => lost.push(m))
    const pending = api.listDataFiles()
    socket.drop(1006)
    const expected = `The connection to the Paralab server at ${WHERE} closed (code 1006). Restart \`paralab serve\` if it stopped, then reload this page.`
    await expect(pending).rejects.toMatchObject({ code: 'io', message: expected })
    await expect(api.openFiles()).rejects.toMatchObject({ code: 'io', message: expected })
    expect(lost).toEqual([expected])
    // A listener that arrives late still learns why.
    const late: string[] = []
    api.onConnectionError((m) => late.push(m))
    expect(late).toEqual([expected])
  })

  it('tells a refused token from a server that never answered', async () => {
    const refused = new FakeSocket()
    const a = new WebSocketApi(refused, WHERE)
    const call = a.deviceInfo()
    refused.drop(1008, 'bad token')
    await expect(call).rejects.toThrow(/refused this page's session token \(code 1008: bad token\)/)

    const absent = new FakeSocket()
    const b = new WebSocketApi(absent, WHERE)
    const messages: string[] = []
    b.onConnectionError((m) => messages.push(m))
    absent.drop(1006)
    expect(messages[0]).toMatch(/^Could not connect to the Paralab server at ws:\/\/127\.0\.0\.1:7600\/api \(code 1006\)/)
    expect(messages[0]).not.toContain('token=')
  })
})

describe('createApi', () => {
  afterEach(() => vi.unstubAllGlobals())
  const location = (search: string) => ({ search, protocol: 'http:', host: '127.0.0.1:7600', hash: '', href: `http://127.0.0.1:7600/paralab-7600/${search}#stats` })

  it('uses the preload bridge when the desktop app provides one', async () => {
    const bridge = { deviceInfo: vi.fn(async () => ({ available: false, features: [], limits: {} })) }
    const api = createApi({ paralab: bridge, location: location('') } as unknown as Window)
    expect(api.transport).toBe('electron')
    await expect(api.deviceInfo()).resolves.toEqual({ available: false, features: [], limits: {} })
    expect(bridge.deviceInfo).toHaveBeenCalledOnce()
  })

  it('connects to the api socket beside the page, with the page token', () => {
    const sockets: FakeSocket[] = []
    vi.stubGlobal('WebSocket', function (url: string) {
      const s = new FakeSocket(url)
      sockets.push(s)
      return s
    })
    const api = createApi({ location: location('?token=a+b%2F1&x=2') } as unknown as Window)
    expect(api.transport).toBe('websocket')
    expect(sockets.map((s) => s.url)).toEqual(['ws://127.0.0.1:7600/paralab-7600/api?token=a%20b%2F1'])
  })

  it('without a token, every call fails saying how to open the page', async () => {
    const api = createApi({ location: location('') } as unknown as Window)
    const messages: string[] = []
    api.onConnectionError((m) => messages.push(m))
    expect(messages[0]).toContain('no session token')
    await expect(api.deviceInfo()).rejects.toMatchObject({ code: 'io', message: messages[0] })
  })
})
