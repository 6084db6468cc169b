// Compare: runs matched by (input, backend, variant) whatever the jobs' number of inputs, compared
// per unit of work where the jobs did different amounts of it, with each run's checks.
import { describe, expect, it } from 'vitest'
import { compareRuns, timeUnit } from '../../src/shared/workloads/compare-runs'
import { timingOf } from '../../src/shared/workloads/envelope'
import { landslide, run } from '../renderer/landslide-runs'
import { statsEnvelope, statsFile, statsResult } from '../renderer/stats-fixture'

const acc = statsFile('/data/acc.csv', { acc_x: [1, 2, 3, 4], acc_y: [2, 4, 4, 8] }, ['serial', 'simd'], [4])
const other = statsFile('/data/other.csv', { acc_x: [5, 1, 3, 4], acc_y: [1, 4, 9, 8] }, ['serial'], [4])

describe('compareRuns', () => {
  it('lines up a file of a several-file run with the same file of a one-file run', () => {
    const single = { ...statsEnvelope(statsResult(acc)), timings: { serial: timingOf([4, 5, 6]), simd: timingOf([2]) } }
    const several = {
      ...statsEnvelope(statsResult(other, acc)),
      timings: { '/data/other.csv: serial': timingOf([7]), '/data/acc.csv: serial': timingOf([3, 3, 3]), '/data/acc.csv: simd': timingOf([1]) },
    }
    const c = compareRuns([single, several])
    expect(c.rows.map((r) => r.key)).toEqual(['/data/acc.csv: serial', '/data/acc.csv: simd', '/data/other.csv: serial'])
    const serial = c.rows[0]
    expect(serial.figures.map((f) => f?.median)).toEqual([5, 3])
    expect(serial.basis).toEqual({ kind: 'time' })
    expect(serial.best).toBe(1)
    expect(c.rows[2].figures.map((f) => f?.median)).toEqual([undefined, 7])
    expect(c.rows[2].best).toBeUndefined()
    // The same data gives the same checks: none differs.
    expect(serial.runs[0]!.checks.map((k) => k.name)).toEqual(['precision', 'acc_x CV', 'acc_x MAD', 'acc_y CV', 'acc_y MAD'])
    expect(serial.differingChecks).toEqual([])
    expect(c.differing.map((d) => d.name)).toEqual(['files'])
  })

  it('lines up runs on different inputs by their place, never leaving each its own rows of dashes', () => {
    // As seen: one run on acc.csv, one on other.csv, every row half dashes.
    const a = { ...statsEnvelope(statsResult(acc)), timings: { serial: timingOf([4, 5, 6]), simd: timingOf([2]) } }
    const b = { ...statsEnvelope(statsResult(other)), timings: { serial: timingOf([7]) } }
    const c = compareRuns([a, b])
    expect(c.rows.map((r) => r.key)).toEqual(['/data/acc.csv vs /data/other.csv: serial', '/data/acc.csv vs /data/other.csv: simd'])
    const serial = c.rows[0]
    expect(serial.input).toBe('/data/acc.csv vs /data/other.csv')
    expect(serial.inputsDiffer).toBe(true)
    expect(serial.figures.map((f) => f?.median)).toEqual([5, 7])
    // Four values each: the same amount of work, so their times compare; the data differ, so do the checks.
    expect(serial.basis).toEqual({ kind: 'time' })
    expect(serial.best).toBe(0)
    expect(serial.differingChecks).toContain('acc_x CV')
    expect(c.rows[1].figures.map((f) => f?.median)).toEqual([2, undefined])
    // A file both jobs read keeps its own rows beside the lined-up ones.
    const both = { ...statsEnvelope(statsResult(acc, other)), timings: { '/data/acc.csv: serial': timingOf([3]), '/data/other.csv: serial': timingOf([8]) } }
    const third = statsFile('/data/third.csv', { acc_x: [5, 1, 3, 9], acc_y: [1, 4, 9, 8] }, ['serial'], [4])
    const alone = { ...statsEnvelope(statsResult(third, acc)), timings: { '/data/third.csv: serial': timingOf([9]), '/data/acc.csv: serial': timingOf([4]) } }
    expect(compareRuns([both, alone]).rows.map((r) => [r.key, r.figures.map((f) => f?.median)])).toEqual([
      ['/data/acc.csv: serial', [3, 4]],
      ['/data/other.csv vs /data/third.csv: serial', [8, 9]],
    ])
  })

  it('compares runs of different lengths per unit of work, never their total times', () => {
    const short = landslide(100, { serial: run('serial', 40, 'aa'), 'gpu/fused': run('gpu', 10, undefined, 'fused') })
    const long = landslide(4000, { serial: run('serial', 1200, 'bb') })
    const c = compareRuns([short, long])
    const serial = c.rows.find((r) => r.label === 'serial')!
    expect(serial.key).toBe('dem.asc, source.asc: serial')
    expect(serial.basis).toEqual({ kind: 'per-unit', unit: 'step' })
    expect(serial.figures.map((f) => f?.median)).toEqual([0.4, 0.3])
    // 1200 ms over 4000 steps beats 40 ms over 100.
    expect(serial.best).toBe(1)
    expect(serial.differingChecks).toEqual(['md5', 'mass'])
    const gpu = c.rows.find((r) => r.label === 'gpu fused')!
    expect(gpu.runs[0]!.checks.map((k) => k.name)).toEqual(['arithmetic', 'mass', 'max |Δh|'])
  })

  it('says why runs whose work cannot be set against each other are not compared', () => {
    const none = compareRuns([landslide(0, { serial: run('serial', 1, 'aa') }), landslide(100, { serial: run('serial', 40, 'aa') })]).rows[0]
    expect(none.basis).toEqual({ kind: 'none', reason: 'one of them did no work (0 steps)' })
    expect(none.best).toBeUndefined()
  })
})

describe('timeUnit', () => {
  it('reads the smallest figure as at least 1 where it can', () => {
    expect(timeUnit([4, 5000])).toEqual({ unit: 'ms', scale: 1 })
    expect(timeUnit([1500, 5000])).toEqual({ unit: 's', scale: 1e-3 })
    expect(timeUnit([0.3, 0.4])).toEqual({ unit: 'µs', scale: 1e3 })
    expect(timeUnit([2e-5])).toEqual({ unit: 'ns', scale: 1e6 })
    expect(timeUnit([])).toEqual({ unit: 'ms', scale: 1 })
  })
})
