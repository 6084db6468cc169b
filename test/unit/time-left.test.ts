// The time left of a job: its pace outside compiling and warming up, from when it last left them.
import { describe, expect, it } from 'vitest'
import { TimeLeft } from '../../src/shared/time-left'

describe('TimeLeft', () => {
  it('estimates at the pace since the start, counting down between events', () => {
    const t = new TimeLeft(0)
    t.observe({ phase: 'loading a.csv', fraction: 0.25 }, 10_000)
    expect(t.ms(10_000)).toBe(30_000)
    expect(t.ms(15_000)).toBe(25_000)
    expect(t.overdue(15_000)).toBe(false)
  })

  it('never says 0:00 with work ahead: silent past its pace, the job is estimated at the pace including the wait', () => {
    // As seen: 20 % at 10 s, then nothing for the whole of the cross products.
    const t = new TimeLeft(0)
    t.observe({ phase: 'loading big.npy', fraction: 0.2 }, 10_000)
    expect(t.ms(45_000)).toBe(5_000)
    expect(t.overdue(45_000)).toBe(false)
    expect(t.overdue(49_500)).toBe(true)
    // At 50 s, 0.2 in 50 s: 0.8 left takes 200 s.
    expect(t.ms(50_000)).toBe(200_000)
    expect(t.ms(70_000)).toBe(280_000)
    // Word comes: the pace is the measured one again.
    t.observe({ phase: 'cross products', fraction: 0.6 }, 70_000)
    expect(t.overdue(70_000)).toBe(false)
    expect(t.ms(70_000)).toBeCloseTo((70_000 * 0.4) / 0.6, 6)
  })

  it('has no estimate from too little work, nor in a phase that does none, nor when done', () => {
    const t = new TimeLeft(0)
    t.observe({ phase: 'loading', fraction: 0.01 }, 5_000)
    expect(t.ms(5_000)).toBeNull()
    t.observe({ phase: 'loading', fraction: 0.5 }, 500)
    expect(t.ms(500)).toBeNull()
    t.observe({ phase: 'warming up gpu/fused', fraction: 0.5 }, 2_000)
    expect(t.ms(2_000)).toBeNull()
    t.observe({ phase: 'done', fraction: 1 }, 3_000)
    expect(t.ms(3_000)).toBeNull()
  })

  it('leaves the time spent compiling kernels, and the pace before it, out of the estimate after it', () => {
    const t = new TimeLeft(0)
    t.observe({ phase: 'serial', fraction: 0.6 }, 1_000)
    t.observe({ phase: 'compiling kernels', fraction: 0.6 }, 1_000)
    expect(t.ms(1_000)).toBeNull()
    t.observe({ phase: 'gpu', fraction: 0.65 }, 30_000)
    t.observe({ phase: 'gpu', fraction: 0.75 }, 40_000)
    // 0.1 in 10 s since the first GPU event: 0.25 left, 25 s.
    expect(t.ms(40_000)).toBeCloseTo(25_000, 6)
  })
})
