// How the ranks of a job find and connect to each other: rank 0 publishes where it listens
// (rendezvous.ts) and accepts every other rank's proved hello, then sends them the table of where
// each listens; rank k dials rank 0 and ranks 1 … k−1 and accepts ranks above it. Connections
// that do not prove the job's key, arrive late or too many at once are refused (the caller logs
// them); attempts are retried until the deadline.
import { connect, type Server, type Socket } from 'node:net'
import { ApiError } from '../../shared/errors'
import { acceptHello, dialHello } from './handshake'
import { Link } from './link'
import type { RankPlacement } from './placement'
import { awaitRendezvous, nodeAddress, publishRendezvous, removeRendezvous } from './rendezvous'
import { Kind, type RankArray, textFrame, textOf } from './wire'

/** How long a connection may take to prove its hello. */
export const HELLO_DEADLINE_MS = 5000

export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`

/** Where and how this rank joins. */
export interface JoinAt {
  key: Buffer
  /** This rank's listening server, and its port. */
  server: Server
  port: number
  /** When connecting gives up (ms since the epoch). */
  deadline: number
  signal?: AbortSignal
  /** Rank 0's host as published; default nodeAddress(). */
  host?: string
}

/** What joining does with the connections it proves or refuses. */
export interface JoiningRanks {
  refuse(link: Link, reason: string): void
  attach(r: number, link: Link): void
  /** The job has failed already: later connections are refused. */
  failed(): boolean
}

/** A table of where every rank listens, strictly; undefined if it is not one for `size` ranks. */
function parseTable(data: RankArray, size: number): { hosts: string[]; ports: number[] } | undefined {
  let v: { hosts?: unknown; ports?: unknown }
  try {
    v = JSON.parse(textOf(data))
  } catch {
    return undefined
  }
  const { hosts, ports } = v ?? {}
  if (!Array.isArray(hosts) || !Array.isArray(ports) || hosts.length !== size || ports.length !== size) return undefined
  if (!hosts.every((h) => typeof h === 'string' && h.length <= 255) || !ports.every((p) => Number.isInteger(p) && p >= 0 && p <= 65535)) return undefined
  return { hosts, ports }
}

/** Connects this rank to every other: resolves once all are attached. */
export async function joinRanks(placement: RankPlacement, at: JoinAt, ranks: JoiningRanks): Promise<void> {
  const { key, port, deadline } = at
  const opts = at
  const { rank, size, job } = placement
  const who = { key, job, rank }
  // Connections from ranks above this one: rank 0 gets them all, rank k those of ranks > k.
  const expected = rank === 0 ? size - 1 : size - 1 - rank
  const maxPending = size + 64
  let pending = 0
  const incoming = new Promise<Map<number, { link: Link; port: number }>>((resolve, reject) => {
    const got = new Map<number, { link: Link; port: number }>()
    const late = () => {
      const missing = Array.from({ length: size }, (_, r) => r).filter((r) => r > rank && !got.has(r))
      reject(new ApiError('io', `rank ${rank}: rank${missing.length > 1 ? 's' : ''} ${missing.join(', ')} did not connect within the time allowed (they find rank 0 through ${placement.folder}, which every node of the job must see)`))
    }
    const timer = setTimeout(late, Math.max(0, deadline - Date.now()))
    timer.unref()
    let done = expected === 0
    if (done) {
      clearTimeout(timer)
      resolve(got)
    }
    at.server.on('connection', (socket: Socket) => {
      const link = new Link(socket)
      if (done || ranks.failed()) return ranks.refuse(link, 'every rank is connected already')
      if (pending >= maxPending) return ranks.refuse(link, `${maxPending} connections already await their hello`)
      pending++
      acceptHello(link, who, (r) => Number.isInteger(r) && r > rank && r < size, Date.now() + HELLO_DEADLINE_MS, `no hello within ${seconds(HELLO_DEADLINE_MS)} of connecting`).then(
        (h) => {
          pending--
          if (done) return ranks.refuse(link, 'every rank is connected already')
          const earlier = got.get(h.rank)
          if (earlier && !earlier.link.closed) return ranks.refuse(link, `rank ${h.rank} is connected already`)
          got.set(h.rank, { link, port: h.port })
          if (got.size === expected) {
            done = true
            clearTimeout(timer)
            resolve(got)
          }
        },
        (e: unknown) => {
          pending--
          ranks.refuse(link, e instanceof Error ? e.message : String(e))
        },
      )
    })
    void Promise.resolve().then(() => opts.signal?.addEventListener('abort', () => reject(new ApiError('cancelled', 'cancelled')), { once: true }))
  })
  // Awaited below; a rejection before then (the deadline passing while rank 0 is awaited) is not unhandled.
  incoming.catch(() => {})
  if (rank === 0) {
    await removeRendezvous(placement)
    await publishRendezvous(placement, key, opts.host ?? (await nodeAddress()), port)
    const got = await incoming
    const hosts = ['', ...Array.from({ length: size - 1 }, (_, i) => got.get(i + 1)!.link.socket.remoteAddress ?? '')]
    const ports = [port, ...Array.from({ length: size - 1 }, (_, i) => got.get(i + 1)!.port)]
    for (const [r, { link }] of got) {
      link.socket.write(textFrame(Kind.Table, { hosts, ports }))
      ranks.attach(r, link)
    }
    return
  }
  const me = { ...who, port }
  // The file may still name an earlier start of this job (same id) until rank 0 replaces it: a
  // failed attempt reads it again.
  let table: { hosts: string[]; ports: number[] } | undefined
  // Attempts are retried until the deadline (a rank may not listen yet, or its slots be full of
  // strangers); a listener that answered but could not prove the key is what a failure names.
  let refused: ApiError | undefined
  for (;;) {
    const found = await awaitRendezvous(placement, key, deadline, opts.signal)
    const what = `rank ${rank}: cannot reach rank 0 at ${found.host}:${found.port}`
    let link: Link | undefined
    try {
      link = new Link(await dial(found.host, found.port, Math.min(deadline, Date.now() + 5000), what))
      const step = Math.min(deadline, Date.now() + 10_000)
      await dialHello(link, me, 0, step, what)
      // rank 0 saw this rank's connection from the address the others may reach it at.
      const f = await link.next(deadline, `${what}: it sent no table of the ranks within the time allowed`)
      table = f.kind === Kind.Table ? parseTable(f.data, size) : undefined
      if (!table) throw new ApiError('io', `${what}: it sent no table of the ${size} ranks`)
      ranks.attach(0, link)
      break
    } catch (e) {
      link?.close()
      refused = impostor(e) ?? refused
      if (Date.now() > deadline || opts.signal?.aborted) throw refused ?? asIo(e, what)
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  // Ranks 1 … rank−1 listen for this one; ranks above dial this one.
  for (let r = 1; r < rank; r++) {
    const what = `rank ${rank}: cannot reach rank ${r} at ${table.hosts[r]}:${table.ports[r]}`
    for (;;) {
      let link: Link | undefined
      try {
        link = new Link(await dial(table.hosts[r], table.ports[r], deadline, what))
        await dialHello(link, me, r, Math.min(deadline, Date.now() + 10_000), what)
        ranks.attach(r, link)
        break
      } catch (e) {
        link?.close()
        refused = impostor(e) ?? refused
        if (Date.now() > deadline || opts.signal?.aborted) throw refused ?? asIo(e, what)
        await new Promise((res) => setTimeout(res, 200))
      }
    }
  }
  for (const [r, { link }] of await incoming) ranks.attach(r, link)
}

/** The error of an attempt that reached a listener which is no rank of this job, else undefined. */
function impostor(e: unknown): ApiError | undefined {
  return e instanceof ApiError && /: it is not (rank \d+ of this job|a rank of Paralab)/.test(e.message) ? e : undefined
}

function asIo(e: unknown, what: string): ApiError {
  return e instanceof ApiError ? e : new ApiError('io', `${what}: ${e instanceof Error ? e.message : String(e)}`)
}

/** A connection to host:port, retried until `deadline` (the peer may not listen yet). */
async function dial(host: string, port: number, deadline: number, what: string): Promise<Socket> {
  for (;;) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ host, port })
        socket.once('connect', () => {
          socket.off('error', reject)
          resolve(socket)
        })
        socket.once('error', reject)
        socket.setTimeout(Math.max(1000, deadline - Date.now()), () => socket.destroy(new Error('timed out')))
      }).then((s) => {
        s.setTimeout(0)
        return s
      })
    } catch (e) {
      if (Date.now() > deadline) throw new ApiError('io', `${what}: ${e instanceof Error ? e.message : String(e)}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}
