// Progress without a terminal: a line per phase, and within a long phase a line at least every
// interval (PARALAB_PROGRESS_MS here, 10 s by default) with the rate, the time so far and left,
// printed by a timer when no event comes.
import { afterEach, describe, expect, it } from 'vitest'
import { LOG_EVERY_MS, logEveryMs, progressBar } from '../../src/main/terminal/progress'

/** A stream that is no terminal, keeping what is written. */
function logStream(): { stream: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = []
  const stream = { isTTY: false, write: (s: string) => lines.push(...s.split('\n').filter(Boolean)) } as unknown as NodeJS.WriteStream
  return { stream, lines }
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

afterEach(() => {
  delete process.env.PARALAB_PROGRESS_MS
})

describe('progress without a terminal', () => {
  it('prints a line per phase, and one every interval within a phase, with or without events', async () => {
    process.env.PARALAB_PROGRESS_MS = '150'
    const { stream, lines } = logStream()
    const bar = progressBar(stream)
    bar.update({ phase: 'loading grids', fraction: 0 })
    // Many events of one phase within an interval: one line.
    for (let step = 100; step <= 500; step += 100) bar.update({ phase: `simulating active · step ${step} of 4000`, fraction: step / 4000, throughput: { value: 81.94, unit: 'M cell-steps/s' } })
    // Percents are rounded down (2.5 % reads 2 %): only a job done reads 100 %.
    expect(lines).toEqual(['paralab:   0%  loading grids', 'paralab:   2%  simulating active · step 100 of 4000'])
    // No events for a while (a long step): the timer prints the latest one, again and again.
    // Waited for, not slept: a busy machine runs the timer late, never early.
    await expect.poll(() => lines.length - 2, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(2)
    const periodic = lines.slice(2)
    for (const l of periodic) expect(l).toMatch(/^paralab: {2}12%  simulating active · step 500 of 4000  81\.9 M cell-steps\/s  0:0\d so far$/)
    bar.done(true)
    const printed = lines.length
    await sleep(400)
    expect(lines.length).toBe(printed)
    expect(lines.at(-1)).toMatch(/^paralab: 100%  done in \d+\.\d s$/)
  })

  it('says the time left once the pace is known', async () => {
    process.env.PARALAB_PROGRESS_MS = '100'
    const { stream, lines } = logStream()
    const bar = progressBar(stream)
    // A steady 1 % every 20 ms or more: the estimate follows that pace.
    for (let i = 1; i <= 60; i++) {
      bar.update({ phase: `simulating serial · step ${i} of 100`, fraction: i / 100 })
      await sleep(20)
    }
    bar.done(false)
    const left = lines.filter((l) => /so far, about 0:0\d left$/.test(l))
    expect(left.length).toBeGreaterThan(0)
    // 40 % left at 1 % each 20+ ms: at least a second, said rounded up.
    expect(left.at(-1)).toMatch(/about 0:0[1-9] left$/)
  })

  it('takes its interval from PARALAB_PROGRESS_MS, 10 s otherwise', () => {
    expect(LOG_EVERY_MS).toBe(10_000)
    expect(logEveryMs({})).toBe(10_000)
    expect(logEveryMs({ PARALAB_PROGRESS_MS: '250' })).toBe(250)
    expect(logEveryMs({ PARALAB_PROGRESS_MS: 'soon' })).toBe(10_000)
    expect(logEveryMs({ PARALAB_PROGRESS_MS: '0' })).toBe(10_000)
  })
})
