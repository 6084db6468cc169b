// `bench device`'s CPU part: the ceilings the CPU backends' timings sit under. Memory bandwidth: every
// thread of a worker pool (one per core, as the workers backends run) reads its slice of a buffer
// several times the last-level caches in WebAssembly SIMD. FLOP/s: independent f64 multiply-add
// chains, as each CPU backend computes: scalar TypeScript on one thread (serial) and on every thread
// (workers), SIMD on one (simd) and on every thread (workers-simd). Each figure is the median of
// timed batches, grown until one lasts TARGET_MS; every batch's sums are checked against the exact ones.
import { availableParallelism, freemem } from 'node:os'
import { ApiError } from '../../../shared/errors'
import { throwIfAborted } from '../../../shared/cancel'
import type { CpuBenchResult } from '../../../shared/device'
import type { PlanStep, PlanSteps } from '../../../shared/progress-plan'
import { timeBatches } from '../../gpu/timing'
import { hostInfo } from '../../results/envelope'
import { withPool } from '../../workers/pool'
import { lastLevelCacheBytes } from './cpu-caches'
import {
  type CpuWorkspace,
  deviceWasmBuild,
  loadDeviceWasm,
  SCALAR_FLOP_PER_TRIP,
  scalarFmaSum,
  SIMD_FLOP_PER_TRIP,
  simdFmaSum,
} from './cpu-kernels'

/** The measurements, in the order they run: phase names and timing keys. */
export const CPU_MEASUREMENTS = ['cpu read bandwidth', 'cpu fma serial', 'cpu fma simd', 'cpu fma workers', 'cpu fma workers-simd'] as const
export type CpuMeasurement = (typeof CPU_MEASUREMENTS)[number]

/** The measurements as steps of a job's plan, weighed roughly as their time (the read's includes filling the buffer), in tenths of the CPU part. */
export const CPU_STEPS: PlanStep[] = CPU_MEASUREMENTS.map((key) => ({ key, cost: key === 'cpu read bandwidth' ? 4 : 1.5 }))

/** The read covers at least this much, and LLC_MULTIPLE times the last-level caches. */
export const MIN_READ_BYTES = 256 * 2 ** 20
const LLC_MULTIPLE = 4
const PAGE = 65536
/** Below this, the module's own data. */
const BASE = PAGE
/** WebAssembly (32-bit) addresses 4 GiB. */
const MAX_READ_BYTES = 65536 * PAGE - BASE
/** Slices start on 128-byte boundaries (the read kernel's trip). */
const SLICE_ALIGN = 16
/** Loop trips of one unit of an FMA batch: a fraction of a millisecond, so that batches grow in fine steps. */
const FMA_ITERS = 1 << 15
/** Timed batches last about this long: handing the threads their work (~0.1 ms) stays a small part. */
const TARGET_MS = 20
/** Most units a batch: an FMA batch of 2^29 trips stays an i32 for the SIMD kernel. */
const MAX_BATCH = 1 << 14

export interface BenchCpuOptions {
  repeats?: number
  /** Bytes the threads read; default cpuReadBytes. */
  readBytes?: number
  /** Threads of the pool; default one per core. */
  threads?: number
}

export interface BenchCpuContext {
  signal?: AbortSignal
  /** The job's plan, holding CPU_STEPS: each measurement begins its step and reports its own fraction. */
  plan?: PlanSteps
  /** Gets the milliseconds of each timed repetition of each measurement. */
  sample?(measurement: CpuMeasurement, ms: number): void
}

export const DEFAULT_CPU_REPEATS = 10

/** The read's default size: MIN_READ_BYTES or LLC_MULTIPLE × the last-level caches, whichever is more, within a quarter of free memory. */
export function cpuReadBytes(llc: number | null, free: number): number {
  return Math.min(Math.max(MIN_READ_BYTES, LLC_MULTIPLE * (llc ?? 0)), free / 4, MAX_READ_BYTES)
}

let nextWorkspace = 1

export async function benchCpu(o: BenchCpuOptions = {}, ctx: BenchCpuContext = {}): Promise<CpuBenchResult> {
  const { signal } = ctx
  throwIfAborted(signal)
  const repeats = o.repeats ?? DEFAULT_CPU_REPEATS
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > 1000) throw new ApiError('invalid-argument', `repeats must be an integer in 1…1000, got ${o.repeats}`)
  const threads = o.threads ?? availableParallelism()
  const llc = lastLevelCacheBytes()
  const wanted = o.readBytes ?? cpuReadBytes(llc, freemem())
  if (!Number.isSafeInteger(Math.floor(wanted)) || wanted < 8 * SLICE_ALIGN * threads || wanted > MAX_READ_BYTES)
    throw new ApiError('invalid-argument', `readBytes must be ${8 * SLICE_ALIGN * threads}…${MAX_READ_BYTES} (${threads} threads), got ${wanted}`)
  const values = Math.floor(wanted / 8 / (SLICE_ALIGN * threads)) * SLICE_ALIGN * threads

  const build = deviceWasmBuild()
  const module = await loadDeviceWasm(build)
  throwIfAborted(signal)
  const memory = new WebAssembly.Memory({ initial: Math.ceil((BASE + values * 8) / PAGE), maximum: 65536, shared: true })
  const workspace: CpuWorkspace = { id: nextWorkspace++, module, memory }
  const slices = Array.from({ length: threads }, (_, i) => {
    const first = (i * values) / threads
    return { first, ptr: BASE + first * 8, count: values / threads }
  })


  return withPool('device-worker', threads, signal, async (pool) => {
    /** Times `work(count)` in batches; each repetition's rate (work units per ms × `perUnit`) is reported in `unit`. */
    const measure = async (m: CpuMeasurement, perUnit: number, unit: string, work: (count: number) => Promise<void>) => {
      if (m !== 'cpu read bandwidth') ctx.plan?.begin(m, m)
      const rates: number[] = []
      const { count, medianMs } = await timeBatches(
        async (count) => {
          const t0 = performance.now()
          await work(count)
          return performance.now() - t0
        },
        {
          repeats,
          targetMs: TARGET_MS,
          maxCount: MAX_BATCH,
          signal,
          onRepeat: (done, ms, n) => {
            const rate = (perUnit * n) / ms / 1e6
            rates.push(rate)
            ctx.plan?.update(done / repeats, { throughput: { value: rate, unit } })
          },
        },
      )
      for (const rate of rates) ctx.sample?.(m, (perUnit * count) / rate / 1e6)
      return (perUnit * count) / medianMs / 1e6
    }

    // The read's step covers filling the buffer it reads.
    ctx.plan?.begin('cpu read bandwidth', 'cpu read bandwidth')
    const sums = await Promise.all(slices.map((s) => pool.run<number>('fill', { workspace, ...s })))
    const read_bandwidth_GB_per_s = await measure('cpu read bandwidth', values * 8, 'GB/s', async (passes) => {
      const got = await Promise.all(slices.map((s) => pool.run<number>('read', { workspace, ptr: s.ptr, count: s.count, passes })))
      got.forEach((sum, i) => check('read', i, sum, passes * sums[i]))
    })

    const fma = (kind: 'simdFma' | 'scalarFma', on: number) => async (count: number) => {
      const iters = count * FMA_ITERS
      const want = kind === 'simdFma' ? simdFmaSum(iters) : scalarFmaSum(iters)
      const got = await Promise.all(Array.from({ length: on }, () => pool.run<number>(kind, { workspace: kind === 'simdFma' ? workspace : undefined, iters, a: 1, b: 1 })))
      got.forEach((sum, i) => check(kind, i, sum, want))
    }
    const scalarFlop = SCALAR_FLOP_PER_TRIP * FMA_ITERS
    const simdFlop = SIMD_FLOP_PER_TRIP * FMA_ITERS
    const serial_GFLOP_per_s = await measure('cpu fma serial', scalarFlop, 'GFLOP/s', fma('scalarFma', 1))
    const simd_GFLOP_per_s = await measure('cpu fma simd', simdFlop, 'GFLOP/s', fma('simdFma', 1))
    const workers_GFLOP_per_s = await measure('cpu fma workers', scalarFlop * threads, 'GFLOP/s', fma('scalarFma', threads))
    const workers_simd_GFLOP_per_s = await measure('cpu fma workers-simd', simdFlop * threads, 'GFLOP/s', fma('simdFma', threads))
    return {
      cpu: hostInfo().cpu,
      threads,
      read_bandwidth_GB_per_s,
      read_bytes: values * 8,
      last_level_cache_bytes: llc,
      serial_GFLOP_per_s,
      simd_GFLOP_per_s,
      workers_GFLOP_per_s,
      workers_simd_GFLOP_per_s,
      simd: build,
      timing: 'wall clock, work handed to the threads until their answers',
      repeats,
    }
  })
}

/** Sums are exact (small integers in f64): any other value means work was skipped or went wrong. */
function check(what: string, thread: number, got: number, want: number): void {
  if (got !== want) throw new ApiError('internal', `CPU benchmark ${what}: thread ${thread} summed ${got}, the exact sum is ${want}`)
}

