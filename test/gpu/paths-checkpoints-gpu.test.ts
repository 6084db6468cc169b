// Checkpoints of the gpu tuned variant on the software adapter: the matrix read back after whole
// rounds and written as the CPU backends' are; a solve resumed from one ends with the same distances
// and path keys as `serial`, and the checkpoint is not taken for a CPU backend's.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { getGpu, resetGpu, type Gpu } from '../../src/main/gpu/runtime'
import { latestPathsCheckpoint, type PathsCheckpointIdentity } from '../../src/main/workloads/paths/checkpoint'
import { seededRandom } from '../../src/main/workloads/paths/generate-graph'
import { gpuSolver } from '../../src/main/workloads/paths/gpu/gpu-solver'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { serialSolver } from '../../src/main/workloads/paths/serial'

// The tuned variant's kernels compile on the software adapter first (seconds, more on a busy machine).
vi.setConfig({ testTimeout: 240_000 })

let gpu: Gpu
let dir: string
beforeAll(async () => {
  gpu = await getGpu()
  dir = mkdtempSync(join(tmpdir(), 'paralab-paths-checkpoints-gpu-'))
})
afterAll(async () => {
  await resetGpu()
  rmSync(dir, { recursive: true, force: true })
})

const bytes = (a?: Int32Array | Uint32Array | Float64Array) => a && Buffer.from(a.buffer, a.byteOffset, a.byteLength)

it('the tuned variant checkpoints its rounds, resumes from one, and ends with serial\'s distances and path keys', async () => {
  // 203 vertices, padded to 256 on the device: 4 rounds of 64, checkpoints after rounds 1, 2 and 3.
  const V = 203
  const rand = seededRandom(11)
  const E = 3000
  const src = Int32Array.from({ length: E }, () => Math.floor(rand() * V))
  const dst = Int32Array.from({ length: E }, () => Math.floor(rand() * V))
  const w = Int32Array.from({ length: E }, () => Math.floor(rand() * 100))
  const problem = prepareProblem({ format: 'course', V, src, dst, w }, 'generated')
  const want = await serialSolver.solve(problem, true)
  const identity: PathsCheckpointIdentity = { graph: 'f'.repeat(64), file: 'generated', vertices: V, block: 64, successors: true, family: 'gpu-tuned', reweighted: false }
  const task = { dir, every: 1, attempt: 'test', identity }

  const solver = gpuSolver(gpu, 'tuned', 64)
  const whole = await solver.solve(problem, true, { checkpoint: task })
  expect(whole.checkpoints).toMatchObject({ resumed_from: 0, last: 3, written: 3, bytes: 3 * V * V * 8 })
  expect(bytes(whole.d)!.equals(bytes(want.d)!)).toBe(true)
  expect(bytes(whole.key)!.equals(bytes(want.key)!)).toBe(true)
  expect(readdirSync(dir).sort()).toEqual(['round-0000002', 'round-0000003'])

  // Not resumed by a CPU backend.
  await expect(latestPathsCheckpoint(dir, { ...identity, family: 'cpu-blocked' }, 4)).rejects.toThrow(
    `checkpoint ${join(dir, 'round-0000003')} was computed by gpu-tuned; this run's backend is cpu-blocked: use another checkpoint folder, or remove this one`,
  )

  rmSync(join(dir, 'round-0000003'), { recursive: true })
  const resume = await latestPathsCheckpoint(dir, identity, 4)
  expect(resume).toMatchObject({ path: join(dir, 'round-0000002'), round: 2 })
  const resumed = await solver.solve(problem, true, { checkpoint: { ...task, resume } })
  expect(resumed.checkpoints).toMatchObject({ resumed_from: 2, last: 3, written: 1 })
  expect(bytes(resumed.d)!.equals(bytes(want.d)!)).toBe(true)
  expect(bytes(resumed.key)!.equals(bytes(want.key)!)).toBe(true)
  await solver.dispose()
})
