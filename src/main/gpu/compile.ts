// Kernels compiled ahead of the timed runs, in a phase of their own: a compilation (seconds on a
// software adapter, where a first run would otherwise look a hundred times slower than the next)
// never lands in a timing, progress says what the job waits for, and the job reports how long.
import { COMPILING_KERNELS } from '../../shared/phases'

/** Reports the "compiling kernels · `what`" phase, waits for `compile`, and gives the milliseconds waited. */
export async function compileAhead(report: (phase: string) => void, what: string, compile: () => Promise<unknown>): Promise<number> {
  report(`${COMPILING_KERNELS} · ${what}`)
  const t = performance.now()
  await compile()
  return performance.now() - t
}
