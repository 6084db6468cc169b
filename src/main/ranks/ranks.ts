// The ranks of one job talking to each other over TCP, as MPI gives a C program: rank, size,
// neighbours, send and receive of typed arrays under a tag, barrier, gather to rank 0, broadcast
// from it, and abort. Every rank connects to every other (rank 0 first, through the rendezvous file,
// then the others from the table rank 0 sends), so each notices at once when any rank dies.
//
// Strangers: every connection proves the job's key both ways before a byte of it is believed
// (handshake.ts); a connection that sends no proved hello within HELLO_DEADLINE_MS, or a frame the
// protocol cannot carry, is closed and logged; at most size + 64 connections may await their hello
// at once; once every rank is connected no rank listens any more.
//
// Failure: a rank that fails tells every other (abort) before it exits; a rank that dies without a
// word closes its connections, which the others see; a rank that stops answering (stopped, starved,
// cut off) is named once nothing came from it for the rank timeout (every rank pings the others
// meanwhile). Either way every rank's pending and later operations reject with an error naming the
// rank, and `signal` aborts so work in progress stops.
import { createServer, connect, type Server, type Socket } from 'node:net'
import { ApiError } from '../../shared/errors'
import { acceptHello, dialHello } from './handshake'
import { ranksKey } from './job-key'
import { Link } from './link'
import type { RankPlacement } from './placement'
import { awaitRendezvous, nodeAddress, publishRendezvous, removeRendezvous } from './rendezvous'
import { Kind, frame, type Frame, type RankArray, type RankArrayType, textFrame, textOf } from './wire'

/** Tags below 0 are the collectives'. */
const BARRIER = -1
const GATHER = -2
const BROADCAST = -3

/** How long a rank waits for another that stopped answering, by default (--rank-timeout). */
export const DEFAULT_RANK_TIMEOUT_S = 180

/** How long a new connection may take to prove its hello. */
export const HELLO_DEADLINE_MS = 5000

/** Refused connections logged per reason, and in all, per rank: a flood of strangers does not flood the log. */
const REFUSALS_LOGGED = { perReason: 3, total: 60 }

export interface ConnectOptions {
  /** How long connecting may take in all (rank 0 waiting for every rank, the others for rank 0). Default: the rank timeout, at least 60 s. */
  timeoutMs?: number
  /** How long a connected rank may send nothing before it is named and the job fails. Default DEFAULT_RANK_TIMEOUT_S. */
  rankTimeoutMs?: number
  /** The job's key; default ranksKey(placement) (the environment, else the folder's ranks.key). */
  key?: Buffer
  signal?: AbortSignal
  /** Rank 0's host as published; default nodeAddress(). */
  host?: string
  /** Where refused connections are told; default stderr. */
  log?: (line: string) => void
}

interface Peer {
  link: Link
  /** The peer said it finished: its connection closing is no failure. */
  finished: boolean
}

interface Waiter {
  resolve(data: RankArray): void
  reject(e: Error): void
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`

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

export class Ranks {
  readonly rank: number
  readonly size: number
  private readonly peers: (Peer | undefined)[]
  private readonly inbox = new Map<string, RankArray[]>()
  private readonly waiting = new Map<string, Waiter[]>()
  private readonly failed = new AbortController()
  private failure: ApiError | undefined
  private closing = false
  private heartbeat: NodeJS.Timeout | undefined
  private readonly refusals = new Map<string, number>()
  private refusalsLogged = 0

  private constructor(
    placement: RankPlacement,
    private readonly server: Server | undefined,
    private readonly rankTimeoutMs: number,
    private readonly log: (line: string) => void,
  ) {
    this.rank = placement.rank
    this.size = placement.size
    this.peers = new Array(placement.size).fill(undefined)
  }

  /** Aborts when the job fails on any rank (`reason` is the error naming it). */
  get signal(): AbortSignal {
    return this.failed.signal
  }

  /** The error the job failed with, once it has. */
  get error(): ApiError | undefined {
    return this.failure
  }

  /** The rank above (north of) this one, or undefined for rank 0. */
  get previous(): number | undefined {
    return this.rank > 0 ? this.rank - 1 : undefined
  }

  /** The rank below this one, or undefined for the last. */
  get next(): number | undefined {
    return this.rank < this.size - 1 ? this.rank + 1 : undefined
  }

  /** Connects the job's ranks: resolves on every rank once it is connected to all the others. */
  static async connect(placement: RankPlacement, opts: ConnectOptions = {}): Promise<Ranks> {
    const rankTimeoutMs = opts.rankTimeoutMs ?? DEFAULT_RANK_TIMEOUT_S * 1000
    const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
    if (placement.size === 1) return new Ranks(placement, undefined, rankTimeoutMs, log)
    const key = opts.key ?? (await ranksKey(placement))
    const deadline = Date.now() + (opts.timeoutMs ?? Math.max(60_000, rankTimeoutMs))
    const underSlurm = !!process.env.SLURMD_NODENAME
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, underSlurm ? '0.0.0.0' : '127.0.0.1', () => resolve())
    })
    const port = (server.address() as { port: number }).port
    const ranks = new Ranks(placement, server, rankTimeoutMs, log)
    ranks.startHeartbeat()
    try {
      await ranks.join(placement, key, port, deadline, opts)
    } catch (e) {
      ranks.shutDown()
      throw e
    }
    // No rank connects later: nothing more is accepted.
    server.close()
    return ranks
  }

  /** A connection that is not (or not yet) a rank's is closed, and said so in the rank's log. */
  private refuse(link: Link, reason: string): void {
    link.close()
    const seen = (this.refusals.get(reason) ?? 0) + 1
    if (this.refusals.size < 1000 || seen > 1) this.refusals.set(reason, seen)
    if (this.refusalsLogged >= REFUSALS_LOGGED.total || seen > REFUSALS_LOGGED.perReason + 1) return
    this.refusalsLogged++
    if (this.refusalsLogged === REFUSALS_LOGGED.total) this.log(`paralab rank ${this.rank}: further closed connections are not logged`)
    else if (seen > REFUSALS_LOGGED.perReason) this.log(`paralab rank ${this.rank}: further connections closed because ${reason} are not logged`)
    else this.log(`paralab rank ${this.rank}: closed a connection from ${link.remote}: ${reason}`)
  }

  private async join(placement: RankPlacement, key: Buffer, port: number, deadline: number, opts: ConnectOptions): Promise<void> {
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
      this.server!.on('connection', (socket: Socket) => {
        const link = new Link(socket)
        if (done || this.failure) return this.refuse(link, 'every rank is connected already')
        if (pending >= maxPending) return this.refuse(link, `${maxPending} connections already await their hello`)
        pending++
        acceptHello(link, who, (r) => Number.isInteger(r) && r > rank && r < size, Date.now() + HELLO_DEADLINE_MS, `no hello within ${seconds(HELLO_DEADLINE_MS)} of connecting`).then(
          (h) => {
            pending--
            if (done) return this.refuse(link, 'every rank is connected already')
            const earlier = got.get(h.rank)
            if (earlier && !earlier.link.closed) return this.refuse(link, `rank ${h.rank} is connected already`)
            got.set(h.rank, { link, port: h.port })
            if (got.size === expected) {
              done = true
              clearTimeout(timer)
              resolve(got)
            }
          },
          (e: unknown) => {
            pending--
            this.refuse(link, e instanceof Error ? e.message : String(e))
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
        this.attach(r, link)
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
        this.attach(0, link)
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
          this.attach(r, link)
          break
        } catch (e) {
          link?.close()
          refused = impostor(e) ?? refused
          if (Date.now() > deadline || opts.signal?.aborted) throw refused ?? asIo(e, what)
          await new Promise((res) => setTimeout(res, 200))
        }
      }
    }
    for (const [r, { link }] of await incoming) this.attach(r, link)
  }

  /**
   * Every rank pings the others and checks that each connected one was heard from within the rank
   * timeout. A tick that comes late means this rank itself did not run: what its peers sent may
   * not be read yet, so they are not judged on it; and one that did not run for longer than the
   * timeout has been given up on by the others, and says so.
   */
  private startHeartbeat(): void {
    const every = Math.max(100, Math.min(this.rankTimeoutMs / 4, 10_000))
    let last = performance.now()
    const ping = frame(Kind.Ping, 0)
    this.heartbeat = setInterval(() => {
      const now = performance.now()
      const gap = now - last
      last = now
      if (this.failure || this.closing) return
      if (gap > this.rankTimeoutMs)
        return this.fail(new ApiError('io', `rank ${this.rank} stopped answering: it did not run for ${seconds(gap)}, longer than the rank timeout (${seconds(this.rankTimeoutMs)}), and the other ranks stopped waiting for it (was its process stopped?)`))
      const live = this.peers.map((p, r) => [p, r] as const).filter(([p]) => p && !p.finished && !p.link.closed) as [Peer, number][]
      for (const [p] of live) if (!p.link.socket.writableEnded) p.link.socket.write(ping)
      if (gap > 2 * every) return
      for (const [p, r] of live)
        if (now - p.link.lastHeard > this.rankTimeoutMs)
          return this.fail(new ApiError('io', `rank ${r} stopped answering: rank ${this.rank} heard nothing from it for ${seconds(now - p.link.lastHeard)}, longer than the rank timeout (${seconds(this.rankTimeoutMs)}; --rank-timeout); its process may be stopped, starved or cut off`))
    }, every)
    this.heartbeat.unref()
  }

  /** Takes over the proved connection to rank `r`. */
  private attach(r: number, link: Link): void {
    const peer: Peer = { link, finished: false }
    this.peers[r] = peer
    link.socket.setNoDelay(true)
    link.lastHeard = performance.now()
    link.handOver(
      (f: Frame) => {
        if (f.kind === Kind.Data) this.deliver(r, f.tag, f.data)
        else if (f.kind === Kind.Ping) return
        // The reason as the failing rank gave it: it names the rank where the job failed first.
        else if (f.kind === Kind.Abort) this.fail(new ApiError('io', textOf(f.data)))
        else if (f.kind === Kind.Bye) {
          peer.finished = true
          // Anything still awaited from it will never come.
          for (const [key, list] of this.waiting)
            if (key.startsWith(`${r}:`) && list.length) this.fail(new ApiError('io', `rank ${r} finished while rank ${this.rank} still waited for its data`))
        } else this.protocolError(r, link, `a frame of kind ${f.kind} after the handshake`)
      },
      (reason) => this.protocolError(r, link, reason),
    )
    const closed = () => {
      if (!peer.finished && !this.closing) this.fail(new ApiError('io', `rank ${r} ended without a word: its process died or was killed`))
    }
    if (link.closed) closed()
    else link.socket.on('close', closed)
  }

  /** A proved rank sent what the protocol cannot carry: the job cannot go on with it. */
  private protocolError(r: number, link: Link, reason: string): void {
    link.reader.stop()
    this.fail(new ApiError('io', `rank ${this.rank} received from rank ${r} ${reason}; the ranks' connections are closed`))
  }

  private deliver(from: number, tag: number, data: RankArray): void {
    const key = `${from}:${tag}`
    const waiter = this.waiting.get(key)?.shift()
    if (waiter) waiter.resolve(data)
    else {
      const queue = this.inbox.get(key) ?? []
      queue.push(data)
      this.inbox.set(key, queue)
    }
  }

  private check(): void {
    if (this.failure) throw this.failure
  }

  private peer(r: number): Peer {
    const p = this.peers[r]
    if (!Number.isInteger(r) || r < 0 || r >= this.size || r === this.rank || !p) throw new ApiError('internal', `rank ${this.rank} has no peer ${r}`)
    return p
  }

  /** Sends a copy of `data` to rank `to` under `tag` (≥ 0); returns at once. */
  send(to: number, tag: number, data: RankArray): void {
    this.check()
    if (tag < 0) throw new ApiError('internal', 'ranks: tags below 0 are reserved')
    this.peer(to).link.socket.write(frame(Kind.Data, tag, data))
  }

  /** The next array rank `from` sent under `tag`, checked to be of `type`. */
  async recv<T extends RankArray>(from: number, tag: number, type: RankArrayType<T>): Promise<T> {
    const data = await this.take(from, tag)
    if (!(data instanceof type)) throw new ApiError('internal', `rank ${this.rank} expected a ${type.name} from rank ${from} under tag ${tag}, got a ${data.constructor.name}`)
    return data as T
  }

  private take(from: number, tag: number): Promise<RankArray> {
    this.check()
    this.peer(from)
    const key = `${from}:${tag}`
    const queued = this.inbox.get(key)?.shift()
    if (queued) return Promise.resolve(queued)
    if (this.peers[from]!.finished) return Promise.reject(new ApiError('io', `rank ${from} finished while rank ${this.rank} still waited for its data`))
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key) ?? []
      list.push({ resolve, reject })
      this.waiting.set(key, list)
    })
  }

  /** Resolves once every rank has called it. */
  async barrier(): Promise<void> {
    const token = new Uint8Array(0)
    if (this.rank === 0) {
      for (let r = 1; r < this.size; r++) await this.take(r, BARRIER)
      for (let r = 1; r < this.size; r++) this.peer(r).link.socket.write(frame(Kind.Data, BARRIER, token))
    } else {
      this.check()
      this.peer(0).link.socket.write(frame(Kind.Data, BARRIER, token))
      await this.take(0, BARRIER)
    }
  }

  /** Every rank's `data`, in rank order, on rank 0; undefined on the others. */
  async gather<T extends RankArray>(data: T, type: RankArrayType<T>): Promise<T[] | undefined> {
    if (this.rank !== 0) {
      this.check()
      this.peer(0).link.socket.write(frame(Kind.Data, GATHER, data))
      return undefined
    }
    const out: T[] = [data]
    for (let r = 1; r < this.size; r++) {
      const got = await this.take(r, GATHER)
      if (!(got instanceof type)) throw new ApiError('internal', `rank 0 gathered a ${got.constructor.name} from rank ${r}, not a ${type.name}`)
      out.push(got as T)
    }
    return out
  }

  /** Rank 0's `data` on every rank (the others pass undefined). */
  async broadcast<T extends RankArray>(data: T | undefined, type: RankArrayType<T>): Promise<T> {
    if (this.rank === 0) {
      if (!data) throw new ApiError('internal', 'rank 0 broadcasts nothing')
      this.check()
      for (let r = 1; r < this.size; r++) this.peer(r).link.socket.write(frame(Kind.Data, BROADCAST, data))
      return data
    }
    const got = await this.take(0, BROADCAST)
    if (!(got instanceof type)) throw new ApiError('internal', `rank ${this.rank} got a ${got.constructor.name} broadcast, not a ${type.name}`)
    return got as T
  }

  /** This rank failed: tells every other rank why; resolves once that is sent (or after 2 s). */
  async abort(reason: string): Promise<void> {
    this.fail(new ApiError('io', `rank ${this.rank} failed: ${reason}`))
    await this.flushed
  }

  /** Finishes normally: every other rank is told, and the connections close once flushed. */
  async close(): Promise<void> {
    if (this.closing) return
    this.check()
    this.closing = true
    this.stopHeartbeat()
    const closed = this.peers.map((p) => p && !p.link.closed && new Promise<void>((resolve) => p.link.socket.once('close', () => resolve())))
    for (const p of this.peers) p?.link.socket.end(textFrame(Kind.Bye, ''))
    // A peer closes its side once it has read the Bye; one that is gone already closed.
    const timer = setTimeout(() => this.shutDown(), 10_000)
    await Promise.all(closed)
    clearTimeout(timer)
    this.shutDown()
  }

  /** Resolves once the connections closed after a failure. */
  private flushed: Promise<void> = Promise.resolve()

  /**
   * The job failed: every operation rejects with `error`, `signal` aborts, and every rank still
   * connected is told the same reason (the first failure's, naming its rank) before disconnecting.
   */
  private fail(error: ApiError): void {
    if (this.failure || this.closing) return
    this.failure = error
    for (const list of this.waiting.values()) for (const w of list.splice(0)) w.reject(error)
    this.failed.abort(error)
    this.stopHeartbeat()
    const open = this.peers.filter((p): p is Peer => !!p && !p.link.closed)
    this.flushed = Promise.all(open.map((p) => new Promise<void>((resolve) => {
      p.link.socket.once('close', () => resolve())
      p.link.socket.end(textFrame(Kind.Abort, error.message))
    }))).then(() => {})
    const timer = setTimeout(() => this.shutDown(), 2_000)
    timer.unref()
    void this.flushed.then(() => {
      clearTimeout(timer)
      this.shutDown()
    })
    this.server?.close()
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat)
  }

  private shutDown(): void {
    this.closing = true
    this.stopHeartbeat()
    for (const p of this.peers) p?.link.close()
    this.server?.close()
  }
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
