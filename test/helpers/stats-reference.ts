// The independent reference the statistics tests check every backend against: a sort for the
// median and MAD, exact (Shewchuk) sums for mean and σ; and the test data generators.
import { readFileSync } from 'node:fs'
import type { BackendColumnStats, Precision } from '../../src/shared/workloads/stats/types'

/** Shewchuk's exact summation (Python's math.fsum): non-overlapping partials, rounded once at the end. */
export function fsum(xs: Iterable<number>): number {
  const partials: number[] = []
  for (let x of xs) {
    let i = 0
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
      const hi = x + y
      const lo = y - (hi - x)
      if (lo !== 0) partials[i++] = lo
      x = hi
    }
    partials.length = i
    partials.push(x)
  }
  let total = 0
  for (let i = partials.length - 1; i >= 0; i--) total += partials[i]
  return total
}

export function sortedMedian(sorted: Float64Array | Float32Array, precision: Precision): number {
  const n = sorted.length
  const mid = sorted.length >> 1
  if (n % 2 === 1) return sorted[mid]
  const m = (sorted[mid - 1] + sorted[mid]) / 2
  return precision === 'f64' ? m : Math.fround(m)
}

export function sortReference(values: Float64Array, precision: Precision): BackendColumnStats {
  const x = precision === 'f64' ? Float64Array.from(values) : Float32Array.from(values)
  const n = x.length
  const median = sortedMedian(x.slice().sort(), precision)
  const dev = x.map((v) => (precision === 'f64' ? Math.abs(v - median) : Math.abs(Math.fround(v - median))))
  const mad = sortedMedian(dev.sort(), precision)
  // f64 sums over values scaled by a power of two (exact) that brings the largest near 1: neither
  // Σx nor Σ(x − mean)² then overflows, nor do the squares of subnormal values vanish.
  let top = 0
  for (const v of x) top = Math.max(top, Math.abs(v))
  const h = precision === 'f64' && top > 0 && Number.isFinite(top) ? -Math.round(Math.log2(top) / 2) : 0
  const scale = (v: number, by: number) => v * 2 ** by * 2 ** by
  const scaled = Array.from(x, (v) => scale(v, h))
  const m = fsum(scaled) / n
  const mean = scale(m, -h)
  const std = scale(Math.sqrt(fsum(scaled.map((v) => (v - m) * (v - m))) / n), -h)
  return { mean, std, cv: std / mean, median, mad }
}

export function relDiff(a: number, b: number): number {
  if (Object.is(a, b) || a === b) return 0
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b))
}

export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())
}

export function column(n: number, seed: number, gen: (r: () => number, i: number) => number): Float64Array {
  const r = rng(seed)
  return Float64Array.from({ length: n }, (_, i) => gen(r, i))
}

export function csvColumns(path: string): Record<string, Float64Array> {
  const [header, ...rows] = readFileSync(path, 'utf8').trim().split('\n')
  const names = header.split(',')
  const out: Record<string, Float64Array> = {}
  names.forEach((name, c) => {
    if (name !== 'datetime') out[name] = Float64Array.from(rows, (row) => Number(row.split(',')[c]))
  })
  return out
}

