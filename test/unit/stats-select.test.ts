// The sort-free building blocks of the statistics: order-preserving keys, the radix select driver,
// statistics from integer counts. Checked against sorting.
import { describe, expect, it } from 'vitest'
import {
  DIGIT_BINS,
  type Key,
  compareKeys,
  f32ToKey,
  f64ToKey,
  keyDigit,
  keyToF32,
  keyToF64,
  matchesPrefix,
  wordsToKey,
} from '../../src/main/workloads/stats/keys'
import { type RadixSource, radixSelect, sumHistograms } from '../../src/main/workloads/stats/radix-select'
import { countedMad, countedMedian, countedSquaredDeviation } from '../../src/main/workloads/stats/counting'
import { rng } from '../helpers/stats-reference'

const special = [-Infinity, -Number.MAX_VALUE, -1e300, -1, -Number.MIN_VALUE, -0, 0, Number.MIN_VALUE, 2.2e-308, 1, 1 + 2 ** -52, 1e300, Number.MAX_VALUE, Infinity]

function randomDoubles(n: number, seed: number): Float64Array {
  const r = rng(seed)
  const words = new Uint32Array(2 * n)
  for (let i = 0; i < words.length; i++) words[i] = Math.floor(r() * 2 ** 32)
  // Random bit patterns cover every exponent; drop NaNs, which the loader never passes on.
  return new Float64Array(words.buffer).filter((x) => !Number.isNaN(x))
}

describe('order-preserving keys', () => {
  it('f64 keys sort like Float64Array.prototype.sort, −0 before +0, and invert exactly', () => {
    const values = new Float64Array([...special, ...randomDoubles(5000, 1)]).sort()
    const keys = Array.from(values, f64ToKey)
    for (let i = 1; i < keys.length; i++) {
      const c = compareKeys(keys[i - 1], keys[i])
      if (Object.is(values[i - 1], values[i])) expect(c).toBe(0)
      else expect(c).toBeLessThan(0)
    }
    for (let i = 0; i < values.length; i++) expect(keyToF64(keys[i])).toBe(values[i])
    expect(compareKeys(f64ToKey(-0), f64ToKey(0))).toBeLessThan(0)
  })

  it('f64 keys from little-endian words equal keys from values', () => {
    const values = new Float64Array([...special, ...randomDoubles(100, 2)])
    const words = new Uint32Array(values.buffer)
    values.forEach((x, i) => expect(wordsToKey(words[2 * i + 1], words[2 * i])).toEqual(f64ToKey(x)))
  })

  it('f32 keys sort like Float32Array.prototype.sort and invert exactly', () => {
    const values = Float32Array.from([...special, ...randomDoubles(3000, 3)]).sort()
    const keys = Array.from(values, f32ToKey)
    for (let i = 1; i < keys.length; i++) {
      expect(keys[i].lo).toBe(0)
      expect(compareKeys(keys[i - 1], keys[i])).toBeLessThanOrEqual(0)
      if (!Object.is(values[i - 1], values[i])) expect(compareKeys(keys[i - 1], keys[i])).toBeLessThan(0)
    }
    values.forEach((x, i) => expect(keyToF32(keys[i])).toBe(x))
  })
})

/** A RadixSource over keys in memory, split in `parts` like worker slices, recording its passes. */
class ArraySource implements RadixSource {
  readonly passes: string[] = []
  constructor(
    private readonly keys: Key[],
    readonly levels: number,
    private readonly parts = 3,
  ) {}

  async histogram(level: number, prefixes: readonly Key[]) {
    this.passes.push(`H${level}/${prefixes.length}`)
    const perPart = this.split().map((part) =>
      prefixes.map((p) => {
        const h = new Uint32Array(DIGIT_BINS)
        for (const k of part) if (matchesPrefix(k, p, level)) h[keyDigit(k, level)]++
        return h
      }),
    )
    return sumHistograms(perPart, prefixes.length)
  }

  async gather(level: number, prefixes: readonly Key[]) {
    this.passes.push(`G${level}/${prefixes.length}`)
    return this.keys.filter((k) => prefixes.some((p) => matchesPrefix(k, p, level)))
  }

  private split(): Key[][] {
    const size = Math.ceil(this.keys.length / this.parts)
    return Array.from({ length: this.parts }, (_, j) => this.keys.slice(j * size, (j + 1) * size))
  }
}

describe('radixSelect', () => {
  const datasets: Record<string, Float64Array> = {
    'random bit patterns': randomDoubles(3001, 4),
    'ties of decimals': Float64Array.from({ length: 4000 }, (_, i) => ((i * 7919) % 13) / 10 - 0.6),
    'two tied halves': Float64Array.from({ length: 1000 }, (_, i) => (i % 2 ? 1e9 + 0.5 : -3.25)),
    'signed zeros': Float64Array.from({ length: 101 }, (_, i) => (i % 3 ? -0 : i % 2 ? 0 : 1e-300)),
    'one value': Float64Array.of(42),
  }

  for (const [name, values] of Object.entries(datasets)) {
    const sorted = values.slice().sort()
    const n = values.length
    const ranks = [0, (n - 1) >> 1, n >> 1, n - 1]

    it.each([0, 1, 64, 1e9])(`${name}: f64 ranks with gather limit %d equal the sorted values`, async (limit) => {
      const source = new ArraySource(Array.from(values, f64ToKey), 4)
      const keys = await radixSelect(source, n, ranks, limit)
      expect(keys.map(keyToF64)).toEqual(ranks.map((r) => sorted[r]))
      keys.forEach((k, i) => expect(keyToF64(k)).toBe(sorted[ranks[i]]))
      expect(source.passes.length).toBeLessThanOrEqual(4)
      if (limit === 0) expect(source.passes.every((p) => p.startsWith('H'))).toBe(true)
    })

    it(`${name}: f32 ranks equal the sorted f32 values`, async () => {
      const f32 = Float32Array.from(values)
      const sorted32 = f32.slice().sort()
      const keys = await radixSelect(new ArraySource(Array.from(f32, f32ToKey), 2), n, ranks, 0)
      keys.forEach((k, i) => expect(keyToF32(k)).toBe(sorted32[ranks[i]]))
    })
  }

  it('follows two middle ranks in separate buckets in one pass', async () => {
    const source = new ArraySource(Array.from(datasets['two tied halves'], f64ToKey), 4)
    await radixSelect(source, 1000, [499, 500], 0)
    expect(source.passes).toEqual(['H0/1', 'H1/2', 'H2/2', 'H3/2'])
  })

  it('rejects ranks outside the data', async () => {
    await expect(radixSelect(new ArraySource([f64ToKey(1)], 4), 1, [1])).rejects.toThrow(/rank 1/)
  })
})

describe('statistics from integer counts', () => {
  function expand(min: number, counts: number[]): number[] {
    return counts.flatMap((c, i) => Array<number>(c).fill(min + i))
  }
  function sortedMedian(xs: number[]): number {
    const s = Float64Array.from(xs).sort()
    const m = s.length >> 1
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
  }

  it('median, MAD and Σ(x − mean)² equal those of the expanded values', () => {
    const r = rng(9)
    for (let trial = 0; trial < 200; trial++) {
      const min = Math.floor(r() * 200) - 150
      const counts = Array.from({ length: 1 + Math.floor(r() * 12) }, () => (r() < 0.3 ? 0 : Math.floor(r() * 5)))
      counts[0] ||= 1
      const xs = expand(min, counts)
      const n = xs.length
      const median = countedMedian({ min, counts }, n, 'f64')
      expect(median).toBe(sortedMedian(xs))
      expect(countedMad({ min, counts }, n, median, 'f64')).toBe(sortedMedian(xs.map((x) => Math.abs(x - median))))
      const mean = xs.reduce((a, b) => a + b, 0) / n
      const squares = xs.reduce((a, x) => a + (x - mean) ** 2, 0)
      expect(countedSquaredDeviation({ min, counts }, mean, 'f64')).toBeCloseTo(squares, 9)
    }
  })
})
