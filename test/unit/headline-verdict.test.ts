import { describe, expect, it } from 'vitest'
import { headlineTable, median, medianNoise, MIN_CHANGE, pairedRatios, roundOrder, series, slowdowns, verdicts, type FigureResult, type HeadlineResult } from '../../src/main/headline/verdict'

/** Seeded samples around `centre` with relative spread `spread` (a fixed LCG: the test is the same every run). */
function noisy(centre: number, spread: number, n: number, seed: number): number[] {
  let s = seed >>> 0
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    out.push(centre * (1 + spread * ((s / 2 ** 32) * 2 - 1)))
  }
  return out
}

function result(card: string, figs: Record<string, Record<string, number[]>>, extra: Partial<FigureResult> = {}): HeadlineResult {
  return {
    card,
    mode: 'gpu',
    date: '2026-12-02',
    rounds: 8,
    notes: [],
    figures: Object.entries(figs).map(([id, s]) => ({ id, title: id, unit: 'ms', notes: [], series: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, series(v)])), ...extra })),
  }
}

describe('headline arithmetic', () => {
  it('median and its noise', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(medianNoise([5])).toBe(0)
    // MAD 1 around 10: 1.2533 × 1.4826 / √5 / 10
    expect(medianNoise([9, 10, 10, 11, 12])).toBeCloseTo((1.2533 * 1.4826) / Math.sqrt(5) / 10, 6)
    // identical runs but one: the half-range stands in for a zero MAD
    expect(medianNoise([10, 10, 10, 12])).toBeGreaterThan(0)
  })

  it('rotates each round so every side runs once in every position', () => {
    const items = ['this', 'release', 'cuda']
    const seen = items.map(() => new Set<string>())
    for (let r = 0; r < 3; r++) roundOrder(items, r).forEach((x, pos) => seen[pos].add(x))
    for (const s of seen) expect(s.size).toBe(3)
    expect(roundOrder(items, 4)).toEqual(['release', 'cuda', 'this'])
  })

  it('pairs ratios by round, skipping rounds where a side failed', () => {
    expect(pairedRatios([10, NaN, 30], [5, 5, 10])).toEqual([2, 3])
  })

  it('finds a 10 % slowdown against the same-call build with 8 rounds at ±5 % spread, and none when level', () => {
    const slow = result('H200', { landslide: { this: noisy(33, 0.05, 8, 1), release: noisy(30, 0.05, 8, 2) } }, { release: 'release' })
    const v = verdicts(slow)
    expect(v).toHaveLength(1)
    expect(v[0].against).toBe('same-call build')
    expect(v[0].resolves10).toBe(true)
    expect(v[0].slower).toBe(true)
    expect(slowdowns(v)[0]).toMatch(/^landslide: \+\d+\.\d % against the same-call build/)
    const level = result('H200', { landslide: { this: noisy(30, 0.05, 8, 3), release: noisy(30, 0.05, 8, 4) } }, { release: 'release' })
    expect(verdicts(level)[0].slower).toBe(false)
  })

  it('cannot call a change from a single run, and says a 10 % change is beyond it', () => {
    const v = verdicts(result('H200', { x: { this: [40], release: [30] } }, { release: 'release' }))
    expect(v[0].slower).toBe(false)
    expect(v[0].resolves10).toBe(false)
  })

  it('compares with saved figures through the same-call baseline: a card 20 % slower in both is no slowdown', () => {
    const saved = result('H200', { corr: { this: noisy(35, 0.03, 8, 5), torch: noisy(45, 0.03, 8, 6) } }, { normalizeBy: 'torch' })
    const now = result('H200', { corr: { this: noisy(42, 0.03, 8, 7), torch: noisy(54, 0.03, 8, 8) } }, { normalizeBy: 'torch' })
    const v = verdicts(now, saved)
    expect(v).toEqual([expect.objectContaining({ id: 'corr', against: 'saved, through baseline', slower: false })])
    // this build 15 % slower while the baseline held: caught
    const worse = result('H200', { corr: { this: noisy(40.25, 0.03, 8, 9), torch: noisy(45, 0.03, 8, 10) } }, { normalizeBy: 'torch' })
    const w = verdicts(worse, saved)
    expect(w[0].slower).toBe(true)
    expect(w[0].change).toBeGreaterThan(0.1)
  })

  it('compares raw medians when a run lacks the baseline, and nothing from another card', () => {
    const saved = result('H200', { stats: { this: noisy(900, 0.02, 8, 11) } })
    const now = result('H200', { stats: { this: noisy(1000, 0.02, 8, 12) } })
    expect(verdicts(now, saved)[0]).toMatchObject({ against: 'saved', slower: true })
    expect(verdicts(result('H100', { stats: { this: noisy(1000, 0.02, 8, 12) } }), saved)).toEqual([])
  })

  it('never calls a change under the floor, however quiet the runs', () => {
    const v = verdicts(result('H200', { x: { this: [102, 102.01, 101.99, 102], release: [100, 100.01, 99.99, 100] } }, { release: 'release' }))
    expect(v[0].threshold).toBe(MIN_CHANGE)
    expect(v[0].slower).toBe(false)
  })

  it('tables every figure with its same-call series, ratio, the saved figure and the verdict', () => {
    const saved = result('H200', { landslide: { this: [30, 31, 29, 30], 'cuda-f32': [50, 50, 51, 49] } }, { normalizeBy: 'cuda-f32' })
    const now = result('H200', { landslide: { this: [30, 30.5, 29.5, 30], 'cuda-f32': [50, 50.5, 49.5, 50] } }, { normalizeBy: 'cuda-f32' })
    const t = headlineTable(now, saved, verdicts(now, saved))
    expect(t).toContain('Card: H200')
    expect(t).toMatch(/\| landslide \| 30\.0 ms \(29\.5–30\.5, ±[\d.]+ %, n 4\) \| cuda-f32 50\.0 ms .*; 0\.60× \| 30\.0 ms \| level /)
    expect(headlineTable(now, result('H100', {}), [])).toContain('Saved figures are from H100 (gpu): not compared.')
  })
})

describe('the saved release figures (docs/bench/headline-gpu.json)', () => {
  it('name the card, hold every headline figure with its same-card baseline, and compare with themselves as level', async () => {
    const { readFile } = await import('node:fs/promises')
    const saved = JSON.parse(await readFile('docs/bench/headline-gpu.json', 'utf8')).result as HeadlineResult
    expect(saved.card).toBe('NVIDIA H200')
    const ids = saved.figures.map((f) => f.id)
    expect(ids).toEqual(expect.arrayContaining(['landslide', 'correlation', 'paths-5000', 'paths-10000', 'paths-20000', 'stats']))
    for (const f of saved.figures) expect(Object.keys(f.series)).toContain(f.normalizeBy)
    const list = verdicts(saved, saved)
    expect(list.filter((v) => v.against !== 'same-call build').length).toBe(ids.length)
    expect(list.filter((v) => v.against !== 'same-call build').every((v) => !v.slower && v.change === 0)).toBe(true)
  })
})
