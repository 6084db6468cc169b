// WebAssembly SIMD128 kernels of the correlation stages (simd and workers-simd backends): the same
// stages, rows and tile pairs as src/main/workloads/correlation/ts-kernels.ts, vectorised along the
// samples (two f64 or four f32 lanes). The host (../wasm-module.ts) lays out the shared memory: the
// series x (m × stride), the centred series d, means, norms, constant flags and the m × m matrix.
//
// Built twice (scripts/build-wasm.mjs, variants.json): correlation.wasm with SIMD128, and
// correlation-relaxed.wasm with relaxed SIMD (ASC_FEATURE_RELAXED_SIMD), where the cross-products'
// multiply-adds are fused: one rounding instead of two, and no register for the product, which
// leaves room for a 6 × 2 micro-kernel. That build runs at shrink level 1, which keeps Binaryen from
// inlining the micro-kernels into crossTiles, where V8 spills their registers.
//
// d is interleaved by groups of 4 rows: group g holds, vector after vector of samples, that vector
// of rows 4g, 4g + 1, 4g + 2, 4g + 3 (16 bytes each), so that the cross-products read the rows of
// their micro-kernels at fixed offsets from a few pointers (see microF4, microF6). Rows are padded
// to 4 and samples to 4, the padding zero.
//
// Sums run in lanes and fold at the end of a row or a cache block, so they differ from the
// TypeScript kernels' only in the order of additions (and, fused, in the rounding of products).

const TILE: i32 = 64 // rows per tile side, as cpu-layout.ts
// Bytes of a row per cache block of the cross-products (256 f64 or 512 f32 samples): the block of
// rows i stays in L1 while the rows j pass; at 2048 × 8192 on a Zen 4 core a few % ahead of blocks
// of 128 to 2048 f64 samples.
const KC_BYTES: i32 = 2048

@inline function pad4(n: i32): i32 {
  return (n + 3) & ~3
}

/** Address of the first vector of `row` in d (rows interleaved by 4; stride: samples per row). */
@inline function dRow(d: usize, stride: i32, bytes: i32, row: i32): usize {
  return d + <usize>(row >> 2) * <usize>stride * <usize>(4 * bytes) + (<usize>(row & 3) << 4)
}

// ---- step 2: means ----

export function meansF64(x: usize, stride: i32, n: i32, r0: i32, r1: i32, means: usize): void {
  for (let i = r0; i < r1; i++) {
    const row = x + <usize>i * <usize>stride * 8
    let s0 = f64x2.splat(0)
    let s1 = f64x2.splat(0)
    let k = 0
    for (; k + 4 <= n; k += 4) {
      s0 = f64x2.add(s0, v128.load(row + (<usize>k << 3)))
      s1 = f64x2.add(s1, v128.load(row + (<usize>k << 3), 16))
    }
    const s = f64x2.add(s0, s1)
    let t = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
    for (; k < n; k++) t += load<f64>(row + (<usize>k << 3))
    store<f64>(means + (<usize>i << 3), t / <f64>n)
  }
}

export function meansF32(x: usize, stride: i32, n: i32, r0: i32, r1: i32, means: usize): void {
  for (let i = r0; i < r1; i++) {
    const row = x + <usize>i * <usize>stride * 4
    let s = f32x4.splat(0)
    let k = 0
    for (; k + 4 <= n; k += 4) s = f32x4.add(s, v128.load(row + (<usize>k << 2)))
    let t: f32 = (f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1)) + (f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3))
    for (; k < n; k++) t += load<f32>(row + (<usize>k << 2))
    store<f32>(means + (<usize>i << 2), t / <f32>n)
  }
}

// ---- step 3: centred series and norms ----

/** Address in d of sample k (a multiple of the lanes) of the row whose first vector is at `row`: vectors of a row are 64 bytes apart. */
@inline function dAt(row: usize, k: i32, lanes: i32): usize {
  return row + (<usize>(k / lanes) << 6)
}

export function squaresF64(x: usize, xStride: i32, d: usize, dStride: i32, n: i32, r0: i32, r1: i32, means: usize, norms: usize, constant: usize): void {
  const end = pad4(n)
  for (let i = r0; i < r1; i++) {
    const src = x + <usize>i * <usize>xStride * 8
    const dst = dRow(d, dStride, 8, i)
    const mean = load<f64>(means + (<usize>i << 3))
    const mv = f64x2.splat(mean)
    let s = f64x2.splat(0)
    let k = 0
    for (; k + 2 <= n; k += 2) {
      const v = f64x2.sub(v128.load(src + (<usize>k << 3)), mv)
      v128.store(dAt(dst, k, 2), v)
      s = f64x2.add(s, f64x2.mul(v, v))
    }
    let t = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
    for (; k < n; k++) {
      const v = load<f64>(src + (<usize>k << 3)) - mean
      store<f64>(dAt(dst, k & ~1, 2) + (<usize>(k & 1) << 3), v)
      t += v * v
    }
    // The padding stays zero, so the cross-products can run whole vectors past n.
    for (; k < end; k++) store<f64>(dAt(dst, k & ~1, 2) + (<usize>(k & 1) << 3), 0)
    store<f64>(norms + (<usize>i << 3), load<u8>(constant + <usize>i) ? 0 : Math.sqrt(t))
  }
}

export function squaresF32(x: usize, xStride: i32, d: usize, dStride: i32, n: i32, r0: i32, r1: i32, means: usize, norms: usize, constant: usize): void {
  const end = pad4(n)
  for (let i = r0; i < r1; i++) {
    const src = x + <usize>i * <usize>xStride * 4
    const dst = dRow(d, dStride, 4, i)
    const mean = load<f32>(means + (<usize>i << 2))
    const mv = f32x4.splat(mean)
    let s = f32x4.splat(0)
    let k = 0
    for (; k + 4 <= n; k += 4) {
      const v = f32x4.sub(v128.load(src + (<usize>k << 2)), mv)
      v128.store(dAt(dst, k, 4), v)
      s = f32x4.add(s, f32x4.mul(v, v))
    }
    let t: f32 = (f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1)) + (f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3))
    for (; k < n; k++) {
      const v: f32 = load<f32>(src + (<usize>k << 2)) - mean
      store<f32>(dAt(dst, k & ~3, 4) + (<usize>(k & 3) << 2), v)
      t += v * v
    }
    for (; k < end; k++) store<f32>(dAt(dst, k & ~3, 4) + (<usize>(k & 3) << 2), 0)
    store<f32>(norms + (<usize>i << 2), load<u8>(constant + <usize>i) ? 0 : Mathf.sqrt(t))
  }
}

// ---- step 4: cross-products of tile pairs ----

/**
 * Tile pairs [p0, p1) in f64: cache blocks of KC_BYTES per row; in each a micro-kernel per 4 rows i
 * (6 in the relaxed build) and 2 rows j. Padding samples are zero, so the loops run whole vectors;
 * rows and columns past m are computed but not stored.
 */
export function crossF64(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  crossTiles<f64>(d, dStride, c, cStride, m, n, p0, p1)
}

/** crossF64 in f32: four lanes along the samples. */
export function crossF32(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  crossTiles<f32>(d, dStride, c, cStride, m, n, p0, p1)
}

/**
 * The tile pairs are taken in column order (tile tj's column top down: pairs (0, tj) … (tj, tj)),
 * and each cache block of samples over all of them before the next: consecutive pairs share tile
 * tj's rows j, which stay in L2 while the rows i stream past (~1.1× the GFLOP/s of pair after pair
 * in row order, each over all its blocks).
 */
@inline function crossTiles<T>(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  const bytes = sizeof<T>()
  const lanes = 16 / bytes
  const rows = pad4(m)
  // Bytes of one row's vectors in d (64 apart, interleaved) up to n, and per cache block.
  const kBytes = <usize>((pad4(n) + lanes - 1) / lanes) << 6
  const blockBytes = <usize>(KC_BYTES / 16) << 6
  // The first pair: column tj holds pairs tj (tj + 1) / 2 … tj (tj + 1) / 2 + tj.
  let tj0 = 0
  while (((tj0 + 1) * (tj0 + 2)) / 2 <= p0) tj0++
  const ti0 = p0 - (tj0 * (tj0 + 1)) / 2
  for (let o: usize = 0; o < kBytes; o += blockBytes) {
    const len = min(blockBytes, kBytes - o)
    const first = o == 0
    let ti = ti0
    let tj = tj0
    for (let p = p0; p < p1; p++) {
      const i1 = min(ti * TILE + TILE, rows)
      const j1 = min(tj * TILE + TILE, rows)
      for (let i = ti * TILE; i < i1; ) {
        // Relaxed: rows by 6, and by 4 where 8 or 4 are left (rows padded to 4 never leave 2).
        const six = ASC_FEATURE_RELAXED_SIMD && i1 - i >= 6 && i1 - i != 8
        const a = dRow(d, dStride, bytes, i) + o
        const a2 = dRow(d, dStride, bytes, i + 2) + o
        const a4 = dRow(d, dStride, bytes, i + 4) + o
        for (let j = ti == tj ? i : tj * TILE; j < j1; j += 2) {
          const b = dRow(d, dStride, bytes, j) + o
          if (six) microF6<T>(a, a2, a4, b, len)
          else microF4<T>(a, b, len)
          fold<T>(c, cStride, m, i, j, S00, S01, first)
          fold<T>(c, cStride, m, i + 1, j, S10, S11, first)
          fold<T>(c, cStride, m, i + 2, j, S20, S21, first)
          fold<T>(c, cStride, m, i + 3, j, S30, S31, first)
          if (six) {
            fold<T>(c, cStride, m, i + 4, j, S40, S41, first)
            fold<T>(c, cStride, m, i + 5, j, S50, S51, first)
          }
        }
        i += six ? 6 : 4
      }
      if (ti++ == tj) {
        ti = 0
        tj++
      }
    }
  }
}

// The micro-kernels leave their sums here (row r and column q of their block in Srq) for
// crossTiles to fold into the matrix; globals belong to an instance, so to one thread. Folding
// them in the kernel, after its loop, made V8 spill vector registers inside the loop.
let S00: v128, S01: v128, S10: v128, S11: v128, S20: v128, S21: v128
let S30: v128, S31: v128, S40: v128, S41: v128, S50: v128, S51: v128

/** s + x · y in each lane; fused (one rounding) in the relaxed build. */
@inline function madd<T>(x: v128, y: v128, s: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return v128.relaxed_madd<T>(x, y, s)
  return v128.add<T>(s, v128.mul<T>(x, y))
}

/**
 * Rows i … i + 3 (vectors at a + 0, 16, 32, 48) against rows j, j + 1 (at b + 0, 16) over `len`
 * bytes of interleaved vectors: eight sums, six loads for eight multiply-adds, 14 of the 15 vector
 * registers of V8's x64 code.
 */
function microF4<T>(a: usize, b: usize, len: usize): void {
  let s00 = v128.splat<T>(0), s01 = v128.splat<T>(0), s10 = v128.splat<T>(0), s11 = v128.splat<T>(0)
  let s20 = v128.splat<T>(0), s21 = v128.splat<T>(0), s30 = v128.splat<T>(0), s31 = v128.splat<T>(0)
  const end = a + len
  while (a < end) {
    const y0 = v128.load(b)
    const y1 = v128.load(b, 16)
    const x0 = v128.load(a)
    const x1 = v128.load(a, 16)
    const x2 = v128.load(a, 32)
    const x3 = v128.load(a, 48)
    s00 = madd<T>(x0, y0, s00)
    s01 = madd<T>(x0, y1, s01)
    s10 = madd<T>(x1, y0, s10)
    s11 = madd<T>(x1, y1, s11)
    s20 = madd<T>(x2, y0, s20)
    s21 = madd<T>(x2, y1, s21)
    s30 = madd<T>(x3, y0, s30)
    s31 = madd<T>(x3, y1, s31)
    a += 64
    b += 64
  }
  S00 = s00; S01 = s01; S10 = s10; S11 = s11
  S20 = s20; S21 = s21; S30 = s30; S31 = s31
}

/**
 * Relaxed build: rows i … i + 5 as three pairs (at a, a2, a4; each pair's vectors at + 0, 16)
 * against rows j, j + 1: twelve sums, and the two vectors of b and one of a at a time fill the 15
 * registers; eight loads for twelve multiply-adds.
 */
function microF6<T>(a: usize, a2: usize, a4: usize, b: usize, len: usize): void {
  let s00 = v128.splat<T>(0), s01 = v128.splat<T>(0), s10 = v128.splat<T>(0), s11 = v128.splat<T>(0)
  let s20 = v128.splat<T>(0), s21 = v128.splat<T>(0), s30 = v128.splat<T>(0), s31 = v128.splat<T>(0)
  let s40 = v128.splat<T>(0), s41 = v128.splat<T>(0), s50 = v128.splat<T>(0), s51 = v128.splat<T>(0)
  const end = b + len
  while (b < end) {
    const y0 = v128.load(b)
    const y1 = v128.load(b, 16)
    let x = v128.load(a)
    s00 = madd<T>(x, y0, s00)
    s01 = madd<T>(x, y1, s01)
    x = v128.load(a, 16)
    s10 = madd<T>(x, y0, s10)
    s11 = madd<T>(x, y1, s11)
    x = v128.load(a2)
    s20 = madd<T>(x, y0, s20)
    s21 = madd<T>(x, y1, s21)
    x = v128.load(a2, 16)
    s30 = madd<T>(x, y0, s30)
    s31 = madd<T>(x, y1, s31)
    x = v128.load(a4)
    s40 = madd<T>(x, y0, s40)
    s41 = madd<T>(x, y1, s41)
    x = v128.load(a4, 16)
    s50 = madd<T>(x, y0, s50)
    s51 = madd<T>(x, y1, s51)
    a += 64
    a2 += 64
    a4 += 64
    b += 64
  }
  S00 = s00; S01 = s01; S10 = s10; S11 = s11; S20 = s20; S21 = s21
  S30 = s30; S31 = s31; S40 = s40; S41 = s41; S50 = s50; S51 = s51
}

/** Adds the lanes of s0 and s1 to c[row][col] and c[row][col + 1] (stores them in the first cache block), inside the matrix. */
@inline function fold<T>(c: usize, stride: i32, m: i32, row: i32, col: i32, s0: v128, s1: v128, first: bool): void {
  if (row >= m) return
  const at = c + ((<usize>row * <usize>stride + <usize>col) << alignof<T>())
  if (col < m) store<T>(at, first ? sum<T>(s0) : load<T>(at) + sum<T>(s0))
  if (col + 1 < m) store<T>(at, first ? sum<T>(s1) : load<T>(at, sizeof<T>()) + sum<T>(s1), sizeof<T>())
}

@inline function sum<T>(s: v128): T {
  if (sizeof<T>() == 8) return <T>(f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1))
  return <T>((f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1)) + (f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3)))
}

// ---- step 5: coefficients ----

export function coefficientsF64(c: usize, stride: i32, m: i32, r0: i32, r1: i32, norms: usize): void {
  for (let i = r0; i < r1; i++) {
    const ni = load<f64>(norms + (<usize>i << 3))
    const row = c + ((<usize>i * <usize>stride) << 3)
    store<f64>(row + (<usize>i << 3), ni > 0 ? 1 : NaN)
    for (let j = i + 1; j < m; j++) {
      const nj = load<f64>(norms + (<usize>j << 3))
      let r: f64 = ni > 0 && nj > 0 ? load<f64>(row + (<usize>j << 3)) / ni / nj : NaN
      r = r > 1 ? 1 : r < -1 ? -1 : r
      store<f64>(row + (<usize>j << 3), r)
      store<f64>(c + ((<usize>j * <usize>stride + <usize>i) << 3), r)
    }
  }
}

export function coefficientsF32(c: usize, stride: i32, m: i32, r0: i32, r1: i32, norms: usize): void {
  for (let i = r0; i < r1; i++) {
    const ni = load<f32>(norms + (<usize>i << 2))
    const row = c + ((<usize>i * <usize>stride) << 2)
    store<f32>(row + (<usize>i << 2), ni > 0 ? 1 : NaN)
    for (let j = i + 1; j < m; j++) {
      const nj = load<f32>(norms + (<usize>j << 2))
      let r: f32 = ni > 0 && nj > 0 ? load<f32>(row + (<usize>j << 2)) / ni / nj : NaN
      r = r > 1 ? 1 : r < -1 ? -1 : r
      store<f32>(row + (<usize>j << 2), r)
      store<f32>(c + ((<usize>j * <usize>stride + <usize>i) << 2), r)
    }
  }
}
