// A job's progress as a plan of steps, each weighted by what it costs: a step reports its own
// fraction, the job's fraction is the weighted sum, so the bar moves as the time goes whatever the
// phase (31 s of cross products are not one tick, 38 s of ranking not a bar at 100 %). Costs are
// estimates in any one unit (e.g. nanoseconds on a typical core); steps not yet begun can be
// weighed again once the input is known (its shape after loading), without the bar going back.
// Only `finish` reaches 1: the last step's end still has the results to hand over.
import type { JobProgress } from './jobs'

/** The most the bar shows before `finish`, shown as 99 %: a step's own 100 % is not the job's. */
export const BEFORE_DONE = 0.999

export interface PlanStep {
  /** Names the step for `begin`; several steps may share one (a backend's repeated runs). */
  key: string
  /** Estimated cost, in the unit of the plan's other steps; at least 0. */
  cost: number
}

/** What a part of a job needs of its plan: to begin its steps and report their own fractions. */
export type PlanSteps = Pick<ProgressPlan, 'begin' | 'update'>

export class ProgressPlan {
  /** Steps not yet begun, the one under way first once begun. */
  private steps: PlanStep[]
  /** The job's fraction where the current plan began (after a replan), and the share it spreads. */
  private base = 0
  private span = 1
  /** Cost of the plan's steps finished, and the whole plan's. */
  private costDone = 0
  private total: number
  private current: { step: PlanStep; phase: string; fraction: number } | null = null
  /** The current step's own fraction when the plan was weighed again: its updates count from there. */
  private offset = 0
  private last = 0
  /** The current step's own fraction as its work reports it. */
  private reported = 0
  private done = false

  constructor(
    private readonly report: (p: JobProgress) => void,
    steps: PlanStep[],
  ) {
    this.steps = steps.slice()
    this.total = sum(steps)
  }

  /** The job's fraction now (0…1), never less than any reported before, and 1 only once finished. */
  get fraction(): number {
    const inStep = this.current ? this.current.step.cost * this.current.fraction : 0
    const f = this.total > 0 ? this.base + (this.span * (this.costDone + inStep)) / this.total : this.base
    return (this.last = Math.min(this.done ? 1 : BEFORE_DONE, Math.max(this.last, f)))
  }

  /**
   * Begins the next step named `key`, shown as `phase` ("cross products, workers-simd f64, run 2 of
   * 3"); the step under way and any planned before the one begun count as done. A key not in the
   * plan begins a step of no cost (the bar waits, the phase shows).
   */
  begin(key: string, phase: string): void {
    this.finishCurrent()
    const at = this.steps.findIndex((s) => s.key === key)
    for (const skipped of at < 0 ? [] : this.steps.splice(0, at)) this.costDone += skipped.cost
    const step = at < 0 ? { key, cost: 0 } : this.steps.shift()!
    this.current = { step, phase, fraction: 0 }
    this.offset = 0
    this.reported = 0
    this.send()
  }

  /**
   * The current step's own fraction (0…1); `phase` names it anew where its figures change ("step
   * 800 of 4000", "1.2 M rows"), `throughput` is what it goes through, e.g. { value: 80, unit: 'MB/s' }.
   */
  update(fraction: number, detail: { phase?: string; throughput?: JobProgress['throughput'] } = {}): void {
    if (!this.current) return
    const own = this.offset < 1 ? (Math.min(1, fraction) - this.offset) / (1 - this.offset) : 1
    this.current.fraction = Math.min(1, Math.max(this.current.fraction, own))
    this.reported = Math.min(1, Math.max(this.reported, fraction))
    if (detail.phase !== undefined) this.current.phase = detail.phase
    this.send(detail.throughput)
  }

  /**
   * Weighs again the steps not yet begun, and the one under way where `steps` begins with its key
   * (its cost then the whole step's, re-estimated); otherwise the step under way keeps its share of
   * what was left. The job's fraction goes on from where it is.
   */
  replan(steps: PlanStep[]): void {
    const now = this.fraction
    const c = this.current
    let currentLeft = 0
    let rest = steps
    if (c && steps[0]?.key === c.step.key) {
      currentLeft = Math.max(0, steps[0].cost) * (1 - this.reported)
      rest = steps.slice(1)
    } else if (c) {
      const oldLeft = Math.max(0, this.total - this.costDone - c.step.cost * c.fraction)
      const share = oldLeft > 0 ? (c.step.cost * (1 - c.fraction)) / oldLeft : 0
      const next = sum(rest)
      currentLeft = share >= 1 || next === 0 ? 1 : (share * next) / (1 - share)
    }
    this.base = now
    this.span = 1 - now
    this.costDone = 0
    this.steps = rest.slice()
    // The step under way starts afresh in the new plan, its part done already in `base`.
    if (c) this.current = { ...c, step: { key: c.step.key, cost: currentLeft }, fraction: 0 }
    this.total = sum(rest) + currentLeft
    // Its own fraction, as reported, goes on from where it was: updates map what remains onto the new share.
    if (c) this.offset = this.reported
  }

  /** The whole job done. */
  finish(phase: string): void {
    this.finishCurrent()
    this.steps = []
    this.done = true
    this.last = 1
    this.report({ phase, fraction: 1, phaseFraction: 1 })
  }

  private finishCurrent(): void {
    if (this.current) this.costDone += this.current.step.cost
    this.current = null
  }

  private send(throughput?: JobProgress['throughput']): void {
    const c = this.current!
    this.report({ phase: c.phase, fraction: this.fraction, phaseFraction: this.reported, ...(throughput && { throughput }) })
  }
}

function sum(steps: PlanStep[]): number {
  return steps.reduce((s, x) => s + Math.max(0, x.cost), 0)
}
