// The statistics of one column, the same algorithm on every CPU backend (only the runner differs):
//
//   1. scan: the counts of the values while all are small integers (their exact sum with them),
//      otherwise a compensated sum;
//   2a. small integers: median, MAD and Σ(x − mean)² from the counts — no further pass;
//   2b. otherwise: radix selection of the median (its first pass also sums (x − mean)²), then radix
//       selection of the median of |x − median|, computed on the fly.
import { ApiError } from '../../../shared/errors'
import type { BackendColumnStats, Precision } from '../../../shared/workloads/stats/types'
import { combineSums } from './compensated'
import { countedStats } from './counting'
import { wideRangeStats } from './wide-range'
import { finishStats, middleRanks, midpoint } from './definitions'
import { type ColumnRef, GATHER_CAPACITY, type PassPartial, WINDOW_LOW } from './slice-kernels'
import { DIGIT_BINS, type Key, keyLevels, keyToValue } from './keys'
import { type RadixSource, radixSelect } from './radix-select'
import { type SliceRunner, slicesFor } from './slice-runner'
import { maxOf, minOf } from '../../../shared/extent'

/**
 * `host` views the column's values (f64), for the wide-range sums when the fast ones leave the range
 * (wide-range.ts); `progress` hears of each pass over the column, as a fraction of the most it takes.
 */
export async function columnStats(
  slices: SliceRunner,
  column: ColumnRef,
  n: number,
  host: () => ArrayLike<number>,
  progress?: (fraction: number) => void,
): Promise<BackendColumnStats> {
  const precision = column.precision
  const round = precision === 'f64' ? (x: number) => x : Math.fround
  if (n === 0) return { mean: NaN, std: NaN, cv: NaN, median: NaN, mad: NaN }
  // The scan, then at most a pass per key level for the median and as many for the MAD.
  const runner = progress ? reportingPasses(slices, 1 + 2 * keyLevels(precision), progress) : slices

  const scans = await runner.scan(column, n)
  const mean = round(combineSums(scans, precision) / n)
  if (scans.every((s) => s.fits)) return countedStats(sumCounts(runner, scans), n, mean, precision)

  const values = new SliceRadixSource(runner, column, n, false, 0, mean)
  const median = await selectMedian(values, n, precision)
  const mad = await selectMedian(new SliceRadixSource(runner, column, n, true, median), n, precision)
  return wideRangeStats(finishStats(n, mean, values.deviation!, median, mad, precision), values.deviation!, host, precision)
}

async function selectMedian(source: RadixSource, n: number, precision: Precision): Promise<number> {
  const [a, b] = await radixSelect(source, n, middleRanks(n))
  return midpoint(keyToValue(a, precision), keyToValue(b, precision), precision)
}

/** The runner, telling `progress` after each of its passes over the column (of at most `passes`). */
function reportingPasses(runner: SliceRunner, passes: number, progress: (fraction: number) => void): SliceRunner {
  let done = 0
  const counted = async <T>(pass: Promise<T>): Promise<T> => {
    const out = await pass
    progress(Math.min(1, ++done / passes))
    return out
  }
  return {
    slices: runner.slices,
    scan: (column, n) => counted(runner.scan(column, n)),
    pass: (column, n, spec) => counted(runner.pass(column, n, spec)),
    region: (slice) => runner.region(slice),
    warm: () => runner.warm(),
  }
}

/** Sums the slices' window counts over the column's [min, max]. */
function sumCounts(runner: SliceRunner, scans: readonly { min: number; max: number }[]) {
  const min = minOf(scans.map((s) => s.min))
  const max = maxOf(scans.map((s) => s.max))
  const counts = new Float64Array(max - min + 1)
  scans.forEach((_, slice) => {
    const region = runner.region(slice)
    for (let v = min; v <= max; v++) counts[v - min] += region[v - WINDOW_LOW]
  })
  return { min, counts }
}

/** Keys of x (or of |x − center|) spread over the runner's slices. */
class SliceRadixSource implements RadixSource {
  readonly levels: number
  /** Σ(x − devMean)², once the first pass has run. */
  deviation?: number
  private devMean?: number

  constructor(
    private readonly runner: SliceRunner,
    private readonly column: ColumnRef,
    private readonly n: number,
    private readonly absdev: boolean,
    private readonly center: number,
    devMean?: number,
  ) {
    this.levels = keyLevels(column.precision)
    this.devMean = devMean
  }

  async histogram(level: number, prefixes: readonly Key[]): Promise<Int32Array[]> {
    const parts = await this.run(false, level, prefixes)
    const hists = prefixes.map(() => new Int32Array(DIGIT_BINS))
    parts.forEach((_, slice) => {
      const region = this.runner.region(slice)
      hists.forEach((h, p) => {
        const src = region.subarray(p * DIGIT_BINS, (p + 1) * DIGIT_BINS)
        for (let b = 0; b < DIGIT_BINS; b++) h[b] += src[b]
      })
    })
    return hists
  }

  async gather(level: number, prefixes: readonly Key[]): Promise<Key[]> {
    const parts = await this.run(true, level, prefixes)
    const keys: Key[] = []
    parts.forEach((part, slice) => {
      if (part.gathered > GATHER_CAPACITY)
        throw new ApiError('internal', `slice ${slice} gathered ${part.gathered} keys, beyond its capacity of ${GATHER_CAPACITY}`)
      const region = this.runner.region(slice)
      for (let i = 0; i < part.gathered; i++) keys.push({ hi: region[2 * i + 1] >>> 0, lo: region[2 * i] >>> 0 })
    })
    return keys
  }

  private async run(gather: boolean, level: number, prefixes: readonly Key[]): Promise<PassPartial[]> {
    const devMean = this.devMean
    this.devMean = undefined // the first pass reads every value: it carries the variance sum
    const spec = { gather, level, prefixes: prefixes.flatMap((p) => [p.hi, p.lo]), absdev: this.absdev, center: this.center, devMean }
    const parts = await this.runner.pass(this.column, this.n, spec)
    if (parts.length !== slicesFor(this.n, this.runner.slices)) throw new ApiError('internal', `expected one partial per slice, got ${parts.length}`)
    if (devMean !== undefined) this.deviation = combineSums(parts, this.column.precision)
    return parts
  }
}
