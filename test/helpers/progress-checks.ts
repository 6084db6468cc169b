// What a job's progress must show whoever waits on it, checked on the events a job run in process
// reported: the bar only goes forward, reads 1 only in the last report, once everything is done,
// moves through its longest phase instead of jumping over it, and the time left, replayed over the
// events, is never "0:00" while work is ahead.
import { expect } from 'vitest'
import type { JobProgress } from '../../src/shared/jobs'
import { TimeLeft } from '../../src/shared/time-left'

export interface Heard {
  /** performance.now() when the event came. */
  at: number
  p: JobProgress
}

/** A job context's `progress` keeping every event with its time, from `started` (the job's start). */
export function hearProgress(): { heard: Heard[]; started: number; progress: (p: JobProgress) => void } {
  const heard: Heard[] = []
  return { heard, started: performance.now(), progress: (p) => heard.push({ at: performance.now(), p }) }
}

/** A small job run here takes a fraction of a second: its clock stretched so, the time left is estimated as on a long job. */
const STRETCH = 200
/** A stall after an event: nothing heard for ten minutes. */
const STALL_MS = 600_000

/**
 * The checks above; `longest(phase)` picks the events of the job's longest phase (a serial run).
 * Returns the number of time-left estimates made, all of at least a second.
 */
export function expectSteadyProgress(heard: Heard[], started: number, longest: (phase: string) => boolean): number {
  const events = heard.map((h) => h.p)
  const fractions = events.map((e) => e.fraction)
  expect(fractions, 'the bar only goes forward').toEqual([...fractions].sort((a, b) => a - b))
  expect(events.at(-1), 'the last report is the job done').toMatchObject({ phase: 'done', fraction: 1 })
  const early = events.slice(0, -1).find((e) => e.fraction >= 1)
  expect(early, 'no 100 % before the job is done').toBeUndefined()

  // The longest phase is heard from inside: its own fraction and the job's go through values between.
  const inside = events.filter((e) => longest(e.phase))
  const own = new Set(inside.map((e) => e.phaseFraction).filter((f) => f !== undefined && f > 0 && f < 1))
  expect(own.size, `the longest phase's own fraction moves (${inside.length} events)`).toBeGreaterThanOrEqual(3)
  const job = new Set(inside.map((e) => e.fraction))
  expect(job.size, 'the bar moves while the longest phase runs').toBeGreaterThanOrEqual(4)
  const [first, last] = [inside[0].fraction, inside.at(-1)!.fraction]
  expect([...job].filter((f) => f > first && f < last).length, 'values between its first and its last').toBeGreaterThanOrEqual(2)

  // The time left, at each event, just before the next, and after a long stall: unknown or at least a second.
  const t = new TimeLeft(0)
  const clock = (at: number) => (at - started) * STRETCH
  let estimates = 0
  heard.forEach((h, i) => {
    t.observe(h.p, clock(h.at))
    if (h.p.fraction >= 1) return
    const next = heard[i + 1] ? clock(heard[i + 1].at) : clock(h.at)
    for (const now of [clock(h.at), next, clock(h.at) + STALL_MS]) {
      const ms = t.ms(now)
      if (ms === null) continue
      estimates++
      expect(ms, `time left at ${h.p.phase} (${h.p.fraction})`).toBeGreaterThanOrEqual(1000)
    }
  })
  expect(t.ms(clock(heard.at(-1)!.at)), 'no time left once done').toBeNull()
  return estimates
}
