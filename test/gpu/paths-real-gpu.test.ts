// Real weights on the GPU (software adapter): every variant computes in f32 on the bit patterns of
// the reweighted distances, and lies within the stated bound of the CPU's f64 result (negative
// weights, unreachable pairs, successors, a matrix over several bindings; non-negative weights in the job); a graph whose distances
// f32 cannot hold skips the GPU, naming the weight and its line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { getGpu, resetGpu, type Gpu } from '../../src/main/gpu/runtime'
import { gpuSolver } from '../../src/main/workloads/paths/gpu/gpu-solver'
import { paddedSide } from '../../src/main/workloads/paths/gpu/variants'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { parseMtxGraph } from '../../src/main/workloads/paths/read-mtx'
import { f32Gamma, outsideF32Bound } from '../../src/main/workloads/paths/real'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import type { GpuVariant } from '../../src/shared/workloads/paths/types'
import { validateParams } from '../../src/shared/workloads/schema'
import { jobContext } from '../helpers/job-context'
import { realGraph, writers } from '../helpers/real-graphs'

vi.setConfig({ testTimeout: 240_000 })

let gpu: Gpu
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(async () => {
  await resetGpu()
})
const dir = mkdtempSync(join(tmpdir(), 'paralab-paths-real-gpu-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * The variants with real weights: the per-k ones (baseline, coalesced, unrolled), three-phase
 * blocked (shared; min is its branch-free twin, b64 its B = 64) with and without successors, and
 * the tuned one's closed phase 2 and min-plus phase 3. (The tuned phase 3 with successors sums as
 * the blocked phase 3 does; its compilation alone takes minutes on the software adapter.)
 */
const RUNS: [GpuVariant, number | undefined, boolean][] = [
  ['baseline', undefined, false],
  ['coalesced', undefined, false],
  ['unrolled', undefined, false],
  ['shared', 16, false],
  ['shared', 16, true],
  ['min', 32, false],
  ['tuned', 64, false],
]

/** The largest error of `got` against the f64 result, as a fraction of the bound's γ·d′ (unreachable pairs must agree). */
function worst(got: Float64Array, ref: Float64Array, h: Float64Array | undefined, V: number, gamma: number): { ratio: number; differ: number } {
  let ratio = 0
  let differ = 0
  for (let i = 0; i < V; i++)
    for (let j = 0; j < V; j++) {
      const x = got[i * V + j]
      const y = ref[i * V + j]
      if (x !== y) differ++
      if (y === Infinity) continue
      const reweighted = y + (h ? h[i] - h[j] : 0)
      if (reweighted > 0) ratio = Math.max(ratio, Math.abs(x - y) / (gamma * reweighted))
    }
  return { ratio, differ }
}

describe('every kernel in f32 against the f64 reference', () => {
  const V = 70
  const problem = prepareProblem(parseMtxGraph(writers.mtx(realGraph(V, 11, true)), 'g.mtx'), 'g.mtx')
  let ref: Float64Array
  beforeAll(async () => {
    ref = (await serialSolver.solve(problem, false)).d as Float64Array
  })

  it('V = 70 has negative weights (reweighted) and unreachable pairs', () => {
    expect(problem.real).toBeDefined()
    expect(problem.potential).toBeDefined()
    expect(ref.includes(Infinity)).toBe(true)
  })

  // One test each: the tuned variant's compilation alone takes a minute on a busy software adapter.
  it.each(RUNS)('%s B=%s, successors %s: f32, within the bound', async (variant, block, paths) => {
    const got = await gpuSolver(gpu, variant, block).solve(problem, paths)
    expect(got.arithmetic).toBe('f32')
    expect(got.d).toBeInstanceOf(Float64Array)
    const d = got.d as Float64Array
    expect(outsideF32Bound(d, ref, V, got.side!, problem.potential)).toBeNull()
    const { ratio, differ } = worst(d, ref, problem.potential, V, f32Gamma(paddedSide(V)))
    // f32 it is (most distances differ from f64), and well inside the bound.
    expect(differ).toBeGreaterThan(V)
    expect(ratio).toBeLessThan(0.5)
  })

  it('V = 130 over three bindings of 64 rows (the accessors of bands): within the bound', async () => {
    const V = 130
    const problem = prepareProblem(parseMtxGraph(writers.mtx(realGraph(V, 13, true)), 'g.mtx'), 'g.mtx')
    const ref = (await serialSolver.solve(problem, false)).d as Float64Array
    const got = await gpuSolver(gpu, 'shared', 32, { maxBindingBytes: 64 * 192 * 4 }).solve(problem, false)
    expect(outsideF32Bound(got.d as Float64Array, ref, V, got.side!, problem.potential)).toBeNull()
  })
})

describe('the job', () => {
  const run = (input: Record<string, unknown>) => runPathsJob(validateParams('paths', pathsWorkload.params, { repeat: 1, ...input }), jobContext({ gpu: getGpu }))

  it('serial and the GPU: each run says its arithmetic, the GPU its bound, and both match', async () => {
    const mtx = join(dir, 'g.mtx')
    writeFileSync(mtx, writers.mtx(realGraph(45, 21, false)))
    const { results } = await run({ files: [mtx], backends: ['gpu', 'serial'], variants: ['coalesced'] })
    const g = results.graphs[0]
    expect(g.arithmetic).toBe('f64')
    expect(g.runs.map((r) => [r.name, r.arithmetic, r.matches])).toEqual([
      ['serial', 'f64', true],
      ['gpu coalesced', 'f32', true],
    ])
    expect(g.runs[1].relative_error_bound).toBe(f32Gamma(64))
  })

  it('a graph whose distances f32 cannot hold: the GPU skipped, naming the largest weight and its line', async () => {
    const gr = join(dir, 'huge.gr')
    writeFileSync(gr, 'p sp 3 3\na 1 2 0.5\na 2 3 2e37\na 3 1 2\n')
    const { results } = await run({ files: [gr], backends: ['serial', 'gpu'], variants: ['baseline'] })
    expect(results.graphs[0].runs.map((x) => x.name)).toEqual(['serial'])
    expect(results.skipped).toContainEqual({
      backend: 'gpu baseline',
      reason: `${gr}: distances of up to 2 edges of weight 2e+37 may exceed 2.127e+37, beyond what the GPU's f32 holds; the largest weight is 2e+37 at ${gr}:3`,
    })
  })
})
