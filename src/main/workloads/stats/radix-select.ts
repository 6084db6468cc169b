// Exact selection of order statistics by radix histograms, without sorting the data.
//
// The data lives wherever it is computed (one thread, worker slices, GPU workgroups); a
// RadixSource counts, per pass, the 16-bit digit at one level of the keys that match a prefix,
// summed over every part of the data. The driver keeps, for each wanted rank, the prefix of the
// bucket holding it and the rank inside that bucket, one level deeper per pass. Once the buckets
// still in play hold few enough keys, one gather pass fetches those keys and the ranks are read
// from them directly. Ties cost nothing: a bucket of equal keys is simply complete.
import { DIGIT_BINS, type Key, matchesPrefix, withDigit } from './keys'

export interface RadixSource {
  /** 4 for 64-bit keys, 2 for 32-bit keys (held in `hi`). */
  readonly levels: number
  /**
   * Counts of digit `level` among keys whose bits above `level` equal `prefixes[p]`: one array of
   * DIGIT_BINS counts per prefix, summed over the whole data.
   */
  histogram(level: number, prefixes: readonly Key[]): Promise<ArrayLike<number>[]>
  /** Every key whose bits above `level` equal one of `prefixes`, in any order. */
  gather(level: number, prefixes: readonly Key[]): Promise<Key[]>
}

/** Buckets still holding at most this many keys (all wanted ranks together) are gathered. */
export const GATHER_LIMIT = 8192

interface Target {
  rank: number
  prefix: Key
  count: number
  key?: Key
}

/** Keys of the elements at 0-based `ranks` in ascending key order, among `n` keys. */
export async function radixSelect(source: RadixSource, n: number, ranks: readonly number[], gatherLimit = GATHER_LIMIT): Promise<Key[]> {
  for (const r of ranks) if (!(Number.isInteger(r) && r >= 0 && r < n)) throw new RangeError(`rank ${r} is outside 0…${n - 1}`)
  const targets: Target[] = ranks.map((rank) => ({ rank, prefix: { hi: 0, lo: 0 }, count: n }))
  for (let level = 0; level < source.levels; level++) {
    const active = targets.filter((t) => !t.key)
    if (active.length === 0) break
    const groups = distinctPrefixes(active)
    const held = groups.reduce((sum, g) => sum + active.find((t) => samePrefix(t.prefix, g))!.count, 0)
    if (held <= gatherLimit) {
      const keys = await source.gather(level, groups)
      for (const t of active) t.key = pickFromGathered(keys, t, level)
      break
    }
    const hists = await source.histogram(level, groups)
    for (const t of active) {
      const h = hists[groups.findIndex((g) => samePrefix(g, t.prefix))]
      let below = 0
      let digit = 0
      while (digit < DIGIT_BINS && below + h[digit] <= t.rank) below += h[digit++]
      if (digit === DIGIT_BINS) throw new Error(`radix select: level ${level} counts ${below} keys, fewer than rank ${t.rank} + 1`)
      t.rank -= below
      t.count = h[digit]
      t.prefix = withDigit(t.prefix, level, digit)
    }
  }
  // Keys that went through every level are their own prefix.
  return targets.map((t) => t.key ?? t.prefix)
}

function pickFromGathered(keys: readonly Key[], t: Target, level: number): Key {
  const mine = keys.filter((k) => matchesPrefix(k, t.prefix, level))
  if (mine.length !== t.count)
    throw new Error(`radix select: gathered ${mine.length} keys at level ${level}, the histogram promised ${t.count}`)
  // At most GATHER_LIMIT keys: sort them as unsigned 64-bit integers (little-endian word pairs).
  const words = new Uint32Array(2 * mine.length)
  mine.forEach((k, i) => {
    words[2 * i] = k.lo
    words[2 * i + 1] = k.hi
  })
  new BigUint64Array(words.buffer).sort()
  return { hi: words[2 * t.rank + 1], lo: words[2 * t.rank] }
}

function samePrefix(a: Key, b: Key): boolean {
  return a.hi === b.hi && a.lo === b.lo
}

function distinctPrefixes(targets: readonly Target[]): Key[] {
  const out: Key[] = []
  for (const t of targets) if (!out.some((p) => samePrefix(p, t.prefix))) out.push(t.prefix)
  return out
}

/** Sums per-part histograms (e.g. per worker or per workgroup), `prefixes` arrays of DIGIT_BINS each. */
export function sumHistograms(parts: readonly ArrayLike<number>[][], prefixes: number): Float64Array[] {
  const out = Array.from({ length: prefixes }, () => new Float64Array(DIGIT_BINS))
  for (const part of parts)
    for (let p = 0; p < prefixes; p++) {
      const src = part[p]
      const dst = out[p]
      for (let b = 0; b < DIGIT_BINS; b++) dst[b] += src[b]
    }
  return out
}
