// Tile shapes of the register cross-product kernel (names, checks against limits, constants, the
// default's fallback) and the sampled check the benchmark applies to matrices too large for a full
// reference.
import { describe, expect, it } from 'vitest'
import type { Gpu } from '../../src/main/gpu/runtime'
import {
  DEFAULT_REGISTER_SHAPE,
  SWEEP_SHAPES,
  defaultRegisterShape,
  parseRegisterShape,
  shapeConstants,
  shapeName,
  shapeThreads,
  shapeUnavailable,
  shapeWorkgroupBytes,
} from '../../src/main/workloads/correlation/gpu/register-shapes'
import { sampledDeviation, samplePairs } from '../../src/main/workloads/correlation/sampled-deviation'
import { indexNames, seriesMatrix } from '../../src/main/workloads/correlation/series-matrix'
import { edgeSeries, pearsonMatrix } from '../helpers/correlation-reference'

/** An adapter as far as shapes care: its limits. */
function adapter(invocations: number, workgroupBytes: number): Gpu {
  return { limits: { maxComputeInvocationsPerWorkgroup: invocations, maxComputeWorkgroupSizeX: invocations, maxComputeWorkgroupSizeY: invocations, maxComputeWorkgroupStorageSize: workgroupBytes } } as unknown as Gpu
}
const H100 = adapter(1024, 49152)

describe('register shapes', () => {
  it('reads names and writes them back, the chunk shown only when not the default', () => {
    expect(parseRegisterShape('b128-t8x4-k16')).toEqual({ block: 128, tm: 8, tn: 4, bk: 16, chunk: 32 })
    expect(parseRegisterShape('b64-t4x4-k8-c128')).toEqual({ block: 64, tm: 4, tn: 4, bk: 8, chunk: 128 })
    expect(parseRegisterShape('b32-t4x4-k32').chunk).toBe(32)
    for (const name of [...SWEEP_SHAPES, ...Object.values(DEFAULT_REGISTER_SHAPE)]) expect(shapeName(parseRegisterShape(name))).toBe(name)
  })

  it.each([
    ['128x128', /not of the form/],
    ['b128-t16x8-k8', /must be 4 or 8/],
    ['b96-t8x8-k8', /block must be 32, 64 or 128/],
    ['b128-t8x8-k12', /samples per step/],
    ['b128-t8x8-k16-c24', /multiple of the samples per step/],
    ['b64-t8x8-k32', /64 invocations cannot load 64 rows × 32 samples/],
  ])('refuses %s', (name, why) => {
    expect(() => parseRegisterShape(name)).toThrow(why)
  })

  it('gives the kernel a square block: invocations × outputs per invocation on each side', () => {
    for (const name of SWEEP_SHAPES) {
      const s = parseRegisterShape(name)
      const c = shapeConstants(s)
      expect(c.WX * c.TN, name).toBe(s.block)
      expect(c.WY * c.TM, name).toBe(s.block)
      expect(c.CHUNK_STEPS * c.BK, name).toBe(s.chunk)
      expect(shapeThreads(s)).toEqual([c.WX, c.WY])
    }
  })

  it('checks invocations and workgroup memory against the adapter', () => {
    const wide = parseRegisterShape('b128-t8x4-k8') // 32 × 16 invocations
    expect(shapeUnavailable(H100, wide)).toBeNull()
    expect(shapeUnavailable(adapter(256, 32768), wide)).toMatch(/32 × 16 invocations exceed/)
    const deep = parseRegisterShape('b128-t8x8-k16')
    expect(shapeWorkgroupBytes(deep)).toBe(2 * 2 * 16 * 132 * 4)
    expect(shapeUnavailable(H100, deep)).toBeNull()
    expect(shapeUnavailable(adapter(1024, 32768), deep)).toMatch(/33792 bytes of workgroup memory exceed this adapter's 32768/)
    // Every shape of the sweep runs on the H100's limits.
    for (const name of SWEEP_SHAPES) expect(shapeUnavailable(H100, parseRegisterShape(name)), name).toBeNull()
  })

  it('falls back from the default to a shape the adapter can run', () => {
    for (const precision of ['f64', 'f32'] as const) expect(shapeName(defaultRegisterShape(H100, precision))).toBe(DEFAULT_REGISTER_SHAPE[precision])
    const small = adapter(128, 16384)
    const s = defaultRegisterShape(small, 'f64')
    expect(shapeUnavailable(small, s)).toBeNull()
    expect(() => defaultRegisterShape(adapter(16, 16384), 'f32')).toThrow(/needs workgroups this adapter does not offer/)
  })
})

describe('sampled deviation', () => {
  const m = 9
  const n = 50
  const values = edgeSeries(m, n, 5, { constant: true })
  const series = seriesMatrix(indexNames(m), values, m, n)
  const want = pearsonMatrix(values, m, n)

  it('draws pairs in the upper triangle, the corners always among them', () => {
    const pairs = samplePairs(m, 200, 3)
    expect(pairs).toHaveLength(204)
    expect(pairs).toContainEqual([m - 1, m - 1])
    expect(pairs).toContainEqual([0, m - 1])
    for (const [i, j] of pairs) expect(i <= j && j < m && i >= 0).toBe(true)
    expect(new Set(pairs.map(([i, j]) => i * m + j)).size).toBeGreaterThan(30)
    expect(samplePairs(m, 200, 3)).toEqual(pairs)
  })

  it('is 0 for the exact matrix, the size of an error placed on a sampled pair, NaN for a NaN misplaced', () => {
    const pairs = samplePairs(m, 200, 3)
    expect(sampledDeviation(series, want, pairs)).toBeLessThan(1e-14)
    const off = Float64Array.from(want)
    const [i, j] = pairs[10]
    off[i * m + j] += 1e-3
    expect(sampledDeviation(series, off, pairs)).toBeCloseTo(1e-3, 10)
    const c = m - 2 // the constant series
    const nan = Float64Array.from(want)
    nan[c * m + c] = 1
    expect(sampledDeviation(series, nan, [[c, c]])).toBeNaN()
    expect(sampledDeviation(series, want, [[c, c], [0, c]])).toBe(0)
  })
})
