// WebAssembly SIMD128 kernels of the accelerometer statistics, one call per slice of a column.
// They compute what src/main/workloads/stats/js-kernels.ts computes (same keys, counts and layouts; sums
// equal up to the order of compensated additions). The host (src/main/workloads/stats/simd/wasm-module.ts)
// lays out the shared memory: result blocks, one region per slice, columns.
//
// Region (1 MiB per slice):
//   scan:      4 sub-histograms of the integer window (bin = value − WINDOW_LOW), summed into the first
//   histogram: sub-histogram (s, prefix p) at word ((s · prefixes + p) << 16), summed into p << 16
//   gather:    matching keys as u64 (f32 keys in the high half)
// Result block (f64 slots): scan → sum, compensation, min, max, fits;  pass → dev sum, dev compensation, gathered.
//
// One file: it is one WebAssembly module (AssemblyScript compiles a module per entry file, see
// scripts/build-wasm.mjs), and its kernels share the region layout above.

const SUB_BYTES: usize = 65536 << 2
const REGION_BYTES: usize = 4 * SUB_BYTES
const GATHER_CAPACITY: i32 = <i32>(REGION_BYTES >> 3)
const WINDOW_LOW: i32 = -32768
// Counted values satisfy |x| ≤ WINDOW_LIMIT (−32768 itself takes the general path, for a cheap test).
const WINDOW_LIMIT: i32 = 32767
const SIGN64: u64 = 0x8000000000000000

// Lanes and tails fold into one running compensated total (TwoSum keeps each rounding error).
// f32 lanes fold every F32_BLOCK values: a compensated f32 sum over millions of terms fails once
// its compensation outgrows the terms, so blocks stay short and only block sums meet the total.
const F32_BLOCK: i32 = 4096
let totS: f64 = 0
let totC: f64 = 0
let totS32: f32 = 0
let totC32: f32 = 0

@inline function addTotal(x: f64): void {
  const t = totS + x
  const z = t - totS
  totC += (totS - (t - z)) + (x - z)
  totS = t
}

@inline function addTotal32(x: f32): void {
  const t = totS32 + x
  const z = t - totS32
  totC32 += (totS32 - (t - z)) + (x - z)
  totS32 = t
}

@inline function foldLanesF64(s: v128, c: v128): void {
  addTotal(f64x2.extract_lane(s, 0))
  totC += f64x2.extract_lane(c, 0)
  addTotal(f64x2.extract_lane(s, 1))
  totC += f64x2.extract_lane(c, 1)
}

@inline function foldLanesF32(s: v128, c: v128): void {
  addTotal32(f32x4.extract_lane(s, 0))
  totC32 += f32x4.extract_lane(c, 0)
  addTotal32(f32x4.extract_lane(s, 1))
  totC32 += f32x4.extract_lane(c, 1)
  addTotal32(f32x4.extract_lane(s, 2))
  totC32 += f32x4.extract_lane(c, 2)
  addTotal32(f32x4.extract_lane(s, 3))
  totC32 += f32x4.extract_lane(c, 3)
}

/** TwoSum of lanes: the new compensation of (s, c) + q; the caller then sets s = s + q. */
@inline function twoSumF64(s: v128, c: v128, q: v128): v128 {
  const t = f64x2.add(s, q), z = f64x2.sub(t, s)
  return f64x2.add(c, f64x2.add(f64x2.sub(s, f64x2.sub(t, z)), f64x2.sub(q, z)))
}

@inline function twoSumF32(s: v128, c: v128, q: v128): v128 {
  const t = f32x4.add(s, q), z = f32x4.sub(t, s)
  return f32x4.add(c, f32x4.add(f32x4.sub(s, f32x4.sub(t, z)), f32x4.sub(q, z)))
}

/** Base of the sub-histogram of prefix p that the j-th of four consecutive keys counts into. */
@inline function subBase(region: usize, j: usize, p: usize, prefixes: usize): usize {
  return region + (((j & (4 / prefixes - 1)) * prefixes + p) * SUB_BYTES)
}

/** Counts four keys given their prefix-match bits (bit j: key j) and their digits × 4. */
@inline function countFour(hit0: i32, hit1: i32, digits: v128, a0: usize, a1: usize, a2: usize, a3: usize, b0: usize, b1: usize, b2: usize, b3: usize): void {
  if (hit0 & 1) inc(a0 + <usize>i32x4.extract_lane(digits, 0))
  else if (hit1 & 1) inc(b0 + <usize>i32x4.extract_lane(digits, 0))
  if (hit0 & 2) inc(a1 + <usize>i32x4.extract_lane(digits, 1))
  else if (hit1 & 2) inc(b1 + <usize>i32x4.extract_lane(digits, 1))
  if (hit0 & 4) inc(a2 + <usize>i32x4.extract_lane(digits, 2))
  else if (hit1 & 4) inc(b2 + <usize>i32x4.extract_lane(digits, 2))
  if (hit0 & 8) inc(a3 + <usize>i32x4.extract_lane(digits, 3))
  else if (hit1 & 8) inc(b3 + <usize>i32x4.extract_lane(digits, 3))
}

@inline function inc(a: usize): void {
  store<u32>(a, load<u32>(a) + 1)
}

/**
 * Folds sub-histograms 1..3 into 0 over window bins [lo, hi] and returns Σ count·value, exact:
 * each product is below 2^47 and the total below 2^53 for any column of fewer than 2^38 values.
 */
function mergeWindow(hist: usize, lo: i32, hi: i32): f64 {
  let sum: f64 = 0
  for (let k = lo; k <= hi; k++) {
    const a = hist + (<usize>(k - WINDOW_LOW) << 2)
    const c = load<u32>(a) + load<u32>(a, SUB_BYTES) + load<u32>(a, 2 * SUB_BYTES) + load<u32>(a, 3 * SUB_BYTES)
    store<u32>(a, c)
    sum += <f64>c * <f64>k
  }
  return sum
}

/**
 * Lane mask of values that are integers in the window, given k = their truncation: the value
 * converted back must have the same bits (which also turns away −0, kept apart from +0 by selection).
 */
@inline function countableF64(x: v128, k: v128, limit: v128): v128 {
  return v128.and(i64x2.eq(x, f64x2.convert_low_i32x4_s(k)), f64x2.le(f64x2.abs(x), limit))
}

@inline function countableF32(x: v128, k: v128, limit: v128): v128 {
  return v128.and(i32x4.eq(x, f32x4.convert_i32x4_s(k)), f32x4.le(f32x4.abs(x), limit))
}

// Bins are addressed by the integer itself from a base biased by −4·WINDOW_LOW (u32 arithmetic wraps).
@inline function count(base: usize, k: i32): void {
  const a = base + (<usize>k << 2)
  store<u32>(a, load<u32>(a) + 1)
}

@inline function storeScan(out: usize, s: f64, c: f64, lo: f64, hi: f64, fits: bool): void {
  store<f64>(out, s)
  store<f64>(out, c, 8)
  store<f64>(out, lo, 16)
  store<f64>(out, hi, 24)
  store<f64>(out, fits ? 1 : 0, 32)
}

/**
 * While every value is an integer of the window, counts them (four interleaved sub-histograms,
 * so runs of equal values do not wait on one counter); their sum then comes exactly from the
 * counts. Otherwise a compensated sum over the slice. Result block: sum, compensation, min, max
 * (of the counts), fits.
 */
export function scanF64(ptr: usize, n: i32, hist: usize, out: usize): void {
  memory.fill(hist, 0, REGION_BYTES)
  const b0 = hist - (<usize>WINDOW_LOW << 2), b1 = b0 + SUB_BYTES, b2 = b1 + SUB_BYTES, b3 = b2 + SUB_BYTES
  const limit = f64x2.splat(<f64>WINDOW_LIMIT)
  let kmin = i32x4.splat(i32.MAX_VALUE), kmax = i32x4.splat(i32.MIN_VALUE)
  let fits = true
  const n8 = n & ~7
  let i = 0
  for (; i < n8; i += 8) {
    const p = ptr + (<usize>i << 3)
    const x0 = v128.load(p), x1 = v128.load(p, 16), x2 = v128.load(p, 32), x3 = v128.load(p, 48)
    const k0 = i32x4.trunc_sat_f64x2_s_zero(x0), k1 = i32x4.trunc_sat_f64x2_s_zero(x1)
    const k2 = i32x4.trunc_sat_f64x2_s_zero(x2), k3 = i32x4.trunc_sat_f64x2_s_zero(x3)
    const ok = v128.and(
      v128.and(countableF64(x0, k0, limit), countableF64(x1, k1, limit)),
      v128.and(countableF64(x2, k2, limit), countableF64(x3, k3, limit)),
    )
    if (!i64x2.all_true(ok)) {
      fits = false
      break
    }
    const ka = v128.shuffle<i32>(k0, k1, 0, 1, 4, 5), kb = v128.shuffle<i32>(k2, k3, 0, 1, 4, 5)
    kmin = i32x4.min_s(kmin, i32x4.min_s(ka, kb))
    kmax = i32x4.max_s(kmax, i32x4.max_s(ka, kb))
    count(b0, i32x4.extract_lane(ka, 0)); count(b1, i32x4.extract_lane(ka, 1))
    count(b2, i32x4.extract_lane(ka, 2)); count(b3, i32x4.extract_lane(ka, 3))
    count(b0, i32x4.extract_lane(kb, 0)); count(b1, i32x4.extract_lane(kb, 1))
    count(b2, i32x4.extract_lane(kb, 2)); count(b3, i32x4.extract_lane(kb, 3))
  }
  let lo = min(min(i32x4.extract_lane(kmin, 0), i32x4.extract_lane(kmin, 1)), min(i32x4.extract_lane(kmin, 2), i32x4.extract_lane(kmin, 3)))
  let hi = max(max(i32x4.extract_lane(kmax, 0), i32x4.extract_lane(kmax, 1)), max(i32x4.extract_lane(kmax, 2), i32x4.extract_lane(kmax, 3)))
  if (fits) {
    for (; i < n; i++) {
      const x = load<f64>(ptr + (<usize>i << 3))
      if (!(abs(x) <= <f64>WINDOW_LIMIT) || reinterpret<u64>(<f64>(<i32>x)) != reinterpret<u64>(x)) {
        fits = false
        break
      }
      const k = <i32>x
      count(b0, k)
      lo = min(lo, k)
      hi = max(hi, k)
    }
  }
  if (fits) {
    storeScan(out, lo <= hi ? mergeWindow(hist, lo, hi) : 0, 0, <f64>lo, <f64>hi, true)
    return
  }
  const zero = f64x2.splat(0)
  let s0 = zero, c0 = zero, s1 = zero, c1 = zero, s2 = zero, c2 = zero, s3 = zero, c3 = zero
  i = 0
  for (; i < n8; i += 8) {
    const p = ptr + (<usize>i << 3)
    const x0 = v128.load(p), x1 = v128.load(p, 16), x2 = v128.load(p, 32), x3 = v128.load(p, 48)
    c0 = twoSumF64(s0, c0, x0); s0 = f64x2.add(s0, x0)
    c1 = twoSumF64(s1, c1, x1); s1 = f64x2.add(s1, x1)
    c2 = twoSumF64(s2, c2, x2); s2 = f64x2.add(s2, x2)
    c3 = twoSumF64(s3, c3, x3); s3 = f64x2.add(s3, x3)
  }
  totS = 0
  totC = 0
  foldLanesF64(s0, c0)
  foldLanesF64(s1, c1)
  foldLanesF64(s2, c2)
  foldLanesF64(s3, c3)
  for (; i < n; i++) addTotal(load<f64>(ptr + (<usize>i << 3)))
  storeScan(out, totS, totC, NaN, NaN, false)
}

/** scanF64 on f32 values; the compensated sum is computed in f32. */
export function scanF32(ptr: usize, n: i32, hist: usize, out: usize): void {
  memory.fill(hist, 0, REGION_BYTES)
  const b0 = hist - (<usize>WINDOW_LOW << 2), b1 = b0 + SUB_BYTES, b2 = b1 + SUB_BYTES, b3 = b2 + SUB_BYTES
  const limit = f32x4.splat(<f32>WINDOW_LIMIT)
  let kmin = i32x4.splat(i32.MAX_VALUE), kmax = i32x4.splat(i32.MIN_VALUE)
  let fits = true
  const n16 = n & ~15
  let i = 0
  for (; i < n16; i += 16) {
    const p = ptr + (<usize>i << 2)
    const x0 = v128.load(p), x1 = v128.load(p, 16), x2 = v128.load(p, 32), x3 = v128.load(p, 48)
    const k0 = i32x4.trunc_sat_f32x4_s(x0), k1 = i32x4.trunc_sat_f32x4_s(x1)
    const k2 = i32x4.trunc_sat_f32x4_s(x2), k3 = i32x4.trunc_sat_f32x4_s(x3)
    const ok = v128.and(
      v128.and(countableF32(x0, k0, limit), countableF32(x1, k1, limit)),
      v128.and(countableF32(x2, k2, limit), countableF32(x3, k3, limit)),
    )
    if (!i32x4.all_true(ok)) {
      fits = false
      break
    }
    kmin = i32x4.min_s(kmin, i32x4.min_s(i32x4.min_s(k0, k1), i32x4.min_s(k2, k3)))
    kmax = i32x4.max_s(kmax, i32x4.max_s(i32x4.max_s(k0, k1), i32x4.max_s(k2, k3)))
    count(b0, i32x4.extract_lane(k0, 0)); count(b1, i32x4.extract_lane(k0, 1))
    count(b2, i32x4.extract_lane(k0, 2)); count(b3, i32x4.extract_lane(k0, 3))
    count(b0, i32x4.extract_lane(k1, 0)); count(b1, i32x4.extract_lane(k1, 1))
    count(b2, i32x4.extract_lane(k1, 2)); count(b3, i32x4.extract_lane(k1, 3))
    count(b0, i32x4.extract_lane(k2, 0)); count(b1, i32x4.extract_lane(k2, 1))
    count(b2, i32x4.extract_lane(k2, 2)); count(b3, i32x4.extract_lane(k2, 3))
    count(b0, i32x4.extract_lane(k3, 0)); count(b1, i32x4.extract_lane(k3, 1))
    count(b2, i32x4.extract_lane(k3, 2)); count(b3, i32x4.extract_lane(k3, 3))
  }
  let lo = min(min(i32x4.extract_lane(kmin, 0), i32x4.extract_lane(kmin, 1)), min(i32x4.extract_lane(kmin, 2), i32x4.extract_lane(kmin, 3)))
  let hi = max(max(i32x4.extract_lane(kmax, 0), i32x4.extract_lane(kmax, 1)), max(i32x4.extract_lane(kmax, 2), i32x4.extract_lane(kmax, 3)))
  if (fits) {
    for (; i < n; i++) {
      const x = load<f32>(ptr + (<usize>i << 2))
      if (!(abs(x) <= <f32>WINDOW_LIMIT) || reinterpret<u32>(<f32>(<i32>x)) != reinterpret<u32>(x)) {
        fits = false
        break
      }
      const k = <i32>x
      count(b0, k)
      lo = min(lo, k)
      hi = max(hi, k)
    }
  }
  if (fits) {
    storeScan(out, lo <= hi ? mergeWindow(hist, lo, hi) : 0, 0, <f64>lo, <f64>hi, true)
    return
  }
  const zero = f32x4.splat(0)
  totS32 = 0
  totC32 = 0
  for (let b = 0; b < n16; b += F32_BLOCK) {
    const e = min(b + F32_BLOCK, n16)
    let s0 = zero, c0 = zero, s1 = zero, c1 = zero, s2 = zero, c2 = zero, s3 = zero, c3 = zero
    for (i = b; i < e; i += 16) {
      const p = ptr + (<usize>i << 2)
      const x0 = v128.load(p), x1 = v128.load(p, 16), x2 = v128.load(p, 32), x3 = v128.load(p, 48)
      c0 = twoSumF32(s0, c0, x0); s0 = f32x4.add(s0, x0)
      c1 = twoSumF32(s1, c1, x1); s1 = f32x4.add(s1, x1)
      c2 = twoSumF32(s2, c2, x2); s2 = f32x4.add(s2, x2)
      c3 = twoSumF32(s3, c3, x3); s3 = f32x4.add(s3, x3)
    }
    foldLanesF32(s0, c0)
    foldLanesF32(s1, c1)
    foldLanesF32(s2, c2)
    foldLanesF32(s3, c3)
  }
  for (i = n16; i < n; i++) addTotal32(load<f32>(ptr + (<usize>i << 2)))
  storeScan(out, <f64>totS32, <f64>totC32, NaN, NaN, false)
}

// ---- radix passes: histogram of one 16-bit digit, or gather of whole keys, under a prefix ----
//
// Tied digits (level 0 of most data: a few exponents) hit one counter over and over; spreading
// consecutive keys over `subs` sub-histograms per prefix (4 for one prefix, 2 for two) breaks the
// store-to-load chains. Sub-histogram (s, p) lives at word ((s · prefixes + p) << 16).

let gathered: i32 = 0

/** Counts (or gathers) one key in sub-histogram `sub` of the prefix it matches, if any. */
@inline function visit(k: u64, sub: usize, region: usize, gather: bool, mask: u64, shift: u64, p0: u64, p1: u64, prefixes: usize): void {
  const m = k & mask
  const p: usize = m == p0 ? 0 : m == p1 ? 1 : 2
  if (p == 2) return
  if (gather) {
    if (gathered < GATHER_CAPACITY) store<u64>(region + (<usize>gathered << 3), k)
    gathered++
  } else {
    const a = region + ((sub * prefixes + p) * SUB_BYTES) + (<usize>((k >> shift) & 0xffff) << 2)
    store<u32>(a, load<u32>(a) + 1)
  }
}

/** Sums each prefix's sub-histograms into its first. */
function mergeSubs(region: usize, prefixes: usize): void {
  const subs: usize = 4 / prefixes
  for (let p: usize = 0; p < prefixes; p++) {
    const a = region + p * SUB_BYTES
    for (let s: usize = 1; s < subs; s++) {
      const b = region + (s * prefixes + p) * SUB_BYTES
      for (let j: usize = 0; j < SUB_BYTES; j += 16) v128.store(a + j, i32x4.add(v128.load(a + j), v128.load(b + j)))
    }
  }
}

@inline function levelMask(level: i32): u64 {
  return level == 0 ? 0 : ~(<u64>0) << (64 - 16 * <u64>level)
}

// The three loops of a pass are kept apart so that each holds only what it needs in registers:
// level 0 counts every key (and carries the Σ(x − mean)² of the first pass), deeper levels test
// four keys' prefixes at once and skip them together, gathers store the few keys that match.

/**
 * One radix pass over f64 values (or |x − center| when absdev): histogram of digit `level` of the
 * order-preserving keys that match prefix p0 or p1 (or gather those keys). With dev, also
 * accumulates Σ(x − mean)² over every value.
 */
export function passF64(
  ptr: usize, n: i32, region: usize, out: usize, gather: bool, level: i32, prefixes: i32,
  p0hi: u32, p0lo: u32, p1hi: u32, p1lo: u32, absdev: bool, center: f64, dev: bool, mean: f64,
): void {
  gathered = 0
  totS = 0
  totC = 0
  const np = <usize>prefixes
  const mask = levelMask(level)
  const shift = 48 - 16 * level
  const p0 = (<u64>p0hi << 32) | <u64>p0lo
  const p1 = prefixes > 1 ? (<u64>p1hi << 32) | <u64>p1lo : p0
  const cv = f64x2.splat(center), sign = i64x2.splat(<i64>SIGN64)
  const n4 = n & ~3
  if (!gather) memory.fill(region, 0, REGION_BYTES)
  if (!gather && level == 0) {
    countAllF64(ptr, n4, region, absdev, cv, dev, f64x2.splat(mean))
  } else {
    if (dev) squaresF64(ptr, n4, f64x2.splat(mean))
    const maskV = i64x2.splat(<i64>mask), p0V = i64x2.splat(<i64>p0), p1V = i64x2.splat(<i64>p1)
    const a0 = subBase(region, 0, 0, np), a1 = subBase(region, 1, 0, np), a2 = subBase(region, 2, 0, np), a3 = subBase(region, 3, 0, np)
    const b0 = subBase(region, 0, 1, np), b1 = subBase(region, 1, 1, np), b2 = subBase(region, 2, 1, np), b3 = subBase(region, 3, 1, np)
    for (let i = 0; i < n4; i += 4) {
      const p = ptr + (<usize>i << 3)
      let xa = v128.load(p), xb = v128.load(p, 16)
      if (absdev) {
        xa = f64x2.abs(f64x2.sub(xa, cv))
        xb = f64x2.abs(f64x2.sub(xb, cv))
      }
      const ka = v128.xor(xa, v128.or(i64x2.shr_s(xa, 63), sign))
      const kb = v128.xor(xb, v128.or(i64x2.shr_s(xb, 63), sign))
      const ma = v128.and(ka, maskV), mb = v128.and(kb, maskV)
      const hit0 = i64x2.bitmask(i64x2.eq(ma, p0V)) | (i64x2.bitmask(i64x2.eq(mb, p0V)) << 2)
      const hit1 = i64x2.bitmask(i64x2.eq(ma, p1V)) | (i64x2.bitmask(i64x2.eq(mb, p1V)) << 2)
      if ((hit0 | hit1) == 0) continue
      if (gather) {
        visit(<u64>i64x2.extract_lane(ka, 0), 0, region, true, mask, 0, p0, p1, np)
        visit(<u64>i64x2.extract_lane(ka, 1), 0, region, true, mask, 0, p0, p1, np)
        visit(<u64>i64x2.extract_lane(kb, 0), 0, region, true, mask, 0, p0, p1, np)
        visit(<u64>i64x2.extract_lane(kb, 1), 0, region, true, mask, 0, p0, p1, np)
      } else {
        const da = i64x2.shr_u(ka, shift), db = i64x2.shr_u(kb, shift)
        const digits = i32x4.shl(v128.and(v128.shuffle<i32>(da, db, 0, 2, 4, 6), i32x4.splat(0xffff)), 2)
        countFour(hit0, hit1, digits, a0, a1, a2, a3, b0, b1, b2, b3)
      }
    }
  }
  for (let i = n4; i < n; i++) {
    let x = load<f64>(ptr + (<usize>i << 3))
    if (dev) {
      const d = x - mean
      addTotal(d * d)
    }
    if (absdev) x = abs<f64>(x - center)
    const b = reinterpret<u64>(x)
    visit(b ^ (<u64>(<i64>b >> 63) | SIGN64), 0, region, gather, mask, <u64>shift, p0, p1, np)
  }
  if (!gather) mergeSubs(region, np)
  store<f64>(out, totS)
  store<f64>(out, totC, 8)
  store<f64>(out, <f64>gathered, 16)
}

/** Level 0 over n (a multiple of 4) values: every key counts, into four sub-histograms. */
function countAllF64(ptr: usize, n: i32, region: usize, absdev: bool, cv: v128, dev: bool, mv: v128): void {
  const sign = i64x2.splat(<i64>SIGN64)
  const zero = f64x2.splat(0)
  let sa = zero, ca = zero, sb = zero, cb = zero
  for (let i = 0; i < n; i += 4) {
    const p = ptr + (<usize>i << 3)
    let xa = v128.load(p), xb = v128.load(p, 16)
    if (dev) {
      let d = f64x2.sub(xa, mv)
      let q = f64x2.mul(d, d)
      ca = twoSumF64(sa, ca, q)
      sa = f64x2.add(sa, q)
      d = f64x2.sub(xb, mv)
      q = f64x2.mul(d, d)
      cb = twoSumF64(sb, cb, q)
      sb = f64x2.add(sb, q)
    }
    if (absdev) {
      xa = f64x2.abs(f64x2.sub(xa, cv))
      xb = f64x2.abs(f64x2.sub(xb, cv))
    }
    const ka = i64x2.shr_u(v128.xor(xa, v128.or(i64x2.shr_s(xa, 63), sign)), 46)
    const kb = i64x2.shr_u(v128.xor(xb, v128.or(i64x2.shr_s(xb, 63), sign)), 46)
    const d = v128.and(v128.shuffle<i32>(ka, kb, 0, 2, 4, 6), i32x4.splat(0xffff << 2))
    inc(region + <usize>i32x4.extract_lane(d, 0))
    inc(region + SUB_BYTES + <usize>i32x4.extract_lane(d, 1))
    inc(region + 2 * SUB_BYTES + <usize>i32x4.extract_lane(d, 2))
    inc(region + 3 * SUB_BYTES + <usize>i32x4.extract_lane(d, 3))
  }
  if (dev) {
    foldLanesF64(sa, ca)
    foldLanesF64(sb, cb)
  }
}

/** Σ(x − mean)² over n (a multiple of 4) values into the running total. */
function squaresF64(ptr: usize, n: i32, mv: v128): void {
  const zero = f64x2.splat(0)
  let sa = zero, ca = zero, sb = zero, cb = zero
  for (let i = 0; i < n; i += 4) {
    const p = ptr + (<usize>i << 3)
    let d = f64x2.sub(v128.load(p), mv)
    let q = f64x2.mul(d, d)
    ca = twoSumF64(sa, ca, q)
    sa = f64x2.add(sa, q)
    d = f64x2.sub(v128.load(p, 16), mv)
    q = f64x2.mul(d, d)
    cb = twoSumF64(sb, cb, q)
    sb = f64x2.add(sb, q)
  }
  foldLanesF64(sa, ca)
  foldLanesF64(sb, cb)
}

/** passF64 on f32 values; 32-bit keys sit in the high half of the u64 key. */
export function passF32(
  ptr: usize, n: i32, region: usize, out: usize, gather: bool, level: i32, prefixes: i32,
  p0hi: u32, p0lo: u32, p1hi: u32, p1lo: u32, absdev: bool, center: f64, dev: bool, mean: f64,
): void {
  gathered = 0
  totS32 = 0
  totC32 = 0
  const np = <usize>prefixes
  const mask = levelMask(level)
  const shift = 48 - 16 * level
  const p0 = (<u64>p0hi << 32) | <u64>p0lo
  const p1 = prefixes > 1 ? (<u64>p1hi << 32) | <u64>p1lo : p0
  const center32 = <f32>center, mean32 = <f32>mean
  const cv = f32x4.splat(center32), sign = i32x4.splat(0x80000000)
  const n4 = n & ~3
  if (!gather) memory.fill(region, 0, REGION_BYTES)
  if (!gather && level == 0) {
    countAllF32(ptr, n4, region, absdev, cv, dev, f32x4.splat(mean32))
  } else {
    if (dev) squaresF32(ptr, n4, f32x4.splat(mean32))
    // 32-bit keys: only the high halves of mask and prefixes matter.
    const maskV = i32x4.splat(<i32>(mask >> 32)), p0V = i32x4.splat(<i32>(p0 >> 32)), p1V = i32x4.splat(<i32>(p1 >> 32))
    const a0 = subBase(region, 0, 0, np), a1 = subBase(region, 1, 0, np), a2 = subBase(region, 2, 0, np), a3 = subBase(region, 3, 0, np)
    const b0 = subBase(region, 0, 1, np), b1 = subBase(region, 1, 1, np), b2 = subBase(region, 2, 1, np), b3 = subBase(region, 3, 1, np)
    for (let i = 0; i < n4; i += 4) {
      let x = v128.load(ptr + (<usize>i << 2))
      if (absdev) x = f32x4.abs(f32x4.sub(x, cv))
      const k = v128.xor(x, v128.or(i32x4.shr_s(x, 31), sign))
      const m = v128.and(k, maskV)
      const hit0 = i32x4.bitmask(i32x4.eq(m, p0V))
      const hit1 = i32x4.bitmask(i32x4.eq(m, p1V))
      if ((hit0 | hit1) == 0) continue
      if (gather) {
        visit(<u64>i32x4.extract_lane(k, 0) << 32, 0, region, true, mask, 0, p0, p1, np)
        visit(<u64>i32x4.extract_lane(k, 1) << 32, 0, region, true, mask, 0, p0, p1, np)
        visit(<u64>i32x4.extract_lane(k, 2) << 32, 0, region, true, mask, 0, p0, p1, np)
        visit(<u64>i32x4.extract_lane(k, 3) << 32, 0, region, true, mask, 0, p0, p1, np)
      } else {
        const digits = i32x4.shl(v128.and(i32x4.shr_u(k, shift - 32), i32x4.splat(0xffff)), 2)
        countFour(hit0, hit1, digits, a0, a1, a2, a3, b0, b1, b2, b3)
      }
    }
  }
  for (let i = n4; i < n; i++) {
    let x = load<f32>(ptr + (<usize>i << 2))
    if (dev) {
      const d = x - mean32
      addTotal32(d * d)
    }
    if (absdev) x = abs<f32>(x - center32)
    const b = reinterpret<u32>(x)
    visit(<u64>(b ^ (<u32>(<i32>b >> 31) | 0x80000000)) << 32, 0, region, gather, mask, <u64>shift, p0, p1, np)
  }
  if (!gather) mergeSubs(region, np)
  store<f64>(out, <f64>totS32)
  store<f64>(out, <f64>totC32, 8)
  store<f64>(out, <f64>gathered, 16)
}

function countAllF32(ptr: usize, n: i32, region: usize, absdev: bool, cv: v128, dev: bool, mv: v128): void {
  const sign = i32x4.splat(0x80000000)
  for (let b = 0; b < n; b += F32_BLOCK) {
    const e = min(b + F32_BLOCK, n)
    let s = f32x4.splat(0), c = s
    for (let i = b; i < e; i += 4) {
      let x = v128.load(ptr + (<usize>i << 2))
      if (dev) {
        const d = f32x4.sub(x, mv)
        const q = f32x4.mul(d, d)
        c = twoSumF32(s, c, q)
        s = f32x4.add(s, q)
      }
      if (absdev) x = f32x4.abs(f32x4.sub(x, cv))
      const d = v128.and(i32x4.shr_u(v128.xor(x, v128.or(i32x4.shr_s(x, 31), sign)), 14), i32x4.splat(0xffff << 2))
      inc(region + <usize>i32x4.extract_lane(d, 0))
      inc(region + SUB_BYTES + <usize>i32x4.extract_lane(d, 1))
      inc(region + 2 * SUB_BYTES + <usize>i32x4.extract_lane(d, 2))
      inc(region + 3 * SUB_BYTES + <usize>i32x4.extract_lane(d, 3))
    }
    if (dev) foldLanesF32(s, c)
  }
}

function squaresF32(ptr: usize, n: i32, mv: v128): void {
  for (let b = 0; b < n; b += F32_BLOCK) {
    const e = min(b + F32_BLOCK, n)
    let s = f32x4.splat(0), c = s
    for (let i = b; i < e; i += 4) {
      const d = f32x4.sub(v128.load(ptr + (<usize>i << 2)), mv)
      const q = f32x4.mul(d, d)
      c = twoSumF32(s, c, q)
      s = f32x4.add(s, q)
    }
    foldLanesF32(s, c)
  }
}
