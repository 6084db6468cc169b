// A job's progress as weighted steps: each reports its own fraction, the bar moves by what each
// costs, steps weighed again once the input is known never move the bar back.
import { describe, expect, it } from 'vitest'
import type { JobProgress } from '../../src/shared/jobs'
import { BEFORE_DONE, ProgressPlan } from '../../src/shared/progress-plan'

function plan(steps: { key: string; cost: number }[]) {
  const events: JobProgress[] = []
  return { p: new ProgressPlan((e) => events.push(e), steps), events }
}

describe('ProgressPlan', () => {
  it('weighs each step by its cost and reports its own fraction beside the job\'s', () => {
    const { p, events } = plan([
      { key: 'loading', cost: 1 },
      { key: 'run', cost: 6 },
      { key: 'ranking', cost: 3 },
    ])
    p.begin('loading', 'loading big.npy')
    p.update(0.5)
    expect(events.at(-1)).toEqual({ phase: 'loading big.npy', fraction: 0.05, phaseFraction: 0.5 })
    p.begin('run', 'cross products')
    expect(events.at(-1)).toMatchObject({ phase: 'cross products', phaseFraction: 0 })
    expect(events.at(-1)!.fraction).toBeCloseTo(0.1, 12)
    p.update(0.5, { throughput: { value: 3, unit: 'GFLOP/s' } })
    expect(events.at(-1)!.fraction).toBeCloseTo(0.4, 12)
    expect(events.at(-1)!.throughput).toEqual({ value: 3, unit: 'GFLOP/s' })
    // Ranking is a phase of its own with work ahead: the bar is not at 100 % while it runs.
    p.begin('ranking', 'ranking')
    expect(events.at(-1)!.fraction).toBeCloseTo(0.7, 12)
    p.update(0.9)
    expect(events.at(-1)!.fraction).toBeCloseTo(0.97, 12)
    p.finish('done')
    expect(events.at(-1)).toEqual({ phase: 'done', fraction: 1, phaseFraction: 1 })
  })

  it('steps of one key are begun in turn; a step skipped counts as done; an own fraction never goes back', () => {
    const { p, events } = plan([
      { key: 'run', cost: 1 },
      { key: 'run', cost: 1 },
      { key: 'sweep', cost: 2 },
      { key: 'ranking', cost: 4 },
    ])
    p.begin('run', 'serial, run 1 of 2')
    p.begin('run', 'serial, run 2 of 2')
    expect(events.at(-1)!.fraction).toBeCloseTo(0.125, 12)
    p.update(0.5)
    p.update(0.25)
    expect(events.at(-1)!.phaseFraction).toBe(0.5)
    p.begin('ranking', 'ranking')
    expect(events.at(-1)!.fraction).toBeCloseTo(0.5, 12)
    // A step the plan does not hold shows its phase and holds the bar, short of 100 % until the job is done.
    p.begin('writing', 'writing the matrix')
    expect(events.at(-1)).toMatchObject({ phase: 'writing the matrix', fraction: BEFORE_DONE })
    p.finish('done')
    expect(events.at(-1)).toMatchObject({ phase: 'done', fraction: 1 })
  })

  it('reaches 1 only when finished, and names a step anew as its figures change', () => {
    const { p, events } = plan([
      { key: 'loading', cost: 1 },
      { key: 'run', cost: 9 },
    ])
    p.begin('run', 'simulating serial')
    p.update(0.5, { phase: 'simulating serial · step 2000 of 4000' })
    expect(events.at(-1)).toMatchObject({ phase: 'simulating serial · step 2000 of 4000', phaseFraction: 0.5 })
    expect(events.at(-1)!.fraction).toBeCloseTo(0.55, 12)
    // The last step's own 100 %: results are still to be handed over.
    p.update(1, { phase: 'simulating serial · step 4000 of 4000' })
    expect(events.at(-1)).toMatchObject({ phase: 'simulating serial · step 4000 of 4000', fraction: BEFORE_DONE, phaseFraction: 1 })
    p.finish('done')
    expect(events.at(-1)).toEqual({ phase: 'done', fraction: 1, phaseFraction: 1 })
  })

  it('weighed again once the input is known, goes on from where the bar was, the current step by its new cost', () => {
    const { p, events } = plan([
      { key: 'loading', cost: 1 },
      { key: 'rest', cost: 4 },
    ])
    p.begin('loading', 'loading')
    p.update(0.5)
    expect(events.at(-1)!.fraction).toBeCloseTo(0.1, 12)
    // Loading is cheap beside the cross products the shape now tells of.
    p.replan([
      { key: 'loading', cost: 2 },
      { key: 'run', cost: 97 },
      { key: 'ranking', cost: 100 },
    ])
    // Of 0.9 left: loading's remaining 1 of 198.
    p.update(1)
    expect(events.at(-1)!.fraction).toBeCloseTo(0.1 + 0.9 * (1 / 198), 12)
    expect(events.at(-1)!.phaseFraction).toBe(1)
    p.begin('run', 'run')
    p.update(1)
    expect(events.at(-1)!.fraction).toBeCloseTo(0.1 + 0.9 * (98 / 198), 12)
    const fractions = events.map((e) => e.fraction)
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
  })

  it('weighed again without the current step: it keeps its share of what was left', () => {
    const { p, events } = plan([
      { key: 'a', cost: 2 },
      { key: 'b', cost: 2 },
    ])
    p.begin('a', 'a')
    p.update(0.5)
    expect(events.at(-1)!.fraction).toBeCloseTo(0.25, 12)
    // Left: 1 of a, 2 of b (a third is a's); b is now 10, c 10: a keeps a third of the 0.75 left.
    p.replan([
      { key: 'b', cost: 10 },
      { key: 'c', cost: 10 },
    ])
    p.update(1)
    expect(events.at(-1)!.fraction).toBeCloseTo(0.5, 12)
    p.begin('c', 'c')
    expect(events.at(-1)!.fraction).toBeCloseTo(0.75, 12)
  })
})
