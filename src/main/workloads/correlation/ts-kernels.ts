// The four stages in TypeScript (serial and workers backends), over a workspace in shared memory.
// f64 is the study's two-pass reference; f32 rounds every operation to f32 (Math.fround), as the
// study's "float" computed. Each kernel works on a range of rows or of tile pairs, so threads split
// the stages without sharing an output element.
import type { Precision } from '../../../shared/workloads/correlation/types'
import { KC, ROW_STEP, TILE, padTo, tilePair } from './cpu-layout'

/** What the kernels work on: the series and what the stages make of them, in shared memory. */
export interface TsWorkspace {
  kind: 'ts'
  precision: Precision
  /** Full size of the data; a run may use a prefix of either. */
  m: number
  n: number
  /** m × n series, row-major (f64, or f32 in f32 mode). */
  x: SharedArrayBuffer
  /** padTo(m, ROW_STEP) × n centred series; rows past m stay zero. */
  d: SharedArrayBuffer
  means: SharedArrayBuffer
  norms: SharedArrayBuffer
  /** 1 for a series whose values are all equal (r is NaN with it). */
  constant: SharedArrayBuffer
  /** m × m: cross-products in the upper triangle, then the coefficients, mirrored. */
  c: SharedArrayBuffer
}

/** The size a run works on: the first `m` series and their first `n` samples. */
export interface RunSize {
  m: number
  n: number
}

type Values = Float64Array | Float32Array

function arrays(ws: TsWorkspace) {
  const view = (b: SharedArrayBuffer): Values => (ws.precision === 'f64' ? new Float64Array(b) : new Float32Array(b))
  return { x: view(ws.x), d: view(ws.d), means: view(ws.means), norms: view(ws.norms), constant: new Uint8Array(ws.constant), c: view(ws.c) }
}

export function tsWorkspace(values: Float64Array, m: number, n: number, precision: Precision, constant: Uint8Array): TsWorkspace {
  const bytes = precision === 'f64' ? 8 : 4
  const ws: TsWorkspace = {
    kind: 'ts',
    precision,
    m,
    n,
    x: new SharedArrayBuffer(m * n * bytes),
    d: new SharedArrayBuffer(padTo(m, ROW_STEP) * n * bytes),
    means: new SharedArrayBuffer(m * bytes),
    norms: new SharedArrayBuffer(m * bytes),
    constant: new SharedArrayBuffer(m),
    c: new SharedArrayBuffer(m * m * bytes),
  }
  // Float32Array.set rounds to nearest, as Math.fround.
  arrays(ws).x.set(values)
  new Uint8Array(ws.constant).set(constant)
  return ws
}

export const tsKernels = {
  /** Step 2: the mean of rows [r0, r1). */
  means(ws: TsWorkspace, size: RunSize, r0: number, r1: number): void {
    const { x, means } = arrays(ws)
    const { n } = size
    const f32 = ws.precision === 'f32'
    for (let i = r0; i < r1; i++) {
      const at = i * ws.n
      let s = 0
      if (f32) for (let k = 0; k < n; k++) s = Math.fround(s + x[at + k])
      else for (let k = 0; k < n; k++) s += x[at + k]
      means[i] = s / n
    }
  },

  /** Step 3: the centred rows [r0, r1) and their norms √Σ(x − x̄)² (0 for a constant series). */
  squares(ws: TsWorkspace, size: RunSize, r0: number, r1: number): void {
    const { x, d, means, norms, constant } = arrays(ws)
    const { n } = size
    const f32 = ws.precision === 'f32'
    for (let i = r0; i < r1; i++) {
      const at = i * ws.n
      const mean = means[i]
      let s = 0
      if (f32) {
        for (let k = 0; k < n; k++) {
          const v = Math.fround(x[at + k] - mean)
          d[at + k] = v
          s = Math.fround(s + Math.fround(v * v))
        }
      } else {
        for (let k = 0; k < n; k++) {
          const v = x[at + k] - mean
          d[at + k] = v
          s += v * v
        }
      }
      norms[i] = constant[i] ? 0 : Math.sqrt(s)
    }
  },

  /** Step 4: Σ d_i d_j of the tile pairs [p0, p1), upper triangle (the kernels of a diagonal tile may also write some of its lower half). */
  cross(ws: TsWorkspace, size: RunSize, p0: number, p1: number): void {
    const { d, c } = arrays(ws)
    for (let p = p0; p < p1; p++) {
      const [ti, tj] = tilePair(p, size.m)
      if (ws.precision === 'f64') crossTileF64(d, c, ws.n, ws.m, size, ti, tj)
      else crossTileF32(d, c, ws.n, ws.m, size, ti, tj)
    }
  },

  /** Step 5: r of rows [r0, r1) with every later row, clipped, mirrored; 1 on the diagonal; NaN with a constant series. */
  coefficients(ws: TsWorkspace, size: RunSize, r0: number, r1: number): void {
    const { c, norms } = arrays(ws)
    const stride = ws.m
    const round = ws.precision === 'f32' ? Math.fround : (v: number) => v
    for (let i = r0; i < r1; i++) {
      const ni = norms[i]
      const row = i * stride
      c[row + i] = ni > 0 ? 1 : NaN
      for (let j = i + 1; j < size.m; j++) {
        const nj = norms[j]
        // As numpy's corrcoef: divided by each norm in turn.
        let r = ni > 0 && nj > 0 ? round(round(c[row + j] / ni) / nj) : NaN
        r = r > 1 ? 1 : r < -1 ? -1 : r
        c[row + j] = r
        c[j * stride + i] = r
      }
    }
  },
}

/**
 * One tile pair in f64: blocks of KC samples, and in each a 4 × 2 micro-kernel (8 independent sums,
 * each loaded value used twice or four times). The first block sets the sums, later ones add.
 */
function crossTileF64(d: Values, c: Values, dStride: number, cStride: number, size: RunSize, ti: number, tj: number): void {
  const { m, n } = size
  const rows = padTo(m, ROW_STEP)
  const i0 = ti * TILE
  const i1 = Math.min(i0 + TILE, rows)
  const j1 = Math.min(tj * TILE + TILE, rows)
  for (let k0 = 0; k0 < n; k0 += KC) {
    const k1 = Math.min(k0 + KC, n)
    const first = k0 === 0
    for (let i = i0; i < i1; i += 4) {
      const a0 = i * dStride
      const a1 = a0 + dStride
      const a2 = a1 + dStride
      const a3 = a2 + dStride
      // On a diagonal tile only pairs from row i on: the upper triangle.
      for (let j = ti === tj ? i : tj * TILE; j < j1; j += 2) {
        const b0 = j * dStride
        const b1 = b0 + dStride
        let s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0
        for (let k = k0; k < k1; k++) {
          const y0 = d[b0 + k]
          const y1 = d[b1 + k]
          const x0 = d[a0 + k]
          const x1 = d[a1 + k]
          const x2 = d[a2 + k]
          const x3 = d[a3 + k]
          s00 += x0 * y0
          s01 += x0 * y1
          s10 += x1 * y0
          s11 += x1 * y1
          s20 += x2 * y0
          s21 += x2 * y1
          s30 += x3 * y0
          s31 += x3 * y1
        }
        store(c, cStride, m, i, j, first, s00, s01, s10, s11, s20, s21, s30, s31)
      }
    }
  }
}

/** crossTileF64 with every product and sum rounded to f32. */
function crossTileF32(d: Values, c: Values, dStride: number, cStride: number, size: RunSize, ti: number, tj: number): void {
  const { m, n } = size
  const f = Math.fround
  const rows = padTo(m, ROW_STEP)
  const i0 = ti * TILE
  const i1 = Math.min(i0 + TILE, rows)
  const j1 = Math.min(tj * TILE + TILE, rows)
  for (let k0 = 0; k0 < n; k0 += KC) {
    const k1 = Math.min(k0 + KC, n)
    const first = k0 === 0
    for (let i = i0; i < i1; i += 4) {
      const a0 = i * dStride
      const a1 = a0 + dStride
      const a2 = a1 + dStride
      const a3 = a2 + dStride
      for (let j = ti === tj ? i : tj * TILE; j < j1; j += 2) {
        const b0 = j * dStride
        const b1 = b0 + dStride
        let s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0
        for (let k = k0; k < k1; k++) {
          const y0 = d[b0 + k]
          const y1 = d[b1 + k]
          const x0 = d[a0 + k]
          const x1 = d[a1 + k]
          const x2 = d[a2 + k]
          const x3 = d[a3 + k]
          s00 = f(s00 + f(x0 * y0))
          s01 = f(s01 + f(x0 * y1))
          s10 = f(s10 + f(x1 * y0))
          s11 = f(s11 + f(x1 * y1))
          s20 = f(s20 + f(x2 * y0))
          s21 = f(s21 + f(x2 * y1))
          s30 = f(s30 + f(x3 * y0))
          s31 = f(s31 + f(x3 * y1))
        }
        store(c, cStride, m, i, j, first, s00, s01, s10, s11, s20, s21, s30, s31)
      }
    }
  }
}

/** Writes (first block) or adds a micro-tile's sums; rows and columns past m are padding. A Float32Array rounds on store. */
function store(
  c: Values, stride: number, m: number, i: number, j: number, first: boolean,
  s00: number, s01: number, s10: number, s11: number, s20: number, s21: number, s30: number, s31: number,
): void {
  if (i + 3 < m && j + 1 < m) {
    const a = i * stride + j
    if (first) {
      c[a] = s00; c[a + 1] = s01
      c[a + stride] = s10; c[a + stride + 1] = s11
      c[a + 2 * stride] = s20; c[a + 2 * stride + 1] = s21
      c[a + 3 * stride] = s30; c[a + 3 * stride + 1] = s31
    } else {
      c[a] += s00; c[a + 1] += s01
      c[a + stride] += s10; c[a + stride + 1] += s11
      c[a + 2 * stride] += s20; c[a + 2 * stride + 1] += s21
      c[a + 3 * stride] += s30; c[a + 3 * stride + 1] += s31
    }
    return
  }
  const sums = [s00, s01, s10, s11, s20, s21, s30, s31]
  for (let r = 0; r < 4 && i + r < m; r++)
    for (let q = 0; q < 2 && j + q < m; q++) {
      const at = (i + r) * stride + j + q
      c[at] = first ? sums[2 * r + q] : c[at] + sums[2 * r + q]
    }
}
