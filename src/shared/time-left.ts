// How long a running job may still take, from its progress events: the pace of the work done since
// it last left a phase that does no measured work (compiling kernels, warming up), so that a long
// compilation neither slows the estimate before it nor makes it wrong after it, and a job whose
// GPU part follows a quicker CPU part is estimated from the GPU's completed work.
import type { JobProgress } from './jobs'
import { unpacedPhase } from './phases'

/** Too little work since the pace was last reset says little: under this much time or fraction, no estimate. */
const MIN_MS = 1000
const MIN_FRACTION = 0.02
/** With work ahead, never less than this is left: "0:00" is only said of a job that is done. */
const LEAST_LEFT_MS = 1000

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

  /**
   * Milliseconds left at `now`, or null while unknown (too early, or in an unpaced phase): the pace
   * so far, counted down between events. Past the time that pace gave with no word of the work being
   * done (`overdue`), the pace is taken to include the wait: the estimate grows while the job is
   * silent instead of sitting at 0:00.
   */
  ms(now: number): number | null {
    const { at, fraction, unpaced } = this.latest
    const done = fraction - this.from.fraction
    const spent = at - this.from.at
    if (unpaced || fraction >= 1 || done < MIN_FRACTION || spent < MIN_MS) return null
    const countdown = (spent * (1 - fraction)) / done - (now - at)
    if (countdown >= LEAST_LEFT_MS) return countdown
    return Math.max(LEAST_LEFT_MS, ((now - this.from.at) * (1 - fraction)) / done)
  }

  /** Whether the work reported so far is behind its own pace at `now` (the estimate is then the slower one). */
  overdue(now: number): boolean {
    const { at, fraction, unpaced } = this.latest
    const done = fraction - this.from.fraction
    const spent = at - this.from.at
    if (unpaced || fraction >= 1 || done < MIN_FRACTION || spent < MIN_MS) return false
    return (spent * (1 - fraction)) / done - (now - at) < LEAST_LEFT_MS
  }
}
