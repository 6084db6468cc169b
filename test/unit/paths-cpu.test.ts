// The CPU shortest-paths backends: byte for byte the course's expected outputs (c01–c08), and the
// same distances and path keys as `serial` on graphs whose V is not a multiple of B, with
// unreachable pairs, zero weights, duplicate edges and self-loops. Worker threads come from
// out/main (npm run build), the SIMD kernels from out/wasm.
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import type { Graph } from '../../src/main/workloads/paths/graph'
import { blockedSolver, type BlockedBackend } from '../../src/main/workloads/paths/blocked'
import { INF } from '../../src/shared/workloads/paths/types'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { type Problem } from '../../src/main/workloads/paths/problem'
import { parseCourseGraph } from '../../src/main/workloads/paths/read-course'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { seededRandom } from '../../src/main/workloads/paths/generate-graph'
import type { Solver } from '../../src/main/workloads/paths/solver-contract'

const DATA = new URL('../../../shared/data/paths/', import.meta.url)
const CASES = ['c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08']

const solvers: Solver[] = [
  serialSolver,
  blockedSolver('blocked', 8),
  blockedSolver('blocked', 64),
  blockedSolver('simd', 16),
  blockedSolver('simd', 64),
  blockedSolver('workers', 32, { threads: 2 }),
  blockedSolver('workers-simd', 64, { threads: 3 }),
]
const name = (s: Solver) => [s.backend, s.block && `B=${s.block}`, s.threads && `×${s.threads}`].filter(Boolean).join(' ')

afterAll(async () => {
  for (const s of solvers) await s.dispose()
})

const bytes = (a: Int32Array | Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

/** Random edges with weights 0…9 (ties and zero-weight cycles), duplicates, self-loops, and a tail of vertices nothing reaches. */
function edgeCaseGraph(V: number, seed: number): Graph {
  const rand = seededRandom(seed)
  const src: number[] = []
  const dst: number[] = []
  const w: number[] = []
  const reached = Math.max(1, Math.ceil(V * 0.8))
  for (let e = 0; e < V * 3; e++) {
    const s = Math.floor(rand() * V)
    const t = Math.floor(rand() * reached)
    src.push(s)
    dst.push(t)
    w.push(Math.floor(rand() * 10))
    // A duplicate, heavier or lighter.
    if (rand() < 0.1) src.push(s), dst.push(t), w.push(Math.floor(rand() * 10))
  }
  src.push(0), dst.push(0), w.push(3)
  return { format: 'course', V, src: Int32Array.from(src), dst: Int32Array.from(dst), w: Int32Array.from(w) }
}

describe('every CPU backend on the course cases', () => {
  it.each(CASES)('%s: byte for byte the expected distances', async (c) => {
    const graph = parseCourseGraph(readFileSync(new URL(`${c}.1`, DATA)), `${c}.1`)
    const expected = readFileSync(new URL(`${c}.1.out`, DATA))
    const problem = prepareProblem(graph, c)
    for (const s of solvers) {
      const { d } = await s.solve(problem, false)
      expect(bytes(d).equals(expected), `${c} ${name(s)}`).toBe(true)
    }
  })
})

describe('every CPU backend against serial', () => {
  const problems: [string, Problem][] = [1, 2, 63, 64, 65, 130].map((V) => [`V = ${V}`, prepareProblem(edgeCaseGraph(V, V), `V${V}`)])

  it.each(problems)('%s: the same distances and path keys', async (_, problem) => {
    const ref = await serialSolver.solve(problem, true)
    const plain = await serialSolver.solve(problem, false)
    expect(bytes(plain.d).equals(bytes(ref.d))).toBe(true)
    const V = problem.V
    // The case covers what it claims: unreachable pairs, zero-weight edges, duplicates.
    if (V > 2) {
      expect(ref.d.includes(INF)).toBe(true)
      expect(problem.w.includes(0)).toBe(true)
      expect(ref.duplicates).toBeGreaterThan(0)
    }
    for (const s of solvers.slice(1)) {
      for (const paths of [false, true]) {
        const got = await s.solve(problem, paths)
        expect(bytes(got.d).equals(bytes(ref.d)), `${name(s)} distances`).toBe(true)
        if (paths) expect(bytes(got.key!).equals(bytes(ref.key!)), `${name(s)} keys`).toBe(true)
        expect(got.duplicates).toBe(ref.duplicates)
      }
    }
  })
})
