// The deviation pass's arithmetic (shaders/stats/f64.wgsl) on the software adapter, bit for bit
// against an exact BigInt model: x − mean rounded to 53 bits as f64 rounds it (absdiff_parts: one
// branch-free path, exact in a 64-bit window when the exponents are close, round-to-odd beyond),
// its exact square, the 128-bit fixed-point sum of the squares, and the gpu engine's σ built on
// them. Each input set is checked to reach the cases it is there for, so that the comparisons
// cannot pass vacuously.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetGpu } from '../../src/main/gpu/runtime'
import { type GpuStatsEngine, createGpuStatsEngine } from '../../src/main/workloads/stats/gpu/gpu-engine'
import { scaledToNumber } from '../../src/main/workloads/stats/gpu/fixed-point'
import { MAX_SCAN_GROUPS, PARAMS, PARAMS_WORDS, SCAN_TILE, WG } from '../../src/main/workloads/stats/gpu/layout'
import { referenceColumnStats } from '../../src/main/workloads/stats/reference'
import { column, fsum, normal, relDiff, rng, sortReference } from '../helpers/stats-reference'

// ---- the model ----

const WINDOW = 10 // f64.wgsl: exponents this close subtract exactly in the 64-bit window
const EMPTY_UNIT = -1000000
const TERM_BITS = 101

interface Unpacked {
  e: number
  m: bigint
}

const bits = new DataView(new ArrayBuffer(8))

/** A finite double's magnitude as m · 2^(e − 1075), e ≥ 1 (the kernels' unpacked form). */
function unpack(x: number): Unpacked {
  bits.setFloat64(0, x)
  const hi = bits.getUint32(0)
  const field = (hi >>> 20) & 0x7ff
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(bits.getUint32(4))
  return field === 0 ? { e: 1, m: frac } : { e: field, m: frac | (1n << 52n) }
}

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length
}

/** a − b exactly, in units of 2^(low − 1075), low the smaller operand's exponent. */
function exactDiff(a: number, b: number): { d: bigint; low: number } {
  const ua = unpack(a)
  const ub = unpack(b)
  const low = Math.min(ua.e, ub.e)
  const signed = (x: number, u: Unpacked) => (x < 0 || Object.is(x, -0) ? -1n : 1n) * (u.m << BigInt(u.e - low))
  return { d: signed(a, ua) - signed(b, ub), low }
}

/**
 * |a − b| rounded once to 53 bits, nearest-even, with the exponent unbounded above as the
 * kernels keep it: m in [2^52, 2^53), or e = 1 and m < 2^52 (subnormal); zero is (1, 0).
 */
function absdiffModel(a: number, b: number): Unpacked {
  const { d: signed, low } = exactDiff(a, b)
  const d = signed < 0n ? -signed : signed
  if (d === 0n) return { e: 1, m: 0n }
  const len = bitLength(d)
  let e = low + len - 53
  if (e < 1) return { e: 1, m: d << BigInt(low - 1) } // subnormal: exact
  if (len <= 53) return { e, m: d << BigInt(53 - len) }
  const s = BigInt(len - 53)
  let q = d >> s
  const rest = d - (q << s)
  const half = 1n << (s - 1n)
  if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n
  if (q === 1n << 53n) {
    q >>= 1n
    e += 1
  }
  return { e, m: q }
}

/** The double an unpacked result stands for (Infinity past the range). */
function toNumber(u: Unpacked): number {
  return u.e >= 2047 ? Infinity : scaledToNumber(u.m, u.e - 1075)
}

/** What a pair exercises in absdiff_parts, for the coverage checks. */
function cases(a: number, b: number): string[] {
  const { d: signed, low } = exactDiff(a, b)
  const d = signed < 0n ? -signed : signed
  if (d === 0n) return ['zero']
  const ua = unpack(a)
  const ub = unpack(b)
  const gap = Math.abs(ua.e - ub.e)
  const out: string[] = []
  if (a < 0 !== b < 0 && a !== 0 && b !== 0) out.push('magnitudes add')
  const len = bitLength(d)
  const r = absdiffModel(a, b)
  if (gap <= WINDOW || ua.m === 0n || ub.m === 0n) out.push(len <= 53 || r.e === 1 ? 'exact window, no rounding' : 'exact window, rounded')
  else out.push(gap >= 64 + WINDOW ? 'beyond the window (sticky only)' : 'sticky window')
  if (r.e === 1 && r.m < 1n << 52n) out.push('subnormal result')
  if (r.e >= 2047) out.push('overflow')
  if (len > 53 && r.e > low + len - 53) out.push('rounding carry')
  if (len > 53 && r.e > 1 && isTie(d)) out.push('tie')
  // Beyond the window: a tie there (truncated, or rounded up as a subtraction leaves it) that
  // only the bits below decide, through the sticky bit.
  if (gap > WINDOW && gap < 64 + WINDOW) {
    const below = BigInt(gap - WINDOW)
    const kept = d >> below
    if (d !== kept << below && (isTie(kept) || isTie(kept + 1n))) out.push('sticky decides a tie')
  }
  return out
}

/** Whether v's bits below its top 53 are exactly one half. */
function isTie(v: bigint): boolean {
  const len = bitLength(v)
  if (len <= 53) return false
  const s = BigInt(len - 53)
  return v - ((v >> s) << s) === 1n << (s - 1n)
}

/** A sum as the kernels keep it: v · 2^unit, v a two's complement 128-bit integer. */
interface Sum {
  v: bigint
  unit: number
}

const empty = (): Sum => ({ v: 0n, unit: EMPTY_UNIT })

function rescale(s: Sum, unit: number): bigint {
  return s.v >> BigInt(unit - s.unit) // arithmetic: the sign fills, as shr128 with sign_fill
}

function merge(a: Sum, b: Sum): Sum {
  const unit = Math.max(a.unit, b.unit)
  return { v: rescale(a, unit) + rescale(b, unit), unit }
}

/** sum_add in the deviation pass: (x − mean)², the unit raised for it first, low bits dropped. */
function addDeviation(acc: Sum, x: number, mean: number): void {
  const d = absdiffModel(x, mean)
  if (d.m === 0n) return
  const e = 2 * (d.e - 1075)
  const need = e + 106 - TERM_BITS
  if (need > acc.unit) {
    acc.v = rescale(acc, need)
    acc.unit = need
  }
  acc.v += (d.m * d.m) >> BigInt(acc.unit - e)
}

function treeReduce(red: Sum[]): Sum {
  for (let half = red.length / 2; half > 0; half >>= 1) for (let lid = 0; lid < half; lid++) red[lid] = merge(red[lid], red[lid + half])
  return red[0]
}

/** Σ(x − mean)² as the scan and combine kernels (sums.wgsl) compute it, rounded to a double. */
function deviationSumModel(x: Float64Array, mean: number): number {
  const tiles = Math.ceil(x.length / SCAN_TILE)
  const groups = Math.min(tiles, MAX_SCAN_GROUPS)
  const partials: Sum[] = []
  for (let g = 0; g < groups; g++) {
    const red = Array.from({ length: WG }, empty)
    for (let tile = g; tile < tiles; tile += groups)
      for (let j = 0; j < SCAN_TILE / WG; j++)
        for (let lid = 0; lid < WG; lid++) {
          const i = tile * SCAN_TILE + j * WG + lid
          if (i < x.length) addDeviation(red[lid], x[i], mean)
        }
    partials.push(treeReduce(red))
  }
  const acc = Array.from({ length: WG }, empty)
  for (let lid = 0; lid < WG; lid++)
    for (let g = lid; g < groups; g += WG) acc[lid] = merge(acc[lid], { v: partials[g].v >> 16n, unit: partials[g].unit + 16 })
  const total = treeReduce(acc)
  return scaledToNumber(total.v, total.unit)
}

function words128(w: Uint32Array, at: number): bigint {
  return [3, 2, 1, 0].reduce((v, k) => (v << 32n) | BigInt(w[at + k]), 0n)
}

// ---- inputs ----

/** x moved k units in the last place (away from zero for k > 0). */
const ulpsAway = (x: number, k: number): number => {
  const a = new Float64Array([x])
  const b = new BigInt64Array(a.buffer)
  b[0] += BigInt(k)
  return a[0]
}

/** Pairs (x, mean) aimed at every case of absdiff_parts, and random ones around them. */
function pairs(): [number, number][] {
  const r = rng(40)
  const out: [number, number][] = [
    [0, -0],
    [5, 5],
    [-2.5, -2.5],
    [1.7976931348623157e308, -1.7976931348623157e308], // overflow
    [1.5e308, -1.5e308],
    [1 + 2 ** -52, -(2 ** -53)], // a tie, to even (up)
    [1, -(2 ** -53)], // a tie, to even (down)
    [2 - 2 ** -52, -(2 ** -53)], // a tie that carries into the next binade
    [2 ** 53, -1],
    [2 ** -1074, -(2 ** -1074)],
    [3 * 2 ** -1074, 2 ** -1022],
    [2 ** -1022, 2 ** -1022 + 2 ** -1074], // two normals, a subnormal difference
    [1e300, 1e-300],
    [-1e-300, 1e300],
  ]
  // Exponent gaps around the window's edges (10, 11) and its end (64 + 10 and beyond).
  for (const gap of [0, 1, 9, 10, 11, 12, 30, 52, 53, 54, 62, 63, 64, 65, 73, 74, 75, 76, 120, 1000])
    for (const sign of [1, -1]) {
      const mean = 1 + r()
      const x = sign * (1 + r()) * 2 ** gap
      out.push([x, mean], [mean, x], [ulpsAway(x, 1), mean], [(1 + 2 ** -52) * 2 ** gap, sign * 1.5])
    }
  // Ties in the window that only a bit below it decides: b = 2^-t + 2^-53 + 2^-(t+52) puts a
  // half unit of a = 1 + k·2^-52 in the window (t > WINDOW) and a bit below it.
  for (let t = WINDOW + 1; t <= 52; t++) for (const k of [2, 3]) for (const sign of [1, -1]) out.push([1 + k * 2 ** -52, sign * (2 ** -t + 2 ** -53 + 2 ** -(t + 52))])
  // Integer counts against a full-precision mean and against a mean with few fraction bits.
  for (const mean of [-7.446579123456789, 12.375, 0.1]) for (let i = 0; i < 400; i++) out.push([Math.floor(normal(r) * 40), mean])
  // Mixed magnitudes around a mean, near neighbours (cancellation), subnormals, negatives.
  for (let i = 0; i < 3000; i++) {
    const mean = (r() < 0.5 ? -1 : 1) * (1 + r()) * 2 ** Math.floor(r() * 80 - 40)
    const kind = r()
    const x =
      kind < 0.2
        ? mean + normal(r) * mean * 10 ** -Math.floor(r() * 17) // close to the mean
        : kind < 0.3
          ? ulpsAway(mean, Math.floor(r() * 9) - 4)
          : kind < 0.4
            ? -mean * (1 + r() * 2 ** -30)
            : kind < 0.5
              ? (r() - 0.5) * 2 ** -1060 // subnormal
              : kind < 0.6
                ? Math.floor(r() * 2000) - 1000
                : (r() - 0.5) * 2 ** Math.floor(r() * 240 - 120)
    out.push([x, mean])
  }
  for (let i = 0; i < 500; i++) out.push([(r() - 0.5) * 2 ** -1060, (r() - 0.5) * 2 ** -1065]) // both subnormal
  return out
}

/** Columns of one mean each: what the deviation pass adds, thread by thread. */
function columns(): { name: string; mean: number; x: Float64Array }[] {
  const counts = column(4096, 41, (r) => Math.floor(normal(r) * 30) - 7)
  const sub = column(4096, 45, (r, i) => (i % 7 === 0 ? 3 * 2 ** -1070 : (r() - 0.5) * 2 ** -1060))
  return [
    { name: 'integer counts, a full-precision mean', mean: fsum(counts) / counts.length, x: counts },
    { name: 'integer counts, a mean with few fraction bits', mean: 12.375, x: counts },
    { name: 'mixed magnitudes around the mean', mean: 3.7, x: column(4096, 42, (r) => 3.7 + normal(r) * 10 ** (5 - Math.floor(r() * 20))) },
    { name: 'random doubles (rounded differences)', mean: 1.0053424889765659, x: column(4096, 43, (r) => normal(r) * 3 + 1) },
    {
      name: 'huge and tiny values together',
      mean: 1.234e290,
      x: column(4096, 44, (r) => (r() < 0.3 ? (r() - 0.5) * 1e300 : r() < 0.5 ? (r() - 0.5) * 1e-300 : 1.234e290 * (1 + normal(r) * 1e-3))),
    },
    { name: 'subnormals around a subnormal mean', mean: 3 * 2 ** -1070, x: sub },
    {
      name: 'negative values, the mean itself and its negation',
      mean: -2.718281828459045,
      x: column(4096, 46, (r, i) => [-2.718281828459045, 2.718281828459045, ulpsAway(-2.718281828459045, 1), -r() * 100][i % 4]),
    },
    // Each thread's 16 values grow, so its unit rises along its sum and drops low bits.
    { name: 'growing magnitudes (the unit rises mid-sum)', mean: 0.5, x: column(4096, 47, (r, i) => 0.5 + (1 + r()) * 2 ** ((i % 16) * 5 - 40)) },
  ]
}

// ---- the kernels ----

let engine: GpuStatsEngine

beforeAll(async () => {
  engine = await createGpuStatsEngine()
})

afterAll(async () => {
  await engine?.dispose()
  await resetGpu()
})

/** Runs a test kernel over the f64 part (deviation pass) and returns its outputs. */
async function runCheck(code: string, input: Float64Array | Uint32Array, threads: number, mean = 0): Promise<{ keys: Uint32Array; wide: Uint32Array }> {
  const gpu = engine.gpu
  const kernel = await gpu.kernel({ label: 'deviation check', code: `#include "stats/f64"\n${code}` }, { entryPoint: 'check', constants: { DEV: 1 } })
  const params = new ArrayBuffer(PARAMS_WORDS * 4)
  new Uint32Array(params)[0] = threads
  new Float64Array(params, PARAMS.mean * 4, 1)[0] = mean
  const buffers = {
    0: await gpu.storage('check input', input),
    1: gpu.uniform('check params', params),
    3: await gpu.storage('check wide output', threads * 48),
    4: await gpu.storage('check key output', threads * 8),
  }
  const used = code.includes('candidates[') ? buffers : { 0: buffers[0], 1: buffers[1], 3: buffers[3] }
  await gpu.run('deviation check', [kernel.dispatch(kernel.bind(used), Math.ceil(threads / 64))])
  const out = { keys: await gpu.readU32(buffers[4]), wide: await gpu.readU32(buffers[3]) }
  for (const b of Object.values(buffers)) b.destroy()
  return out
}

describe('x − mean and its square, pair by pair', () => {
  it('equals the exact model: correctly rounded (Math.abs(a - b) where finite) and squared exactly', async () => {
    const ps = pairs()
    const { keys, wide } = await runCheck(
      `
@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if i >= params.n { return; }
  let d = absdiff_parts(data[2u * i], data[2u * i + 1u]);
  candidates[i] = d.m;
  partials[3u * i] = vec4<u32>(d.e, 0u, 0u, 0u);
  partials[3u * i + 1u] = square53(d.m);
}`,
      new Float64Array(ps.flat()),
      ps.length,
    )
    const bad: unknown[] = []
    const seen = new Map<string, number>()
    ps.forEach(([a, b], i) => {
      const want = absdiffModel(a, b)
      const m = (BigInt(keys[2 * i + 1]) << 32n) | BigInt(keys[2 * i])
      const e = wide[12 * i]
      const sq = words128(wide, 12 * i + 4)
      if (e !== want.e || m !== want.m || sq !== want.m * want.m) bad.push({ a, b, got: [e, m.toString(16)], want: [want.e, want.m.toString(16)] })
      // The model is f64's rounding itself.
      if (!Object.is(toNumber(want), Math.abs(a - b))) bad.push({ a, b, model: toNumber(want), cpu: Math.abs(a - b) })
      for (const c of cases(a, b)) seen.set(c, (seen.get(c) ?? 0) + 1)
    })
    expect(bad.slice(0, 3)).toEqual([])
    const reached = Object.fromEntries(
      ['zero', 'magnitudes add', 'exact window, no rounding', 'exact window, rounded', 'sticky window', 'beyond the window (sticky only)', 'subnormal result', 'overflow', 'rounding carry', 'tie', 'sticky decides a tie'].map((c) => [c, (seen.get(c) ?? 0) > 0]),
    )
    expect(reached).toEqual(Object.fromEntries(Object.keys(reached).map((c) => [c, true])))
  })

  it('shr128 moves words and bits, filling with zeros or ones', async () => {
    const r = rng(48)
    const n = 4000
    const input = new Uint32Array(6 * n)
    const want: bigint[] = []
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 4; k++) input[6 * i + k] = Math.floor(r() * 2 ** 32)
      const s = i < 260 ? i : Math.floor(r() * 300)
      const fill = i % 2 ? 0xffffffff : 0
      input.set([s, fill], 6 * i + 4)
      // The unsigned value shifted, its vacated high bits set to the fill.
      const all = (1n << 128n) - 1n
      const shifted = s >= 128 ? 0n : words128(input, 6 * i) >> BigInt(s)
      const filled = fill ? all ^ (s >= 128 ? 0n : all >> BigInt(s)) : 0n
      want.push(shifted | filled)
    }
    const { wide } = await runCheck(
      `
@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if i >= params.n { return; }
  let sf = data[3u * i + 2u];
  partials[3u * i] = shr128(vec4<u32>(data[3u * i], data[3u * i + 1u]), sf.x, sf.y);
}`,
      input,
      n,
    )
    const bad = want.map((w, i) => [i, w, words128(wide, 12 * i)] as const).filter(([, w, got]) => w !== got)
    expect(bad.slice(0, 3)).toEqual([])
  })
})

describe('the deviation sum of a column, thread by thread (sum_add)', () => {
  const TERMS = 16
  for (const { name, mean, x } of columns()) {
    it(name, async () => {
      const threads = x.length / TERMS
      const { wide } = await runCheck(
        `
const TERMS = ${TERMS}u;
@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) id: vec3<u32>) {
  let t = id.x;
  if t >= params.n { return; }
  var acc = sum_empty();
  for (var i = t * TERMS; i < (t + 1u) * TERMS; i++) { sum_add(&acc, data[i]); }
  partials[3u * t] = acc.v;
  partials[3u * t + 1u] = vec4<u32>(bitcast<u32>(acc.unit), 0u, 0u, 0u);
}`,
        x,
        threads,
        mean,
      )
      const bad: unknown[] = []
      const seen = new Set<string>()
      for (let t = 0; t < threads; t++) {
        const acc = empty()
        for (let i = t * TERMS; i < (t + 1) * TERMS; i++) {
          addDeviation(acc, x[i], mean)
          for (const c of cases(x[i], mean)) seen.add(c)
        }
        const v = words128(wide, 12 * t)
        const unit = wide[12 * t + 4] | 0
        if (v !== acc.v || unit !== acc.unit) bad.push({ t, got: [v.toString(16), unit], want: [acc.v.toString(16), acc.unit] })
      }
      expect(bad.slice(0, 3)).toEqual([])
      expect(seen.size).toBeGreaterThan(1)
      // The cases each column is there for.
      const wanted: Record<string, string[]> = {
        'integer counts, a full-precision mean': ['exact window, rounded', 'magnitudes add'],
        'integer counts, a mean with few fraction bits': ['exact window, no rounding', 'magnitudes add'],
        'mixed magnitudes around the mean': ['exact window, no rounding', 'exact window, rounded', 'sticky window'],
        'random doubles (rounded differences)': ['exact window, rounded', 'sticky window', 'magnitudes add'],
        'huge and tiny values together': ['beyond the window (sticky only)', 'exact window, no rounding', 'magnitudes add'],
        'subnormals around a subnormal mean': ['subnormal result', 'zero', 'magnitudes add'],
        'negative values, the mean itself and its negation': ['zero', 'magnitudes add', 'exact window, no rounding'],
        'growing magnitudes (the unit rises mid-sum)': ['sticky window', 'exact window, rounded'],
      }
      expect(wanted[name].filter((c) => !seen.has(c))).toEqual([])
    })
  }
})

describe('the gpu engine: σ from the exact deviation sum, median and MAD as the reference', () => {
  const engineCases: Record<string, Float64Array> = {
    'integer counts (acc-like), odd length': column(50001, 50, (rr) => Math.floor(normal(rr) * 30) - 7),
    'integers whose mean is exact (zero deviations)': column(6000, 51, (_, i) => [1, 2, 3][i % 3]),
    'mixed magnitudes, subnormals and both signs': column(20000, 52, (rr) => {
      const k = rr()
      return k < 0.1 ? (rr() - 0.5) * 2 ** -1060 : k < 0.2 ? (rr() - 0.5) * 1e150 : k < 0.3 ? -(rr() * 1e-150) : normal(rr) * 10 ** Math.floor(rr() * 12 - 6)
    }),
    'negative values near the mean': column(9999, 53, (r) => -1000 + normal(r) * 1e-9),
  }
  for (const [name, x] of Object.entries(engineCases)) {
    it(name, async () => {
      const c = await engine.prepare(x, 'f64')
      try {
        const got = await engine.compute(c)
        // σ bit for bit: the model runs the same sums in the same order.
        expect([name, got.std]).toEqual([name, Math.sqrt(deviationSumModel(x, got.mean) / x.length)])
        const sorted = sortReference(x, 'f64')
        const ref = referenceColumnStats(x, 'f64')
        expect([got.median, got.mad]).toEqual([sorted.median, sorted.mad])
        expect([got.median, got.mad]).toEqual([ref.median, ref.mad])
        for (const k of ['mean', 'std', 'cv'] as const) expect([k, relDiff(got[k], sorted[k]) <= 1e-12]).toEqual([k, true])
      } finally {
        engine.release(c)
      }
    })
  }
})
