// Statistics of small-integer data from its value counts alone.
//
// Accelerometer columns hold integer counts in a narrow range with many ties. One counting pass
// turns 20 M values into a few hundred bins; the sum, median, MAD and Σ(x − mean)² then come from
// the bins, exactly as if computed from the values: the sum of integers is exact either way, the
// median and MAD are the same order statistics, and Σ count·(v − mean)² regroups the terms of the
// two-pass variance.
import type { BackendColumnStats, Precision } from '../../../shared/workloads/stats/types'
import { addF32, addF64 } from './compensated'
import { absDeviation, finishStats, middleRanks, midpoint } from './definitions'

// Re-exported for callers that take every median helper from one place.
export { absDeviation, middleRanks, midpoint }

/** Counts of the integers min, min + 1, … (counts[i] is the number of values equal to min + i). */
export interface IntegerCounts {
  min: number
  counts: ArrayLike<number>
}

/** Σ count·(v − mean)² (compensated, in the working precision). */
export function countedSquaredDeviation({ min, counts }: IntegerCounts, mean: number, precision: Precision): number {
  const acc = { s: 0, c: 0 }
  if (precision === 'f64') {
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue
      const d = min + i - mean
      addF64(acc, counts[i] * (d * d))
    }
    return acc.s + acc.c
  }
  const f = Math.fround
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] === 0) continue
    const d = f(min + i - mean)
    addF32(acc, f(counts[i] * f(d * d)))
  }
  return f(acc.s + acc.c)
}

/** Median of the counted values (numpy's midpoint for an even count). */
export function countedMedian({ min, counts }: IntegerCounts, n: number, precision: Precision): number {
  const [lo, hi] = middleRanks(n)
  let a = NaN
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]
    if (Number.isNaN(a) && seen > lo) a = min + i
    if (seen > hi) return midpoint(a, min + i, precision)
  }
  throw new Error(`counts hold ${seen} values, fewer than n = ${n}`)
}

/**
 * MAD of the counted values: the median of |v − median|. The deviations of bins above the median
 * rise with v and those below rise as v falls, so merging the two runs walks them in order.
 */
export function countedMad({ min, counts }: IntegerCounts, n: number, median: number, precision: Precision): number {
  const [lo, hi] = middleRanks(n)
  let up = 0
  while (up < counts.length && min + up < median) up++
  let down = up - 1
  let a = NaN
  let seen = 0
  while (down >= 0 || up < counts.length) {
    const dUp = up < counts.length ? absDeviation(min + up, median, precision) : Infinity
    const dDown = down >= 0 ? absDeviation(min + down, median, precision) : Infinity
    let d: number
    if (dUp <= dDown) {
      d = dUp
      seen += counts[up++]
    } else {
      d = dDown
      seen += counts[down--]
    }
    if (Number.isNaN(a) && seen > lo) a = d
    if (seen > hi) return midpoint(a, d, precision)
  }
  throw new Error(`counts hold ${seen} values, fewer than n = ${n}`)
}

/** Every statistic of counted values, given their mean (Σx / n in the working precision). */
export function countedStats(counts: IntegerCounts, n: number, mean: number, precision: Precision): BackendColumnStats {
  const median = countedMedian(counts, n, precision)
  const mad = countedMad(counts, n, median, precision)
  return finishStats(n, mean, countedSquaredDeviation(counts, mean, precision), median, mad, precision)
}
