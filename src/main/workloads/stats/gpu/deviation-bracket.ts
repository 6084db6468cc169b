// The deviation pass's bracket, computed on the host from the values pass's sorted sample.
//
// The deviations |s − median| of a sorted sample s fall, then rise: the part below the median read
// backwards and the rest read forwards are two sorted runs, merged in one sweep. The bracket is
// the deviations MARGIN sample ranks either side of the middle ones. Rounding is monotonic, so
// the x whose deviation is at most t form one interval around the median; the scan tests the key
// of x against two such intervals (deviation below the bracket / at most its top) and computes
// |x − median| only for the values inside.
import type { Precision } from '../../../../shared/workloads/stats/types'
import { type Key, f32ToKey, f64ToKey, keyToValue } from '../keys'
import { MARGIN } from './layout'

export interface DeviationBracket {
  /** Keys of the bracket's ends (deviation keys); both are the answers when `exact`. */
  lo: Key
  hi: Key
  exact: boolean
  /** x keys whose deviation lies below the bracket (empty when lo > hi). */
  inner: [Key, Key]
  /** x keys whose deviation lies below the bracket or inside it. */
  outer: [Key, Key]
}

const MIN_KEY = 0n
const MAX_KEY = (1n << 64n) - 1n

/**
 * The bracket of the middle deviations of a column of `n` values, from the `m` sorted sample keys
 * (pairs of words lo, hi) that the sample kernel drew from it (the whole column when m = n).
 */
export function deviationBracket(sample: Uint32Array, m: number, n: number, median: number, precision: Precision): DeviationBracket {
  const deviation = deviationOf(median, precision)
  const toKey = precision === 'f64' ? f64ToKey : f32ToKey
  const sorted = mergeDeviations(sampleValues(sample, m, precision), median, deviation)
  const ra = (n - 1) >> 1
  const rb = n >> 1
  let lo: Key = { hi: 0, lo: 0 }
  let hi: Key = { hi: 0xffffffff, lo: 0xffffffff }
  if (m === n) {
    lo = toKey(sorted[ra])
    hi = toKey(sorted[rb])
  } else {
    const qa = Math.min(Math.floor((ra * m) / n), m - 1)
    const qb = Math.min(Math.floor((rb * m) / n), m - 1)
    // An edge of the sample leaves that side of the bracket open.
    if (qa >= MARGIN) lo = toKey(sorted[qa - MARGIN])
    if (qb + MARGIN < m) hi = toKey(sorted[qb + MARGIN])
  }
  const edges = new Edges(median, precision, deviation)
  // Deviations are never −0, so a bracket starting at +0 has nothing below it.
  const inner: [Key, Key] = toBig(lo) <= toBig(toKey(0)) ? [fromBig(1n), fromBig(0n)] : edges.interval(keyToValue(lo, precision), true)
  const outer: [Key, Key] = isMaxKey(hi) ? [fromBig(MIN_KEY), fromBig(MAX_KEY)] : edges.interval(keyToValue(hi, precision), false)
  return { lo, hi, exact: m === n, inner, outer }
}

/** The values of the first m sample keys (the inverse of keys.ts's transform, in bulk). */
function sampleValues(sample: Uint32Array, m: number, precision: Precision): Float64Array | Float32Array {
  if (precision === 'f32') {
    const bits = new Uint32Array(m)
    for (let i = 0; i < m; i++) {
      const k = sample[2 * i + 1]
      bits[i] = k & 0x80000000 ? k ^ 0x80000000 : ~k
    }
    return new Float32Array(bits.buffer)
  }
  const bits = new Uint32Array(2 * m)
  for (let i = 0; i < m; i++) {
    const hi = sample[2 * i + 1]
    const negative = (hi & 0x80000000) === 0
    bits[2 * i] = negative ? ~sample[2 * i] : sample[2 * i]
    bits[2 * i + 1] = negative ? ~hi : hi ^ 0x80000000
  }
  return new Float64Array(bits.buffer)
}

/** |x − median| in the working precision. */
function deviationOf(median: number, precision: Precision): (x: number) => number {
  return precision === 'f64' ? (x) => Math.abs(x - median) : (x) => Math.abs(Math.fround(x - median))
}

/** The deviations of the sorted `x`, sorted: two monotonic runs merged. */
function mergeDeviations(x: Float64Array | Float32Array, median: number, deviation: (x: number) => number): Float64Array {
  let split = 0
  while (split < x.length && x[split] < median) split++
  const out = new Float64Array(x.length)
  let left = split - 1
  let right = split
  for (let i = 0; i < x.length; i++) {
    if (right >= x.length || (left >= 0 && deviation(x[left]) <= deviation(x[right]))) out[i] = deviation(x[left--])
    else out[i] = deviation(x[right++])
  }
  return out
}

/**
 * Intervals of x keys around the median where the deviation is below (or at most) a threshold t.
 * The deviation is monotonic on each side, so an edge lies within a few keys of median ∓ t: found
 * by stepping from there, or by bisection of all keys if that wanders.
 */
class Edges {
  private readonly toKey: (v: number) => Key
  /** One step between neighbouring values' keys (f32 keys live in the high word). */
  private readonly step: bigint
  private readonly center: bigint

  constructor(
    private readonly median: number,
    private readonly precision: Precision,
    private readonly deviation: (x: number) => number,
  ) {
    this.toKey = precision === 'f64' ? f64ToKey : f32ToKey
    this.step = precision === 'f64' ? 1n : 1n << 32n
    this.center = toBig(this.toKey(median))
  }

  /** [least, greatest] x key whose deviation is below t (`strict`) or at most t (t > 0 when strict). */
  interval(t: number, strict: boolean): [Key, Key] {
    const holds = (k: bigint) => {
      const d = this.deviation(keyToValue(fromBig(k), this.precision))
      return strict ? d < t : d <= t // false for NaN keys, beyond ±∞
    }
    const left = this.walk(holds, this.guess(this.median - t), -1n) ?? this.bisect(holds, true)
    const right = this.walk(holds, this.guess(this.median + t), 1n) ?? this.bisect(holds, false)
    // f32 data keys have a zero low word: the right edge takes every low word.
    return [fromBig(left), fromBig(this.step === 1n ? right : right | 0xffffffffn)]
  }

  private guess(x: number): bigint | undefined {
    const v = this.precision === 'f64' ? x : Math.fround(x)
    return Number.isFinite(v) ? toBig(this.toKey(v)) : undefined
  }

  /** From `start`, the last key holding when walking outwards (`dir`), within 64 steps. */
  private walk(holds: (k: bigint) => boolean, start: bigint | undefined, dir: bigint): bigint | undefined {
    if (start === undefined) return undefined
    const step = this.step * dir
    let k = start
    for (let i = 0; i < 64; i++) {
      const onSide = dir < 0n ? k <= this.center : k >= this.center
      if (!onSide) return undefined
      if (holds(k)) {
        const next = k + step
        if (next < MIN_KEY || next > MAX_KEY || !holds(next)) return k
        k = next
      } else {
        k -= step
      }
    }
    return undefined
  }

  /** The edge by bisection over every key between the median and the end of the key space. */
  private bisect(holds: (k: bigint) => boolean, left: boolean): bigint {
    let lo = left ? MIN_KEY : this.center
    let hi = left ? this.center : MAX_KEY
    while (lo < hi) {
      if (left) {
        const mid = lo + ((hi - lo) >> 1n)
        if (holds(mid)) hi = mid
        else lo = mid + 1n
      } else {
        const mid = hi - ((hi - lo) >> 1n)
        if (holds(mid)) lo = mid
        else hi = mid - 1n
      }
    }
    return lo
  }
}

function isMaxKey(k: Key): boolean {
  return k.hi >>> 0 === 0xffffffff && k.lo >>> 0 === 0xffffffff
}

function toBig(k: Key): bigint {
  return (BigInt(k.hi >>> 0) << 32n) | BigInt(k.lo >>> 0)
}

function fromBig(k: bigint): Key {
  return { hi: Number(k >> 32n), lo: Number(k & 0xffffffffn) }
}
