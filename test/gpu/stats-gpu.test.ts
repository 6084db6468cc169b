// The gpu statistics backend on the software adapter, against an independent sort-based
// reference and against referenceColumnStats: median and MAD bit for bit, CV within 1e-12 (f64).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BackendColumnStats, Precision } from '../../src/shared/workloads/stats/types'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { loadCsv } from '../../src/main/io/csv-loader'
import { GpuHeadStart, loaderThreadsBesideGpu } from '../../src/main/workloads/stats/gpu/head-start'
import { createStatsEngine } from '../../src/main/workloads/stats/stats-engine'
import { type GpuStatsEngine, createGpuStatsEngine } from '../../src/main/workloads/stats/gpu/gpu-engine'
import { fixedToNumber, scaledToNumber } from '../../src/main/workloads/stats/gpu/fixed-point'
import { PARAMS_WORDS } from '../../src/main/workloads/stats/gpu/layout'
import { referenceColumnStats } from '../../src/main/workloads/stats/reference'
import { column, csvColumns, fsum, normal, relDiff, rng, sortedMedian, sortReference } from '../helpers/stats-reference'

const acc = csvColumns('../shared/data/accelerometer/ACC_016_head.csv')

const SAMPLE = 2048 // sample size of shaders/stats/select.wgsl: longer columns go through the bracket

/** A column whose evenly spaced sample (n a multiple of SAMPLE) sees only values far from the rest. */
function misleadingSample(n: number, far: number): Float64Array {
  const step = n / SAMPLE
  return column(n, 21, (r, i) => (i % step === Math.floor(step / 2) ? far + r() : r() * 10 - 3))
}

const cases: Record<string, Float64Array> = {
  'one value': Float64Array.of(-3.25),
  'two values': Float64Array.of(7, -1.5),
  'three values with −0': Float64Array.of(2, 2, -0),
  'all equal': new Float64Array(3001).fill(4.5),
  'signed zeros': column(5000, 1, (r) => (r() < 0.5 ? -0 : 0) + (r() < 0.2 ? r() - 0.5 : 0)),
  'random doubles, wide exponents, both signs, odd': column(10007, 2, (r) => (r() - 0.5) * 10 ** Math.floor(r() * 60 - 30)),
  'random doubles, even': column(12000, 3, (r) => r() * 2 - 0.7),
  'integers with many ties (−128…127)': column(100003, 4, (r) => Math.floor(r() * 256) - 128),
  'integers with ties, even': column(6000, 5, (r) => Math.floor(normal(r) * 20) + 3),
  'two tied halves (the middle ranks part)': column(20000, 14, (_, i) => (i % 2 ? 1.5 : -2.75)),
  'not a multiple of the tile (2048) nor of 256': column(2048 * 3 + 255, 6, (r) => normal(r) * 3),
  'negative mean': column(15001, 10, (r) => -50 + normal(r) * 10),
  'mean near zero (CV ≈ 180)': (() => {
    const x = column(20000, 11, (r) => normal(r))
    const m = fsum(x) / x.length
    return x.map((v) => v - m + 1 / 180)
  })(),
  'mean near zero, negative (CV ≈ −180)': (() => {
    const x = column(9999, 16, (r) => normal(r) * 1e-3)
    const m = fsum(x) / x.length
    return x.map((v) => v - m - 1e-3 / 180)
  })(),
  'large offset (1e9 + small noise)': column(30001, 8, (r) => 1e9 + r()),
  'large offset doubles (1e12 + noise)': column(9999, 12, (r) => 1e12 + normal(r) * 1e3),
  'large-offset integers (ties at every level)': column(30001, 8, (r) => 1e9 + Math.floor(r() * 100)),
  'subnormals and tiny values': column(4099, 17, (r) => (r() - 0.5) * 2 ** -1070 + (r() < 0.3 ? 2 ** -1022 * r() : 0)),
  'heavy tails': column(10001, 13, (r) => normal(r) / (r() + 1e-9)),
  'large values that cancel (±1e20 and small integers)': column(6001, 22, (r, i) => (i % 3 === 0 ? 1e20 : i % 3 === 1 ? -1e20 : Math.floor(r() * 7) - 2)),
  'a misleading sample above the middle (selection over the whole column)': misleadingSample(SAMPLE * 5, 1e6),
  'a misleading sample below the middle': misleadingSample(SAMPLE * 3, -1e6),
  ...Object.fromEntries(Object.entries(acc).map(([name, x]) => [`ACC_016_head ${name}`, x])),
}

// ---- the engine ----

let engine: GpuStatsEngine

beforeAll(async () => {
  engine = await createGpuStatsEngine()
})

afterAll(async () => {
  await engine?.dispose()
  await resetGpu()
})

async function gpuStats(values: Float64Array, precision: Precision, lengths?: number[]): Promise<BackendColumnStats[]> {
  const column = await engine.prepare(values, precision)
  try {
    const out = []
    for (const length of lengths ?? [values.length]) out.push(await engine.compute(column, length))
    return out
  } finally {
    engine.release(column)
  }
}

function expectExactF64(got: BackendColumnStats, values: Float64Array, name: string): void {
  const sorted = sortReference(values, 'f64')
  const ref = referenceColumnStats(values, 'f64')
  expect([name, 'median', got.median]).toEqual([name, 'median', sorted.median])
  expect([name, 'mad', got.mad]).toEqual([name, 'mad', sorted.mad])
  expect([name, 'median', got.median]).toEqual([name, 'median', ref.median])
  expect([name, 'mad', got.mad]).toEqual([name, 'mad', ref.mad])
  for (const k of ['cv', 'mean', 'std'] as const) {
    expect([name, k, relDiff(got[k], sorted[k]) <= 1e-12]).toEqual([name, k, true])
    expect([name, k, relDiff(got[k], ref[k]) <= 1e-12]).toEqual([name, k, true])
  }
}

describe('f64: exact median and MAD, CV within 1e-12', () => {
  for (const [name, values] of Object.entries(cases)) {
    it(name, async () => {
      const [got] = await gpuStats(values, 'f64')
      expectExactF64(got, values, name)
    })
  }

  it('prefixes (compute(column, length))', async () => {
    const values = column(40000, 18, (r) => Math.round(normal(r) * 400) / 8 + 20)
    const lengths = [1, 2, 3, 1000, 2048, 2049, 4097, 12345, 39999, 40000]
    const got = await gpuStats(values, 'f64', lengths)
    lengths.forEach((len, i) => expectExactF64(got[i], values.subarray(0, len), `prefix ${len}`))
  })

  it('takes the bracket path on ordinary data and the whole-column path on a misleading sample', async () => {
    await gpuStats(column(20000, 19, (r) => normal(r)), 'f64')
    expect(engine.lastTrace!.median.compacted).toBe(true)
    expect(engine.lastTrace!.median.inside).toBeLessThan(20000 * 0.2)
    expect(engine.lastTrace!.mad.compacted).toBe(true)
    for (const far of [1e6, -1e6]) {
      await gpuStats(misleadingSample(SAMPLE * 5, far), 'f64')
      expect(engine.lastTrace!.median.compacted).toBe(false)
      expect(engine.lastTrace!.mad.compacted).toBe(false)
    }
  })
})

describe('f32: median and MAD equal the f32 reference', () => {
  const f32Cases = ['integers with many ties (−128…127)', 'random doubles, even', 'negative mean', 'large offset doubles (1e12 + noise)', 'subnormals and tiny values', 'two tied halves (the middle ranks part)', 'one value', 'ACC_016_head acc_x']
  for (const name of f32Cases) {
    it(name, async () => {
      const values = cases[name]
      const [got] = await gpuStats(values, 'f32')
      const ref = referenceColumnStats(values, 'f32')
      expect(got.median).toBe(ref.median)
      expect(got.mad).toBe(ref.mad)
      expect(Math.fround(got.median)).toBe(got.median)
      for (const k of ['mean', 'std', 'cv'] as const) expect([k, relDiff(got[k], ref[k]) < 1e-5]).toEqual([k, true])
    })
  }

  it('also the f32 sort-based reference, on prefixes', async () => {
    const values = column(9000, 20, (r) => normal(r) * 7 + 0.1)
    const lengths = [5, 2048, 2050, 9000]
    const got = await gpuStats(values, 'f32', lengths)
    lengths.forEach((len, i) => {
      const x = Float32Array.from(values.subarray(0, len))
      const median = sortedMedian(x.slice().sort(), 'f32')
      const mad = sortedMedian(x.map((v) => Math.abs(Math.fround(v - median))).sort(), 'f32')
      expect([len, got[i].median, got[i].mad]).toEqual([len, median, mad])
    })
  })
})

describe('the engine', () => {
  it('is what createStatsEngine returns for gpu', async () => {
    const e = await createStatsEngine('gpu', {})
    try {
      const values = cases['negative mean']
      const c = await e.prepare(values, 'f64')
      expectExactF64(await e.compute(c), values, 'via createStatsEngine')
      e.release(c)
    } finally {
      await e.dispose()
    }
  })

  it('takes columns in shared memory, as the CSV loader makes them', async () => {
    for (const n of [1001, 140_001]) {
      const values = new Float64Array(new SharedArrayBuffer(n * 8))
      values.set(column(n, 23, (r) => Math.floor(normal(r) * 30)))
      const [got] = await gpuStats(values, 'f64')
      expectExactF64(got, values, `shared, ${n} values`)
      const [got32] = await gpuStats(values, 'f32')
      expect(got32.mad).toBe(referenceColumnStats(values, 'f32').mad)
    }
  })

  it('computes several columns together (pipelined submits) exactly as one at a time', async () => {
    const names = ['negative mean', 'integers with many ties (−128…127)', 'one value', 'a misleading sample above the middle (selection over the whole column)', 'large offset doubles (1e12 + noise)']
    const f64 = await Promise.all(names.map((n) => engine.prepare(cases[n], 'f64')))
    const f32 = await engine.prepare(cases['random doubles, even'], 'f32')
    const empty = await engine.prepare(cases['two values'], 'f64')
    try {
      const columns = [...f64, f32, empty]
      const lengths = [...names.map((n) => cases[n].length), 2049, 0]
      const together = await engine.computeMany(columns, lengths)
      names.forEach((n, i) => expectExactF64(together[i], cases[n], `together: ${n}`))
      expect(together[names.length]).toEqual(await engine.compute(f32, 2049))
      expect(together[names.length + 1]).toMatchObject({ median: NaN, mad: NaN })
      // A column that fails (non-finite values) fails the compute, after the others' work has ended:
      // the engine then computes them as before.
      const bad = await engine.prepare(Float64Array.of(1, NaN, 3), 'f64')
      try {
        await expect(engine.computeMany([f64[0], bad, f64[1]])).rejects.toMatchObject({ code: 'invalid-input' })
        const again = await engine.computeMany([f64[0], f64[1]])
        expectExactF64(again[0], cases[names[0]], `after a failure: ${names[0]}`)
        expectExactF64(again[1], cases[names[1]], `after a failure: ${names[1]}`)
      } finally {
        engine.release(bad)
      }
      await expect(async () => engine.computeMany([f32, f32])).rejects.toThrow(/twice/)
      await expect(async () => engine.computeMany([f32], [1, 2])).rejects.toMatchObject({ code: 'invalid-argument' })
    } finally {
      for (const c of [...f64, f32, empty]) engine.release(c)
    }
  })

  it('streams a column while it grows: the same column as one upload, in f64 and f32', async () => {
    // Shared memory, as the CSV loader's columns are; several segments and a tail.
    const segment = 4096
    const streaming = await createGpuStatsEngine({ segmentValues: segment })
    const n = segment * 3 + 1234
    const values = new Float64Array(new SharedArrayBuffer(n * 8))
    values.set(column(n, 25, (r) => Math.round(normal(r) * 1e4) / 16 - 3))
    for (const precision of ['f64', 'f32'] as const) {
      const stream = streaming.stream(precision)
      for (const upTo of [1000, segment - 1, segment, segment * 2 + 7, segment * 3 + 5]) stream.grow(values.subarray(0, upTo))
      const streamed = await stream.finish(values)
      const whole = await streaming.prepare(values, precision)
      expect(streamed.n).toBe(n)
      const [a, b] = await streaming.computeMany([streamed, whole])
      expect(a).toEqual(b)
      if (precision === 'f64') expectExactF64(a, values, 'streamed')
      else expect(a.mad).toBe(referenceColumnStats(values, 'f32').mad)
    }
    // Small columns take the ordinary upload; a cancelled stream frees what it had sent.
    const c = await streaming.stream('f64').finish(Float64Array.of(3, 1, 2))
    expect(await streaming.compute(c)).toMatchObject({ median: 2, mad: 1 })
    const cancelled = streaming.stream('f64')
    cancelled.grow(values)
    await cancelled.cancel()
    await expect(cancelled.finish(values)).rejects.toMatchObject({ code: 'cancelled' })
    await streaming.dispose()
  })

  it('uploads a CSV file\'s columns while the loader reads it (the gpu backend\'s head start)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-head-start-'))
    try {
      const path = join(dir, 'acc.csv')
      const r = rng(26)
      const rows = Array.from({ length: 30000 }, (_, i) => `t${i},${Math.floor(normal(r) * 500) / 8},${(r() * 100).toFixed(3)}`)
      writeFileSync(path, `datetime,acc_x,acc_y\n${rows.join('\n')}\n`)
      const start = new GpuHeadStart(2, 'f64', { gpu: getGpu, signal: new AbortController().signal }, { segmentValues: 4096 })
      let grown = 0
      // As the job does: the device opens once the loader has begun, and the uploads follow.
      const table = await loadCsv(path, {
        columns: ['acc_x', 'acc_y'],
        threads: 2,
        rangeBytes: 20000,
        progress: () => start.loading(),
        placed: (p) => (grown++, start.grow(p)),
      })
      expect(grown).toBeGreaterThan(10)
      const values = [table.columns.acc_x.values, table.columns.acc_y.values]
      const { engine: e, columns } = await start.ready(values)
      const got = await e.computeMany(columns)
      got.forEach((g, i) => expectExactF64(g, values[i], `head start ${i}`))
      await start.cancel()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('leaves a quarter of 8 or more cores to the GPU side while the loader reads beside a head start', () => {
    expect([1, 2, 4, 7, 8, 16, 64].map((cores) => loaderThreadsBesideGpu(cores))).toEqual([1, 2, 4, 7, 6, 12, 48])
  })

  it('cancels with code cancelled', async () => {
    const controller = new AbortController()
    const e = await createGpuStatsEngine({ signal: controller.signal })
    try {
      const c = await e.prepare(cases['random doubles, even'], 'f64')
      controller.abort()
      await expect(e.compute(c)).rejects.toMatchObject({ code: 'cancelled' })
    } finally {
      await e.dispose()
    }
  })

  it('rejects bad lengths, foreign and released columns, and non-finite values', async () => {
    const values = Float64Array.of(1, 2, 3)
    const c = await engine.prepare(values, 'f64')
    await expect(async () => engine.compute(c, 4)).rejects.toMatchObject({ code: 'invalid-argument' })
    expect(await engine.compute(c, 0)).toMatchObject({ median: NaN, mad: NaN })
    engine.release(c)
    await expect(async () => engine.compute(c)).rejects.toThrow(/released/)
    for (const values of [Float64Array.of(1, NaN, 3), column(5000, 24, (_, i) => (i === 4321 ? -Infinity : i))]) {
      const bad = await engine.prepare(values, 'f64')
      await expect(engine.compute(bad)).rejects.toMatchObject({ code: 'invalid-input' })
      engine.release(bad)
    }
  })
})

describe('the kernels\' integer arithmetic, bit for bit', () => {
  // A test kernel over the statistics module's precision part (which includes the common one).
  async function run(precision: Precision, code: string, input: Uint32Array, count: number): Promise<{ out: Uint32Array; wide: Uint32Array }> {
    const gpu = engine.gpu
    const kernel = await gpu.kernel({ label: `stats check (${precision})`, code: `#include "stats/${precision}"\n${code}` }, { entryPoint: 'check' })
    const data = await gpu.storage('check input', input)
    const params = gpu.uniform('check params', new Uint32Array(PARAMS_WORDS).fill(count, 0, 1))
    const out = await gpu.storage('check output', count * 8)
    const wide = await gpu.storage('check wide output', count * 16)
    await gpu.run('check', [kernel.dispatch(kernel.bind({ 0: data, 1: params, 3: wide, 4: out }), Math.ceil(count / 64))])
    const result = { out: await gpu.readU32(out), wide: await gpu.readU32(wide) }
    for (const b of [data, params, out, wide]) b.destroy()
    return result
  }

  /** Pairs that cross every branch: cancellation, far exponents, subnormals, ties, overflow. */
  function pairs(count: number): [number, number][] {
    const r = rng(30)
    const some = (): number => {
      const kind = r()
      if (kind < 0.1) return (r() - 0.5) * 2 ** -1060 // subnormal
      if (kind < 0.15) return (r() < 0.5 ? -1 : 1) * 1.7e308 * r()
      if (kind < 0.2) return Math.floor(r() * 9) - 4 // small integers, zeros
      return (r() - 0.5) * 2 ** Math.floor(r() * 200 - 100)
    }
    const out: [number, number][] = [[0, -0], [-0, -0], [1.7976931348623157e308, -1.7976931348623157e308], [1, 1 + 2 ** -52], [2 ** 53, -1], [1, -(2 ** -54)], [1, -(2 ** -53)], [1.5, -(2 ** -53)]]
    while (out.length < count) {
      const a = some()
      const kind = r()
      // Near neighbours of a (cancellation), or an unrelated value.
      const b = kind < 0.3 ? a * (1 + (r() - 0.5) * 2 ** -Math.floor(r() * 52)) : kind < 0.4 ? -a * (1 + r() * 2 ** -40) : some()
      out.push([a, b])
    }
    return out
  }

  it('|a − b| of doubles equals Math.abs(a - b), and m² is exact', async () => {
    const ps = pairs(20000)
    const input = new Uint32Array(new Float64Array(ps.flat()).buffer)
    const kernel = `
@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if i >= params.n { return; }
  candidates[i] = absdiff_f64(data[2u * i], data[2u * i + 1u]);
  partials[i] = square53(unpack_f64(data[2u * i]).m);
}`
    const { out, wide } = await run('f64', kernel, input, ps.length)
    const got = new Float64Array(out.buffer)
    const bad = ps.filter(([a, b], i) => !Object.is(got[i], Math.abs(a - b))).slice(0, 3)
    expect(bad).toEqual([])
    const words = new Float64Array(1)
    const w = new Uint32Array(words.buffer)
    ps.forEach(([a], i) => {
      words[0] = a
      const e = (w[1] >>> 20) & 0x7ff
      const m = (BigInt(w[1] & 0xfffff | (e ? 0x100000 : 0)) << 32n) | BigInt(w[0])
      const sq = [0, 1, 2, 3].reduce((acc, k) => acc | (BigInt(wide[4 * i + k]) << BigInt(32 * k)), 0n)
      if (sq !== m * m) expect([a, sq.toString(16)]).toEqual([a, (m * m).toString(16)])
    })
  })

  it('|a − b| of floats equals Math.abs(Math.fround(a - b)), subnormals included', async () => {
    // A third moved down to f32's subnormal range; those beyond f32's range left out.
    const ps = pairs(20000)
      .map(([a, b], i) => (i % 3 ? [Math.fround(a), Math.fround(b)] : [Math.fround(a * 2 ** -120), Math.fround(b * 2 ** -120)]) as [number, number])
      .filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b))
    expect(ps.filter(([a]) => a !== 0 && Math.abs(a) < 2 ** -126).length).toBeGreaterThan(500)
    ps.push([2 ** -149, -(2 ** -149)], [3 * 2 ** -149, 2 ** -126], [3.4e38, -3.4e38], [1, -(2 ** -25)], [1, -(2 ** -24)])
    const input = new Uint32Array(new Float32Array(ps.flat()).buffer)
    const kernel = `
@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if i >= params.n { return; }
  candidates[i] = vec2<u32>(absdiff_f32(data[2u * i], data[2u * i + 1u]), 0u);
  partials[i] = vec4<u32>(0u); // binds the same buffers as the f64 check
}`
    const { out } = await run('f32', kernel, input, ps.length)
    const got = new Float32Array(out.buffer)
    const bad = ps.filter(([a, b], i) => !Object.is(got[2 * i], Math.abs(Math.fround(a - b)))).slice(0, 3)
    expect(bad).toEqual([])
  })
})

describe('fixed-point sums to doubles', () => {
  it('rounds once, to nearest even, subnormals and overflow included', () => {
    expect(fixedToNumber([3, 0, 0, 0], -1)).toBe(1.5)
    expect(fixedToNumber([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], 7)).toBe(-128)
    // 2^53 + 1 is a tie: to even (2^53); 2^53 + 3 rounds up.
    expect(scaledToNumber(2n ** 53n + 1n, 0)).toBe(2 ** 53)
    expect(scaledToNumber(2n ** 53n + 3n, 0)).toBe(2 ** 53 + 4)
    expect(scaledToNumber(-(2n ** 100n + 1n), -1100)).toBe(-(2 ** -1000))
    // Subnormal: 3 · 2^-1076 = 0.75 · 2^-1074 rounds to 2^-1074; 2^-1075 is a tie to 0.
    expect(scaledToNumber(3n, -1076)).toBe(2 ** -1074)
    expect(scaledToNumber(1n, -1075)).toBe(0)
    expect(scaledToNumber(5n, -1075)).toBe(2 * 2 ** -1074)
    expect(scaledToNumber(1n, 1024)).toBe(Infinity)
    expect(scaledToNumber(2n ** 120n, 904)).toBe(Infinity)
    expect(scaledToNumber(2n ** 53n - 1n, 971)).toBe(Number.MAX_VALUE)
  })
})

