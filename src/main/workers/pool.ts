// A pool of worker_threads running one built worker entry (`out/main/<name>.js`).
// Cancellation terminates the threads, which really stops their work.
import { Worker, type TransferListItem } from 'node:worker_threads'
import { availableParallelism } from 'node:os'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiError } from '../../shared/errors'
import { throwIfAborted } from '../../shared/cancel'
import type { TaskReply, TaskRequest } from './protocol'

/** Path of a built worker entry. From sources (tests) the entries come from `out/main`, built by `npm run build`. */
export function workerScriptPath(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const built = here.endsWith(join('src', 'main', 'workers'))
    ? resolve(here, '../../../out/main', `${name}.js`)
    : join(here, `${name}.js`)
  if (!existsSync(built)) throw new ApiError('internal', `worker script ${built} is missing: run \`npm run build\``)
  return built
}

/** Threads a pool may start per core: beyond a few, more threads only add memory and switching (256 on 2 cores did). */
export const MAX_THREADS_PER_CORE = 4

interface Pending {
  resolve(value: unknown): void
  reject(error: Error): void
}

interface Slot {
  worker: Worker
  busy: boolean
}

export class WorkerPool {
  private readonly slots: Slot[] = []
  private readonly queue: { req: TaskRequest; transfer: TransferListItem[]; pending: Pending }[] = []
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private terminated = false

  constructor(
    readonly script: string,
    readonly size = availableParallelism(),
  ) {
    const cores = availableParallelism()
    if (size > cores * MAX_THREADS_PER_CORE)
      throw new ApiError('invalid-argument', `${size} threads asked for; this machine runs at most ${cores * MAX_THREADS_PER_CORE} (${MAX_THREADS_PER_CORE} per core on its ${cores} cores)`)
    const path = workerScriptPath(script)
    for (let i = 0; i < size; i++) {
      const worker = new Worker(path)
      const slot: Slot = { worker, busy: false }
      worker.on('message', (reply: TaskReply) => this.settle(slot, reply))
      worker.on('error', (err) => this.fail(err))
      worker.unref()
      this.slots.push(slot)
    }
  }

  /** Runs one task on the next free worker. */
  run<T>(task: string, payload: unknown, transfer: TransferListItem[] = []): Promise<T> {
    if (this.terminated) return Promise.reject(new ApiError('cancelled', 'cancelled'))
    return new Promise<T>((resolve, reject) => {
      const req: TaskRequest = { id: this.nextId++, task, payload }
      this.queue.push({ req, transfer, pending: { resolve: resolve as (v: unknown) => void, reject } })
      this.pump()
    })
  }

  /** Stops every thread now; unfinished tasks reject as cancelled. */
  async terminate(): Promise<void> {
    if (this.terminated) return
    this.terminated = true
    const err = new ApiError('cancelled', 'cancelled')
    for (const q of this.queue.splice(0)) q.pending.reject(err)
    for (const p of this.pending.values()) p.reject(err)
    this.pending.clear()
    // An idle worker is unref'd, and an unref'd worker's exit does not keep the event loop alive:
    // without ref() the process could end, with exit code 0, while this promise is still pending.
    await Promise.all(
      this.slots.map((s) => {
        s.worker.ref()
        return s.worker.terminate()
      }),
    )
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue
      const next = this.queue.shift()
      if (!next) return
      slot.busy = true
      slot.worker.ref()
      this.pending.set(next.req.id, next.pending)
      slot.worker.postMessage(next.req, next.transfer)
    }
  }

  private settle(slot: Slot, reply: TaskReply): void {
    // A reply that was on its way when the pool was terminated: its task was rejected already, and
    // unref() here would let the process end before the thread's exit resolves terminate().
    if (this.terminated) return
    slot.busy = false
    slot.worker.unref()
    const p = this.pending.get(reply.id)
    this.pending.delete(reply.id)
    if (p) {
      if (reply.error) p.reject(ApiError.from(reply.error))
      else p.resolve(reply.result)
    }
    this.pump()
  }

  private fail(err: Error): void {
    const e = new ApiError('internal', `worker ${this.script} crashed: ${err.message}`)
    for (const p of this.pending.values()) p.reject(e)
    this.pending.clear()
    void this.terminate()
  }
}

/** Runs `fn` with a pool that is terminated when it finishes or when `signal` aborts. */
export async function withPool<T>(
  script: string,
  size: number,
  signal: AbortSignal | undefined,
  fn: (pool: WorkerPool) => Promise<T>,
): Promise<T> {
  throwIfAborted(signal)
  const pool = new WorkerPool(script, size)
  const onAbort = () => void pool.terminate()
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    return await fn(pool)
  } finally {
    signal?.removeEventListener('abort', onAbort)
    await pool.terminate()
  }
}
