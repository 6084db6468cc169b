// How a pivot row goes from its owner to every other part: through a file of PIVOT_SLOTS slots in
// shared memory (ranks/shm-slots.ts), with notices through a hub (the process that started the
// parts). The owner writes round k's row into slot k mod PIVOT_SLOTS and tells the hub, which tells
// every other part; each reads the row straight into its mapped staging buffer and tells the hub,
// which says the slot is free again once all have. An owner waits for that before it writes a row
// PIVOT_SLOTS rounds later, so a row is never overwritten while a slower part still reads it.
// Sequences keep counting over the computations of one solve, so that a late notice of one
// computation can never be taken for one of the next.
import type { ShmSlots, SlotNotice } from '../../../ranks/shm-slots'
import { ApiError } from '../../../../shared/errors'

/** Rows in flight at once: the owner may run this many rounds ahead of the slowest reader. */
export const PIVOT_SLOTS = 4

export type ExchangeMessage =
  /** A part to the hub, and the hub to the others: a row waits in the slot of the notice. */
  | { t: 'row'; notice: SlotNotice }
  /** A part to the hub: it has read the row of `sequence`. */
  | { t: 'read'; sequence: number }
  /** The hub to every part: every reader has read `sequence`, its slot may be written again. */
  | { t: 'free'; sequence: number }

/** A part's side of the exchange. */
export interface PartExchange {
  /** A new computation of the solve: its rounds start again from 0. */
  begin(): void
  /** Round k's row to every other part; resolves (with the ms spent copying) once `row` is no longer needed. */
  publish(k: number, row: Uint8Array): Promise<number>
  /** Round k's row into `target`, once its owner has published it; resolves with the ms spent copying. */
  receive(k: number, target: Uint8Array, signal?: AbortSignal): Promise<number>
}

interface Waiter<T> {
  resolve(value: T): void
  reject(e: Error): void
}

export class SlotExchange implements PartExchange {
  private epoch = -1
  private readonly notices = new Map<number, SlotNotice>()
  private readonly rowWaiters = new Map<number, Waiter<SlotNotice>>()
  private readonly freed = new Set<number>()
  private readonly freeWaiters = new Map<number, Waiter<true>>()
  private failed?: Error

  constructor(
    private readonly slots: ShmSlots,
    private readonly rounds: number,
    private readonly send: (m: ExchangeMessage) => void,
  ) {
    if (slots.geometry.slots !== PIVOT_SLOTS) throw new RangeError(`a pivot file has ${PIVOT_SLOTS} slots, not ${slots.geometry.slots}`)
  }

  begin(): void {
    this.epoch++
    this.notices.clear()
    this.freed.clear()
  }

  private sequence(k: number): number {
    return this.epoch * this.rounds + k
  }

  /** A message from the hub. A notice that does not fit the pivot file, or its round's slot, fails the part. */
  onMessage(m: ExchangeMessage): void {
    if (m.t === 'row') {
      const n = this.slots.check(m.notice)
      if (n.slot !== n.sequence % PIVOT_SLOTS) throw new RangeError(`notice of row ${n.sequence} in slot ${n.slot}: it belongs in slot ${n.sequence % PIVOT_SLOTS}`)
      const waiter = this.rowWaiters.get(n.sequence)
      this.rowWaiters.delete(n.sequence)
      if (waiter) waiter.resolve(n)
      else this.notices.set(n.sequence, n)
    } else if (m.t === 'free') {
      const waiter = this.freeWaiters.get(m.sequence)
      this.freeWaiters.delete(m.sequence)
      if (waiter) waiter.resolve(true)
      else this.freed.add(m.sequence)
    }
  }

  /** Every wait ends with `e` (a peer died, the run was cancelled). */
  fail(e: Error): void {
    this.failed = e
    for (const w of [...this.rowWaiters.values(), ...this.freeWaiters.values()]) w.reject(e)
    this.rowWaiters.clear()
    this.freeWaiters.clear()
  }

  private wait<T>(ready: T | undefined, waiters: Map<number, Waiter<T>>, sequence: number, signal?: AbortSignal): Promise<T> {
    if (this.failed) return Promise.reject(this.failed)
    if (ready !== undefined) return Promise.resolve(ready)
    return new Promise<T>((resolve, reject) => {
      const abort = () => {
        waiters.delete(sequence)
        reject(new ApiError('cancelled', 'cancelled'))
      }
      if (signal?.aborted) return abort()
      signal?.addEventListener('abort', abort, { once: true })
      waiters.set(sequence, {
        resolve: (v) => {
          signal?.removeEventListener('abort', abort)
          resolve(v)
        },
        reject: (e) => {
          signal?.removeEventListener('abort', abort)
          reject(e)
        },
      })
    })
  }

  async publish(k: number, row: Uint8Array): Promise<number> {
    const sequence = this.sequence(k)
    // The slot's previous row (of this computation) read by every other part; earlier computations ended read.
    if (k >= PIVOT_SLOTS) {
      const earlier = sequence - PIVOT_SLOTS
      await this.wait(this.freed.delete(earlier) ? (true as const) : undefined, this.freeWaiters, earlier)
    }
    const t0 = performance.now()
    const slot = sequence % PIVOT_SLOTS
    await this.slots.writeAsync(slot, row)
    const ms = performance.now() - t0
    this.send({ t: 'row', notice: { slot, sequence, length: row.byteLength } })
    return ms
  }

  async receive(k: number, target: Uint8Array, signal?: AbortSignal): Promise<number> {
    const sequence = this.sequence(k)
    const ready = this.notices.get(sequence)
    this.notices.delete(sequence)
    const notice = await this.wait(ready, this.rowWaiters, sequence, signal)
    if (notice.length !== target.byteLength) throw new RangeError(`row ${sequence} of ${notice.length} bytes; a pivot row here is ${target.byteLength}`)
    const t0 = performance.now()
    await this.slots.receiveAsync(notice, target)
    const ms = performance.now() - t0
    this.send({ t: 'read', sequence })
    return ms
  }
}

/**
 * The hub's side: passes each part's row notices to the other parts and frees a slot once every
 * other part has read it. `onRow` sees each row as it is published (progress).
 */
export class PivotHub {
  private readonly left = new Map<number, number>()

  constructor(
    private readonly parts: number,
    private readonly send: (part: number, m: ExchangeMessage) => void,
    private readonly onRow?: (sequence: number) => void,
  ) {}

  onMessage(from: number, m: ExchangeMessage): void {
    if (m.t === 'row') {
      const sequence = m.notice.sequence
      this.onRow?.(sequence)
      if (this.parts === 1) return this.free(sequence)
      this.left.set(sequence, this.parts - 1)
      for (let q = 0; q < this.parts; q++) if (q !== from) this.send(q, m)
    } else if (m.t === 'read') {
      const left = this.left.get(m.sequence)
      if (left === undefined) throw new RangeError(`part ${from} read row ${m.sequence}, which is not in flight`)
      if (left > 1) this.left.set(m.sequence, left - 1)
      else {
        this.left.delete(m.sequence)
        this.free(m.sequence)
      }
    }
  }

  private free(sequence: number): void {
    for (let q = 0; q < this.parts; q++) this.send(q, { t: 'free', sequence })
  }
}
