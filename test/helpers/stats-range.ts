// Columns at the ends of the f64 range, and their statistics computed exactly in Python
// (fractions.Fraction for sums and midpoints, decimal for the square root), each rounded once to
// f64 — an independent reference that cannot overflow or underflow.
import { execFileSync } from 'node:child_process'
import { expect } from 'vitest'
import type { BackendColumnStats } from '../../src/shared/workloads/stats/types'
import { column, normal } from './stats-reference'

const MAX = Number.MAX_VALUE
const TINY = Number.MIN_VALUE // 2^-1074

export const rangeCases: Record<string, Float64Array> = {
  '−MAX alone (ref_nc_test_netcdf4_4_0.nc /d1)': Float64Array.of(-MAX),
  '−MAX, MAX (/d2)': Float64Array.of(-MAX, MAX),
  'MAX, MAX (Σ overflows; numpy’s median is ∞)': Float64Array.of(MAX, MAX),
  '1.7e308 three times': Float64Array.of(1.7e308, 1.7e308, 1.5e308),
  'large pairs cancelling, a small remainder': Float64Array.of(MAX, MAX, -MAX, -MAX, 1e-10),
  '−MAX 1001 times': new Float64Array(1001).fill(-MAX),
  'random ±(1e307…MAX), odd': column(5001, 31, (r) => (r() < 0.5 ? -1 : 1) * (1e307 + r() * 1.6e308)),
  'random near 1e200 (squares overflow), even': column(4000, 32, (r) => 1e200 + normal(r) * 1e199),
  'random near 1e-200 (squares underflow)': column(3001, 33, (r) => 1e-200 * (1 + r())),
  'subnormals': column(3000, 34, (r) => TINY * Math.floor(r() * 1000)),
  'subnormals and −0': column(2001, 35, (r) => (r() < 0.3 ? -0 : -TINY * Math.floor(r() * 50))),
  'all magnitudes, both signs': column(6001, 36, (r) => (r() < 0.5 ? -1 : 1) * 2 ** Math.floor(r() * 2097 - 1074) * (1 + r())),
  'huge spread about a small median': column(4001, 37, (r, i) => (i % 3 === 0 ? (r() < 0.5 ? -1 : 1) * MAX * r() : r())),
}

const PYTHON = `
import sys, json, math
from fractions import Fraction as F
from decimal import Decimal, getcontext
getcontext().prec = 60
def mid(a, b):
    if a == b: return a
    if math.isinf(a) or math.isinf(b): return (a + b) / 2
    return float((F(a) + F(b)) / 2)
def median(s):
    s = sorted(s); n = len(s)
    return mid(s[(n - 1) // 2], s[n // 2])
def stats(x):
    n = len(x)
    mean = float(sum(F(v) for v in x) / n)
    sq = sum((F(v) - F(mean)) ** 2 for v in x) / n
    std = float((Decimal(sq.numerator) / Decimal(sq.denominator)).sqrt()) if sq else 0.0
    med = median(x)
    mad = median([abs(v - med) for v in x])  # deviations in f64, as defined
    return {'mean': repr(mean), 'std': repr(std), 'median': repr(med), 'mad': repr(mad)}
cases = json.load(sys.stdin)
print(json.dumps({k: stats([float(v) for v in xs]) for k, xs in cases.items()}))
`

/** The exact statistics of every case (f64 values passed as their shortest round-trip decimal). */
export function exactStats(cases: Record<string, Float64Array>): Record<string, BackendColumnStats> {
  const input = JSON.stringify(Object.fromEntries(Object.entries(cases).map(([k, x]) => [k, Array.from(x, (v) => (Object.is(v, -0) ? '-0.0' : String(v)))])))
  const out = JSON.parse(execFileSync('/usr/bin/python3', ['-c', PYTHON], { input, encoding: 'utf8', maxBuffer: 1 << 26 })) as Record<string, Record<string, string>>
  return Object.fromEntries(
    Object.entries(out).map(([k, s]) => {
      const num = (t: string) => (t === 'inf' ? Infinity : t === '-inf' ? -Infinity : t === 'nan' ? NaN : Number(t))
      const std = num(s.std)
      const mean = num(s.mean)
      return [k, { mean, std, cv: std / mean, median: num(s.median), mad: num(s.mad) }]
    }),
  )
}

/** Mean, std and CV within 1e-12 relative (or both 0), median and MAD bit for bit. */
export function expectRangeStats(got: BackendColumnStats, want: BackendColumnStats): void {
  for (const k of ['mean', 'std', 'cv'] as const) {
    const [g, w] = [got[k], want[k]]
    if (Number.isFinite(w) && w !== 0) expect(Math.abs(g - w) / Math.abs(w), `${k}: ${g} vs ${w}`).toBeLessThanOrEqual(1e-12)
    else if (w === 0) expect(Math.abs(g), `${k}: ${g} vs 0`).toBeLessThanOrEqual(Number.MIN_VALUE * 4)
    else expect(g, k).toBe(w)
  }
  expect(got.median, 'median').toBe(want.median)
  expect(got.mad, 'mad').toBe(want.mad)
}
