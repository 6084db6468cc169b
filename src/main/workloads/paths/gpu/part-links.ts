// How the process running `paths --gpus N` reaches its parts: a process each (the route of every
// run: paths-part-worker.ts, fenced onto a GPU of its own where the host allows it, fence.ts), or
// parts in this process on devices it already holds (tests, several devices of one adapter). Both
// speak the same messages to the same part code (part-host.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import { ApiError, type ErrorCode } from '../../../../shared/errors'
import { SHARED } from '../../../../shared/gpu-placement'
import { fenceableGpus, fencedCommand, fenceFor } from '../../../gpu/fence'
import type { Gpu } from '../../../gpu/runtime'
import { workerScriptPath } from '../../../workers/pool'
import type { ExchangeMessage } from './pivot-exchange'
import { PartHost, type FromPart, type PartAnswers, type PartRequest, type ToPart } from './part-host'

/** One part as its coordinator sees it. */
export interface PartLink {
  /** The part's process (this one's for parts in this process). */
  readonly pid: number
  /** Sends a request; rejects when the part fails it, or once the part has died. */
  request<R extends PartRequest>(req: R): Promise<PartAnswers[R['op']]>
  /** Passes a notice of the pivot exchange to the part. */
  deliver(m: ExchangeMessage): void
  /** Where the part's own notices go (set by the coordinator). */
  onExchange: (m: ExchangeMessage) => void
  /** Rejects, once, when the part dies or stops answering: the error names the part and its stderr's tail. */
  readonly died: Promise<never>
  /** Ends the part at once (killed, for a process) and resolves once it is gone. */
  kill(): Promise<void>
}

/** Parts for a run, where each was to compute, and why they share a GPU when they do. */
export interface StartedParts {
  links: PartLink[]
  requested: string[]
  note?: string
}

export type PartStarter = (count: number) => Promise<StartedParts>

class Requests {
  private next = 0
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  private dead?: Error

  open(send: (m: ToPart) => void, req: PartRequest): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead)
    const id = this.next++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      send({ t: 'do', id, req })
    })
  }

  answer(m: Extract<FromPart, { t: 'done' | 'failed' }>): void {
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    if (m.t === 'done') p.resolve(m.value)
    else p.reject(new ApiError((m.code as ErrorCode | undefined) ?? 'internal', m.message))
  }

  fail(e: Error): void {
    this.dead ??= e
    for (const p of this.pending.values()) p.reject(e)
    this.pending.clear()
  }
}

/** The last lines of a part's stderr kept for its error: a dying part's last words, bounded. */
const TAIL_BYTES = 4096

const tailOf = (text: string) => text.trim().split('\n').slice(-4).join(' / ')

/** Part `index` in a process of its own, started by `start` (`node paths-part-worker.js`, fenced or not). */
export function partProcess(index: number, start: { command: string; args: string[]; env: Record<string, string> }): PartLink {
  const child: ChildProcess = spawn(start.command, start.args, {
    // Threads for the pivot rows' copies in pieces (shm-slots.ts), beside Dawn's and fs's own.
    env: { UV_THREADPOOL_SIZE: '8', ...process.env, ...start.env, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-TAIL_BYTES)))
  const requests = new Requests()
  let killing = false
  let markDead!: (e: Error) => void
  const died = new Promise<never>((_, reject) => (markDead = reject))
  died.catch(() => {})
  const gone = new Promise<void>((resolve) => {
    const end = (why: string) => {
      const e = new ApiError('device-lost', `part ${index} of the run (pid ${child.pid ?? 'not started'}) ${why}${tailOf(stderr) ? `: ${tailOf(stderr)}` : ''}`)
      requests.fail(e)
      markDead(e)
      resolve()
    }
    child.on('error', (e) => end(`could not start (${e.message})`))
    child.on('close', (code, signal) => end(killing ? 'was stopped' : `exited ${code ?? signal}`))
  })
  const link: PartLink = {
    pid: child.pid ?? -1,
    request: (req) => requests.open((m) => child.send(m), req) as never,
    deliver: (m) => {
      if (child.connected) child.send(m)
    },
    onExchange: () => {},
    died,
    async kill() {
      killing = true
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await gone
    },
  }
  child.on('message', (m: FromPart) => {
    if (m.t === 'done' || m.t === 'failed') requests.answer(m)
    else link.onExchange(m)
  })
  return link
}

/**
 * `count` part processes: each fenced onto a GPU of its own where the host allows it (no more
 * parts than GPUs); else each opens the GPU it is given, and the run says why.
 */
export const processParts: PartStarter = async (count) => {
  const script = workerScriptPath('paths-part-worker')
  const fenceable = fenceableGpus()
  const fenced = fenceable.ok && count <= fenceable.gpus.length ? fenceable : undefined
  const plain = { command: process.execPath, args: [script], env: {} }
  const links = Array.from({ length: count }, (_, i) =>
    partProcess(i, fenced ? fencedCommand(fenceFor(fenced.gpus[i]), fenced.route, process.execPath, [script]) : plain),
  )
  const note = fenced
    ? undefined
    : `the ${count} parts' processes open the GPU each is given: ${fenceable.ok ? `${count} parts, ${fenceable.gpus.length} GPUs to fence them onto` : fenceable.why}`
  return { links, requested: fenced ? fenced.gpus.slice(0, count).map((g) => g.tag) : Array(count).fill(SHARED), ...(note && { note }) }
}

/** Part `index` in this process on `gpu`, with messages passed as a process's would be (later, never within the call). */
function inProcessLink(gpu: Gpu): PartLink {
  const requests = new Requests()
  let markDead!: (e: Error) => void
  const died = new Promise<never>((_, reject) => (markDead = reject))
  died.catch(() => {})
  const later = (f: () => void) => setImmediate(f)
  const host = new PartHost(async () => gpu, (m) =>
    later(() => {
      if (m.t === 'done' || m.t === 'failed') requests.answer(m)
      else link.onExchange(m)
    }),
  )
  const link: PartLink = {
    pid: process.pid,
    request: (req) => requests.open((m) => later(() => host.onMessage(m)), req) as never,
    deliver: (m) => later(() => host.onMessage(m)),
    onExchange: () => {},
    died,
    async kill() {
      const e = new ApiError('cancelled', 'stopped')
      host.stop(e)
      requests.fail(e)
      markDead(e)
      // Its requests end with the host's next await; its buffers go with the unload the coordinator skips.
      host.onMessage({ t: 'do', id: -1, req: { op: 'unload' } })
    },
  }
  return link
}

/** Parts in this process on the devices given, part k on gpus[k]: the same part code without processes (tests). */
export function inProcessParts(gpus: Gpu[], requested: string[] = gpus.map(() => SHARED)): PartStarter {
  return async (count) => {
    if (count > gpus.length) throw new RangeError(`${count} parts, ${gpus.length} devices`)
    return { links: gpus.slice(0, count).map((g) => inProcessLink(g)), requested: requested.slice(0, count) }
  }
}
