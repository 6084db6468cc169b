// Wall-clock timing of GPU work. Timestamp queries crash SwiftShader and quantize on some
// drivers, so figures come from the time between submit and Dawn reporting the work done.
import { median } from '../../shared/median'
import { throwIfAborted } from '../../shared/cancel'

export { median }

/**
 * How many items (dispatches, copies) one timed batch should hold so that it lasts about
 * `targetMs`, given that one item took `oneMs`: long batches make submit and completion
 * latency a negligible part of the measurement.
 */
export function batchSize(oneMs: number, targetMs: number, maxCount: number): number {
  if (!(oneMs > 0)) return maxCount
  return Math.max(1, Math.min(maxCount, Math.ceil(targetMs / oneMs)))
}

export interface BatchTiming {
  /** Items per timed batch. */
  count: number
  /** Median milliseconds of one batch. */
  medianMs: number
}

/**
 * Times `repeats` batches of a size that lasts about `targetMs`. The size is found by growing
 * a batch from one item: first runs carry one-time costs (driver setup, clocks still low), so
 * a single short run would choose batches too small and measure submit latency instead.
 * The growing runs double as warm-up. `onRepeat` gets each timed batch's milliseconds.
 */
export async function timeBatches(
  runBatch: (count: number) => Promise<number>,
  o: { repeats: number; targetMs: number; maxCount: number; signal?: AbortSignal; onRepeat?(done: number, ms: number, count: number): void },
): Promise<BatchTiming> {
  let count = 1
  let ms = await runBatch(count)
  // The first run is never trusted alone: it is re-measured at least once.
  for (let step = 0; step < 8 && (step === 0 || ms < o.targetMs / 2) && count < o.maxCount; step++) {
    throwIfAborted(o.signal)
    count = batchSize(ms / count, o.targetMs, o.maxCount)
    ms = await runBatch(count)
  }
  const times: number[] = []
  for (let r = 0; r < o.repeats; r++) {
    throwIfAborted(o.signal)
    times.push(await runBatch(count))
    o.onRepeat?.(r + 1, times[r], count)
  }
  return { count, medianMs: median(times) }
}

export const TIMING_METHOD = 'wall clock to completion'

/** How long benchmarks warm a GPU up before timing it (see warmUp). */
export const GPU_WARMUP_MS = 500

/**
 * Runs `work` untimed, again and again, until `ms` milliseconds have passed (at least once).
 * An idle GPU runs at a fraction of its clock and needs a few hundred milliseconds of load to
 * raise it (an H100: 345 → 1980 MHz in ~0.3 s, and back to 345 MHz after ~3 s idle, e.g. while
 * a CPU reference runs): short GPU runs timed straight after idle time measure the clock's ramp.
 */
export async function warmUp(work: () => Promise<unknown>, ms: number, signal?: AbortSignal): Promise<number> {
  const t0 = performance.now()
  let runs = 0
  do {
    throwIfAborted(signal)
    await work()
    runs++
  } while (performance.now() - t0 < ms)
  return runs
}
