// The per-slice kernels every CPU backend runs, and the data they exchange. The same two kernels
// exist in plain TypeScript (js-kernels.ts) and in WebAssembly SIMD (simd/assembly/index.ts);
// a runner (slice-runner.ts) calls them on one thread or on a worker pool, one slice each.
import type { Precision } from '../../../shared/workloads/stats/types'

/** The scan counts integers x with |x| ≤ WINDOW_LIMIT, in bin x − WINDOW_LOW. */
export const WINDOW_LIMIT = 32767
export const WINDOW_LOW = -32768

/** Scratch per slice: 4 sub-histograms of 65536 u32 (counting scan, radix pass over 1 or 2 prefixes), or gathered keys. */
export const REGION_WORDS = 4 * 65536
export const REGION_BYTES = REGION_WORDS * 4
export const GATHER_CAPACITY = REGION_WORDS / 2

/** Where a column lives: a typed-array buffer (TypeScript kernels) or wasm linear memory. */
export type ColumnRef = { precision: Precision; length: number } & (
  | { where: 'buffer'; buffer: ArrayBufferLike; byteOffset: number }
  | { where: 'wasm'; ptr: number }
)

/**
 * A scan of one slice: its compensated sum (s + c). When every value is an integer of the window,
 * `fits`, the region holds the counts (first 65536 words) and min/max bound the counted values.
 */
export interface ScanPartial {
  s: number
  c: number
  min: number
  max: number
  fits: boolean
}

/** One radix pass (see radix-select.ts) over the keys of x, or of |x − center| when `absdev`. */
export interface PassSpec {
  gather: boolean
  level: number
  /** Prefixes as (hi, lo) pairs, 1 or 2 of them. */
  prefixes: number[]
  absdev: boolean
  center: number
  /** When set, the pass also sums (x − devMean)² over the slice. */
  devMean?: number
}

export interface PassPartial {
  /** Compensated Σ(x − devMean)² when asked for. */
  s: number
  c: number
  /** Keys gathered into the region as (lo, hi) word pairs. */
  gathered: number
}

export interface SliceKernels {
  /** Compensated sum and, if all values are integers of the window, their counts in `region`. */
  scan(column: ColumnRef, start: number, end: number, region: number): ScanPartial
  /** Histogram of prefix p at words [p·65536, (p + 1)·65536) of `region`, or gathered keys. */
  pass(column: ColumnRef, start: number, end: number, region: number, spec: PassSpec): PassPartial
}

export function bytesPerValue(precision: Precision): number {
  return precision === 'f64' ? 8 : 4
}
