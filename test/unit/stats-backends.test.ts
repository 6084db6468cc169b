// Every CPU statistics backend against an independent sort-based reference (run `npm run build`
// first: the workers and the SIMD kernels load from out/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Precision } from '../../src/shared/workloads/stats/types'
import {
  CPU_STATS_BACKENDS,
  type CpuStatsBackend,
  type CpuStatsEngine,
  computeColumnStats,
  createCpuStatsEngine,
  referenceColumnStats,
} from '../../src/main/workloads/stats/cpu'
import { WasmHeap } from '../../src/main/workloads/stats/simd/wasm-module'
import { fsum, sortedMedian, sortReference, relDiff, rng, normal, column, csvColumns } from '../helpers/stats-reference'

const acc = csvColumns('../shared/data/accelerometer/ACC_016_head.csv')

const cases: Record<string, Float64Array> = {
  'one value': Float64Array.of(-3.25),
  'two values': Float64Array.of(7, -1.5),
  'three values': Float64Array.of(2, 2, -0),
  'all equal': new Float64Array(1001).fill(4.5),
  'all equal integers': new Float64Array(999).fill(-7),
  'signed zeros': column(33, 1, (r) => (r() < 0.5 ? -0 : 0) + (r() < 0.2 ? r() - 0.5 : 0)),
  'integers with a −0 median': Float64Array.of(-1, -0, 0, -0, 1, -0, 2, -3, -0),
  'two tied halves (middle ranks part at once)': column(20000, 14, (_, i) => (i % 2 ? 1.5 : -2.75)),
  'random doubles, odd': column(10007, 2, (r) => r() * 2 - 0.7),
  'random doubles, even': column(12000, 3, (r) => (r() - 0.5) * 10 ** Math.floor(r() * 12 - 6)),
  'integers with ties': column(100003, 4, (r) => Math.floor(r() * 256) - 128),
  'integers with ties, even, small': column(998, 5, (r) => Math.floor(normal(r) * 20) + 3),
  'integers at the counting window edges': column(20001, 6, (r) => (r() < 0.5 ? -32767 + Math.floor(r() * 3) : 32767 - Math.floor(r() * 3))),
  'integers down to −32768': column(2001, 15, (r) => (r() < 0.01 ? -32768 : Math.floor(r() * 100))),
  'integers just outside the window': column(20002, 7, (r) => Math.floor(r() * 200) + 32700),
  'large-offset integers (ties, every radix level)': column(30001, 8, (r) => 1e9 + Math.floor(r() * 100)),
  'decimal ties (every radix level)': column(30000, 9, (r) => Math.floor(r() * 50) / 10 - 2),
  'negative mean': column(15001, 10, (r) => -50 + normal(r) * 10),
  'mean near zero (CV ≈ 180)': (() => {
    const x = column(20000, 11, (r) => normal(r))
    const m = fsum(x) / x.length
    return x.map((v) => v - m + 1 / 180)
  })(),
  'large offset doubles': column(9999, 12, (r) => 1e12 + normal(r) * 1e3),
  'heavy tails': column(10001, 13, (r) => normal(r) / (r() + 1e-9)),
  ...Object.fromEntries(Object.entries(acc).map(([name, x]) => [`ACC_016_head ${name}`, x])),
}

// ---- engines ----

const engines = {} as Record<CpuStatsBackend, CpuStatsEngine>

beforeAll(async () => {
  for (const backend of CPU_STATS_BACKENDS) engines[backend] = await createCpuStatsEngine(backend, { threads: 3 })
})

afterAll(async () => {
  for (const engine of Object.values(engines)) await engine.dispose()
})

async function compute(backend: CpuStatsBackend, values: Float64Array, precision: Precision, length?: number) {
  const engine = engines[backend]
  const column = await engine.prepare(values, precision)
  try {
    return await engine.compute(column, length)
  } finally {
    engine.release(column)
  }
}

describe.each(Object.keys(cases))('%s', (name) => {
  const values = cases[name]
  const f64 = sortReference(values, 'f64')
  const f32 = sortReference(values, 'f32')

  it.each([...CPU_STATS_BACKENDS, 'reference'])('%s in f64 matches the sort-based reference', async (backend) => {
    const got = backend === 'reference' ? referenceColumnStats(values) : await compute(backend as CpuStatsBackend, values, 'f64')
    expect(got.median).toBe(f64.median)
    expect(got.mad).toBe(f64.mad)
    expect(relDiff(got.mean, f64.mean)).toBeLessThanOrEqual(1e-15)
    expect(relDiff(got.std, f64.std)).toBeLessThanOrEqual(1e-14)
    expect(relDiff(got.cv, f64.cv)).toBeLessThanOrEqual(1e-12)
  })

  it.each([...CPU_STATS_BACKENDS, 'reference'])('%s in f32 selects the f32 median and MAD', async (backend) => {
    const got = backend === 'reference' ? referenceColumnStats(values, 'f32') : await compute(backend as CpuStatsBackend, values, 'f32')
    expect(got.median).toBe(f32.median)
    expect(got.mad).toBe(f32.mad)
    for (const v of [got.mean, got.std, got.cv]) expect(Math.fround(v)).toBe(v)
    // f32 sums drift from the exact statistics of the f32 data by about the f32 epsilon times the
    // cancellation; the f32 mean's own error enters σ squared (large offsets lose σ entirely).
    const rounded = Float32Array.from(values)
    const cancellation = fsum(Array.from(rounded, Math.abs)) / Math.abs(fsum(rounded)) || 1
    const meanTol = 1e-6 * cancellation
    const stdTol = 1e-5 + 4 * ((1.2e-7 * Math.abs(f32.mean)) / f32.std) ** 2
    expect(relDiff(got.mean, f32.mean)).toBeLessThanOrEqual(meanTol)
    expect(relDiff(got.std, f32.std)).toBeLessThanOrEqual(stdTol)
    expect(relDiff(got.cv, f32.cv)).toBeLessThanOrEqual(meanTol + stdTol)
    if (rounded.every((v, i) => v === values[i])) expect(relDiff(got.cv, f64.cv)).toBeLessThanOrEqual(meanTol + 1e-5)
  })
})

describe('prefixes and repeats', () => {
  const values = cases['negative mean']

  it.each(CPU_STATS_BACKENDS)('%s computes prefixes of one prepared column, repeatably', async (backend) => {
    const engine = engines[backend]
    const column = await engine.prepare(values, 'f64')
    for (const rows of [1, 2, 1000, 5001, values.length]) {
      const ref = sortReference(values.subarray(0, rows), 'f64')
      const got = await engine.compute(column, rows)
      expect(got.median).toBe(ref.median)
      expect(got.mad).toBe(ref.mad)
      expect(relDiff(got.cv, ref.cv)).toBeLessThanOrEqual(1e-12)
      expect(await engine.compute(column, rows)).toEqual(got)
    }
    engine.release(column)
    await expect(engine.compute(column)).rejects.toMatchObject({ code: 'invalid-argument' })
  })

  it.each(CPU_STATS_BACKENDS)('%s runs overlapping computations one after the other', async (backend) => {
    const engine = engines[backend]
    const names = ['random doubles, odd', 'integers with ties', 'decimal ties (every radix level)']
    const columns = await Promise.all(names.map((name) => engine.prepare(cases[name], 'f64')))
    const got = await Promise.all(columns.map((c) => engine.compute(c)))
    names.forEach((name, i) => {
      const ref = sortReference(cases[name], 'f64')
      expect(got[i].median).toBe(ref.median)
      expect(got[i].mad).toBe(ref.mad)
    })
    for (const c of columns) engine.release(c)
  })

  it.each(CPU_STATS_BACKENDS)('%s returns NaN statistics for an empty column', async (backend) => {
    const got = await compute(backend, new Float64Array(0), 'f64')
    expect(got).toEqual({ mean: NaN, std: NaN, cv: NaN, median: NaN, mad: NaN })
  })

  it('workers read a SharedArrayBuffer column in place and accept any length', async () => {
    const shared = new Float64Array(new SharedArrayBuffer(8 * values.length))
    shared.set(values)
    const got = await compute('workers', shared, 'f64')
    const ref = sortReference(values, 'f64')
    expect(got.median).toBe(ref.median)
    await expect(engines.workers.compute(await engines.workers.prepare(shared, 'f64'), values.length + 1)).rejects.toMatchObject({
      code: 'invalid-argument',
    })
  })

  it.each(['f64', 'f32'] as const)('workers-simd copies a %s column in shared memory (as the loader leaves it) over its threads, every value where the kernels read it', async (precision) => {
    // Mid-buffer and of odd length, so that no slice starts on the buffer's first value.
    const values = cases['random doubles, odd']
    const shared = new Float64Array(new SharedArrayBuffer(8 * (values.length + 3)), 8 * 3, values.length)
    shared.set(values)
    const got = await compute('workers-simd', shared, precision)
    const ref = sortReference(values, precision)
    expect(got.median).toBe(ref.median)
    expect(got.mad).toBe(ref.mad)
    // The same bits as from a column the main thread copies in (an ordinary Float64Array).
    expect(got).toEqual(await compute('workers-simd', values, precision))
  })
})

describe('one-off computation', () => {
  it.each(CPU_STATS_BACKENDS)('computeColumnStats on %s creates, uses and disposes an engine', async (backend) => {
    const values = cases['integers with ties, even, small']
    const ref = sortReference(values, 'f32')
    const got = await computeColumnStats(values, { backend, precision: 'f32', threads: 2 })
    expect(got.median).toBe(ref.median)
    expect(got.mad).toBe(ref.mad)
  })

  it('rejects a thread count that is not a positive integer', async () => {
    await expect(createCpuStatsEngine('workers', { threads: 0 })).rejects.toMatchObject({ code: 'invalid-argument' })
  })
})

describe('WasmHeap', () => {
  it('reuses released space and grows the memory only for new space', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1024, shared: true })
    const heap = new WasmHeap(memory, 1000)
    const a = heap.alloc(100_000)
    const b = heap.alloc(10)
    expect(a).toBe(1024)
    expect(b).toBeGreaterThanOrEqual(a + 100_000)
    expect(memory.buffer.byteLength).toBeGreaterThanOrEqual(b + 10)
    heap.release(a, 100_000)
    expect(heap.alloc(50_000)).toBe(a) // first fit in the freed block
    expect(heap.alloc(40_000)).toBe(a + 50_048) // from the rest of it (sizes round up to 64 bytes)
    const size = memory.buffer.byteLength
    heap.release(b, 10)
    expect(heap.alloc(10)).toBe(a + 90_048) // b and the free space below it merged back into the top
    expect(memory.buffer.byteLength).toBe(size)
    expect(() => heap.alloc(2 ** 32)).toThrow(/does not fit/)
  })
})

describe('cancellation', () => {
  // Doubles take the radix path: several passes, each a round trip to the workers.
  const values = column(1_000_000, 21, (r) => r())

  it.each(['workers', 'workers-simd'] as const)('aborting a %s run in flight rejects it as cancelled', async (backend) => {
    const controller = new AbortController()
    const engine = await createCpuStatsEngine(backend, { threads: 2, signal: controller.signal })
    try {
      const running = engine.prepare(values, 'f64').then((c) => engine.compute(c))
      await new Promise((resolve) => setImmediate(resolve)) // the first pass is with the workers
      controller.abort()
      await expect(running).rejects.toMatchObject({ code: 'cancelled' })
      await expect(engine.prepare(values, 'f64').then((c) => engine.compute(c))).rejects.toMatchObject({ code: 'cancelled' })
    } finally {
      await engine.dispose()
    }
  })

  it.each(['serial', 'simd'] as const)('aborting a %s run rejects it as cancelled', async (backend) => {
    const controller = new AbortController()
    const engine = await createCpuStatsEngine(backend, { signal: controller.signal })
    try {
      const running = engine.prepare(values, 'f64').then((c) => engine.compute(c))
      controller.abort()
      await expect(running).rejects.toMatchObject({ code: 'cancelled' })
    } finally {
      await engine.dispose()
    }
  })

  it('an engine is not created for an aborted signal', async () => {
    await expect(createCpuStatsEngine('workers', { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'cancelled' })
  })
})
