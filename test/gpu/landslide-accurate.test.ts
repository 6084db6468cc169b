// --precision accurate on the software adapter: the double-float primitives through a small WGSL
// kernel against f64 (TwoSum exact, so no compiler re-associated it; sums, quotients by the
// neighbour counts and comparisons to ~2^-48), then the double-float kernels against the f64 CPU
// run: the study's 10 × 5 test grid, a valley with walls and every kernel that has a double-float
// version, and the Tessina landslide after 1 and 100 steps, whose reference-format md5 they
// reproduce where f32 does not; in a job, each run names its arithmetic.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { gridDeviation } from '../../src/main/workloads/landslide/grid-stats'
import { fromDoubleFloat, type GpuArithmetic, GpuSimulation, toDoubleFloat } from '../../src/main/workloads/landslide/gpu/gpu-simulation'
import { DF_GUARDS, type DfGuard, DOUBLE_FLOAT_VARIANTS } from '../../src/main/workloads/landslide/gpu/kernels'
import { readLandslideInput, type LandslideInput } from '../../src/main/workloads/landslide/inputs'
import { referenceMd5 } from '../../src/main/workloads/landslide/reference-format'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { initialState, ThreadSimulation } from '../../src/main/workloads/landslide/simulation'
import type { GpuVariant, LandslideBackend, LandslidePrecision } from '../../src/shared/workloads/landslide/types'
import { failure } from '../helpers/failure'
import { valley } from '../helpers/landslide-valley'

const DATA = join(__dirname, '../../../shared/data/landslide')

let gpu: Gpu
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(() => resetGpu())

/** A seeded generator of doubles in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    const hi = s
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return (hi * 2 ** 21 + (s >>> 11)) / 2 ** 53
  }
}

describe('double-float primitives (shaders/landslide/double_float.wgsl)', () => {
  // Per pair (x, y): two_sum(x.hi, y.hi), x + y, x − y, x / 1 … x / 5, and x ≤ y, y ≤ x, x ≤ x.
  const SLOTS = 9
  // The grid uniform holds the guards' runtime zero; the bound check reads it, so every guard binds it.
  const code = `#include "landslide/grid"
#include "landslide/double_float"
@group(0) @binding(0) var<storage, read> xs: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> ys: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> grid: Grid;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= arrayLength(&xs) + grid.zero) { return; }
  let x = xs[i];
  let y = ys[i];
  let o = i * ${SLOTS}u;
  out[o] = df_two_sum(x.x, y.x);
  out[o + 1u] = df_add(x, y);
  out[o + 2u] = df_sub(x, y);
  for (var d = 1u; d <= 5u; d++) { out[o + 2u + d] = df_div_small(x, d); }
  out[o + 8u] = vec2<f32>(select(0.0, 1.0, df_le(x, y)), select(0.0, 1.0, df_le(y, x)) + select(0.0, 2.0, df_le(x, x)));
}`

  /** Pairs of doubles of every kind the model meets: altitudes, thicknesses, near-equal and opposite values. */
  function pairs(n: number): [Float64Array, Float64Array] {
    const r = random(12)
    const x = new Float64Array(n)
    const y = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const a = (r() - 0.3) * 10 ** Math.floor(r() * 8 - 4)
      x[i] = a
      switch (i % 5) {
        case 0: y[i] = (r() - 0.5) * 1000; break
        case 1: y[i] = a * (1 + (r() - 0.5) * 1e-9); break // nearly equal: x − y cancels
        case 2: y[i] = -a + (r() - 0.5) * 1e-12; break // nearly opposite: x + y cancels
        case 3: y[i] = a; break
        default: y[i] = Math.fround(a) // same hi, other lo
      }
    }
    // Exactly representable ones, whose results are exact.
    x[0] = 1234
    y[0] = 0.5
    return [x, y]
  }

  // Each TwoSum guard (DF_GUARD): the same exactness, whatever the guard adds.
  it.each(DF_GUARDS)('compute sums within 3·2^-48 of f64, quotients by 1 … 5 within 2^-48, comparisons as f64, TwoSum exactly (guard %i)', async (guard) => {
    const n = 2000
    const [x, y] = pairs(n)
    // The inputs as the kernel holds them: double-float, so the f64 results are computed from those.
    const xd = toDoubleFloat(x)
    const yd = toDoubleFloat(y)
    const xv = fromDoubleFloat(xd)
    const yv = fromDoubleFloat(yd)
    const kernel = await gpu.kernel({ label: 'test/double_float', code }, { constants: { DF_GUARD: guard } })
    const bx = await gpu.storage('xs', xd)
    const by = await gpu.storage('ys', yd)
    const out = await gpu.storage('out', n * SLOTS * 8)
    const zero = gpu.uniform('grid', new Uint32Array(4))
    await gpu.run('double-float primitives', [kernel.dispatch(kernel.bind([bx, by, out, zero]), Math.ceil(n / 64))])
    const got = await gpu.readF32(out)
    for (const b of [bx, by, out, zero]) b.destroy()
    const value = (i: number, slot: number) => got[2 * (i * SLOTS + slot)] + got[2 * (i * SLOTS + slot) + 1]
    const rel = (g: number, want: number) => (want === 0 ? Math.abs(g) : Math.abs(g - want) / Math.abs(want))
    let worstSum = 0
    let worstDiv = 0
    let lostErrors = 0
    for (let i = 0; i < n; i++) {
      const hx = xd[2 * i]
      const hy = yd[2 * i]
      // TwoSum: the rounded sum and its error, which together are the exact sum of two f32.
      expect(got[2 * i * SLOTS], `two_sum ${i}`).toBe(Math.fround(hx + hy))
      expect(got[2 * i * SLOTS] + got[2 * i * SLOTS + 1], `two_sum ${i}`).toBe(hx + hy)
      if (Math.fround(hx + hy) !== hx + hy && got[2 * i * SLOTS + 1] === 0) lostErrors++
      // Sums and differences against the exact ones (x, y are exact doubles), cancellations included.
      worstSum = Math.max(worstSum, rel(value(i, 1), xv[i] + yv[i]), rel(value(i, 2), xv[i] - yv[i]))
      for (let d = 1; d <= 5; d++) worstDiv = Math.max(worstDiv, rel(value(i, 2 + d), xv[i] / d))
      // Comparisons: the f64 order of the values.
      const flags = got[2 * (i * SLOTS + 8)]
      const flags2 = got[2 * (i * SLOTS + 8) + 1]
      expect(flags, `${xv[i]} ≤ ${yv[i]}`).toBe(xv[i] <= yv[i] ? 1 : 0)
      expect(flags2, `${yv[i]} ≤ ${xv[i]}, x ≤ x`).toBe((yv[i] <= xv[i] ? 1 : 0) + 2)
    }
    expect(lostErrors).toBe(0)
    // The accurate double-word sum's proven bound is 3u² (u = 2^-24; Joldes, Muller, Popescu 2017);
    // measured here 2^-47.4 (a cancelling difference). Quotients measured within 2^-49.
    expect(worstSum).toBeLessThan(3 * 2 ** -48)
    expect(worstDiv).toBeLessThan(2 ** -48)
    // Exact where the result fits: 1234 + 0.5, 1234 / 2, / 4, and 1234 / 1.
    expect([value(0, 1), value(0, 3), value(0, 4), value(0, 6)]).toEqual([1234.5, 1234, 617, 308.5])
  })
})

/** The f64 CPU grid after `steps` steps. */
async function cpuGrid(input: LandslideInput, steps: number): Promise<Float64Array> {
  const sim = new ThreadSimulation(initialState(input), true)
  await sim.advance(steps)
  return (await sim.thickness()).slice()
}

/** A GPU run's grid after `steps` steps, in `perSubmit` steps per command buffer. */
async function gpuGrid(input: LandslideInput, variant: GpuVariant, arithmetic: GpuArithmetic, steps: number, perSubmit = 25, dfGuard?: DfGuard): Promise<Float64Array> {
  const sim = await GpuSimulation.create(gpu, initialState(input), variant, perSubmit, { arithmetic, dfGuard })
  try {
    expect(sim.arithmetic).toBe(arithmetic)
    await sim.advance(steps)
    return await sim.thickness()
  } finally {
    await sim.dispose()
  }
}

const md5 = (h: Float64Array, input: LandslideInput) => referenceMd5(h, input.rows, input.cols)
const studyFiles = (name: string) => ['header', 'dem', 'source'].map((f) => join(DATA, `${name}_${f}.txt`))

// Bounds, from what SwiftShader measured and why: double-float keeps ~48 bits, so a grid whose
// values are exact in it (the study's grids hold integers) drifts by rounding alone, ~1e-15 of the
// relief (here 1e-15 … 8e-12 m); f32 keeps 24 bits (1e-7 … 3e-4 m on the same runs).
describe('double-float kernels against the f64 CPU run', () => {
  it('reproduce the reference output of the study\'s 10 × 5 test grid after 1 and 100 steps, where f32 deviates at least 10^4 times more', async () => {
    const input = await readLandslideInput(studyFiles('test'), studyFiles('test'))
    for (const steps of [1, 100]) {
      const want = await cpuGrid(input, steps)
      const accurate = gridDeviation(await gpuGrid(input, 'fused', 'double-float', steps), want)
      // Measured 1.3e-15 and 8.3e-15 m; mass error 0 and 2e-14.
      expect(accurate.max_abs, `${steps} steps`).toBeLessThan(1e-13)
      expect(Math.abs(accurate.mass_error)).toBeLessThan(1e-12)
      expect(md5(await gpuGrid(input, 'fused', 'double-float', steps), input)).toBe(md5(want, input))
      if (steps === 1) {
        // f32: 9.5e-8 m after one step (the grid's 2 m relief in 24 bits).
        const f32 = gridDeviation(await gpuGrid(input, 'fused', 'f32', steps), want)
        expect(f32.max_abs).toBeGreaterThan(1e-9)
      }
    }
  })

  it('run the same arithmetic in every kernel that has a double-float version, on a walled valley', async () => {
    // Altitudes with three decimals: not all exact in double-float (within 2^-49 of 900 m, ~2e-12 m).
    const input = valley(45, 37, 7)
    const want = await cpuGrid(input, 60)
    const mass = want.reduce((a, b) => a + b, 0)
    expect(DOUBLE_FLOAT_VARIANTS).toEqual(['monolithic', 'grid-stride', 'fused', 'active'])
    const grids: Float64Array[] = []
    for (const variant of DOUBLE_FLOAT_VARIANTS) {
      const h = await gpuGrid(input, variant, 'double-float', 60)
      const d = gridDeviation(h, want)
      // Measured 2.5e-12 m, mass error 1.8e-12 on Σh = 37.3.
      expect(d.max_abs, variant).toBeLessThan(1e-10)
      expect(Math.abs(d.mass_error) / mass, variant).toBeLessThan(1e-12)
      expect(md5(h, input), variant).toBe(md5(want, input))
      for (let k = 0; k < h.length; k++) if (input.walls![k]) expect(h[k]).toBe(0)
      grids.push(h)
    }
    // The passes share the double-float model: the same bits from every kernel.
    for (const h of grids.slice(1)) expect(Array.from(h)).toEqual(Array.from(grids[0]))
    // Steps split over submits otherwise: the same bits again.
    expect(Array.from(await gpuGrid(input, 'fused', 'double-float', 60, 7))).toEqual(Array.from(grids[0]))
    // Every TwoSum guard: exact sums, so the same bits once more.
    for (const guard of DF_GUARDS)
      expect(Array.from(await gpuGrid(input, 'fused', 'double-float', 60, 25, guard)), `guard ${guard}`).toEqual(Array.from(grids[0]))
    // f32 on the same run: 4.9e-6 m.
    expect(gridDeviation(await gpuGrid(input, 'fused', 'f32', 60), want).max_abs).toBeGreaterThan(1e-7)
  })

  it('reproduce the Tessina reference output after 1 and 100 steps, mass 5557 kept; f32 does not', async () => {
    const input = await readLandslideInput(studyFiles('tessina'), studyFiles('tessina'))
    // The active kernels: the debris' box only, which SwiftShader runs in about a second.
    for (const steps of [1, 100]) {
      const want = await cpuGrid(input, steps)
      const h = await gpuGrid(input, 'active', 'double-float', steps)
      const d = gridDeviation(h, want)
      // Measured 2.3e-12 (1 step, as a CPU emulation of these kernels) and 7.9e-12 m after 100.
      expect(d.max_abs, `${steps} steps`).toBeLessThan(1e-10)
      expect(Math.abs(d.mass_error)).toBeLessThan(1e-9)
      expect(Math.round(h.reduce((a, b) => a + b, 0))).toBe(5557)
      expect(md5(h, input), `${steps} steps`).toBe(md5(want, input))
    }
    // f32 after 100 steps: 3.3e-4 m, and a different output.
    const want = await cpuGrid(input, 100)
    const f32 = await gpuGrid(input, 'active', 'f32', 100)
    expect(gridDeviation(f32, want).max_abs).toBeGreaterThan(1e-5)
    expect(md5(f32, input)).not.toBe(md5(want, input))
  })
})

describe('the accurate precision in a landslide job', () => {
  const run = (variants: GpuVariant[], precision: LandslidePrecision, grids = studyFiles('test'), backends: LandslideBackend[] = ['serial', 'gpu']) =>
    runLandslideJob(
      { grids, steps: 20, backends, variants, precision, frames: 0, repeat: 1 },
      { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu },
    )

  it('names each GPU run\'s arithmetic, gives double-float runs an md5, and leaves out kernels without double-float', async () => {
    const accurate = (await run(['fused', 'tiled'], 'accurate')).results
    expect(accurate.runs.serial.precision).toBe('f64')
    expect(accurate.runs['gpu/fused'].precision).toBe('double-float')
    expect(accurate.runs['gpu/fused'].md5).toBe(accurate.reference.md5)
    expect(accurate.runs['gpu/fused'].deviation!.max_abs).toBeLessThan(1e-13)
    expect(accurate.runs['gpu/tiled']).toBeUndefined()
    expect(accurate.skipped).toEqual([{ backend: 'gpu/tiled', reason: expect.stringMatching(/^gpu\/tiled has no double-float kernels.*monolithic, grid-stride, fused, active$/) }])
    // The GPU asked for first: the reference still runs before it.
    const gpuFirst = (await run(['fused'], 'accurate', studyFiles('test'), ['gpu', 'serial'])).results
    expect(Object.keys(gpuFirst.runs).sort()).toEqual(['gpu/fused', 'serial'])
    expect(gpuFirst.runs['gpu/fused'].md5).toBe(gpuFirst.reference.md5)
    // f64: WebGPU has none, so the GPU runs double-float too.
    expect((await run(['fused'], 'f64')).results.runs['gpu/fused'].precision).toBe('double-float')
    const f32 = (await run(['fused', 'tiled'], 'f32')).results
    expect(f32.runs['gpu/fused'].precision).toBe('f32')
    expect(f32.runs['gpu/tiled'].precision).toBe('f32')
    expect(f32.runs['gpu/fused'].md5).toBeUndefined()
    expect(f32.runs['gpu/fused'].deviation!.max_abs).toBeGreaterThan(1e-9)
  })

  it('refuses, naming it, a kernel without double-float asked for alone, before reading the grids', async () => {
    const err = await failure(run(['tiled-halo'], 'accurate', ['/nonexistent/dem.asc', '/nonexistent/source.asc']))
    expect(err.code).toBe('invalid-argument')
    expect(err.message).toMatch(/^gpu\/tiled-halo has no double-float kernels/)
    const direct = await failure(GpuSimulation.create(gpu, initialState(valley(20, 20, 1)), 'tiled', 5, { arithmetic: 'double-float' }))
    expect(direct.message).toMatch(/^gpu\/tiled has no double-float kernels/)
  })
})
