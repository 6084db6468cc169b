// Kernels compiled ahead of the timed runs, in a phase of their own: a compilation (seconds on a
// software adapter, where a first run would otherwise look a hundred times slower than the next)
// never lands in a timing, progress says what the job waits for, and the job reports how long.
import { throwIfAborted } from '../../shared/cancel'
import { ApiError } from '../../shared/errors'
import { COMPILING_KERNELS } from '../../shared/phases'

/**
 * What a compilation weighs on a job's progress plan (src/shared/progress-plan.ts), in nanoseconds:
 * not known ahead (seconds on a software adapter, a fraction of one with a GPU's driver).
 */
export const COMPILE_COST_NS = 500e6

/**
 * Reports the "compiling kernels · `what`" phase, waits for `compile`, and gives the milliseconds
 * waited. A cancel ends the wait at once: Dawn compiles off the JavaScript thread and cannot be
 * stopped, so the compilations still running finish in the background into the device's cache.
 */
export async function compileAhead(report: (phase: string) => void, what: string, compile: () => Promise<unknown>, signal?: AbortSignal): Promise<number> {
  throwIfAborted(signal)
  report(`${COMPILING_KERNELS} · ${what}`)
  const t = performance.now()
  await untilAborted(compile(), signal)
  return performance.now() - t
}

/** `work`, or a 'cancelled' rejection as soon as `signal` aborts (what `work` gives then is dropped). */
export function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work
  return new Promise<T>((resolve, reject) => {
    const cancelled = () => reject(new ApiError('cancelled', 'cancelled'))
    if (signal.aborted) {
      work.catch(() => {})
      return cancelled()
    }
    signal.addEventListener('abort', cancelled, { once: true })
    work.then(
      (v) => {
        signal.removeEventListener('abort', cancelled)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', cancelled)
        reject(e)
      },
    )
  })
}
