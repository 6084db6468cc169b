// The study's generator: Philox 4×32-10 against Random123's known answers, the walks' definition
// (a common walk measured with noise, disturbed series drifting off it), files written and read
// back exactly, `paralab generate walks`, and the anomaly ranking finding the disturbed series.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createCpuCorrelationEngine } from '../../src/main/workloads/correlation/cpu-engine'
import { loadSeries } from '../../src/main/workloads/correlation/load-series'
import { philox4x32 } from '../../src/main/workloads/correlation/philox'
import { rankSeries } from '../../src/main/workloads/correlation/ranking'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { anomalousSeries, generateWalks, quantizeEps } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { paralab } from '../e2e/paralab'

const dir = mkdtempSync(join(tmpdir(), 'paralab-walks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Philox 4×32-10', () => {
  // Random123's kat_vectors, "philox4x32 10".
  it.each([
    [[0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]],
    [[0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]],
    [[0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0], [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]],
  ])('gives the known answer for counter %j and key %j', (c, k, want) => {
    const out = new Uint32Array(4)
    philox4x32(c[0], c[1], c[2], c[3], k[0], k[1], out)
    expect(Array.from(out)).toEqual(want)
  })
})

describe('walks', () => {
  const o = { series: 12, length: 3000, start: 100, eps: 0.01, seed: 7, anomalies: 2 }
  const walks = generateWalks(o)

  it('rounds E to 8 significant bits', () => {
    for (const eps of [1e-6, 0.001, 0.01, 0.0123, 0.1]) {
      const q = quantizeEps(eps)
      expect(q.e).toBeGreaterThanOrEqual(128)
      expect(q.e).toBeLessThan(256)
      expect(q.value).toBe(q.e * 2 ** -q.p)
      expect(Math.abs(q.value - eps) / eps).toBeLessThanOrEqual(2 ** -8)
    }
    expect(quantizeEps(0.01).value).toBe(0.010009765625)
    expect(() => quantizeEps(0.5)).toThrow('eps must be a number in 0.000001…0.1, got 0.5')
  })

  it('is the same for the same seed and differs for another', () => {
    expect(generateWalks(o).values).toEqual(walks.values)
    expect(generateWalks({ ...o, seed: 8 }).values).not.toEqual(walks.values)
  })

  it('starts every series at V; normal series stay within a step of each other, disturbed ones drift away', () => {
    const { values, anomalies } = walks
    const e = quantizeEps(o.eps).value
    const row = (s: number) => values.subarray(s * o.length, (s + 1) * o.length)
    for (let s = 0; s < o.series; s++) expect(row(s)[0]).toBe(100)
    expect(anomalies).toHaveLength(2)
    const normal = Array.from({ length: o.series }, (_, s) => s).filter((s) => !anomalies.includes(s))
    // Both are the common walk times (1 + u·E) with |u| ≤ 1: their ratio stays within these bounds.
    const [lo, hi] = [(1 - e) / (1 + e), (1 + e) / (1 - e)]
    const ratios = (a: number, b: number) => Array.from(row(a), (v, k) => v / row(b)[k])
    for (const s of normal.slice(1)) for (const ratio of ratios(s, normal[0])) expect(ratio >= lo * (1 - 1e-6) && ratio <= hi * (1 + 1e-6)).toBe(true)
    for (const a of anomalies) expect(Math.max(...ratios(a, normal[0]).map((r) => Math.abs(Math.log(r))))).toBeGreaterThan(10 * Math.log(hi))
  })

  it('picks K distinct disturbed series', () => {
    const picked = anomalousSeries(1000, 50, 3)
    expect(new Set(picked).size).toBe(50)
    expect(picked).toEqual([...picked].sort((a, b) => a - b))
    expect(Math.max(...picked)).toBeLessThan(1000)
  })

  it('is ranked: the disturbed series come first, flagged, and no other is', async () => {
    const w = { series: 40, length: 800, start: 50, eps: 0.02, seed: 3, anomalies: 3 }
    const made = generateWalks(w)
    const series = seriesMatrix(indexNames(w.series), Float64Array.from(made.values), w.series, w.length)
    const engine = await createCpuCorrelationEngine('serial', series, 'f64')
    try {
      await engine.run()
      const ranking = rankSeries(engine.matrix(), w.series, series.names, -3.5, 1.5)
      expect(ranking.slice(0, 3).map((e) => e.index).sort((a, b) => a - b)).toEqual(made.anomalies)
      expect(ranking.filter((e) => e.flagged).map((e) => e.index).sort((a, b) => a - b)).toEqual(made.anomalies)
    } finally {
      await engine.dispose()
    }
  })

  it.each([
    ['csv', 'columns'],
    ['csv', 'rows'],
    ['npy', 'columns'],
    ['npy', 'rows'],
  ] as const)('writes %s in the %s layout and reads back the same f32 values', async (ext, layout) => {
    const path = join(dir, `w-${layout}.${ext}`)
    await writeSeries(path, walks.values, o.series, o.length, { layout })
    const { series } = await loadSeries(path, path, { layout, precision: 'f64' })
    expect(series.names).toEqual(indexNames(o.series))
    expect(series.values).toEqual(Float64Array.from(walks.values))
    await expect(writeSeries(path, walks.values, o.series, o.length, { layout })).rejects.toThrow('already exists (use --force to overwrite)')
  })
})

describe('paralab generate walks', () => {
  it('writes the file and lists the disturbed series', () => {
    const out = join(dir, 'cli.npy')
    const r = paralab(['generate', 'walks', out, '--series', '20', '--length', '64', '--anomalies', '2', '--seed', '7', '--layout', 'rows', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const made = JSON.parse(r.stdout)
    const want = generateWalks({ series: 20, length: 64, start: 100, eps: 0.01, seed: 7, anomalies: 2 })
    expect(made).toMatchObject({ path: out, series: 20, length: 64, layout: 'rows', eps: 0.010009765625, anomalies: want.anomalies.map((i) => `s${i}`) })
    const again = paralab(['generate', 'walks', out, '--series', '20', '--length', '64'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already exists (use --force to overwrite)')
    expect(paralab(['generate', 'walks', out, '--series', '20']).stderr).toContain('needs --series M and --length N')
  })
})
