// Every GPU variant of the shortest-paths workload on the software adapter: byte for byte the
// course's expected outputs (c01–c08), and the same distances and path keys as `serial` on graphs whose V
// is not a multiple of the block, with unreachable pairs, zero weights and duplicate edges.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { getGpu, resetGpu, type Gpu } from '../../src/main/gpu/runtime'
import { ApiError } from '../../src/shared/errors'
import { benchPaths } from '../../src/main/workloads/paths/bench'
import { bandsOf, gpuSolver } from '../../src/main/workloads/paths/gpu/gpu-solver'
import { DEFAULT_TUNED_SHAPE, TUNED_SWEEP_SHAPES } from '../../src/main/workloads/paths/gpu/tuned-shapes'
import type { Graph } from '../../src/main/workloads/paths/graph'
import { seededRandom } from '../../src/main/workloads/paths/generate-graph'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { parseCourseGraph } from '../../src/main/workloads/paths/read-course'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { GPU_VARIANTS, INF, type GpuVariant } from '../../src/shared/workloads/paths/types'

const DATA = new URL('../../../shared/data/paths/', import.meta.url)

// The first case of each kind compiles every kernel on the software adapter (~2 s each, more on a busy machine).
vi.setConfig({ testTimeout: 240_000 })

let gpu: Gpu
beforeAll(async () => {
  gpu = await getGpu()
})
afterAll(async () => {
  await resetGpu()
})

/** Each variant once; the sweep's blocking factors among them (8 and 16: a cell per invocation; 64: 16 cells). */
const RUNS: [GpuVariant, number | undefined][] = [
  ['baseline', undefined],
  ['coalesced', undefined],
  ['unrolled', undefined],
  ['shared', 8],
  ['min', 16],
  ['b64', 64],
  ['tuned', 64],
]

const bytes = (a: Int32Array | Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

function edgeCaseGraph(V: number, seed: number): Graph {
  const rand = seededRandom(seed)
  const src: number[] = []
  const dst: number[] = []
  const w: number[] = []
  const reached = Math.max(1, Math.ceil(V * 0.8))
  for (let e = 0; e < V * 3; e++) {
    const s = Math.floor(rand() * V)
    const t = Math.floor(rand() * reached)
    src.push(s, s)
    dst.push(t, t)
    w.push(Math.floor(rand() * 10), Math.floor(rand() * 10))
  }
  return { format: 'course', V, src: Int32Array.from(src), dst: Int32Array.from(dst), w: Int32Array.from(w) }
}

it('plans every variant', () => {
  expect(new Set(RUNS.map(([v]) => v))).toEqual(new Set(GPU_VARIANTS))
})

// Every variant on three cases; on the others (SwiftShader is slow) the coalesced one.
const EVERY_VARIANT = ['c01', 'c04', 'c07']

describe('the GPU on the course cases', () => {
  it.each(['c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08'])('%s: byte for byte the expected distances', async (c) => {
    const problem = prepareProblem(parseCourseGraph(readFileSync(new URL(`${c}.1`, DATA)), `${c}.1`), c)
    const expected = readFileSync(new URL(`${c}.1.out`, DATA))
    for (const [variant, block] of EVERY_VARIANT.includes(c) ? RUNS : RUNS.filter(([v]) => v === 'coalesced')) {
      const { d, upload_ms, readback_ms } = await gpuSolver(gpu, variant, block).solve(problem, false)
      expect(bytes(d).equals(expected), `${c} ${variant} B=${block}`).toBe(true)
      expect(upload_ms).toBeGreaterThan(0)
      expect(readback_ms).toBeGreaterThan(0)
    }
  })
})

describe('every GPU variant against serial', () => {
  it.each([1, 2, 63, 64, 65, 130])('V = %i: the same distances and path keys', async (V) => {
    const problem = prepareProblem(edgeCaseGraph(V, V + 100), `V${V}`)
    const ref = await serialSolver.solve(problem, true)
    if (V > 2) expect(ref.d.includes(INF)).toBe(true)
    for (const [variant, block] of RUNS) {
      const got = await gpuSolver(gpu, variant, block).solve(problem, true)
      expect(bytes(got.d).equals(bytes(ref.d)), `${variant} B=${block} distances`).toBe(true)
      expect(bytes(got.key!).equals(bytes(ref.key!)), `${variant} B=${block} keys`).toBe(true)
      expect(got.duplicates).toBe(ref.duplicates)
    }
  })
})

// Without successors the tuned variant's phase 3 is minplus.wgsl in tiles of a shape (the default
// one in the cases above): every shape the bench sweeps is checked here.
describe('every tuned tile shape', () => {
  it.each([...TUNED_SWEEP_SHAPES])('%s: the course cases byte for byte, and serial\'s distances at V = 1, 2, 63, 64, 65, 130', async (shape) => {
    const solver = gpuSolver(gpu, 'tuned', 64, { shape })
    expect(solver.shape).toBe(shape)
    for (const c of ['c01', 'c04', 'c07', 'c08']) {
      const problem = prepareProblem(parseCourseGraph(readFileSync(new URL(`${c}.1`, DATA)), `${c}.1`), c)
      const { d } = await solver.solve(problem, false)
      expect(bytes(d).equals(readFileSync(new URL(`${c}.1.out`, DATA))), `${shape} ${c}`).toBe(true)
    }
    for (const V of [1, 2, 63, 64, 65, 130]) {
      const problem = prepareProblem(edgeCaseGraph(V, V + 200), `V${V}`)
      const ref = await serialSolver.solve(problem, false)
      const got = await solver.solve(problem, false)
      expect(bytes(got.d).equals(bytes(ref.d)), `${shape} V=${V}`).toBe(true)
    }
  })

  it('refuses a malformed shape, naming it', () => {
    expect(() => gpuSolver(gpu, 'tuned', 64, { shape: 'b96-k32' })).toThrow('tuned shape b96-k32: tile sides must be 32 or 64')
    expect(() => gpuSolver(gpu, 'shared', 32, { shape: DEFAULT_TUNED_SHAPE })).toThrow(`a tile shape (${DEFAULT_TUNED_SHAPE}) is for the tuned variant, not shared`)
  })
})

describe('a matrix split over several bindings', () => {
  it('bands of whole 64-blocks, four at most', () => {
    expect(bandsOf(192, 64 * 192 * 4)).toEqual({ rows: 64, bands: 3 })
    expect(bandsOf(192, 2 ** 30)).toEqual({ rows: 192, bands: 1 })
    // V = 40 000 on an H100 (2 GiB bindings): three bands of 13 376 rows.
    expect(bandsOf(40_000, 2 ** 31)).toEqual({ rows: 13_376, bands: 3 })
    expect(bandsOf(320, 64 * 320 * 4)).toBeNull()
  })

  it('V = 130 in three bands of 64 rows: each kind of kernel as serial, distances and keys', async () => {
    const problem = prepareProblem(edgeCaseGraph(130, 7), 'V130')
    const ref = await serialSolver.solve(problem, true)
    // One per kernel: per k, three-phase blocked, and the tuned one's tiled phase 3.
    for (const [variant, block] of RUNS.filter(([v]) => ['coalesced', 'shared', 'tuned'].includes(v))) {
      const got = await gpuSolver(gpu, variant, block, { maxBindingBytes: 64 * 192 * 4 }).solve(problem, true)
      expect(bytes(got.d).equals(bytes(ref.d)), `${variant} B=${block} distances`).toBe(true)
      expect(bytes(got.key!).equals(bytes(ref.key!)), `${variant} B=${block} keys`).toBe(true)
    }
  })

  it('tuned tiles in bands of 128 rows, distances as serial', async () => {
    const problem = prepareProblem(edgeCaseGraph(200, 9), 'V200')
    const ref = await serialSolver.solve(problem, false)
    // V = 200 pads to 256: two bands of 128 rows, the tiles of each with the pivot in either.
    for (const shape of [DEFAULT_TUNED_SHAPE, 'b32x64-k8']) {
      const got = await gpuSolver(gpu, 'tuned', 64, { shape, maxBindingBytes: 128 * 256 * 4 }).solve(problem, false)
      expect(bytes(got.d).equals(bytes(ref.d)), shape).toBe(true)
    }
  })

  it('says, naming the sizes, when the GPU cannot hold the matrices, before filling them', async () => {
    const problem = prepareProblem(edgeCaseGraph(130, 10), 'V130')
    const storage = gpu.storage.bind(gpu)
    const spy = vi.spyOn(gpu, 'storage').mockImplementation(async (label, contents, options) => {
      if (label === 'paths keys 1') throw new ApiError('internal', `buffer ${label} of 65536 bytes: out of GPU memory: allocation failed`)
      return storage(label, contents, options)
    })
    try {
      await expect(gpuSolver(gpu, 'tuned', 64, { maxBindingBytes: 64 * 192 * 4 }).solve(problem, true)).rejects.toThrow(
        'a 130-vertex graph (padded to 192) needs 0.28 MiB of GPU memory (distances and path keys, 6 buffers); the device could not allocate keys band 1 (0.047 MiB): buffer paths keys 1 of 65536 bytes: out of GPU memory',
      )
    } finally {
      spy.mockRestore()
    }
  })

  it('refuses, naming the sizes, a matrix that needs more than four bindings', async () => {
    const problem = prepareProblem(edgeCaseGraph(300, 8), 'V300')
    await expect(gpuSolver(gpu, 'coalesced', undefined, { maxBindingBytes: 64 * 320 * 4 }).solve(problem, false)).rejects.toThrow(
      'a 300-vertex matrix (padded to 320) takes 0.39 MiB: more than 4 GPU bindings of 0.078 MiB hold',
    )
  })
})

describe('bench paths', () => {
  it('times repeats of the computation on the uploaded matrix: each from the uploaded matrix, distances and keys as one solve', async () => {
    const problem = prepareProblem(edgeCaseGraph(130, 11), 'V130')
    for (const [variant, block, paths] of [['tuned', 64, true], ['shared', 32, false]] as const) {
      const solver = gpuSolver(gpu, variant, block)
      const once = await solver.solve(problem, paths)
      const run = vi.spyOn(gpu, 'run')
      const timed = await solver.solve(problem, paths, { timing: { repeat: 3, warmupMs: 0 } })
      const labels = run.mock.calls.map(([label]) => label).filter((l) => !l.startsWith(`paths ${variant} steps`) || l.includes(' 0…'))
      run.mockRestore()
      // One untimed computation (no warm-up time still runs one), then three timed: each after the matrix is restored.
      expect(labels).toEqual(['paths: keep the uploaded matrix', ...Array(3).fill([`paths ${variant} steps 0…`, 'paths: restore the uploaded matrix']).flat(), `paths ${variant} steps 0…`].map((l) => expect.stringContaining(l)))
      expect(timed.compute_runs_ms).toHaveLength(3)
      expect(timed.compute_ms).toBe([...timed.compute_runs_ms!].sort((a, b) => a - b)[1])
      expect(once.compute_runs_ms).toBeUndefined()
      expect(bytes(timed.d).equals(bytes(once.d)), `${variant} distances`).toBe(true)
      if (paths) expect(bytes(timed.key!).equals(bytes(once.key!)), `${variant} keys`).toBe(true)
    }
  })

  it('times each tuned shape asked for, on one graph, with the same checksum', async () => {
    const logs: string[] = []
    const shapes = ['b64-k64', 'b32-k16']
    const r = await benchPaths({ vertices: 100, edges: 1000, seed: 4, backends: ['gpu'], variants: ['tuned'], blocks: ['64'], shapes, repeat: 1, scipyRepeat: 1, scipy: false, log: (l) => logs.push(l) })
    expect(Object.keys(r.runs)).toEqual(shapes.map((s) => `gpu tuned B=64 ${s}`))
    expect(r.failed).toEqual([])
    for (const run of Object.values(r.runs)) expect(run.relaxations_per_s).toBeCloseTo(100 ** 3 / (run.median_ms / 1000), -3)
    expect(logs.filter((l) => /^gpu tuned B=64 b\S+: [\d.]+ ms, [\d.]+ [GT] relax\/s$/.test(l))).toHaveLength(2)
    expect(r.graph.checksum).toMatch(/^[1-9]\d*$/)
  })
})
