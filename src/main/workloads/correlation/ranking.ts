// What the matrix says about the series: each one's mean and median r with the others and a robust
// z-score of that mean (anomalies lie far below the cluster), the matrix block-averaged for the
// heatmap (the dashboard never receives the M × M matrix), and the distribution of r.
import { BlockStats } from '../block-stats'
import type { HeatmapData, HeatmapOrder, HistogramData, RankEntry } from '../../../shared/workloads/correlation/types'

/** 0.6745 = Φ⁻¹(0.75): makes the MAD of a normal sample estimate its σ (Iglewicz & Hoaglin's modified z-score). */
const Z_SCALE = 0.6745
/** √(π/2): makes the mean absolute deviation estimate σ, the fallback when more than half the means coincide. */
const MEAN_AD_SCALE = 1.2533
/**
 * Cells per side of the heatmap at most: beyond, blocks of series are aggregated. No more cells
 * than a chart has pixels (a dashboard's or an export's plot is 300–600 px a side).
 */
export const HEATMAP_CELLS = 256
export const HISTOGRAM_BINS = 40

type Matrix = Float64Array | Float32Array

/** An r as the heatmaps carry it: four decimals, far finer than a colour shows, and a quarter of the JSON. */
export const fourDecimals = (v: number) => Math.round(v * 1e4) / 1e4

/** The k-th smallest of values[0, n) (reorders them): Hoare's selection, expected linear time. */
export function select(values: Float64Array, n: number, k: number): number {
  let lo = 0
  let hi = n - 1
  while (hi > lo) {
    const pivot = values[(lo + hi) >>> 1]
    let i = lo
    let j = hi
    while (i <= j) {
      while (values[i] < pivot) i++
      while (values[j] > pivot) j--
      if (i <= j) {
        const t = values[i]
        values[i++] = values[j]
        values[j--] = t
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else return values[k]
  }
  return values[k]
}

/** The median of values[0, n) (reorders them): the mean of the two middle ones for even n, as numpy. */
export function medianOf(values: Float64Array, n: number): number {
  if (n === 0) return NaN
  const upper = select(values, n, n >> 1)
  if (n % 2 === 1) return upper
  let lower = -Infinity
  for (let i = 0; i < n >> 1; i++) if (values[i] > lower) lower = values[i]
  return (lower + upper) / 2
}

/** Every series' mean and median r with the others (finite r only), z-scores, flags; most anomalous first. */
export function rankSeries(matrix: Matrix, m: number, names: string[], threshold: number, gap: number): RankEntry[] {
  const row = new Float64Array(m)
  const means = new Float64Array(m)
  const medians = new Float64Array(m)
  for (let i = 0; i < m; i++) {
    let count = 0
    let sum = 0
    for (let j = 0; j < m; j++) {
      const r = matrix[i * m + j]
      if (j !== i && r === r) {
        row[count++] = r
        sum += r
      }
    }
    means[i] = count ? sum / count : NaN
    medians[i] = medianOf(row, count)
  }
  const z = robustZ(means)
  const flags = flagsOf(z, threshold, gap)
  const entries: RankEntry[] = names.map((name, index) => {
    const defined = means[index] === means[index]
    return {
      name,
      index,
      meanR: defined ? means[index] : null,
      medianR: defined ? medians[index] : null,
      z: defined ? z[index] : null,
      flagged: flags[index] === 1,
    }
  })
  return entries.sort((a, b) => (a.z === null ? (b.z === null ? a.index - b.index : 1) : b.z === null ? -1 : a.z - b.z || a.index - b.index))
}

/**
 * The anomalies: series below `threshold` that stand apart from the cluster's own tail. Walking out
 * from the centre through the series below the threshold, nearest first, the first whose z is at
 * least `gap` times the z of the series before it (the farthest at or above the threshold, to
 * begin with) opens a gap; it and every series beyond are flagged, the ones before it are the
 * cluster's tail. No such gap: none is flagged. `gap` 1 flags every series below the threshold.
 *
 * Why: the MAD of the means of a tight cluster is tiny and its tail long (a series' mean r moves with
 * the spread of its own noise, a skewed quantity), so thousands of ordinary series lie past any
 * fixed z; a disturbed series lies past them by a multiple. The ratio of two z-scores does not
 * depend on the MAD: only the threshold does.
 */
export function flagsOf(z: Float64Array, threshold: number, gap: number): Uint8Array {
  const flags = new Uint8Array(z.length)
  const below: number[] = []
  // The farthest below the centre of the series at or above the threshold (0: none is below it).
  let before = 0
  z.forEach((v, i) => {
    if (v < threshold) below.push(i)
    else if (v < before) before = v
  })
  // Nearest to the centre first.
  below.sort((a, b) => z[b] - z[a] || a - b)
  for (let k = 0; k < below.length; k++) {
    const v = z[below[k]]
    if (before === 0 || v / before >= gap) {
      for (const i of below.slice(k)) flags[i] = 1
      break
    }
    before = v
  }
  return flags
}

/** Modified z-scores of the finite values: 0.6745 (x − median) / MAD; NaN stays NaN. */
export function robustZ(values: Float64Array): Float64Array {
  const finite = values.filter((v) => v === v)
  const out = new Float64Array(values.length).fill(NaN)
  if (finite.length === 0) return out
  const center = medianOf(Float64Array.from(finite), finite.length)
  const deviations = finite.map((v) => Math.abs(v - center))
  const mad = medianOf(Float64Array.from(deviations), deviations.length)
  const meanAd = deviations.reduce((a, b) => a + b, 0) / deviations.length
  values.forEach((v, i) => {
    if (v !== v) return
    if (mad > 0) out[i] = (Z_SCALE * (v - center)) / mad
    else if (meanAd > 0) out[i] = (v - center) / (MEAN_AD_SCALE * meanAd)
    else out[i] = 0
  })
  return out
}

/** The order of the series in the heatmap: as given, or by ranking. */
export function heatmapOrder(order: HeatmapOrder, ranking: RankEntry[]): number[] {
  return order === 'ranking' ? ranking.map((e) => e.index) : ranking.map((_, i) => i)
}

/**
 * Cells per side at most in ranking order: each at least ~4 pixels in a dashboard chart, so the
 * flagged series, a cell each at the top and left, show as bands rather than 1-pixel slivers.
 */
export const RANKING_CELLS = 96

/**
 * The matrix in `order`, aggregated over blocks of series so that at most `cells` cells fit a side:
 * each block's mean r, and its least and greatest.
 * `alone`: the first series of the order that get a cell each, never averaged with others (the
 * flagged series, in ranking order); then at most RANKING_CELLS cells a side, a quarter of them for those.
 */
export function heatmapOf(matrix: Matrix, m: number, names: string[], order: number[], kind: HeatmapOrder, cells = HEATMAP_CELLS, alone = 0): HeatmapData {
  const side = alone > 0 ? Math.min(cells, RANKING_CELLS) : cells
  const single = Math.min(alone, Math.floor(side / 4), m)
  const block = Math.max(1, Math.ceil((m - single) / Math.max(1, side - single)))
  // Each cell's positions in `order`: the single ones, then blocks of the rest.
  const groups: number[][] = []
  for (let p = 0; p < single; p++) groups.push([p])
  for (let p = single; p < m; p += block) groups.push(Array.from({ length: Math.min(block, m - p) }, (_, k) => p + k))
  const size = groups.length
  const cellOf = new Uint32Array(m)
  groups.forEach((g, c) => g.forEach((p) => (cellOf[p] = c)))
  const stats = new BlockStats(size * size)
  const row = new Float64Array(m)
  for (let p = 0; p < m; p++) {
    const i = order[p]
    for (let q = 0; q < m; q++) row[q] = matrix[i * m + order[q]]
    stats.addRow(row, cellOf[p] * size, cellOf)
  }
  const values = stats.mean(fourDecimals)
  const series = groups.map((g) => g.map((p) => order[p]))
  const labels = series.map((s) => (s.length === 1 ? names[s[0]] : `${names[s[0]]} … ${names[s[s.length - 1]]} (${s.length})`))
  // Blocks: each one's least and greatest r too, so the view can show either without a new run.
  const extremes = groups.some((g) => g.length > 1) ? { min: stats.least(fourDecimals), max: stats.greatest(fourDecimals) } : {}
  return { size, block, order: kind, values, ...extremes, labels, series }
}

/** Counts of the upper triangle's finite r in equal bins over [−1, 1]. */
export function histogramOf(matrix: Matrix, m: number, bins = HISTOGRAM_BINS): HistogramData {
  const counts = new Array<number>(bins).fill(0)
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      const r = matrix[i * m + j]
      if (r === r) counts[Math.min(bins - 1, Math.max(0, Math.floor(((r + 1) / 2) * bins)))]++
    }
  return { edges: Array.from({ length: bins + 1 }, (_, i) => -1 + (2 * i) / bins), counts }
}

/** Largest |a − b| over the upper triangle; Infinity where one is NaN and the other not. */
export function maxAbsDifference(a: Matrix, b: Matrix, m: number): number {
  let worst = 0
  for (let i = 0; i < m; i++)
    for (let j = i; j < m; j++) {
      const x = a[i * m + j]
      const y = b[i * m + j]
      if (x !== x || y !== y) {
        if ((x !== x) !== (y !== y)) return Infinity
        continue
      }
      const d = Math.abs(x - y)
      if (d > worst) worst = d
    }
  return worst
}
