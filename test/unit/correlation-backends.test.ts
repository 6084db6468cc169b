// Every CPU backend of the correlation workload against Pearson's formula (exact sums), in f64 and
// f32, on sizes that cross the tiles (64 series), the cache blocks (256 samples in TypeScript, 256
// f64 or 512 f32 in WebAssembly), the row padding (4) and the SIMD lanes; with a constant series, a
// negative and an identical pair. The SIMD backends run the relaxed-SIMD kernels, as the CLI does
// (correlation-wasm-builds.test.ts checks both builds). Run `npm run build` first: the workers and
// the SIMD kernels load from out/.
import { describe, expect, it } from 'vitest'
import type { Precision } from '../../src/shared/workloads/correlation/types'
import { enableRelaxedSimd } from '../../src/main/relaxed-simd'
import { CPU_BACKENDS, createCpuCorrelationEngine } from '../../src/main/workloads/correlation/cpu-engine'
import { seriesMatrix, indexNames } from '../../src/main/workloads/correlation/series-matrix'
import { edgeSeries, maxAbsDiff, pearsonMatrix } from '../helpers/correlation-reference'

enableRelaxedSimd()

const SIZES: [number, number][] = [
  [2, 2],
  [3, 257],
  [65, 2],
  [65, 257],
  [130, 600],
  [9, 2100],
]

/** Each data set and its matrix from the formula, made once for every backend. */
const made = new Map<string, { values: Float64Array; want: Float64Array }>()
function dataSet(m: number, n: number, seed: number, constant: boolean) {
  const key = `${m} ${n} ${seed} ${constant}`
  let d = made.get(key)
  if (!d) {
    const values = edgeSeries(m, n, seed, { constant })
    d = { values, want: pearsonMatrix(values, m, n) }
    made.set(key, d)
  }
  return d
}

async function matrixOf(backend: (typeof CPU_BACKENDS)[number], values: Float64Array, m: number, n: number, precision: Precision, size?: { m: number; n: number }) {
  const engine = await createCpuCorrelationEngine(backend, seriesMatrix(indexNames(m), values, m, n), precision, { threads: 3 })
  try {
    const ms = await engine.run(size)
    expect(Object.keys(ms)).toEqual(['means', 'squares', 'cross', 'coefficients'])
    return Float64Array.from(engine.matrix())
  } finally {
    await engine.dispose()
  }
}

let prefixWant: Float64Array | undefined
/** The formula's matrix of the first 66 series' first 259 samples. */
function prefixReference(values: Float64Array, n: number): Float64Array {
  if (!prefixWant) {
    const prefix = new Float64Array(66 * 259)
    for (let i = 0; i < 66; i++) prefix.set(values.subarray(i * n, i * n + 259), i * 259)
    prefixWant = pearsonMatrix(prefix, 66, 259)
  }
  return prefixWant
}

describe.each(CPU_BACKENDS)('%s', (backend) => {
  it.each(SIZES)('f64, %i series of %i samples: the formula to 1e-12, ±1 and NaN where they belong', async (m, n) => {
    const { values, want } = dataSet(m, n, m * 1000 + n, true)
    const got = await matrixOf(backend, values, m, n, 'f64')
    expect(maxAbsDiff(got, want)).toBeLessThanOrEqual(1e-12)
    // A negated and an identical copy: −1 and 1 up to the order of additions, never beyond.
    expect(got[m - 1]).toBeCloseTo(-1, 12)
    expect(got[m - 1]).toBeGreaterThanOrEqual(-1)
    if (m >= 4) expect(got[1 * m + 2]).toBeCloseTo(1, 12)
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) expect(Object.is(got[i * m + j], got[j * m + i]), `${i},${j}`).toBe(true)
    if (m >= 3) {
      const constant = m - 2
      expect(got[constant * m + constant]).toBeNaN()
      expect(got[constant * m]).toBeNaN()
      expect(got[0]).toBe(1)
    }
  })

  it.each([
    [65, 257],
    [9, 2100],
  ])('f32, %i series of %i samples: within 1e-4 of the formula', async (m, n) => {
    const { values, want } = dataSet(m, n, 5, true)
    const got = await matrixOf(backend, values, m, n, 'f32')
    const d = maxAbsDiff(got, want)
    expect(d).toBeGreaterThan(0) // f32 really rounds
    expect(d).toBeLessThan(1e-4)
  })

  it('runs on a prefix of the series and of their length', async () => {
    const [m, n] = [70, 300]
    const values = edgeSeries(m, n, 9)
    const got = await matrixOf(backend, values, m, n, 'f64', { m: 66, n: 259 })
    const want = prefixReference(values, n)
    const corner = new Float64Array(66 * 66)
    for (let i = 0; i < 66; i++) corner.set(got.subarray(i * m, i * m + 66), i * 66)
    expect(maxAbsDiff(corner, want)).toBeLessThanOrEqual(1e-12)
  })
})
