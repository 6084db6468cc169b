// The anomaly flags: series below the threshold that stand apart from the cluster's own tail by a
// gap. Checked on seeded clusters with planted anomalies from 64 to 16 384 series and 0.1–5 %
// planted: the study's generator (disturbed series drifting off a common walk, a tight cluster)
// and clusters whose series carry small walks of their own (a long-tailed cluster, where a fixed
// robust z flags hundreds of ordinary series). Up to 1 024 series the matrix comes from the CPU
// engine and the flags from rankSeries; at 16 384 (a 2 GiB matrix) each series' mean r comes from
// the identity mean_j≠i r_ij = (x̂_i · Σ_j x̂_j − 1) / (M − 1) over the standardized series x̂.
import { describe, expect, it } from 'vitest'
import { createCpuCorrelationEngine } from '../../src/main/workloads/correlation/cpu-engine'
import { flagsOf, rankSeries, robustZ } from '../../src/main/workloads/correlation/ranking'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { correlationWorkload } from '../../src/shared/workloads/correlation'
import { flagSummary } from '../../src/shared/workloads/correlation/tables'
import { rng } from '../helpers/correlation-reference'

const THRESHOLD = correlationWorkload.params.threshold.default
const GAP = correlationWorkload.params.gap.default

/** Series i of m × n values (series after series), standardized to mean 0 and norm 1. */
function meanRs(values: ArrayLike<number>, m: number, n: number): Float64Array {
  const unit = new Float64Array(m * n)
  const sum = new Float64Array(n)
  for (let i = 0; i < m; i++) {
    let mean = 0
    for (let k = 0; k < n; k++) mean += values[i * n + k]
    mean /= n
    let ss = 0
    for (let k = 0; k < n; k++) ss += (values[i * n + k] - mean) ** 2
    const norm = Math.sqrt(ss)
    for (let k = 0; k < n; k++) sum[k] += unit[i * n + k] = (values[i * n + k] - mean) / norm
  }
  const out = new Float64Array(m)
  for (let i = 0; i < m; i++) {
    let dot = 0
    for (let k = 0; k < n; k++) dot += unit[i * n + k] * sum[k]
    out[i] = (dot - 1) / (m - 1)
  }
  return out
}

/**
 * A long-tailed cluster: every series the common walk plus a small walk of its own (how far a
 * series' r falls below the others' grows with its own walk's spread, a skewed quantity); the
 * planted ones independent walks.
 */
function ownWalkCluster(m: number, n: number, planted: number, seed: number): { values: Float64Array; planted: number[] } {
  const random = rng(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const common = new Float64Array(n)
  for (let k = 1; k < n; k++) common[k] = common[k - 1] + normal()
  const order = Array.from({ length: m }, (_, i) => i)
  for (let i = 0; i < planted; i++) {
    const j = i + Math.floor(random() * (m - i))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  const chosen = order.slice(0, planted).sort((a, b) => a - b)
  const isPlanted = new Set(chosen)
  const values = new Float64Array(m * n)
  for (let i = 0; i < m; i++) {
    let own = 0
    for (let k = 0; k < n; k++) {
      own += normal()
      values[i * n + k] = isPlanted.has(i) ? own : common[k] + 0.05 * own
    }
  }
  return { values, planted: chosen }
}

/** The planted counts of 0.1 %, 1 % and 5 % of m series (at least one). */
const plantedOf = (m: number) => [...new Set([0.001, 0.01, 0.05].map((f) => Math.max(1, Math.round(m * f))))]

/** Flags from the mean r of each series, as rankSeries makes them. */
const flagsOfMeans = (means: Float64Array, gap: number = GAP) => Array.from(flagsOf(robustZ(means), THRESHOLD, gap)).flatMap((f, i) => (f ? [i] : []))

async function flagsByEngine(values: Float64Array, m: number, n: number): Promise<number[]> {
  const series = seriesMatrix(indexNames(m), values, m, n)
  const engine = await createCpuCorrelationEngine('workers-simd', series, 'f64')
  try {
    await engine.run()
    return rankSeries(engine.matrix(), m, series.names, THRESHOLD, GAP)
      .filter((e) => e.flagged)
      .map((e) => e.index)
      .sort((a, b) => a - b)
  } finally {
    await engine.dispose()
  }
}

describe('flagsOf', () => {
  const z = Float64Array.of(0, 0.5, -1, -2.9, -3.6, -4.2, -5, -12, -30, NaN)

  it('leaves the tail that runs on from the cluster and flags from the first gap outward', () => {
    // −2.9 → −3.6 → −4.2 → −5 run on (ratios under 1.5); −12 is 2.4 × −5: it and −30 are flagged.
    expect(Array.from(flagsOf(z, -3.5, 1.5))).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    // A gap of ×2.45 is only between −12 and −30.
    expect(Array.from(flagsOf(z, -3.5, 2.45))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0])
  })

  it('flags every series below the threshold with a gap of 1, and none where no gap opens', () => {
    expect(Array.from(flagsOf(z, -3.5, 1))).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1, 0])
    expect(Array.from(flagsOf(Float64Array.of(0, -1, -3.4, -3.6, -4, -4.5), -3.5, 1.5))).toEqual([0, 0, 0, 0, 0, 0])
  })

  it('measures the first gap from the farthest series at or above the threshold', () => {
    // Nothing between −1 and −3.5: −4 is 4 × −1, a gap.
    expect(Array.from(flagsOf(Float64Array.of(0, 0.3, -1, -4, -4.5), -3.5, 1.5))).toEqual([0, 0, 0, 1, 1])
  })
})

describe('flags of planted anomalies', () => {
  // Series × samples: the big size with few samples a series keeps the test fast.
  const sizes = [
    [64, 512],
    [1024, 256],
    [16384, 256],
  ] as const

  describe.each(sizes)('the study\'s walks, %i series × %i samples', (m, n) => {
    it.each(plantedOf(m))('flags the %i disturbed series and no other', async (planted) => {
      const w = generateWalks({ series: m, length: n, start: 100, eps: 0.01, seed: 11 + planted, anomalies: planted })
      const values = Float64Array.from(w.values)
      const flagged = m <= 1024 ? await flagsByEngine(values, m, n) : flagsOfMeans(meanRs(values, m, n))
      expect(flagged).toEqual(w.anomalies)
    })
  })

  describe.each(sizes)('a long-tailed cluster, %i series × %i samples', (m, n) => {
    it.each(plantedOf(m))('flags the %i independent walks, where z < −3.5 alone flags many ordinary series', async (planted) => {
      const c = ownWalkCluster(m, n, planted, m + planted)
      const flagged = m <= 1024 ? await flagsByEngine(c.values, m, n) : flagsOfMeans(meanRs(c.values, m, n))
      expect(flagged.filter((i) => !c.planted.includes(i)).length, 'ordinary series flagged').toBeLessThanOrEqual(Math.max(1, m / 1000))
      expect(c.planted.filter((i) => !flagged.includes(i)), 'planted series missed').toEqual([])
      if (m >= 1024) {
        // The trap the gap avoids: the cluster's long tail below the threshold.
        const below = flagsOfMeans(meanRs(c.values, m, n), 1).length
        expect(below).toBeGreaterThan(planted + m / 100)
      }
    })
  })

  it('says in the results how many lie below the threshold unflagged, and how to flag them', () => {
    const c = ownWalkCluster(1024, 128, 3, 5)
    const means = meanRs(c.values, 1024, 128)
    const z = robustZ(means)
    const flags = flagsOf(z, THRESHOLD, GAP)
    const ranking = Array.from(z, (v, index) => ({ name: `s${index}`, index, meanR: means[index], medianR: means[index], z: v, flagged: flags[index] === 1 }))
    const tail = ranking.filter((e) => e.z < THRESHOLD && !e.flagged).length
    expect(tail).toBeGreaterThan(0)
    expect(flagSummary({ threshold: THRESHOLD, gap: GAP, ranking })).toBe(
      `3 flagged (z < -3.5, apart from the cluster's tail by a gap of ×1.5); ${tail} more below -3.5 are the cluster's own tail, not set apart by a gap (--gap 1 flags them too)`,
    )
  })
})
