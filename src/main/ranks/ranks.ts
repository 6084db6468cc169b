// The ranks of one job talking to each other over TCP, as MPI gives a C program: rank, size,
// neighbours, send and receive of typed arrays under a tag, barrier, gather to rank 0, broadcast
// from it, and abort. Every rank connects to every other (rank 0 first, through the rendezvous file,
// then the others from the table rank 0 sends), so each notices at once when any rank dies.
//
// Failure: a rank that fails tells every other (abort) before it exits; a rank that dies without a
// word closes its connections, which the others see. Either way every rank's pending and later
// operations reject with an error naming the rank, and `signal` aborts so work in progress stops.
import { createServer, connect, type Server, type Socket } from 'node:net'
import { ApiError } from '../../shared/errors'
import type { RankPlacement } from './placement'
import { awaitRendezvous, nodeAddress, publishRendezvous, removeRendezvous } from './rendezvous'
import { Kind, frame, type Frame, FrameReader, type RankArray, type RankArrayType, textFrame, textOf } from './wire'

/** Tags below 0 are the collectives'. */
const BARRIER = -1
const GATHER = -2
const BROADCAST = -3

export interface ConnectOptions {
  /** How long connecting may take in all (rank 0 waiting for every rank, the others for rank 0). Default 60 s. */
  timeoutMs?: number
  signal?: AbortSignal
  /** Rank 0's host as published; default nodeAddress(). */
  host?: string
}

interface Peer {
  socket: Socket
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
  /** Where every rank listens (rank 0's table). */
  private table: { hosts: string[]; ports: number[] } | undefined

  private constructor(
    placement: RankPlacement,
    private readonly server: Server | undefined,
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
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000)
    if (placement.size === 1) return new Ranks(placement, undefined)
    const underSlurm = !!process.env.SLURMD_NODENAME
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, underSlurm ? '0.0.0.0' : '127.0.0.1', () => resolve())
    })
    const port = (server.address() as { port: number }).port
    const ranks = new Ranks(placement, server)
    try {
      await ranks.join(placement, port, deadline, opts)
    } catch (e) {
      ranks.shutDown()
      throw e
    }
    return ranks
  }

  private async join(placement: RankPlacement, port: number, deadline: number, opts: ConnectOptions): Promise<void> {
    const { rank, size, job } = placement
    // Connections from ranks above this one: rank 0 gets them all, rank k those of ranks > k.
    const expected = rank === 0 ? size - 1 : size - 1 - rank
    const incoming = new Promise<Map<number, { socket: Socket; port: number; reader: Hello }>>((resolve, reject) => {
      const got = new Map<number, { socket: Socket; port: number; reader: Hello }>()
      const late = () => {
        const missing = Array.from({ length: size }, (_, r) => r).filter((r) => r > rank && !got.has(r))
        reject(new ApiError('io', `rank ${rank}: rank${missing.length > 1 ? 's' : ''} ${missing.join(', ')} did not connect within the time allowed (they find rank 0 through ${placement.folder}, which every node of the job must see)`))
      }
      const timer = setTimeout(late, Math.max(0, deadline - Date.now()))
      timer.unref()
      if (expected === 0) {
        clearTimeout(timer)
        resolve(got)
      }
      this.server!.on('connection', (socket) => {
        const hello = new Hello(socket)
        hello.first
          .then((h) => {
            if (h.job !== job || !Number.isInteger(h.rank) || h.rank <= rank || h.rank >= size || got.has(h.rank)) {
              socket.destroy()
              return
            }
            got.set(h.rank, { socket, port: h.port, reader: hello })
            if (got.size === expected) {
              clearTimeout(timer)
              resolve(got)
            }
          })
          .catch(() => socket.destroy())
      })
      void Promise.resolve().then(() => opts.signal?.addEventListener('abort', () => reject(new ApiError('cancelled', 'cancelled')), { once: true }))
    })
    // Awaited below; a rejection before then (the deadline passing while rank 0 is awaited) is not unhandled.
    incoming.catch(() => {})
    if (rank === 0) {
      await removeRendezvous(placement)
      await publishRendezvous(placement, opts.host ?? (await nodeAddress()), port)
      const got = await incoming
      const hosts = ['', ...Array.from({ length: size - 1 }, (_, i) => got.get(i + 1)!.socket.remoteAddress ?? '')]
      const ports = [port, ...Array.from({ length: size - 1 }, (_, i) => got.get(i + 1)!.port)]
      for (const [r, { socket, reader }] of got) {
        socket.write(textFrame(Kind.Table, { hosts, ports }))
        this.attach(r, socket, reader)
      }
      return
    }
    const hello = { rank, job, port }
    // The file may still name an earlier start of this job (same id) until rank 0 replaces it: a
    // failed attempt reads it again.
    for (;;) {
      const found = await awaitRendezvous(placement, deadline, opts.signal)
      const what = `rank ${rank}: cannot reach rank 0 at ${found.host}:${found.port}`
      try {
        const zero = await dial(found.host, found.port, Math.min(deadline, Date.now() + 5000), what)
        zero.write(textFrame(Kind.Hello, hello))
        const zeroReader = new Hello(zero)
        const table = (await withDeadline(zeroReader.first, Math.min(deadline, Date.now() + 10_000), `${what}: it did not answer`)) as unknown as { hosts: string[]; ports: number[] }
        this.attach(0, zero, zeroReader)
        // rank 0 saw this rank's connection from the address the others may reach it at.
        this.table = table
        break
      } catch (e) {
        if (Date.now() > deadline || opts.signal?.aborted) throw e
        await new Promise((r) => setTimeout(r, 200))
      }
    }
    const table = this.table!
    // Ranks 1 … rank−1 listen for this one; ranks above dial this one.
    for (let r = 1; r < rank; r++) {
      const socket = await dial(table.hosts[r], table.ports[r], deadline, `rank ${rank}: cannot reach rank ${r} at ${table.hosts[r]}:${table.ports[r]}`)
      socket.write(textFrame(Kind.Hello, hello))
      this.attach(r, socket, new Hello(socket, false))
    }
    for (const [r, { socket, reader }] of await incoming) this.attach(r, socket, reader)
  }

  /** Takes over a connection to rank `r` whose first frame (if any) `hello` has read. */
  private attach(r: number, socket: Socket, hello: Hello): void {
    const peer: Peer = { socket, finished: false }
    this.peers[r] = peer
    socket.setNoDelay(true)
    hello.handOver((f) => {
      if (f.kind === Kind.Data) this.deliver(r, f.tag, f.data)
      // The reason as the failing rank gave it: it names the rank where the job failed first.
      else if (f.kind === Kind.Abort) this.fail(new ApiError('io', textOf(f.data)))
      else if (f.kind === Kind.Bye) {
        peer.finished = true
        // Anything still awaited from it will never come.
        for (const [key, list] of this.waiting)
          if (key.startsWith(`${r}:`) && list.length) this.fail(new ApiError('io', `rank ${r} finished while rank ${this.rank} still waited for its data`))
      }
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      if (!peer.finished && !this.closing) this.fail(new ApiError('io', `rank ${r} ended without a word: its process died or was killed`))
    })
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
    this.peer(to).socket.write(frame(Kind.Data, tag, data))
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
      for (let r = 1; r < this.size; r++) this.peer(r).socket.write(frame(Kind.Data, BARRIER, token))
    } else {
      this.check()
      this.peer(0).socket.write(frame(Kind.Data, BARRIER, token))
      await this.take(0, BARRIER)
    }
  }

  /** Every rank's `data`, in rank order, on rank 0; undefined on the others. */
  async gather<T extends RankArray>(data: T, type: RankArrayType<T>): Promise<T[] | undefined> {
    if (this.rank !== 0) {
      this.check()
      this.peer(0).socket.write(frame(Kind.Data, GATHER, data))
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
      for (let r = 1; r < this.size; r++) this.peer(r).socket.write(frame(Kind.Data, BROADCAST, data))
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
    const closed = this.peers.map((p) => p && !p.socket.destroyed && new Promise<void>((resolve) => p.socket.once('close', () => resolve())))
    for (const p of this.peers) p?.socket.end(textFrame(Kind.Bye, ''))
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
    const open = this.peers.filter((p): p is Peer => !!p && !p.socket.destroyed)
    this.flushed = Promise.all(open.map((p) => new Promise<void>((resolve) => {
      p.socket.once('close', () => resolve())
      p.socket.end(textFrame(Kind.Abort, error.message))
    }))).then(() => {})
    const timer = setTimeout(() => this.shutDown(), 2_000)
    timer.unref()
    void this.flushed.then(() => {
      clearTimeout(timer)
      this.shutDown()
    })
    this.server?.close()
  }

  private shutDown(): void {
    this.closing = true
    for (const p of this.peers) p?.socket.destroy()
    this.server?.close()
  }
}

/**
 * A connection's reader: takes the first frame (Hello or Table) itself, then hands every later one
 * to the handler given; frames that arrive before that are kept for it in order.
 */
class Hello {
  readonly first: Promise<{ rank: number; job: string; port: number }>
  private handler: ((f: Frame) => void) | undefined
  private readonly early: Frame[] = []

  constructor(socket: Socket, expectFirst = true) {
    let settle!: (v: { rank: number; job: string; port: number }) => void
    let refuse!: (e: Error) => void
    this.first = new Promise((resolve, reject) => {
      settle = resolve
      refuse = reject
    })
    this.first.catch(() => {})
    let pendingFirst = expectFirst
    const reader = new FrameReader((f) => {
      if (pendingFirst) {
        pendingFirst = false
        try {
          settle(JSON.parse(textOf(f.data)))
        } catch (e) {
          refuse(e as Error)
        }
        return
      }
      if (this.handler) this.handler(f)
      else this.early.push(f)
    })
    socket.on('data', (chunk: Buffer) => reader.push(chunk))
    socket.once('close', () => refuse(new Error('closed')))
  }

  handOver(handler: (f: Frame) => void): void {
    this.handler = handler
    for (const f of this.early.splice(0)) handler(f)
  }
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

function withDeadline<T>(p: Promise<T>, deadline: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ApiError('io', `${what} within the time allowed`)), Math.max(0, deadline - Date.now()))
    p.then(
      (v) => {
        clearTimeout(timer)
        resolve(v)
      },
      (e) => {
        clearTimeout(timer)
        reject(e instanceof ApiError ? e : new ApiError('io', `${what}: ${e instanceof Error ? e.message : String(e)}`))
      },
    )
  })
}
