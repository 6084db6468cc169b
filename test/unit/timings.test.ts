// `--timings`: spans grouped by stage, each moment of a stage counted once, and the part beside a
// file's load measured against the loads' own spans.
import { afterEach, describe, expect, it } from 'vitest'
import { stageTimings, timingsText } from '../../src/main/cli/timings'
import { addSpan, recordTimeline, timeSpan, timelineSpans } from '../../src/main/timeline'

afterEach(() => recordTimeline(false))

describe('stage timings', () => {
  it('counts overlapping spans of a stage once and measures what lay beside the load', () => {
    const rows = stageTimings([
      { stage: 'load a.csv', start: 100, end: 400, load: true },
      // Nine pipelines queued at once, done one after another: busy is their union.
      { stage: 'pipeline creation', start: 150, end: 250 },
      { stage: 'pipeline creation', start: 150, end: 350 },
      { stage: 'pipeline creation', start: 500, end: 600 },
      { stage: 'compute', start: 600, end: 700 },
      { stage: 'process start', start: 0, end: 90 },
    ])
    expect(rows.map((r) => r.stage)).toEqual(['process start', 'load a.csv', 'pipeline creation', 'compute'])
    expect(rows[1]).toEqual({ stage: 'load a.csv', count: 1, from: 100, to: 400, busy: 300 })
    expect(rows[2]).toEqual({ stage: 'pipeline creation', count: 3, from: 150, to: 600, busy: 300, besideLoad: 200 })
    expect(rows[3].besideLoad).toBe(0)
    expect(rows[0].besideLoad).toBe(0)
  })

  it('measures overlap against several loads', () => {
    const [, work] = stageTimings([
      { stage: 'load a', start: 0, end: 10, load: true },
      { stage: 'load b', start: 20, end: 30, load: true },
      { stage: 'upload', start: 5, end: 25 },
    ])
    expect(work).toMatchObject({ stage: 'upload', busy: 20, besideLoad: 10 })
  })

  it('leaves out "beside load" when nothing loaded', () => {
    expect(stageTimings([{ stage: 'x', start: 1, end: 2 }])[0].besideLoad).toBeUndefined()
  })

  it('prints a line per stage, counts of repeated stages, and the whole process', () => {
    const text = timingsText(
      [
        { stage: 'load a.csv', start: 10, end: 40, load: true },
        { stage: 'GPU upload', start: 20, end: 30 },
        { stage: 'GPU upload', start: 35, end: 45 },
      ],
      50,
    )
    const lines = text.trim().split('\n')
    expect(lines[2].split(/\s{2,}/).filter(Boolean)).toEqual(['load a.csv', '10', '40', '30'])
    expect(lines[3].split(/\s{2,}/).filter(Boolean)).toEqual(['GPU upload (2)', '20', '45', '20', '15'])
    expect(lines[4].split(/\s{2,}/).filter(Boolean)).toEqual(['whole process, so far', '0', '50', '50'])
  })
})

describe('timeline', () => {
  it('records nothing until turned on, then spans of work that succeeds or fails', async () => {
    addSpan('ignored', 0, 1)
    expect(await timeSpan('ignored too', async () => 7)).toBe(7)
    expect(timelineSpans()).toEqual([])
    recordTimeline()
    addSpan('loaded', 1, 2, true)
    await timeSpan('works', async () => 1)
    await expect(timeSpan('fails', async () => Promise.reject(new Error('no')))).rejects.toThrow('no')
    const spans = timelineSpans()
    expect(spans.map((s) => s.stage)).toEqual(['loaded', 'works', 'fails'])
    expect(spans[0].load).toBe(true)
    for (const s of spans.slice(1)) expect(s.end).toBeGreaterThanOrEqual(s.start)
    recordTimeline(false)
    addSpan('after', 0, 1)
    expect(timelineSpans()).toEqual([])
  })
})
