// Halo rows between neighbouring ranks: through shared memory where both run on this host
// (shm-slots.ts: the sender writes the rows into a slot of its own file, and a notice of a few
// bytes follows over the ranks' authenticated TCP link), over that link itself otherwise. On the
// 4-GPU machine a 1.1 MB message took 0.27 ms through /dev/shm against 1.27 ms over loopback TCP.
//
// Setting up, each rank offers each neighbour a file (its host name and path) and answers each
// offer it got: accepted only from a rank of this host whose file opens as shm-slots.ts allows
// (a private folder of this user, a regular file of the exact size) and lies in a folder of ours
// (PREFIX) directly under /dev/shm or the temporary folder. Once answered, every rank removes its
// folder: the open files live on until the ranks close them, and nothing is left behind however
// the ranks end. Each direction keeps two slots, used in turn (a rank can be at most one message
// ahead of its neighbour's reading: it needs the neighbour's next halo before sending again), and
// every notice must name the next message's slot, sequence and exact length, or the run fails
// naming the rank that sent it.
import { hostname, tmpdir } from 'node:os'
import { basename, dirname, resolve } from 'node:path'
import { ApiError } from '../../shared/errors'
import type { Ranks } from './ranks'
import { openSlots, ShmFolder, type ShmSlots } from './shm-slots'
import type { RankArray, RankArrayType } from './wire'

/** `tcp` keeps every halo on the TCP links (for comparison); otherwise ranks of one host share memory. */
export const HALOS_VARIABLE = 'PARALAB_RANKS_HALOS'

/** The folders' names start so, followed by the owner's pid. */
export const PREFIX = 'paralab-halos-'

const SLOTS = 2
const SHM_ROOT = '/dev/shm'

/** How the halos between this rank and its neighbours travel. */
export type HalosBy = 'shared memory' | 'tcp' | 'shared memory and tcp'

interface Peer {
  rank: number
  /** Own file, written for this neighbour; undefined when the halos go over TCP. */
  out?: ShmSlots
  /** The neighbour's file, read from. */
  in?: ShmSlots
  sent: number
  received: number
  /** Where received rows land (reused: the caller is done with one halo before asking for the next). */
  buffer?: ArrayBuffer
}

export interface HaloTags {
  /** Offers and answers while setting up. */
  setup: number
  /** A shared-memory message's notice. */
  notice: number
  /** A halo over TCP. */
  data: number
}

/** Whether `file` may be a neighbour's halo file: a plain name in a folder of ours directly under /dev/shm or the temporary folder. */
export function plausibleHaloFile(file: string): boolean {
  if (typeof file !== 'string' || file.length > 4096 || resolve(file) !== file) return false
  const folder = dirname(file)
  return (dirname(folder) === SHM_ROOT || dirname(folder) === resolve(tmpdir())) && basename(folder).startsWith(PREFIX) && /^to-\d+$/.test(basename(file))
}

export class NeighbourHalos {
  private constructor(
    private readonly ranks: Ranks,
    private readonly peers: Map<number, Peer>,
    private readonly tags: HaloTags,
    /** Exact bytes of every halo message. */
    readonly bytes: number,
    /** This rank's folder while setting up (gone once open() returns). */
    readonly folder: string | undefined,
  ) {}

  /**
   * Sets up the halos with `neighbours` (every one of them must call this at the same point, with
   * the same `bytes`): shared memory with those of this host that accept it, TCP with the others.
   */
  static async open(ranks: Ranks, neighbours: number[], bytes: number, tags: HaloTags, env: NodeJS.ProcessEnv = process.env): Promise<NeighbourHalos> {
    const peers = new Map<number, Peer>(neighbours.map((rank) => [rank, { rank, sent: 0, received: 0 }]))
    const geometry = { slots: SLOTS, slotBytes: Math.max(1, bytes) }
    const host = hostname()
    let folder: ShmFolder | undefined
    try {
      if (env[HALOS_VARIABLE] !== 'tcp' && neighbours.length > 0 && bytes > 0) {
        try {
          folder = ShmFolder.create(PREFIX, neighbours.length * SLOTS * bytes)
          for (const p of peers.values()) p.out = folder.slots(`to-${p.rank}`, geometry)
        } catch {
          // No room or no folder: this rank's halos go over TCP.
          for (const p of peers.values()) p.out?.close()
          for (const p of peers.values()) p.out = undefined
        }
      }
      const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
      for (const p of peers.values()) ranks.send(p.rank, tags.setup, encode(p.out ? { host, file: p.out.file } : {}))
      for (const p of peers.values()) {
        const offer = await ranks.recv(p.rank, tags.setup, Uint8Array)
        let accepted = false
        try {
          const o = offer.byteLength <= 8192 ? (JSON.parse(new TextDecoder().decode(offer)) as { host?: unknown; file?: unknown }) : {}
          if (o && o.host === host && typeof o.file === 'string' && plausibleHaloFile(o.file)) {
            p.in = openSlots(o.file, geometry)
            accepted = true
          }
        } catch {
          // Not a file this rank can read as the neighbour's slots: TCP.
        }
        ranks.send(p.rank, tags.setup, new Uint8Array([accepted ? 1 : 0]))
      }
      for (const p of peers.values()) {
        const answer = await ranks.recv(p.rank, tags.setup, Uint8Array)
        if (answer.byteLength !== 1 || answer[0] !== 1) {
          p.out?.close()
          p.out = undefined
        }
      }
    } catch (e) {
      for (const p of peers.values()) p.out?.close(), p.in?.close()
      throw e
    } finally {
      folder?.remove()
    }
    return new NeighbourHalos(ranks, peers, tags, bytes, folder?.path)
  }

  /** How this rank's halos travel. */
  get by(): HalosBy {
    const ways = new Set<string>()
    for (const p of this.peers.values()) {
      ways.add(p.out ? 'shm' : 'tcp')
      ways.add(p.in ? 'shm' : 'tcp')
    }
    return ways.size === 2 ? 'shared memory and tcp' : ways.has('shm') ? 'shared memory' : 'tcp'
  }

  private peer(rank: number): Peer {
    const p = this.peers.get(rank)
    if (!p) throw new ApiError('internal', `rank ${rank} is no neighbour of this rank`)
    return p
  }

  /** Sends `data` (exactly `bytes` bytes) to neighbour `to`; returns at once. */
  send(to: number, data: RankArray): void {
    const p = this.peer(to)
    if (data.byteLength !== this.bytes) throw new ApiError('internal', `a halo of ${data.byteLength} bytes; this run's are ${this.bytes}`)
    if (!p.out) return this.ranks.send(to, this.tags.data, data)
    const sequence = p.sent++
    const slot = sequence % SLOTS
    p.out.write(slot, data)
    this.ranks.send(to, this.tags.notice, new Float64Array([slot, sequence, data.byteLength]))
  }

  /** The next halo from neighbour `from`, as a `type` (whose buffer is reused by the next call). */
  async recv<T extends RankArray>(from: number, type: RankArrayType<T>): Promise<T> {
    const p = this.peer(from)
    if (!p.in) {
      const data = await this.ranks.recv(from, this.tags.data, type)
      if (data.byteLength !== this.bytes) throw new ApiError('io', `rank ${from} sent a halo of ${data.byteLength} bytes; this run's are ${this.bytes}`)
      return data
    }
    const words = await this.ranks.recv(from, this.tags.notice, Float64Array)
    const expected = { slot: p.received % SLOTS, sequence: p.received, length: this.bytes }
    let problem: string | undefined
    try {
      if (words.length !== 3) throw new RangeError(`a notice holds slot, sequence and length, not ${words.length} numbers`)
      const n = p.in.check({ slot: words[0], sequence: words[1], length: words[2] })
      if (n.sequence !== expected.sequence || n.slot !== expected.slot || n.length !== expected.length)
        throw new RangeError(`expected message ${expected.sequence} in slot ${expected.slot} of ${expected.length} bytes, got message ${n.sequence} in slot ${n.slot} of ${n.length} bytes`)
    } catch (e) {
      problem = e instanceof Error ? e.message : String(e)
    }
    if (problem !== undefined) throw new ApiError('io', `rank ${from} sent a halo notice that was refused: ${problem}`)
    p.buffer ??= new ArrayBuffer(this.bytes)
    p.in.readInto(expected.slot, new Uint8Array(p.buffer))
    p.received++
    return new type(p.buffer)
  }

  close(): void {
    for (const p of this.peers.values()) {
      p.out?.close()
      p.in?.close()
    }
  }
}
