// The two builds of the correlation WebAssembly kernels: under Node with the flag the CLI sets, V8
// takes relaxed SIMD and the relaxed build (fused multiply-adds, 6 × 2 micro-kernel) is the one
// chosen; each build, run stage by stage on one thread with the cross-products cut into chunks that
// start inside a column of tiles, matches Pearson's formula (f64 to 1e-12, f32 to 1e-4). Run
// `npm run build:wasm` first.
import { describe, expect, it } from 'vitest'
import type { Precision } from '../../src/shared/workloads/correlation/types'
import { enableRelaxedSimd, relaxedSimd } from '../../src/main/relaxed-simd'
import { kernelsFor } from '../../src/main/workloads/correlation/cpu-engine'
import { rowChunks, tileChunks } from '../../src/main/workloads/correlation/cpu-layout'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { type CorrelationWasmBuild, correlationWasmBuild, loadCorrelationWasm, wasmWorkspace } from '../../src/main/workloads/correlation/simd/wasm-module'
import { edgeSeries, maxAbsDiff, pearsonMatrix } from '../helpers/correlation-reference'

enableRelaxedSimd()

async function matrixOf(build: CorrelationWasmBuild, values: Float64Array, m: number, n: number, precision: Precision): Promise<Float64Array> {
  const { constant } = seriesMatrix(indexNames(m), values, m, n)
  const ws = wasmWorkspace(await loadCorrelationWasm(build), values, m, n, precision, constant)
  const kernels = kernelsFor(ws)
  const size = { m, n }
  for (const [a, b] of rowChunks(m, 3)) kernels.means(size, a, b)
  for (const [a, b] of rowChunks(m, 3)) kernels.squares(size, a, b)
  for (const [a, b] of tileChunks(m, 7)) kernels.cross(size, a, b)
  kernels.coefficients(size, 0, m)
  const memory = ws.memory.buffer as ArrayBuffer
  return Float64Array.from(precision === 'f64' ? new Float64Array(memory, ws.ptr.c, m * m) : new Float32Array(memory, ws.ptr.c, m * m))
}

/** Each data set and its matrix from the formula, made once for both builds. */
const made = new Map<string, { values: Float64Array; want: Float64Array }>()
function dataSet(m: number, n: number) {
  const key = `${m} ${n}`
  if (!made.has(key)) {
    const values = edgeSeries(m, n, m + n, { constant: true })
    made.set(key, { values, want: pearsonMatrix(values, m, n) })
  }
  return made.get(key)!
}

it('chooses the relaxed build under Node once the flag is set', () => {
  expect(relaxedSimd()).toBe(true)
  expect(correlationWasmBuild()).toBe('relaxed')
})

describe.each(['relaxed', 'simd128'] as const)('the %s build', (build) => {
  // Last tiles of 3, 20 (6 + 6 + 4 + 4 rows), 2 and 8 rows; 1, 3, 6 and 10 tile pairs in 7 chunks.
  it.each([
    [3, 257],
    [84, 9],
    [130, 600],
    [200, 530],
  ])('f64, %i series of %i samples: the formula to 1e-12', async (m, n) => {
    const { values, want } = dataSet(m, n)
    expect(maxAbsDiff(await matrixOf(build, values, m, n, 'f64'), want)).toBeLessThanOrEqual(1e-12)
  })

  it('f32, 130 series of 600 samples: within 1e-4 of the formula', async () => {
    const { values, want } = dataSet(130, 600)
    const d = maxAbsDiff(await matrixOf(build, values, 130, 600, 'f32'), want)
    expect(d).toBeGreaterThan(0)
    expect(d).toBeLessThan(1e-4)
  })
})
