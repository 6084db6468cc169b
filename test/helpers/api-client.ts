// A WebSocket client of `paralab serve` for tests that attack it: calls with replies, job events,
// the latency of a ping call made while something else runs, the server process's memory, and
// downloads measured against it.
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import WebSocket from 'ws'
import type { ServeProcess } from './serve'

export interface ApiClient {
  ws: WebSocket
  call<T = unknown>(method: string, ...args: unknown[]): Promise<T>
  /** The first job event (past or future) that `pred` accepts. */
  event(pred: (e: any) => boolean, timeoutMs?: number): Promise<any>
  close(): void
}

export async function connectApi(serve: ServeProcess): Promise<ApiClient> {
  const ws = new WebSocket(`${serve.api}?token=${serve.token}`, { maxPayload: 256 * 1024 * 1024 })
  await new Promise((ok, fail) => {
    ws.once('open', ok)
    ws.once('error', fail)
  })
  let next = 1
  const waiting = new Map<number, { ok(v: unknown): void; fail(e: Error): void }>()
  const events: any[] = []
  const watchers: { pred(e: any): boolean; ok(e: any): void }[] = []
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString())
    if (msg.event === 'job') {
      events.push(msg.data)
      for (const w of watchers.splice(0)) if (w.pred(msg.data)) w.ok(msg.data)
      else watchers.push(w)
      return
    }
    const w = waiting.get(msg.id)
    waiting.delete(msg.id)
    if ('error' in msg) w?.fail(Object.assign(new Error(msg.error.message), { code: msg.error.code }))
    else w?.ok(msg.result)
  })
  return {
    ws,
    call: (method, ...args) =>
      new Promise((ok, fail) => {
        const id = next++
        waiting.set(id, { ok: ok as (v: unknown) => void, fail })
        ws.send(JSON.stringify({ id, method, args }))
      }),
    event: (pred, timeoutMs = 120_000) => {
      const seen = events.find(pred)
      if (seen) return Promise.resolve(seen)
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error('no such job event in time')), timeoutMs)
        watchers.push({ pred, ok: (e) => (clearTimeout(timer), ok(e)) })
      })
    },
    close: () => ws.close(),
  }
}

/** Milliseconds of one listDataFiles call. */
export async function pingMs(api: ApiClient): Promise<number> {
  const t0 = performance.now()
  await api.call('listDataFiles')
  return performance.now() - t0
}

/** The slowest of pings made one after another for `ms` milliseconds. */
export async function worstPingMs(api: ApiClient, ms: number): Promise<number> {
  let worst = 0
  const end = Date.now() + ms
  while (Date.now() < end) {
    worst = Math.max(worst, await pingMs(api))
    await new Promise((r) => setTimeout(r, 50))
  }
  return worst
}

/** Resident memory of the `paralab serve` child of this process, in bytes. */
export function serveRss(): number {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== process.pid || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('serve')) continue
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
      return Number(kb) * 1024
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('no paralab serve process')
}

/** What a download gave: its status and headers, its length and sha256, its first 4 KiB, and how much the server grew meanwhile. */
export interface MeasuredDownload {
  status: number
  headers: Headers
  bytes: number
  sha256: string
  rssGrowth: number
  head: Buffer
}

/** Downloads `url`, hashing it as it comes; the server's resident memory sampled meanwhile. */
export async function measuredDownload(url: string): Promise<MeasuredDownload> {
  const before = serveRss()
  let most = before
  const sampler = setInterval(() => (most = Math.max(most, serveRss())), 20)
  try {
    // A connection of its own: a kept-alive one, idle while the caller hashed the last file for
    // seconds, may be closed by the server just as the next request goes out on it.
    const res = await fetch(url, { headers: { connection: 'close' } })
    const hash = createHash('sha256')
    let bytes = 0
    const head: Buffer[] = []
    for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(piece)
      if (bytes < 4096) head.push(Buffer.from(piece.subarray(0, 4096)))
      bytes += piece.length
    }
    return { status: res.status, headers: res.headers, bytes, sha256: hash.digest('hex'), rssGrowth: most - before, head: Buffer.concat(head) }
  } finally {
    clearInterval(sampler)
  }
}

/** Starts a job and pings until it ends (and once more at its end): its end event and the slowest ping. */
export async function jobWhilePinging(api: ApiClient, workload: string, params: Record<string, unknown>, timeoutMs = 120_000): Promise<{ end: any; worst: number }> {
  const jobId = await api.call<string>('startJob', workload, params)
  const ended = api.event((e) => e.jobId === jobId && e.type !== 'progress', timeoutMs)
  let worst = 0
  let over = false
  void ended.then(() => (over = true))
  while (!over) {
    worst = Math.max(worst, await pingMs(api))
    await new Promise((r) => setTimeout(r, 50))
  }
  worst = Math.max(worst, await pingMs(api))
  return { end: await ended, worst }
}
