// The CPU's ceilings as the simd and workers-simd backends reach them: a read of a buffer far larger
// than the last-level cache, and chains of f64 multiply-adds in vector registers. The host
// (../../cpu-bench.ts) lays out the one shared memory and times what every thread does.
//
// Built twice (scripts/build-wasm.mjs, variants.json), as the correlation kernels are: device.wasm
// with SIMD128 (a multiply, then an add) and device-relaxed.wasm with relaxed SIMD, where the
// multiply-add is fused, as the correlation's cross-products are in that build.

/**
 * Writes the benchmark's pattern, values 0…3 (the top two bits of a Fibonacci hash of the element's
 * index), to `count` f64 from `ptr`, element `first` of the whole buffer first. Returns their sum,
 * exact: the reads must give it back, which proves every element was read.
 */
export function fill(ptr: usize, count: i32, first: i32): f64 {
  let s: f64 = 0
  for (let k = 0; k < count; k++) {
    const v = <f64>((<u32>(first + k) * <u32>0x9e3779b1) >>> 30)
    store<f64>(ptr + (<usize>k << 3), v)
    s += v
  }
  return s
}

/** The sum of `count` f64 from `ptr` (64-byte aligned), `passes` times over: eight vector sums, 128 bytes a trip. */
export function read(ptr: usize, count: i32, passes: i32): f64 {
  const whole = <usize>(count & ~15) << 3
  let total: f64 = 0
  for (let p = 0; p < passes; p++) {
    let s0 = f64x2.splat(0), s1 = f64x2.splat(0), s2 = f64x2.splat(0), s3 = f64x2.splat(0)
    let s4 = f64x2.splat(0), s5 = f64x2.splat(0), s6 = f64x2.splat(0), s7 = f64x2.splat(0)
    const end = ptr + whole
    for (let a = ptr; a < end; a += 128) {
      s0 = f64x2.add(s0, v128.load(a))
      s1 = f64x2.add(s1, v128.load(a, 16))
      s2 = f64x2.add(s2, v128.load(a, 32))
      s3 = f64x2.add(s3, v128.load(a, 48))
      s4 = f64x2.add(s4, v128.load(a, 64))
      s5 = f64x2.add(s5, v128.load(a, 80))
      s6 = f64x2.add(s6, v128.load(a, 96))
      s7 = f64x2.add(s7, v128.load(a, 112))
    }
    const s = f64x2.add(f64x2.add(f64x2.add(s0, s1), f64x2.add(s2, s3)), f64x2.add(f64x2.add(s4, s5), f64x2.add(s6, s7)))
    let t = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
    for (let k = count & ~15; k < count; k++) t += load<f64>(ptr + (<usize>k << 3))
    total += t
  }
  return total
}

/** x · a + b in each lane; fused (one rounding) in the relaxed build. */
@inline function madd(x: v128, a: v128, b: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return v128.relaxed_madd<f64>(x, a, b)
  return f64x2.add(f64x2.mul(x, a), b)
}

/**
 * `iters` trips of 12 vector multiply-adds x ← x · a + b (two f64 lanes each: 4 FLOP) on independent
 * chains, so that they overlap instead of waiting on each other; the lanes start at 0, 1, …, 23.
 * Returns their sum; with a = b = 1 every value is an integer, so the sum is exact: 276 + 24 · iters.
 * `a` and `b` come from the caller, so nothing folds away.
 */
export function fma(iters: i32, a: f64, b: f64): f64 {
  const va = f64x2.splat(a)
  const vb = f64x2.splat(b)
  let x0 = f64x2(0, 1), x1 = f64x2(2, 3), x2 = f64x2(4, 5), x3 = f64x2(6, 7)
  let x4 = f64x2(8, 9), x5 = f64x2(10, 11), x6 = f64x2(12, 13), x7 = f64x2(14, 15)
  let x8 = f64x2(16, 17), x9 = f64x2(18, 19), x10 = f64x2(20, 21), x11 = f64x2(22, 23)
  for (let i = 0; i < iters; i++) {
    x0 = madd(x0, va, vb)
    x1 = madd(x1, va, vb)
    x2 = madd(x2, va, vb)
    x3 = madd(x3, va, vb)
    x4 = madd(x4, va, vb)
    x5 = madd(x5, va, vb)
    x6 = madd(x6, va, vb)
    x7 = madd(x7, va, vb)
    x8 = madd(x8, va, vb)
    x9 = madd(x9, va, vb)
    x10 = madd(x10, va, vb)
    x11 = madd(x11, va, vb)
  }
  const s = f64x2.add(
    f64x2.add(f64x2.add(f64x2.add(x0, x1), f64x2.add(x2, x3)), f64x2.add(f64x2.add(x4, x5), f64x2.add(x6, x7))),
    f64x2.add(f64x2.add(x8, x9), f64x2.add(x10, x11)),
  )
  return f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
}
