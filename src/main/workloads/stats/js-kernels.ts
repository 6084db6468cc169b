// The slice kernels in plain TypeScript (serial and workers backends). Same results as the
// WebAssembly kernels up to the order of compensated additions; f32 mode rounds every operation.
import { sumF32 } from './compensated'
import {
  type ColumnRef,
  type PassPartial,
  type PassSpec,
  REGION_WORDS,
  type ScanPartial,
  type SliceKernels,
  WINDOW_LIMIT,
  WINDOW_LOW,
  GATHER_CAPACITY,
} from './slice-kernels'
import { prefixMask } from './keys'

const f = Math.fround

export class TsKernels implements SliceKernels {
  /** `regions` holds REGION_WORDS words per slice. */
  constructor(private readonly regions: Int32Array) {}

  scan(column: ColumnRef, start: number, end: number, region: number): ScanPartial {
    const hist = this.regions.subarray(region * REGION_WORDS, (region + 1) * REGION_WORDS)
    const x = values(column)
    return column.precision === 'f64' ? scanF64(x, start, end, hist) : scanF32(x, start, end, hist)
  }

  pass(column: ColumnRef, start: number, end: number, region: number, spec: PassSpec): PassPartial {
    const out = this.regions.subarray(region * REGION_WORDS, (region + 1) * REGION_WORDS)
    if (!spec.gather) out.fill(0, 0, spec.prefixes.length / 2 << 16)
    return radixPass(column, start, end, out, spec)
  }
}

function values(column: ColumnRef): Float64Array | Float32Array {
  if (column.where !== 'buffer') throw new Error('TypeScript kernels read columns from array buffers, not wasm memory')
  return column.precision === 'f64'
    ? new Float64Array(column.buffer, column.byteOffset, column.length)
    : new Float32Array(column.buffer, column.byteOffset, column.length)
}

// While every value is an integer of the window, count them; the sum then comes exactly from the
// counts. Four interleaved sub-histograms keep runs of equal values from waiting on one counter.
// The range test comes first: it rejects NaN and keeps `| 0` from wrapping (and V8 fast).
function countWindow(x: Float64Array | Float32Array, start: number, end: number, hist: Int32Array): ScanPartial | undefined {
  hist.fill(0)
  const L = WINDOW_LIMIT
  const B = -WINDOW_LOW
  let i = start
  for (; i + 3 < end; i += 4) {
    const v0 = x[i]
    const v1 = x[i + 1]
    const v2 = x[i + 2]
    const v3 = x[i + 3]
    if (!(v0 >= -L && v0 <= L && v1 >= -L && v1 <= L && v2 >= -L && v2 <= L && v3 >= -L && v3 <= L)) return undefined
    const k0 = v0 | 0
    const k1 = v1 | 0
    const k2 = v2 | 0
    const k3 = v3 | 0
    if (k0 !== v0 || k1 !== v1 || k2 !== v2 || k3 !== v3) return undefined
    if (isNegativeZero(k0, v0) || isNegativeZero(k1, v1) || isNegativeZero(k2, v2) || isNegativeZero(k3, v3)) return undefined
    hist[k0 + B]++
    hist[k1 + B + 65536]++
    hist[k2 + B + 2 * 65536]++
    hist[k3 + B + 3 * 65536]++
  }
  for (; i < end; i++) {
    const v = x[i]
    if (!(v >= -L && v <= L)) return undefined
    const k = v | 0
    if (k !== v || isNegativeZero(k, v)) return undefined
    hist[k + B]++
  }
  // Short slices: bound the bins to merge by a quick min/max rather than walking the whole window.
  let lo = -L
  let hi = L
  if (end - start < 65536) {
    lo = hi = x[start]
    for (let j = start + 1; j < end; j++) {
      if (x[j] < lo) lo = x[j]
      if (x[j] > hi) hi = x[j]
    }
  }
  return mergeWindow(hist, lo, hi)
}

/** −0 must take the general path: selection keeps it apart from +0. */
function isNegativeZero(k: number, v: number): boolean {
  return k === 0 && 1 / v < 0
}

/**
 * Folds the sub-histograms into the first over [from, to] and finds the counted range. The sum Σ count·value is
 * exact: each product is below 2^47 and the total below 2^53 for fewer than 2^38 values.
 */
function mergeWindow(hist: Int32Array, from: number, to: number): ScanPartial {
  let lo = Infinity
  let hi = -Infinity
  let sum = 0
  for (let b = from - WINDOW_LOW; b <= to - WINDOW_LOW; b++) {
    const c = hist[b] + hist[b + 65536] + hist[b + 2 * 65536] + hist[b + 3 * 65536]
    if (c === 0) continue
    hist[b] = c
    const k = b + WINDOW_LOW
    if (k < lo) lo = k
    hi = k
    sum += c * k
  }
  return { s: sum, c: 0, min: lo, max: hi, fits: true }
}

function scanF64(x: Float64Array | Float32Array, start: number, end: number, hist: Int32Array): ScanPartial {
  const counted = countWindow(x, start, end, hist)
  if (counted) return counted
  let s = 0
  let c = 0
  for (let i = start; i < end; i++) {
    const v = x[i]
    const t = s + v
    const z = t - s
    c += s - (t - z) + (v - z)
    s = t
  }
  return { s, c, min: NaN, max: NaN, fits: false }
}

function scanF32(x: Float64Array | Float32Array, start: number, end: number, hist: Int32Array): ScanPartial {
  const counted = countWindow(x, start, end, hist)
  if (counted) return counted
  const { s, c } = sumF32(x, start, end)
  return { s, c, min: NaN, max: NaN, fits: false }
}

function radixPass(column: ColumnRef, start: number, end: number, out: Int32Array, spec: PassSpec): PassPartial {
  const isF64 = column.precision === 'f64'
  const x = values(column)
  const { s, c } = spec.devMean === undefined ? { s: 0, c: 0 } : squaredDeviations(x, start, end, spec.devMean, isF64)
  const gathered = spec.absdev ? absDevKeys(x, start, end, out, spec, isF64) : valueKeys(column, start, end, out, spec)
  return { s, c, gathered }
}

function squaredDeviations(x: Float64Array | Float32Array, start: number, end: number, devMean: number, isF64: boolean) {
  if (!isF64) return sumF32(x, start, end, f(devMean))
  let s = 0
  let c = 0
  for (let i = start; i < end; i++) {
    const d = x[i] - devMean
    const q = d * d
    const t = s + q
    const z = t - s
    c += s - (t - z) + (q - z)
    s = t
  }
  return { s, c }
}

/** Prefix test and digit of `level`, as int32 bit patterns (see keys.ts). */
function passShape(spec: PassSpec) {
  const { level } = spec
  const mask = prefixMask(level)
  const two = spec.prefixes.length > 2
  return {
    mH: mask.hi | 0,
    mL: mask.lo | 0,
    p0h: spec.prefixes[0] | 0,
    p0l: spec.prefixes[1] | 0,
    p1h: (two ? spec.prefixes[2] : spec.prefixes[0]) | 0,
    p1l: (two ? spec.prefixes[3] : spec.prefixes[1]) | 0,
    fromLo: level >= 2,
    shift: level & 1 ? 0 : 16,
  }
}

/** Histogram (or gather) of the keys of the values themselves, read straight from their bits. */
function valueKeys(column: ColumnRef, start: number, end: number, out: Int32Array, spec: PassSpec): number {
  if (column.where !== 'buffer') throw new Error('TypeScript kernels read columns from array buffers, not wasm memory')
  const isF64 = column.precision === 'f64'
  const words = new Int32Array(column.buffer, column.byteOffset, column.length * (isF64 ? 2 : 1))
  const { mH, mL, p0h, p0l, p1h, p1l, fromLo, shift } = passShape(spec)
  const { gather } = spec
  let gathered = 0
  for (let i = start; i < end; i++) {
    const w = isF64 ? words[2 * i + 1] : words[i]
    const flip = w >> 31
    const hi = w ^ (flip | 0x80000000)
    // Most keys past level 0 fail on their high word alone.
    const mh = hi & mH
    if (mh !== p0h && mh !== p1h) continue
    const lo = isF64 ? words[2 * i] ^ flip : 0
    const ml = lo & mL
    const p = mh === p0h && ml === p0l ? 0 : mh === p1h && ml === p1l ? 1 : -1
    if (p < 0) continue
    if (gather) {
      if (gathered < GATHER_CAPACITY) {
        out[2 * gathered] = lo
        out[2 * gathered + 1] = hi
      }
      gathered++
    } else out[(p << 16) + (((fromLo ? lo : hi) >>> shift) & 0xffff)]++
  }
  return gathered
}

/** Histogram (or gather) of the keys of |x − center|, whose bits pass through a one-value view. */
function absDevKeys(x: Float64Array | Float32Array, start: number, end: number, out: Int32Array, spec: PassSpec, isF64: boolean): number {
  const { mH, mL, p0h, p0l, p1h, p1l, fromLo, shift } = passShape(spec)
  const { gather } = spec
  const center = isF64 ? spec.center : f(spec.center)
  const tmp64 = new Float64Array(1)
  const tmp32 = new Float32Array(tmp64.buffer, 0, 1)
  const tmpWords = new Int32Array(tmp64.buffer)
  let gathered = 0
  for (let i = start; i < end; i++) {
    let hi: number
    let lo = 0
    if (isF64) {
      tmp64[0] = Math.abs(x[i] - center)
      hi = tmpWords[1] | 0x80000000 // non-negative: only the sign bit flips
      lo = tmpWords[0]
    } else {
      tmp32[0] = Math.abs(x[i] - center) // rounds once to f32, as f32 subtraction would
      hi = tmpWords[0] | 0x80000000
    }
    const mh = hi & mH
    const ml = lo & mL
    const p = mh === p0h && ml === p0l ? 0 : mh === p1h && ml === p1l ? 1 : -1
    if (p < 0) continue
    if (gather) {
      if (gathered < GATHER_CAPACITY) {
        out[2 * gathered] = lo
        out[2 * gathered + 1] = hi
      }
      gathered++
    } else out[(p << 16) + (((fromLo ? lo : hi) >>> shift) & 0xffff)]++
  }
  return gathered
}
