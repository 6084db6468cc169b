// How long a running job may still take, from its progress events: the pace of the work done since
// it last left a phase that does no measured work (compiling kernels, warming up), so that a long
// compilation neither slows the estimate before it nor makes it wrong after it, and a job whose
// GPU part follows a quicker CPU part is estimated from the GPU's completed work.
import type { JobProgress } from './jobs'
import { unpacedPhase } from './phases'

/** Too little work since the pace was last reset says little: under this much time or fraction, no estimate. */
const MIN_MS = 1000
const MIN_FRACTION = 0.02

export class TimeLeft {
  /** Where the pace is measured from: the job's start, or the end of its latest unpaced phase. */
  private from: { at: number; fraction: number }
  private latest: { at: number; fraction: number; unpaced: boolean }

  constructor(started: number) {
    this.from = { at: started, fraction: 0 }
    this.latest = { at: started, fraction: 0, unpaced: false }
  }

  observe(p: Pick<JobProgress, 'phase' | 'fraction'>, at: number): void {
    const unpaced = unpacedPhase(p.phase)
    const fraction = Math.min(1, Math.max(0, p.fraction))
    // The first event after it: the work it reports may have begun during the unpaced phase.
    if (this.latest.unpaced && !unpaced) this.from = { at, fraction }
    this.latest = { at, fraction, unpaced }
  }

  /** Milliseconds left at `now`, or null while unknown (too early, or in an unpaced phase). */
  ms(now: number): number | null {
    const { at, fraction, unpaced } = this.latest
    const done = fraction - this.from.fraction
    const spent = at - this.from.at
    if (unpaced || fraction >= 1 || done < MIN_FRACTION || spent < MIN_MS) return null
    return Math.max(0, (spent * (1 - fraction)) / done - (now - at))
  }
}
