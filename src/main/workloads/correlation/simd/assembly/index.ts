// WebAssembly SIMD128 kernels of the correlation stages (simd and workers-simd backends): the same
// stages, rows and tile pairs as src/main/workloads/correlation/ts-kernels.ts, vectorised along the
// samples (two f64 or four f32 lanes). The host (../wasm-module.ts) lays out the shared memory: the
// series x (m × stride), the centred series d, means, norms, constant flags and the m × m matrix.
//
// d is interleaved by groups of 4 rows: group g holds, vector after vector of samples, that vector
// of rows 4g, 4g + 1, 4g + 2, 4g + 3 (16 bytes each), so that the cross-products read the 4 + 2 rows
// of their micro-kernel at fixed offsets from two pointers (see crossF64). Rows are padded to 4 and
// samples to 4, the padding zero.
//
// Sums run in lanes and fold at the end of a row or a cache block, so they differ from the
// TypeScript kernels' only in the order of additions.

const TILE: i32 = 64 // rows per tile side, as cpu-layout.ts
// Samples per block of the cross-products: 2048 measured fastest at 2048 × 8192 on a Zen 4 core
// (fewer passes over the matrix tile; the 4 + 2 rows of a micro-kernel still stream from L2).
const KC: i32 = 2048

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

/** Tile pair p in row order (ti ≤ tj), as cpu-layout.ts's tilePair; returns ti << 16 | tj. */
function tilePair(p: i32, tiles: i32): i32 {
  let ti = 0
  let first = 0
  while (first + (tiles - ti) <= p) {
    first += tiles - ti
    ti++
  }
  return (ti << 16) | (ti + p - first)
}

/**
 * Tile pairs [p0, p1) in f64: blocks of KC samples; in each a 4 × 2 micro-kernel (microF64) per 4
 * rows i and 2 rows j. Padding samples are zero, so the loops run whole vectors; rows and columns
 * past m are computed but not stored.
 */
export function crossF64(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  crossTiles(d, dStride, 8, 2, c, cStride, m, n, p0, p1)
}

/** crossF64 in f32: four lanes along the samples. */
export function crossF32(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  crossTiles(d, dStride, 4, 4, c, cStride, m, n, p0, p1)
}

@inline function crossTiles(d: usize, dStride: i32, bytes: i32, lanes: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  const rows = pad4(m)
  const tiles = (m + TILE - 1) / TILE
  // Bytes of one row's vectors in d (64 apart, interleaved) up to n, and per cache block.
  const kBytes = <usize>((pad4(n) + lanes - 1) / lanes) << 6
  const blockBytes = <usize>(KC / lanes) << 6
  for (let p = p0; p < p1; p++) {
    const pair = tilePair(p, tiles)
    const ti = pair >> 16
    const tj = pair & 0xffff
    const i0 = ti * TILE
    const i1 = min(i0 + TILE, rows)
    const j1 = min(tj * TILE + TILE, rows)
    for (let o: usize = 0; o < kBytes; o += blockBytes) {
      const len = min(blockBytes, kBytes - o)
      const first = o == 0
      for (let i = i0; i < i1; i += 4) {
        const a = dRow(d, dStride, bytes, i) + o
        for (let j = ti == tj ? i : tj * TILE; j < j1; j += 2) {
          const b = dRow(d, dStride, bytes, j) + o
          if (bytes == 8) microF64(a, b, len, c, cStride, m, i, j, first)
          else microF32(a, b, len, c, cStride, m, i, j, first)
        }
      }
    }
  }
}

/**
 * Rows i … i + 3 (vectors at a + 0, 16, 32, 48) against rows j, j + 1 (at b + 0, 16) over `len`
 * bytes of interleaved vectors: eight f64x2 sums, six loads for eight multiply-adds. A function of
 * its own, so that its loop holds only its two pointers and sixteen vector registers (more would
 * spill: x64 code from V8 uses 16).
 */
function microF64(a: usize, b: usize, len: usize, c: usize, cStride: i32, m: i32, i: i32, j: i32, first: bool): void {
  let s00 = f64x2.splat(0), s01 = f64x2.splat(0), s10 = f64x2.splat(0), s11 = f64x2.splat(0)
  let s20 = f64x2.splat(0), s21 = f64x2.splat(0), s30 = f64x2.splat(0), s31 = f64x2.splat(0)
  const end = a + len
  while (a < end) {
    const y0 = v128.load(b)
    const y1 = v128.load(b, 16)
    const x0 = v128.load(a)
    const x1 = v128.load(a, 16)
    const x2 = v128.load(a, 32)
    const x3 = v128.load(a, 48)
    s00 = f64x2.add(s00, f64x2.mul(x0, y0))
    s01 = f64x2.add(s01, f64x2.mul(x0, y1))
    s10 = f64x2.add(s10, f64x2.mul(x1, y0))
    s11 = f64x2.add(s11, f64x2.mul(x1, y1))
    s20 = f64x2.add(s20, f64x2.mul(x2, y0))
    s21 = f64x2.add(s21, f64x2.mul(x2, y1))
    s30 = f64x2.add(s30, f64x2.mul(x3, y0))
    s31 = f64x2.add(s31, f64x2.mul(x3, y1))
    a += 64
    b += 64
  }
  store64(c, cStride, m, i, j, 0, 0, s00, first)
  store64(c, cStride, m, i, j, 0, 1, s01, first)
  store64(c, cStride, m, i, j, 1, 0, s10, first)
  store64(c, cStride, m, i, j, 1, 1, s11, first)
  store64(c, cStride, m, i, j, 2, 0, s20, first)
  store64(c, cStride, m, i, j, 2, 1, s21, first)
  store64(c, cStride, m, i, j, 3, 0, s30, first)
  store64(c, cStride, m, i, j, 3, 1, s31, first)
}

@inline function store64(c: usize, stride: i32, m: i32, i: i32, j: i32, r: i32, q: i32, s: v128, first: bool): void {
  if (i + r >= m || j + q >= m) return
  const at = c + ((<usize>(i + r) * <usize>stride + <usize>(j + q)) << 3)
  const v = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
  store<f64>(at, first ? v : load<f64>(at) + v)
}

/** microF64 in f32: four lanes. */
function microF32(a: usize, b: usize, len: usize, c: usize, cStride: i32, m: i32, i: i32, j: i32, first: bool): void {
  let s00 = f32x4.splat(0), s01 = f32x4.splat(0), s10 = f32x4.splat(0), s11 = f32x4.splat(0)
  let s20 = f32x4.splat(0), s21 = f32x4.splat(0), s30 = f32x4.splat(0), s31 = f32x4.splat(0)
  const end = a + len
  while (a < end) {
    const y0 = v128.load(b)
    const y1 = v128.load(b, 16)
    const x0 = v128.load(a)
    const x1 = v128.load(a, 16)
    const x2 = v128.load(a, 32)
    const x3 = v128.load(a, 48)
    s00 = f32x4.add(s00, f32x4.mul(x0, y0))
    s01 = f32x4.add(s01, f32x4.mul(x0, y1))
    s10 = f32x4.add(s10, f32x4.mul(x1, y0))
    s11 = f32x4.add(s11, f32x4.mul(x1, y1))
    s20 = f32x4.add(s20, f32x4.mul(x2, y0))
    s21 = f32x4.add(s21, f32x4.mul(x2, y1))
    s30 = f32x4.add(s30, f32x4.mul(x3, y0))
    s31 = f32x4.add(s31, f32x4.mul(x3, y1))
    a += 64
    b += 64
  }
  store32(c, cStride, m, i, j, 0, 0, s00, first)
  store32(c, cStride, m, i, j, 0, 1, s01, first)
  store32(c, cStride, m, i, j, 1, 0, s10, first)
  store32(c, cStride, m, i, j, 1, 1, s11, first)
  store32(c, cStride, m, i, j, 2, 0, s20, first)
  store32(c, cStride, m, i, j, 2, 1, s21, first)
  store32(c, cStride, m, i, j, 3, 0, s30, first)
  store32(c, cStride, m, i, j, 3, 1, s31, first)
}

@inline function store32(c: usize, stride: i32, m: i32, i: i32, j: i32, r: i32, q: i32, s: v128, first: bool): void {
  if (i + r >= m || j + q >= m) return
  const at = c + ((<usize>(i + r) * <usize>stride + <usize>(j + q)) << 2)
  const v: f32 = (f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1)) + (f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3))
  store<f32>(at, first ? v : load<f32>(at) + v)
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
