// The `gpu` backend on several GPUs (`--gpus N`, the tuned variant): the matrix split into runs of
// whole block rows (block-rows.ts), each run a part on a device of its own (bands-part.ts), each
// part in a process of its own (part-links.ts), pivot rows going between them through shared
// memory (pivot-exchange.ts). This side makes the run's files, starts and drives the parts, times
// them, and says where they computed as nvidia-smi saw it.
//
// The matrix reaches the parts through one file of its rows in shared memory (a private folder,
// ranks/shm-slots.ts), filled here a part's rows at a time; each part reads its rows, and writes
// them back when done, and the result is read from the file. The folder goes when the solve ends,
// fails or is cancelled.
import { ApiError } from '../../../../shared/errors'
import { NOT_OBSERVED, placementOf, type GpuPlacement } from '../../../../shared/gpu-placement'
import { sampleGpus } from '../../../gpu/observe'
import { median, throwIfAborted, warmUp } from '../../../gpu/runtime'
import { ShmFolder, type ShmSlots } from '../../../ranks/shm-slots'
import { fillMatrix } from '../matrix'
import type { Problem } from '../problem'
import { realUnsupported } from '../real'
import type { SolveOptions, Solved, Solver } from '../solver-contract'
import { splitBlockRows } from './block-rows'
import type { PartShape, PartTimes } from './bands-part'
import { pivotSlotBytes, type PartAnswers, type PartRequest } from './part-host'
import type { PartLink, PartStarter, StartedParts } from './part-links'
import { PIVOT_SLOTS, PivotHub } from './pivot-exchange'
import { DEFAULT_TUNED_SHAPE, parseTunedShape } from './tuned-shapes'
import { GPU_ALIGN, paddedSide } from './variants'

const BS = GPU_ALIGN

export { partBindings } from './bands-part'

export interface BandsSolverOptions {
  /** Bytes one binding may hold, below the device's limit (tests split small matrices with it). */
  maxBindingBytes?: number
  /** A tile shape of phase 3 without successors (tuned-shapes.ts); without one, DEFAULT_TUNED_SHAPE. */
  shape?: string
}

/** Set (to anything): each computation's time per part, on stderr. */
export const PARTS_LOG_VARIABLE = 'PARALAB_PATHS_PARTS_LOG'

/** Rows copied between the result and the matrix file before the event loop is let run (a cancel arrives). */
const ROWS_A_TURN = 512

const turn = () => new Promise((r) => setImmediate(r))

/**
 * `gpus` parts started by `start` (processParts for runs, inProcessParts in tests). The parts are
 * started at the first compile or solve and kept until dispose(), or until one dies or a solve is
 * cancelled, when all are ended and the next solve starts them again.
 */
export function gpuBandsSolver(gpus: number, start: PartStarter, options: BandsSolverOptions = {}): Solver {
  parseTunedShape(options.shape ?? DEFAULT_TUNED_SHAPE)
  let started: StartedParts | undefined
  let starting: Promise<StartedParts> | undefined
  let placement: GpuPlacement | undefined
  let note: string | undefined
  let software = false

  const partsOf = (V: number) => splitBlockRows(paddedSide(V) / BS, gpus)
  const shapeOf = (p: Problem, paths: boolean, index: number): PartShape => {
    const N = paddedSide(p.V)
    return { index, split: partsOf(p.V), V: p.V, N, paths, ...(options.shape !== undefined && { shape: options.shape }), ...(options.maxBindingBytes !== undefined && { maxBindingBytes: options.maxBindingBytes }) }
  }
  const links = async (): Promise<StartedParts> => {
    if (started) return started
    starting ??= start(gpus).then((s) => {
      started = s
      note = s.note
      return s
    })
    try {
      return await starting
    } finally {
      starting = undefined
    }
  }
  const stopAll = async () => {
    const s = started
    started = undefined
    if (s) await Promise.all(s.links.map((l) => l.kill()))
  }
  /**
   * Sends `req(i)` to the first `count` parts and waits for every answer. The first part to fail,
   * die or be cancelled fails the whole: every part is then ended.
   */
  const all = async <R extends PartRequest>(ls: PartLink[], req: (i: number) => R, signal?: AbortSignal): Promise<PartAnswers[R['op']][]> => {
    throwIfAborted(signal)
    let onAbort = () => {}
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new ApiError('cancelled', 'cancelled'))
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    aborted.catch(() => {})
    try {
      return await Promise.race([Promise.all(ls.map((l, i) => l.request(req(i)))), ...ls.map((l) => l.died), aborted])
    } catch (e) {
      await stopAll()
      throw e
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  return {
    backend: 'gpu',
    variant: 'tuned',
    block: BS,
    gpus,
    get gpusNote() {
      return software ? `the adapter is a software one: all ${gpus} parts on the CPU` : note
    },
    observe: async (parts: number) => {
      if (!placement) throw new Error('no solve has run yet')
      return { ...placement, gpus_requested: placement.gpus_requested.slice(0, parts), gpus_observed: placement.gpus_observed.slice(0, parts) }
    },
    ...(options.shape !== undefined && { shape: options.shape }),
    async compile(p: Problem, paths: boolean): Promise<void> {
      const count = partsOf(p.V).length
      const s = await links()
      await all(s.links.slice(0, count), (i) => ({ op: 'compile', shape: shapeOf(p, paths, i) }))
    },
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      if (p.real) throw realUnsupported('gpu on several GPUs')
      const N = paddedSide(p.V)
      const split = partsOf(p.V)
      const rounds = Math.ceil(p.V / BS)
      const matrixBytes = N * N * 4 * (paths ? 2 : 1) + PIVOT_SLOTS * pivotSlotBytes(N, paths)
      throwIfAborted(signal)
      const folder = ShmFolder.create('paralab-paths-', matrixBytes)
      const files: ShmSlots[] = []
      let watch: ReturnType<typeof sampleGpus> | undefined
      try {
        const rowsFile = (name: string) => {
          const f = folder.slots(name, { slots: N, slotBytes: N * 4 })
          files.push(f)
          return f
        }
        const distances = rowsFile('distances')
        const keys = paths ? rowsFile('keys') : undefined
        files.push(folder.slots('pivot', { slots: PIVOT_SLOTS, slotBytes: pivotSlotBytes(N, paths) }))
        // The matrix, a part's rows at a time.
        let duplicates = 0
        for (const rows of split) {
          const row0 = rows.b0 * BS
          const height = (rows.b1 - rows.b0) * BS
          const d = new Int32Array(height * N)
          const key = paths ? new Uint32Array(height * N) : undefined
          duplicates += fillMatrix(p, d, key, { stride: N, rows: height, row0 })
          distances.write(row0, d)
          if (key) keys!.write(row0, key)
          await turn()
          throwIfAborted(signal)
        }

        const s = await links()
        const ls = s.links.slice(0, split.length)
        const hub = new PivotHub(ls.length, (q, m) => ls[q].deliver(m), (sequence) => opts.progress?.(((sequence % rounds) + 1) / rounds))
        ls.forEach((l, i) => (l.onExchange = (m) => hub.onMessage(i, m)))
        watch = sampleGpus(ls.map((l) => l.pid), 500)
        const loaded = await all(ls, (i) => ({ op: 'load', spec: { ...shapeOf(p, paths, i), distances: distances.file, ...(keys && { keys: keys.file }), pivot: files.at(-1)!.file } }), signal)
        // The parts read and upload their rows at once: the slowest part's time.
        const upload_ms = Math.max(...loaded.map((x) => x.upload_ms))
        software = loaded.some((x) => x.software)

        const computeAll = async (): Promise<PartTimes> => {
          const c0 = performance.now()
          const times = await all(ls, () => ({ op: 'compute' }), signal)
          if (process.env[PARTS_LOG_VARIABLE]) process.stderr.write(`paths parts: ${times.map((x, i) => `part ${i} ${x.ms.toFixed(0)} ms, exchange ${x.exchange.toFixed(0)} (copying ${x.copy.toFixed(0)})`).join('; ')}\n`)
          // Compute time as the run's: from the go to the last part done; exchange as the part that spent longest on it.
          return { ms: performance.now() - c0, exchange: Math.max(...times.map((x) => x.exchange)), copy: Math.max(...times.map((x) => x.copy)) }
        }
        let computed: PartTimes
        let compute_runs_ms: number[] | undefined
        if (opts.timing) {
          // As the one-device solver: each timed computation starts from the uploaded matrix, kept on the devices.
          const keep = (restore: boolean) => all(ls, () => ({ op: 'keep', restore }), signal)
          await keep(false)
          await warmUp(async () => {
            await computeAll()
            await keep(true)
          }, opts.timing.warmupMs, signal)
          const runs: PartTimes[] = []
          for (let r = 0; r < opts.timing.repeat; r++) {
            if (r > 0) await keep(true)
            runs.push(await computeAll())
          }
          compute_runs_ms = runs.map((x) => x.ms)
          const mid = median(compute_runs_ms)
          computed = runs.find((x) => x.ms === mid) ?? { ms: mid, exchange: median(runs.map((x) => x.exchange)), copy: median(runs.map((x) => x.copy)) }
        } else computed = await computeAll()

        const seen = await watch.stop()
        watch = undefined
        const requested = s.requested.slice(0, ls.length)
        placement = software
          ? placementOf(requested, { gpus: requested.map(() => NOT_OBSERVED), by: 'a software adapter: the parts computed on the CPU' }, 'part')
          : placementOf(requested, seen, 'part')

        const t1 = performance.now()
        await all(ls, () => ({ op: 'store' }), signal)
        await all(ls, () => ({ op: 'unload' }), signal)
        // The V × V result, read row by row from the padded file.
        const d = new Int32Array(p.V * p.V)
        const key = paths ? new Uint32Array(p.V * p.V) : undefined
        for (let i = 0; i < p.V; i++) {
          distances.readInto(i, d.subarray(i * p.V, (i + 1) * p.V))
          if (key) keys!.readInto(i, key.subarray(i * p.V, (i + 1) * p.V))
          if (i % ROWS_A_TURN === ROWS_A_TURN - 1) {
            await turn()
            throwIfAborted(signal)
          }
        }
        const readback_ms = performance.now() - t1
        return {
          d,
          key,
          duplicates,
          compute_ms: computed.ms,
          ...(compute_runs_ms && { compute_runs_ms }),
          upload_ms,
          readback_ms,
          gpus: ls.length,
          rounds,
          exchange_ms: computed.exchange,
          exchange_copy_ms: computed.copy,
        }
      } catch (e) {
        // A part that failed its request is alive and may hold buffers: all parts end, to start afresh.
        await stopAll()
        throw e
      } finally {
        await watch?.stop()
        for (const f of files) f.close()
        folder.remove()
      }
    },
    async dispose() {
      await stopAll()
    },
  }
}
