// The ranks of one job talking to each other over TCP, as MPI gives a C program: rank, size,
// neighbours, send and receive of typed arrays under a tag, barrier, gather to rank 0, broadcast
// from it, and abort. Every rank connects to every other (rank 0 first, through the rendezvous file,
// then the others from the table rank 0 sends), so each notices at once when any rank dies.
//
// Strangers: every connection proves the job's key both ways before a byte of it is believed
// (handshake.ts, join-ranks.ts); a connection that sends no proved hello within HELLO_DEADLINE_MS, or a frame the
// protocol cannot carry, is closed and logged; at most size + 64 connections may await their hello
// at once; once every rank is connected no rank listens any more.
//
// Failure: a rank that fails tells every other (abort) before it exits; a rank that dies without a
// word closes its connections, which the others see; a rank that stops answering (stopped, starved,
// cut off) is named once nothing came from it for the rank timeout (every rank pings the others
// meanwhile). Either way every rank's pending and later operations reject with an error naming the
// rank, and `signal` aborts so work in progress stops.
import { createServer, type Server } from 'node:net'
import { ApiError } from '../../shared/errors'
import { ranksKey } from './job-key'
import { joinRanks, seconds } from './join-ranks'
import type { Link } from './link'
import type { RankPlacement } from './placement'
import { Kind, frame, type Frame, type RankArray, type RankArrayType, textFrame, textOf } from './wire'

/** Tags below 0 are the collectives'. */
const BARRIER = -1
const GATHER = -2
const BROADCAST = -3

/** How long a rank waits for another that stopped answering, by default (--rank-timeout). */
export const DEFAULT_RANK_TIMEOUT_S = 180

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

  private join(placement: RankPlacement, key: Buffer, port: number, deadline: number, opts: ConnectOptions): Promise<void> {
    return joinRanks(placement, { key, server: this.server!, port, deadline, signal: opts.signal, host: opts.host }, {
      refuse: (link, reason) => this.refuse(link, reason),
      attach: (r, link) => this.attach(r, link),
      failed: () => this.failure !== undefined,
    })
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
