// Shortest paths on several GPUs (--gpus N, gpu/bands-solver.ts) on the software adapter, the parts
// in this process (part-links.ts inProcessParts): several devices of the one adapter stand for the
// GPUs, so that every pivot row really goes from one device through the shared-memory slots to
// another, by the same part code a part's process runs (paths-part-processes.test.ts runs the
// processes). Distances and path keys must be serial's byte for byte, whatever the number of parts,
// the graph's size against the 64-blocks, negative weights, or a part's rows spread over several
// bindings.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { discoverAdapter, requestAdapterQuietly } from '../../src/main/gpu/adapter'
import { Gpu, getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { inProcessParts } from '../../src/main/workloads/paths/gpu/part-links'
import { splitBlockRows, ownerOf } from '../../src/main/workloads/paths/gpu/block-rows'
import { gpuBandsSolver, partBindings } from '../../src/main/workloads/paths/gpu/bands-solver'
import type { Graph } from '../../src/main/workloads/paths/graph'
import { seededRandom } from '../../src/main/workloads/paths/generate-graph'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { INF } from '../../src/shared/workloads/paths/types'

// Kernels compile per device on the software adapter (seconds each, more on a busy machine).
vi.setConfig({ testTimeout: 600_000 })

let devices: Gpu[] = []
let instance: GPU | undefined
beforeAll(async () => {
  const found = await discoverAdapter()
  if (!found.ok) throw new Error(found.reason)
  instance = found.discovery.gpu
  devices.push(await Gpu.open(found.adapter, 'test device 0'))
  for (let i = 1; i < 3; i++) {
    const adapter = await requestAdapterQuietly(instance)
    if (!adapter) throw new Error('no second adapter object')
    devices.push(await Gpu.open(adapter, `test device ${i}`))
  }
})
afterAll(async () => {
  for (const d of devices) d.destroy()
  devices = []
  instance = undefined
  await resetGpu()
})

/** A solver of `n` parts on `n` distinct devices of the one adapter, as part processes get distinct GPUs. */
const solverOn = (n: number, options?: Parameters<typeof gpuBandsSolver>[2]) => gpuBandsSolver(n, inProcessParts(devices.slice(0, n)), options)

const bytes = (a: Int32Array | Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

/** Unreachable pairs, zero weights, duplicate edges; negative weights (no negative cycle) when asked. */
function graph(V: number, seed: number, negative = false): Graph {
  const rand = seededRandom(seed)
  const src: number[] = []
  const dst: number[] = []
  const w: number[] = []
  const reached = Math.max(1, Math.ceil(V * 0.8))
  // Negative weights as w + h(s) − h(t) of non-negative w: every cycle keeps its non-negative weight.
  const h = Array.from({ length: V }, () => (negative ? Math.floor(rand() * 20) : 0))
  for (let e = 0; e < V * 3; e++) {
    const s = Math.floor(rand() * V)
    const t = Math.floor(rand() * reached)
    src.push(s, s)
    dst.push(t, t)
    w.push(Math.floor(rand() * 10) + h[s] - h[t], Math.floor(rand() * 10) + h[s] - h[t])
  }
  return { format: negative ? 'csv-edges' : 'course', V, src: Int32Array.from(src), dst: Int32Array.from(dst), w: Int32Array.from(w) }
}

describe('block rows over devices', () => {
  it('contiguous, as even as can be, never an empty part', () => {
    expect(splitBlockRows(5, 2)).toEqual([{ b0: 0, b1: 2 }, { b0: 2, b1: 5 }])
    expect(splitBlockRows(625, 4).map((p) => p.b1 - p.b0)).toEqual([156, 156, 156, 157])
    expect(splitBlockRows(1, 3)).toEqual([{ b0: 0, b1: 1 }])
    const parts = splitBlockRows(7, 3)
    expect([0, 1, 2, 3, 4, 5, 6].map((b) => ownerOf(parts, b))).toEqual([0, 0, 1, 1, 2, 2, 2])
    expect(() => ownerOf(parts, 7)).toThrow('block row 7 is owned by no part')
  })

  it('a part beyond one binding in whole blocks, four at most', () => {
    // V = 40 000 on 2 GPUs of 2 GiB bindings: 20 032 rows in two bindings of 13 376.
    expect(partBindings(40_000, 20_032, 2 ** 31)).toEqual({ rows: 13_376, bindings: 2 })
    expect(partBindings(40_000, 10_048, 2 ** 31)).toEqual({ rows: 10_048, bindings: 1 })
    expect(partBindings(320, 320, 64 * 320 * 4)).toBeNull()
  })
})

describe('several devices give serial\'s results', () => {
  it.each([1, 63, 64, 65, 130, 300])('V = %i on 2 and 3 devices: distances and path keys, and distances alone', async (V) => {
    const problem = prepareProblem(graph(V, V + 300), `V${V}`)
    const ref = await serialSolver.solve(problem, true)
    if (V > 2) expect(ref.d.includes(INF)).toBe(true)
    for (const n of [2, 3]) {
      const solver = solverOn(n)
      const withKeys = await solver.solve(problem, true)
      expect(bytes(withKeys.d).equals(bytes(ref.d)), `${n} devices distances`).toBe(true)
      expect(bytes(withKeys.key!).equals(bytes(ref.key!)), `${n} devices keys`).toBe(true)
      expect(withKeys.duplicates).toBe(ref.duplicates)
      // Fewer block rows than devices: as many parts as block rows.
      expect(withKeys.gpus).toBe(Math.min(n, Math.ceil(V / 64)))
      expect(withKeys.rounds).toBe(Math.ceil(V / 64))
      expect(withKeys.exchange_ms).toBeGreaterThanOrEqual(0)
      const alone = await solver.solve(problem, false)
      expect(bytes(alone.d).equals(bytes(ref.d)), `${n} devices distances without keys`).toBe(true)
      expect(alone.key).toBeUndefined()
    }
  })

  it('V = 600 on 2 devices: each part owns 5 rounds, so rows go back and in through every staging buffer more than once', async () => {
    const problem = prepareProblem(graph(600, 41), 'V600')
    const ref = await serialSolver.solve(problem, true)
    const got = await solverOn(2).solve(problem, true)
    expect(got.rounds).toBe(10)
    expect(bytes(got.d).equals(bytes(ref.d))).toBe(true)
    expect(bytes(got.key!).equals(bytes(ref.key!))).toBe(true)
  })

  it('negative weights (Johnson-reweighted): distances and path keys on 3 devices', async () => {
    const problem = prepareProblem(graph(150, 5, true), 'negative.csv')
    expect(problem.potential).toBeDefined()
    const ref = await serialSolver.solve(problem, true)
    const got = await solverOn(3).solve(problem, true)
    expect(bytes(got.d).equals(bytes(ref.d))).toBe(true)
    expect(bytes(got.key!).equals(bytes(ref.key!))).toBe(true)
  })

  it('parts over several bindings, and another tile shape: as serial', async () => {
    // V = 300 pads to 320: parts of 128 and 192 rows, in bindings of 64 rows (two and three).
    const problem = prepareProblem(graph(300, 17), 'V300')
    const ref = await serialSolver.solve(problem, true)
    const solver = solverOn(2, { maxBindingBytes: 64 * 320 * 4, shape: 'b32x64-k8' })
    expect(solver.shape).toBe('b32x64-k8')
    const alone = await solver.solve(problem, false)
    expect(bytes(alone.d).equals(bytes(ref.d))).toBe(true)
    const withKeys = await solver.solve(problem, true)
    expect(bytes(withKeys.d).equals(bytes(ref.d))).toBe(true)
    expect(bytes(withKeys.key!).equals(bytes(ref.key!))).toBe(true)
  })

  it('timed repeats on the uploaded matrices give the one solve\'s results', async () => {
    const problem = prepareProblem(graph(130, 23), 'V130')
    const solver = solverOn(2)
    const once = await solver.solve(problem, true)
    const timed = await solver.solve(problem, true, { timing: { repeat: 3, warmupMs: 0 } })
    expect(timed.compute_runs_ms).toHaveLength(3)
    expect(timed.compute_ms).toBe([...timed.compute_runs_ms!].sort((a, b) => a - b)[1])
    expect(bytes(timed.d).equals(bytes(once.d))).toBe(true)
    expect(bytes(timed.key!).equals(bytes(once.key!))).toBe(true)
  })

  it('one device standing for every part: as serial, and the run says the parts shared the software adapter', async () => {
    const shared = await getGpu()
    const solver = gpuBandsSolver(3, inProcessParts([shared, shared, shared]))
    const problem = prepareProblem(graph(200, 29), 'V200')
    const ref = await serialSolver.solve(problem, false)
    const got = await solver.solve(problem, false)
    expect(got.gpus).toBe(3)
    expect(bytes(got.d).equals(bytes(ref.d))).toBe(true)
    expect(await solver.observe!(3)).toMatchObject({ gpus_requested: ['shared', 'shared', 'shared'], gpus_observed: ['not observed', 'not observed', 'not observed'] })
    expect(solver.gpusNote).toMatch(/software/)
    await solver.dispose()
  })
})
