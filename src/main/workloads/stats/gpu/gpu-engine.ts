// The `gpu` statistics backend: WebGPU kernels for the sums and for the median and MAD. One file:
// the two submits of a compute and the pipelining of columns share the selection state's buffers
// and their order (the kernels are in shaders/stats, the host's bracketing in deviation-bracket.ts).
//
//   const engine = await createGpuStatsEngine({ signal })
//   const column = await engine.prepare(values, 'f64')   // uploads the column (raw doubles)
//   const stats = await engine.compute(column, rows)      // data stays on the GPU
//   const all = await engine.computeMany([a, b, c])       // several columns, pipelined
//
// A compute is two submits per column, each ending in one small read of the selection state:
//   1. sample → scan (Σx, bracket counts, candidates) → combine → bracket → 3 × (refine, pick):
//      Σx and the keys of the two middle values (a column that needs more levels gets a
//      second submit of 3);
//   2. the same over (x − mean)² and |x − median|, bracketed by the host from the values pass's
//      sample (deviation-bracket.ts): Σ(x − mean)² and the MAD's middle keys.
// Columns computed together are pipelined: every column's values pass is submitted at once, and
// each column's deviation pass as soon as its values pass is read back, while the GPU still runs
// the others' work, so the host's part between the passes (a round trip, the bracket) is hidden
// behind the GPU's for all but the last column.
// The host turns sums and keys into numbers between and after (shaders/stats/select.wgsl
// explains the selection). f64 is exact: the median and MAD are the reference's bit for bit,
// and the sums are accurate to ~2^-75 of their largest term (shaders/stats/f64.wgsl).
import { ApiError } from '../../../../shared/errors'
import type { BackendColumnStats, Precision } from '../../../../shared/workloads/stats/types'
import { type Dispatch, type Gpu, type Kernel, getGpu, throwIfAborted } from '../../../gpu/runtime'
import { median } from '../../../../shared/median'
import { midpoint } from '../counting'
import { type Key, keyToValue } from '../keys'
import type { PreparedColumn } from '../cpu-engine'
import { type DeviationBracket, deviationBracket } from './deviation-bracket'
import { type ColumnStream, SEGMENT_VALUES, StreamedColumn } from './column-stream'
import { fixedToNumber } from './fixed-point'
import { wideRangeStats } from '../wide-range'
import { type Entry, BINDINGS, statsKernel, warmStatsKernels } from './kernels'
import {
  BINS,
  FIRST_LEVELS,
  LEVELS,
  MAX_REFINE_GROUPS,
  MAX_SCAN_GROUPS,
  PARAMS,
  PARAMS_WORDS,
  PARTIAL_BYTES,
  SAMPLE,
  SCAN_TILE,
  SLOT_BYTES,
  STATE,
} from './layout'

export interface GpuStatsEngineOptions {
  /** Aborting makes pending and later computes reject with code 'cancelled' (checked between submits). */
  signal?: AbortSignal
  /** Defaults to the shared GPU. */
  gpu?: Gpu
  /** Keys per workgroup of a selection level (tuning; defaults suit SwiftShader and an H100). */
  levelKeys?: number
  /** Values per segment of a streamed column (default SEGMENT_VALUES; tests use small ones). */
  segmentValues?: number
}

/** Milliseconds of one dispatch of a kernel, in the values or the deviation pass (profile). */
export interface KernelTime {
  pass: 'values' | 'deviations'
  kernel: string
  ms: number
}

/** How one selection went, for benchmarks and tests. */
export interface SelectionTrace {
  /** Keys in the sample's bracket. */
  inside: number
  /** Whether the levels ran over the bracket's keys only (else over the whole column). */
  compacted: boolean
  /** Wall-clock milliseconds from submit to the state read back on the host, summed over the selection's submits. */
  ms: number
}

export type { ColumnStream }

// A StatsEngine (stats-engine.ts), declared in full as the CPU engine is: stats-engine.ts imports
// this file, and importing its interface back would make a cycle.
export interface GpuStatsEngine {
  readonly gpu: Gpu
  readonly columnsTogether: boolean
  prepare(values: Float64Array, precision: Precision): Promise<PreparedColumn>
  /** A column to upload while it is still being read (see ColumnStream). */
  stream(precision: Precision): ColumnStream
  /** Statistics of the column's first `length` values (default all). */
  compute(column: PreparedColumn, length?: number): Promise<BackendColumnStats>
  /** Statistics of several columns (of each one's first `lengths[i]` values, default all), computed together; `progress` hears of each pass read back. */
  computeMany(columns: readonly PreparedColumn[], lengths?: readonly number[], progress?: (fraction: number) => void): Promise<BackendColumnStats[]>
  release(column: PreparedColumn): void
  dispose(): Promise<void>
  /** Compiles every kernel of `precision` (at once when already compiled). */
  compileKernels(precision: Precision): Promise<void>
  /**
   * Each kernel's time on `column`, in order (wall clock: each prefix of a pass repeated in one
   * submit, less the prefix before). For benchmarks: it leaves the column's state undefined.
   */
  profile(column: PreparedColumn, repeats?: number): Promise<KernelTime[]>
  /** The last compute's selections (of its last column when several): of the median, then of the MAD. */
  readonly lastTrace: { median: SelectionTrace; mad: SelectionTrace } | null
}

const BYTES_PER_VALUE: Record<Precision, number> = { f64: 8, f32: 4 }

class GpuColumn implements PreparedColumn {
  released = false
  /** Per pass (deviation or not): each entry's kernel and bind group over the column's buffers. */
  readonly bound = new Map<boolean, Map<Entry, { kernel: Kernel; group: GPUBindGroup }>>()
  /** The column's own working buffers (made at its first compute), so that columns can be computed together. */
  scratch: Scratch | null = null
  constructor(
    readonly owner: Engine,
    readonly buffer: GPUBuffer,
    readonly n: number,
    readonly precision: Precision,
    /** The values as given (not a copy), for the host's wide-range sums (wide-range.ts). */
    readonly host: Float64Array,
  ) {}
}

export async function createGpuStatsEngine(opts: GpuStatsEngineOptions = {}): Promise<GpuStatsEngine> {
  throwIfAborted(opts.signal)
  const gpu = opts.gpu ?? (await getGpu())
  return new Engine(gpu, opts.signal, opts.levelKeys, opts.segmentValues)
}

/** Buffers a column's computes use. */
interface Scratch {
  params: GPUBuffer
  state: GPUBuffer
  partials: GPUBuffer
  candidates: GPUBuffer
  /** Candidate keys `candidates` holds. */
  capacity: number
  hist: GPUBuffer
  slots: GPUBuffer
  /** The values pass's sorted sample, for the deviation pass. */
  sample: GPUBuffer
  /** The state (and, in the values pass, the sample) copied to be read in one map. */
  readback: GPUBuffer
}

/** Bytes of a column's state and sample in its readback buffer. */
const READBACK_STRIDE = STATE.words * 4 + SAMPLE * 8

function repeat<T>(items: readonly T[], times: number): T[] {
  return Array.from({ length: times }, () => items).flat()
}

function targetsDone(words: Uint32Array): boolean {
  return [0, 1].every((j) => words[STATE.targets + j * STATE.targetWords + 5] === 1)
}

/** What a pass computes: sums and keys of x, or of the deviations (bracketed by the host). */
interface PassSpec {
  deviation: boolean
  mean: number
  center: number
  bracket?: DeviationBracket
}

/** One pass's outcome, read from the state buffer. */
interface PassResult {
  /** The values pass's sorted sample keys (lo, hi words). */
  sample?: Uint32Array
  sumWords: Uint32Array
  sumUnit: number
  keys: [Key, Key]
  trace: SelectionTrace
}

/** One column of a joint compute: its prefix length and, between passes, what the first pass found. */
interface Job {
  c: GpuColumn
  n: number
  spec: PassSpec
}

/** A column's statistics and the traces of its two selections. */
interface ColumnOutcome {
  stats: BackendColumnStats
  trace: { median: SelectionTrace; mad: SelectionTrace }
}

class Engine implements GpuStatsEngine {
  readonly columnsTogether = true
  lastTrace: GpuStatsEngine['lastTrace'] = null
  private readonly columns = new Set<GpuColumn>()
  private queue: Promise<unknown> = Promise.resolve()
  /** Streamed columns' uploads, one at a time. */
  private uploads: Promise<unknown> = Promise.resolve()
  private disposed = false
  /**
   * Keys per workgroup of a selection level. SwiftShader spends milliseconds clearing each
   * workgroup's histogram, so there fewer, busier workgroups win; GPUs want many.
   */
  private readonly levelKeys: number

  constructor(
    readonly gpu: Gpu,
    private readonly signal: AbortSignal | undefined,
    levelKeys?: number,
    private readonly segmentValues = SEGMENT_VALUES,
  ) {
    this.levelKeys = levelKeys ?? (gpu.isSoftware ? 65536 : 8192)
    if (!Number.isInteger(this.levelKeys) || this.levelKeys < 1) throw new ApiError('invalid-argument', `levelKeys must be a positive integer, got ${levelKeys}`)
  }

  async prepare(values: Float64Array, precision: Precision): Promise<PreparedColumn> {
    this.assertLive()
    throwIfAborted(this.signal)
    if (precision !== 'f64' && precision !== 'f32') throw new ApiError('invalid-argument', `precision must be f64 or f32, got ${precision}`)
    const n = values.length
    this.checkBinding(n, precision)
    const data = precision === 'f64' ? values : Float32Array.from(values)
    // Compiling (the first time) overlaps the upload rather than the first compute; a failure
    // shows again, with its message, when compute needs the pipeline.
    warmStatsKernels(this.gpu, precision).catch(() => {})
    // At least one value's worth, so that an empty column still binds.
    const buffer =
      n > 0 ? await this.gpu.storage(`stats column (${n} ${precision})`, data, { signal: this.signal }) : await this.gpu.storage('stats column (empty)', 16)
    const column = new GpuColumn(this, buffer, n, precision, values)
    this.columns.add(column)
    return column
  }

  stream(precision: Precision): ColumnStream {
    this.assertLive()
    if (precision !== 'f64' && precision !== 'f32') throw new ApiError('invalid-argument', `precision must be f64 or f32, got ${precision}`)
    return new StreamedColumn(this.gpu, BYTES_PER_VALUE[precision], this.segmentValues, this.signal, {
      whole: (values) => this.prepare(values, precision),
      // Not while the column grows: the driver's compiler beside the CSV loader's threads raised
      // a run's peak memory by ~70 MB on an H100 machine.
      finishing: () => void warmStatsKernels(this.gpu, precision).catch(() => {}),
      gathered: (buffer, values) => {
        const column = new GpuColumn(this, buffer, values.length, precision, values)
        this.columns.add(column)
        return column
      },
      check: (n) => this.checkBinding(n, precision),
      upload: (buffer, data) => {
        const run = this.uploads.then(() => this.gpu.upload(buffer, data, { signal: this.signal }))
        this.uploads = run.catch(() => {})
        return run
      },
    })
  }

  compileKernels(precision: Precision): Promise<void> {
    return warmStatsKernels(this.gpu, precision)
  }

  async compute(column: PreparedColumn, length = column.n): Promise<BackendColumnStats> {
    return (await this.computeMany([column], [length]))[0]
  }

  async computeMany(columns: readonly PreparedColumn[], lengths?: readonly number[], progress?: (fraction: number) => void): Promise<BackendColumnStats[]> {
    this.assertLive()
    if (lengths && lengths.length !== columns.length) throw new ApiError('invalid-argument', `${lengths.length} lengths for ${columns.length} columns`)
    const jobs = columns.map((column, i) => {
      const c = this.own(column)
      const n = lengths?.[i] ?? c.n
      if (!Number.isInteger(n) || n < 0 || n > c.n) throw new ApiError('invalid-argument', `length ${n} is outside 0…${c.n} (the prepared column's values)`)
      if (columns.indexOf(column) !== i) throw new ApiError('invalid-argument', 'a column appears twice in one compute')
      return { c, n }
    })
    // Computes share the columns' working buffers: one at a time.
    const run = this.queue.then(() => this.computeNow(jobs, progress))
    this.queue = run.catch(() => {})
    return run
  }

  release(column: PreparedColumn): void {
    const c = this.own(column)
    c.released = true
    this.columns.delete(c)
    destroyColumn(c)
  }

  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    await this.queue
    for (const c of this.columns) destroyColumn(c)
    this.columns.clear()
  }

  private async computeNow(columns: { c: GpuColumn; n: number }[], progress?: (fraction: number) => void): Promise<BackendColumnStats[]> {
    throwIfAborted(this.signal)
    const empty: BackendColumnStats = { mean: NaN, std: NaN, cv: NaN, median: NaN, mad: NaN }
    const jobs: Job[] = columns.filter((j) => j.n > 0).map((j) => ({ ...j, spec: { deviation: false, mean: 0, center: 0 } }))
    // Every column's work ends before the compute does (so the next one, or a release, finds the
    // buffers idle); then the first failure, in column order, is the compute's.
    const done: ColumnOutcome[] = []
    // Two passes a column (its values, then its deviations).
    let passes = 0
    const passed = progress && (() => progress(++passes / (2 * jobs.length)))
    for (const s of await Promise.allSettled(jobs.map((job) => this.computeColumn(job, passed)))) {
      if (s.status === 'rejected') throw s.reason
      done.push(s.value)
    }
    if (done.length > 0) this.lastTrace = done[done.length - 1].trace
    return columns.map((j) => (j.n > 0 ? done[jobs.findIndex((job) => job.c === j.c)].stats : { ...empty }))
  }

  /** Both passes of one column, the deviation pass submitted as soon as the values pass is read. */
  private async computeColumn(job: Job, passed?: () => void): Promise<ColumnOutcome> {
    const { c, n } = job
    const found = this.valuesOutcome(job, await this.pass(job))
    passed?.()
    job.spec = found.spec
    throwIfAborted(this.signal)
    const second = await this.pass(job)
    passed?.()
    const { mean, median } = found
    const round = c.precision === 'f64' ? (x: number) => x : Math.fround
    const squares = this.sumValue(second, c.precision)
    const mad = midpoint(keyToValue(second.keys[0], c.precision), keyToValue(second.keys[1], c.precision), c.precision)
    const std = round(Math.sqrt(round(squares / n)))
    const stats = wideRangeStats({ mean, std, cv: round(std / mean), median, mad }, squares, () => c.host.subarray(0, n), c.precision)
    return { stats, trace: { median: found.trace, mad: second.trace } }
  }

  /** The mean and median from a column's values pass, and so the spec of its deviation pass. */
  private valuesOutcome(job: Job, first: PassResult): { mean: number; median: number; trace: SelectionTrace; spec: PassSpec } {
    const { c, n } = job
    const round = c.precision === 'f64' ? (x: number) => x : Math.fround
    const mean = round(this.sumValue(first, c.precision) / n)
    const median = midpoint(keyToValue(first.keys[0], c.precision), keyToValue(first.keys[1], c.precision), c.precision)
    const bracket = deviationBracket(first.sample!, Math.min(n, SAMPLE), n, median, c.precision)
    return { mean, median, trace: first.trace, spec: { deviation: true, mean, center: median, bracket } }
  }

  async profile(column: PreparedColumn, repeats = 20): Promise<KernelTime[]> {
    this.assertLive()
    const c = this.own(column)
    if (c.n === 0) return []
    const run = this.queue.then(async () => {
      const values: Job = { c, n: c.n, spec: { deviation: false, mean: 0, center: 0 } }
      const deviations: Job = { c, n: c.n, spec: this.valuesOutcome(values, await this.pass(values)).spec }
      const out: KernelTime[] = []
      for (const job of [values, deviations]) {
        const steps = await this.steps(c, c.n, job.spec)
        const names = [job.spec.deviation ? 'start' : 'sample', 'scan', 'combine', 'bracket', ...repeat(['refine', 'pick'], FIRST_LEVELS)]
        const sequence = [...steps.head, ...repeat(steps.level, FIRST_LEVELS)]
        // Each prefix of the pass, repeated in one submit (median of 3): the difference from the
        // prefix one step shorter is that step's time, the submit's latency spread over the repeats.
        let before = 0
        for (let k = 1; k <= sequence.length; k++) {
          const times: number[] = []
          for (let r = 0; r < 3; r++)
            times.push(
              (await this.gpu.run('stats profile', (encoder) => {
                encoder.clearBuffer(c.scratch!.hist)
                this.gpu.encodeDispatches(encoder, repeat(sequence.slice(0, k), repeats))
              })) / repeats,
            )
          const ms = median(times)
          out.push({ pass: job.spec.deviation ? 'deviations' : 'values', kernel: names[k - 1], ms: ms - before })
          before = ms
        }
      }
      return out
    })
    this.queue = run.catch(() => {})
    return run
  }

  private sumValue(r: PassResult, precision: Precision): number {
    if (precision === 'f64') return fixedToNumber(r.sumWords, r.sumUnit)
    const f = new Float32Array(r.sumWords.buffer, r.sumWords.byteOffset, 2)
    return Math.fround(f[0] + f[1])
  }

  /**
   * One pass of a column: the sums and the selection of the middle keys, of x or of the
   * deviations. Each submit ends by copying the column's state (and sample) to its readback.
   */
  private async pass(job: Job): Promise<PassResult> {
    const { c, n, spec } = job
    const steps = await this.steps(c, n, spec)
    const s = c.scratch!
    const label = `stats ${spec.deviation ? 'deviations' : 'values'} (${n} ${c.precision})`
    let ms = 0
    const submit = async (first: boolean) => {
      const read = await this.gpu.runAndRead(
        label,
        (encoder) => {
          if (first) encoder.clearBuffer(s.hist)
          this.gpu.encodeDispatches(encoder, first ? [...steps.head, ...repeat(steps.level, FIRST_LEVELS)] : repeat(steps.level, LEVELS - FIRST_LEVELS))
          encoder.copyBufferToBuffer(s.state, 0, s.readback, 0, STATE.words * 4)
          // The values pass's sorted sample brackets the deviations.
          if (!spec.deviation) encoder.copyBufferToBuffer(s.sample, 0, s.readback, STATE.words * 4, SAMPLE * 8)
        },
        s.readback,
        { bytes: spec.deviation ? STATE.words * 4 : READBACK_STRIDE, signal: this.signal },
      )
      ms += read.ms
      return read.words
    }
    // Most columns need two or three levels: more go in a second submit only where needed, since
    // idle levels still cost a dispatch each.
    let words = await submit(true)
    if (!targetsDone(words)) words = await submit(false)
    return this.passResult(job, words, ms)
  }

  /** A pass's outcome for one column, from its state words (and sample, in the values pass). */
  private passResult(job: Job, words: Uint32Array, ms: number): PassResult {
    const { c, n, spec } = job
    const label = `stats ${spec.deviation ? 'deviations' : 'values'} (${n} ${c.precision})`
    const nonfinite = words[STATE.nonfinite]
    if (!spec.deviation && nonfinite > 0)
      throw new ApiError('invalid-input', `the column holds ${nonfinite} non-finite values (NaN or ±Infinity) among its first ${n}`)
    if (words[STATE.error] !== 0)
      throw new ApiError('internal', `${label}: selection of target ${words[STATE.error] - 1} found fewer keys than its rank`)
    const keys = [0, 1].map((j) => {
      const t = STATE.targets + j * STATE.targetWords
      if (words[t + 5] !== 1) throw new ApiError('internal', `${label}: selection of target ${j} did not finish in ${LEVELS} levels`)
      return { lo: words[t + 6], hi: words[t + 7] }
    }) as [Key, Key]
    return {
      sample: spec.deviation ? undefined : words.slice(STATE.words, STATE.words + 2 * SAMPLE),
      sumWords: words.slice(STATE.sum, STATE.sum + 4),
      sumUnit: words[STATE.sumUnit] | 0,
      keys,
      trace: { inside: words[STATE.inside], compacted: words[STATE.compacted] === 1, ms },
    }
  }

  /** The dispatches of one column's pass, its parameters written. */
  private async steps(c: GpuColumn, n: number, spec: PassSpec): Promise<{ head: Dispatch[]; level: Dispatch[] }> {
    const { deviation, mean, center, bracket } = spec
    const s = this.ensureScratch(c)
    const scanGroups = Math.min(Math.ceil(n / SCAN_TILE), MAX_SCAN_GROUPS)
    // Sized for the candidates of a typical bracket (~10 % of the keys). Indirect dispatches sized
    // on the GPU would fit better, but cost about a millisecond each on an H100 (Dawn, Vulkan).
    const refineGroups = Math.min(Math.max(1, Math.ceil(n / (8 * this.levelKeys))), MAX_REFINE_GROUPS)
    const params = new ArrayBuffer(PARAMS_WORDS * 4)
    const words = new Uint32Array(params)
    words.set([n, s.capacity, scanGroups, refineGroups])
    if (c.precision === 'f64') {
      new Float64Array(params, PARAMS.mean * 4, 1)[0] = mean
      new Float64Array(params, PARAMS.center * 4, 1)[0] = center
    } else {
      new Float32Array(params, PARAMS.mean * 4, 1)[0] = mean
      new Float32Array(params, PARAMS.center * 4, 1)[0] = center
    }
    if (bracket) {
      const put = (at: number, k: Key) => words.set([k.lo, k.hi], at)
      put(PARAMS.bracketLo, bracket.lo)
      put(PARAMS.bracketHi, bracket.hi)
      put(PARAMS.innerLo, bracket.inner[0])
      put(PARAMS.innerHi, bracket.inner[1])
      put(PARAMS.outerLo, bracket.outer[0])
      put(PARAMS.outerHi, bracket.outer[1])
      words[PARAMS.exact] = bracket.exact ? 1 : 0
    }
    this.gpu.device.queue.writeBuffer(s.params, 0, params)

    const buffers: Record<number, GPUBuffer> = {
      0: c.buffer,
      1: s.params,
      2: s.state,
      3: s.partials,
      4: s.candidates,
      5: s.hist,
      6: s.slots,
      8: s.sample,
    }
    const head: Entry[] = [deviation ? 'start' : 'sample', 'scan', 'combine', 'bracket']
    const level: Entry[] = ['refine', 'pick']
    // Kernels and bind groups stay valid while the column (and so its scratch buffers) does.
    let bound = c.bound.get(deviation)
    if (!bound) {
      bound = new Map()
      for (const e of [...head, ...level]) {
        const kernel = await statsKernel(this.gpu, c.precision, e, deviation)
        bound.set(e, { kernel, group: kernel.bind(Object.fromEntries(BINDINGS[e].map((b) => [b, buffers[b]]))) })
      }
      c.bound.set(deviation, bound)
    }
    const groups: Record<Entry, number> = { sample: 1, start: 1, scan: scanGroups, combine: 1, bracket: 1, refine: refineGroups, pick: 1 }
    const step = (entry: Entry): Dispatch => {
      const { kernel, group } = bound!.get(entry)!
      return kernel.dispatch(group, groups[entry])
    }
    return { head: head.map(step), level: level.map(step) }
  }

  private ensureScratch(c: GpuColumn): Scratch {
    if (c.scratch) return c.scratch
    // Candidates: the bracket holds ~9 % of the keys; room for half keeps heavy ties compacted too.
    const capacity = Math.max(4096, Math.ceil(c.n / 2))
    const g = this.gpu
    const storage = GPUBufferUsage.STORAGE
    const limit = g.limits.maxStorageBufferBindingSize
    const cap = Math.min(capacity, Math.floor(limit / 8))
    c.scratch = {
      params: g.buffer(PARAMS_WORDS * 4, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, 'stats params'),
      state: g.buffer(STATE.words * 4, storage | GPUBufferUsage.COPY_SRC, 'stats state'),
      partials: g.buffer(MAX_SCAN_GROUPS * PARTIAL_BYTES, storage, 'stats partial sums'),
      candidates: g.buffer(cap * 8, storage, 'stats candidate keys'),
      capacity: cap,
      hist: g.buffer(2 * BINS * 4, storage | GPUBufferUsage.COPY_DST, 'stats histograms'),
      slots: g.buffer(MAX_REFINE_GROUPS * SLOT_BYTES, storage, 'stats key bounds'),
      sample: g.buffer(SAMPLE * 8, storage | GPUBufferUsage.COPY_SRC, 'stats sorted sample'),
      readback: g.buffer(READBACK_STRIDE, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'stats state readback'),
    }
    return c.scratch
  }

  /** A column of `n` values must fit one storage binding. */
  private checkBinding(n: number, precision: Precision): void {
    const bytes = n * BYTES_PER_VALUE[precision]
    const limit = this.gpu.limits.maxStorageBufferBindingSize
    if (bytes > limit)
      throw new ApiError('invalid-argument', `a column of ${n} ${precision} values (${bytes} bytes) exceeds the GPU's storage binding limit of ${limit} bytes`)
  }

  private own(column: PreparedColumn): GpuColumn {
    if (!(column instanceof GpuColumn) || column.owner !== this) throw new ApiError('invalid-argument', 'the column was prepared by another engine')
    if (column.released) throw new ApiError('invalid-argument', 'the column was released')
    return column
  }

  private assertLive(): void {
    if (this.disposed) throw new ApiError('internal', 'the gpu statistics engine was disposed')
  }
}

function destroyColumn(c: GpuColumn): void {
  c.buffer.destroy()
  if (c.scratch) for (const b of Object.values(c.scratch)) if (typeof b === 'object') b.destroy()
  c.scratch = null
  c.bound.clear()
}
