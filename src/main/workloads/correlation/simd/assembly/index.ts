// WebAssembly SIMD128 kernels of the correlation stages (simd and workers-simd backends): the same
// stages, rows and tile pairs as src/main/workloads/correlation/ts-kernels.ts, vectorised along the
// samples (two f64 or four f32 lanes). The host (../wasm-module.ts) lays out the shared memory: the
// series x (m × stride), the centred series d (rows padded to 4, samples to 4, the padding zero),
// means, norms, constant flags and the m × m matrix.
//
// Sums run in lanes and fold at the end of a row or a cache block, so they differ from the
// TypeScript kernels' only in the order of additions.

const TILE: i32 = 64 // rows per tile side, as cpu-layout.ts
const KC: i32 = 256 // samples per cache block, as cpu-layout.ts

@inline function pad4(n: i32): i32 {
  return (n + 3) & ~3
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

export function squaresF64(x: usize, xStride: i32, d: usize, dStride: i32, n: i32, r0: i32, r1: i32, means: usize, norms: usize, constant: usize): void {
  const end = pad4(n)
  for (let i = r0; i < r1; i++) {
    const src = x + <usize>i * <usize>xStride * 8
    const dst = d + <usize>i * <usize>dStride * 8
    const mean = load<f64>(means + (<usize>i << 3))
    const mv = f64x2.splat(mean)
    let s = f64x2.splat(0)
    let k = 0
    for (; k + 2 <= n; k += 2) {
      const v = f64x2.sub(v128.load(src + (<usize>k << 3)), mv)
      v128.store(dst + (<usize>k << 3), v)
      s = f64x2.add(s, f64x2.mul(v, v))
    }
    let t = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
    for (; k < n; k++) {
      const v = load<f64>(src + (<usize>k << 3)) - mean
      store<f64>(dst + (<usize>k << 3), v)
      t += v * v
    }
    // The padding stays zero, so the cross-products can run whole vectors past n.
    for (; k < end; k++) store<f64>(dst + (<usize>k << 3), 0)
    store<f64>(norms + (<usize>i << 3), load<u8>(constant + <usize>i) ? 0 : Math.sqrt(t))
  }
}

export function squaresF32(x: usize, xStride: i32, d: usize, dStride: i32, n: i32, r0: i32, r1: i32, means: usize, norms: usize, constant: usize): void {
  const end = pad4(n)
  for (let i = r0; i < r1; i++) {
    const src = x + <usize>i * <usize>xStride * 4
    const dst = d + <usize>i * <usize>dStride * 4
    const mean = load<f32>(means + (<usize>i << 2))
    const mv = f32x4.splat(mean)
    let s = f32x4.splat(0)
    let k = 0
    for (; k + 4 <= n; k += 4) {
      const v = f32x4.sub(v128.load(src + (<usize>k << 2)), mv)
      v128.store(dst + (<usize>k << 2), v)
      s = f32x4.add(s, f32x4.mul(v, v))
    }
    let t: f32 = (f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1)) + (f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3))
    for (; k < n; k++) {
      const v: f32 = load<f32>(src + (<usize>k << 2)) - mean
      store<f32>(dst + (<usize>k << 2), v)
      t += v * v
    }
    for (; k < end; k++) store<f32>(dst + (<usize>k << 2), 0)
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
 * Tile pairs [p0, p1) in f64: blocks of KC samples; in each a 4 × 2 micro-kernel with eight f64x2
 * sums along the samples (six loads for sixteen multiply-adds). Padding samples are zero, so the
 * loops run whole vectors; rows and columns past m are computed but not stored.
 */
export function crossF64(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  const rows = pad4(m)
  const kEnd = pad4(n)
  const tiles = (m + TILE - 1) / TILE
  const rowBytes = <usize>dStride << 3
  for (let p = p0; p < p1; p++) {
    const pair = tilePair(p, tiles)
    const ti = pair >> 16
    const tj = pair & 0xffff
    const i0 = ti * TILE
    const i1 = min(i0 + TILE, rows)
    const j1 = min(tj * TILE + TILE, rows)
    for (let k0 = 0; k0 < kEnd; k0 += KC) {
      const k1 = min(k0 + KC, kEnd)
      const first = k0 == 0
      for (let i = i0; i < i1; i += 4) {
        const a0 = d + <usize>i * rowBytes
        for (let j = ti == tj ? i : tj * TILE; j < j1; j += 2) {
          const b0 = d + <usize>j * rowBytes
          let s00 = f64x2.splat(0), s01 = f64x2.splat(0), s10 = f64x2.splat(0), s11 = f64x2.splat(0)
          let s20 = f64x2.splat(0), s21 = f64x2.splat(0), s30 = f64x2.splat(0), s31 = f64x2.splat(0)
          for (let k = k0; k < k1; k += 2) {
            const o = <usize>k << 3
            const y0 = v128.load(b0 + o)
            const y1 = v128.load(b0 + rowBytes + o)
            const x0 = v128.load(a0 + o)
            const x1 = v128.load(a0 + rowBytes + o)
            const x2 = v128.load(a0 + 2 * rowBytes + o)
            const x3 = v128.load(a0 + 3 * rowBytes + o)
            s00 = f64x2.add(s00, f64x2.mul(x0, y0))
            s01 = f64x2.add(s01, f64x2.mul(x0, y1))
            s10 = f64x2.add(s10, f64x2.mul(x1, y0))
            s11 = f64x2.add(s11, f64x2.mul(x1, y1))
            s20 = f64x2.add(s20, f64x2.mul(x2, y0))
            s21 = f64x2.add(s21, f64x2.mul(x2, y1))
            s30 = f64x2.add(s30, f64x2.mul(x3, y0))
            s31 = f64x2.add(s31, f64x2.mul(x3, y1))
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
      }
    }
  }
}

@inline function store64(c: usize, stride: i32, m: i32, i: i32, j: i32, r: i32, q: i32, s: v128, first: bool): void {
  if (i + r >= m || j + q >= m) return
  const at = c + ((<usize>(i + r) * <usize>stride + <usize>(j + q)) << 3)
  const v = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)
  store<f64>(at, first ? v : load<f64>(at) + v)
}

/** crossF64 in f32: four lanes along the samples. */
export function crossF32(d: usize, dStride: i32, c: usize, cStride: i32, m: i32, n: i32, p0: i32, p1: i32): void {
  const rows = pad4(m)
  const kEnd = pad4(n)
  const tiles = (m + TILE - 1) / TILE
  const rowBytes = <usize>dStride << 2
  for (let p = p0; p < p1; p++) {
    const pair = tilePair(p, tiles)
    const ti = pair >> 16
    const tj = pair & 0xffff
    const i0 = ti * TILE
    const i1 = min(i0 + TILE, rows)
    const j1 = min(tj * TILE + TILE, rows)
    for (let k0 = 0; k0 < kEnd; k0 += KC) {
      const k1 = min(k0 + KC, kEnd)
      const first = k0 == 0
      for (let i = i0; i < i1; i += 4) {
        const a0 = d + <usize>i * rowBytes
        for (let j = ti == tj ? i : tj * TILE; j < j1; j += 2) {
          const b0 = d + <usize>j * rowBytes
          let s00 = f32x4.splat(0), s01 = f32x4.splat(0), s10 = f32x4.splat(0), s11 = f32x4.splat(0)
          let s20 = f32x4.splat(0), s21 = f32x4.splat(0), s30 = f32x4.splat(0), s31 = f32x4.splat(0)
          for (let k = k0; k < k1; k += 4) {
            const o = <usize>k << 2
            const y0 = v128.load(b0 + o)
            const y1 = v128.load(b0 + rowBytes + o)
            const x0 = v128.load(a0 + o)
            const x1 = v128.load(a0 + rowBytes + o)
            const x2 = v128.load(a0 + 2 * rowBytes + o)
            const x3 = v128.load(a0 + 3 * rowBytes + o)
            s00 = f32x4.add(s00, f32x4.mul(x0, y0))
            s01 = f32x4.add(s01, f32x4.mul(x0, y1))
            s10 = f32x4.add(s10, f32x4.mul(x1, y0))
            s11 = f32x4.add(s11, f32x4.mul(x1, y1))
            s20 = f32x4.add(s20, f32x4.mul(x2, y0))
            s21 = f32x4.add(s21, f32x4.mul(x2, y1))
            s30 = f32x4.add(s30, f32x4.mul(x3, y0))
            s31 = f32x4.add(s31, f32x4.mul(x3, y1))
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
      }
    }
  }
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
