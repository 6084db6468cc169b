// `paths --gpus N` as it runs: a process per part (part-links.ts processParts, the built
// out/main/paths-part-worker.js), on the software adapter, pivot rows through /dev/shm. Results as
// serial's byte for byte; a part that dies or a cancelled run ends every part and leaves no folder.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getGpu, resetGpu } from '../../src/main/gpu/runtime'
import { ShmFolder } from '../../src/main/ranks/shm-slots'
import { gpuBandsSolver } from '../../src/main/workloads/paths/gpu/bands-solver'
import { partProcess, processParts, type PartStarter, type StartedParts } from '../../src/main/workloads/paths/gpu/part-links'
import { seededRandom, writeGeneratedGraph } from '../../src/main/workloads/paths/generate-graph'
import type { Graph } from '../../src/main/workloads/paths/graph'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { runPathsJob } from '../../src/main/workloads/paths/run-paths'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import { validateParams } from '../../src/shared/workloads/schema'
import { CLI } from '../helpers/serve'
import { jobContext } from '../helpers/job-context'

// Each part's process opens the software adapter and compiles its kernels (tens of seconds on a busy machine).
vi.setConfig({ testTimeout: 900_000 })

afterAll(() => resetGpu())

const bytes = (a: Int32Array | Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

function graph(V: number, seed: number): Graph {
  const rand = seededRandom(seed)
  const E = V * 4
  const src = Int32Array.from({ length: E }, () => Math.floor(rand() * V))
  const dst = Int32Array.from({ length: E }, () => Math.floor(rand() * V * 0.9))
  const w = Int32Array.from({ length: E }, () => Math.floor(rand() * 20))
  return { format: 'course', V, src, dst, w }
}

/**
 * The run folder of this process's solve, found by the files it holds open (other test files'
 * solves may make folders of their own at the same time).
 */
function ownFolder(pid: number | 'self' = 'self'): string | undefined {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(join(`/proc/${pid}/fd`, fd))
      if (target.startsWith('/dev/shm/paralab-paths-')) return dirname(target)
    } catch {
      // closed meanwhile
    }
  }
  return undefined
}

/** The folder of the solve under way (in this process, or in process `pid`), once it has made it. */
const runFolder = (pid: number | 'self' = 'self') =>
  vi.waitFor(
    () => {
      const f = ownFolder(pid)
      expect(f).toBeDefined()
      return f!
    },
    { timeout: 600_000, interval: 10 },
  )

const gone = (pid: number) => {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}

/** processParts, keeping what it started. */
function watched(start: PartStarter = processParts): { start: PartStarter; seen: StartedParts[]; first(): Promise<StartedParts> } {
  const seen: StartedParts[] = []
  return {
    start: async (n) => {
      const s = await start(n)
      seen.push(s)
      return s
    },
    seen,
    async first() {
      await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0), { timeout: 60_000, interval: 20 })
      return seen[0]
    },
  }
}

describe('a process per part', () => {
  it('3 part processes: distances and successors as serial, each part a process of its own', async () => {
    const w = watched()
    const solver = gpuBandsSolver(3, w.start)
    try {
      // V = 200 pads to 256: parts of 1, 1 and 2 block rows.
      const problem = prepareProblem(graph(200, 7), 'V200')
      const ref = await serialSolver.solve(problem, true)
      const solving = solver.solve(problem, true)
      solving.catch(() => {})
      const folder = await runFolder()
      const got = await solving
      expect(got.gpus).toBe(3)
      expect(bytes(got.d).equals(bytes(ref.d))).toBe(true)
      expect(bytes(got.key!).equals(bytes(ref.key!))).toBe(true)
      const pids = w.seen[0].links.map((l) => l.pid)
      expect(new Set([process.pid, ...pids]).size).toBe(4)
      expect(await solver.observe!(3)).toMatchObject({ gpus_requested: ['shared', 'shared', 'shared'], gpus_observed: ['not observed', 'not observed', 'not observed'] })
      expect(solver.gpusNote).toMatch(/software/)
      await solver.dispose()
      expect(pids.every(gone)).toBe(true)
      expect(existsSync(folder)).toBe(false)
    } finally {
      await solver.dispose()
    }
  })

  it('paralab paths --gpus 2: distances as serial, the parts named as shared and the software adapter said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-paths-gpus-'))
    try {
      const file = join(dir, 'g.bin')
      // Not a multiple of 64: 140 vertices in 3 block rows, parts of 1 and 2.
      await writeGeneratedGraph(file, { vertices: 140, edges: 1500, seed: 3 })
      const ctx = jobContext({ gpu: getGpu })
      const params = validateParams('paths', pathsWorkload.params, { files: [file], backends: ['serial', 'gpu'], variants: ['tuned', 'b64'], gpus: 2, repeat: 1 })
      const { results, timings } = await runPathsJob(params, ctx)
      const [g] = results.graphs
      expect(g.runs.map((r) => r.name)).toEqual(['serial', 'gpu tuned B=64 on 2 GPUs'])
      const [, multi] = g.runs
      expect(multi.matches).toBe(true)
      expect(multi.gpus).toBe(2)
      expect(multi).toMatchObject({ gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'] })
      expect(multi.gpus_observed_by).toMatch(/software adapter/)
      expect(multi.gpus_note).toMatch(/software/)
      expect(multi.exchange_ms).toBeGreaterThanOrEqual(0)
      expect(multi.exchange_round_ms).toBeCloseTo(multi.exchange_ms! / 3, 6)
      expect(Object.keys(timings)).toEqual(['serial', 'gpu tuned B=64 on 2 GPUs'])
      expect(results.skipped).toEqual([{ backend: 'gpu b64', reason: 'several GPUs (--gpus 2) run the tuned variant only' }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('parts that die, runs cancelled', () => {
  const problem = prepareProblem(graph(150, 11), 'V150')

  it('a part killed mid-run fails the run naming it; the other parts end and the folder goes', async () => {
    const w = watched()
    const solver = gpuBandsSolver(2, w.start)
    const solving = solver.solve(problem, false)
    solving.catch(() => {})
    const { links } = await w.first()
    const folder = await runFolder()
    process.kill(links[1].pid, 'SIGKILL')
    await expect(solving).rejects.toThrow(new RegExp(`part 1 of the run \\(pid ${links[1].pid}\\) exited SIGKILL`))
    await vi.waitFor(() => expect(links.every((l) => gone(l.pid))).toBe(true), { timeout: 5000 })
    expect(existsSync(folder)).toBe(false)
    await solver.dispose()
  })

  it('a part that exits says what it wrote on stderr', async () => {
    const start: PartStarter = async (n) => ({
      links: Array.from({ length: n }, (_, i) => partProcess(i, { command: process.execPath, args: ['-e', i === 1 ? 'console.error("no device here"); process.exit(3)' : 'setInterval(() => {}, 1000)'], env: {} })),
      requested: Array(n).fill('shared'),
    })
    const w = watched(start)
    const solver = gpuBandsSolver(2, w.start)
    await expect(solver.solve(problem, false)).rejects.toThrow(/part 1 of the run \(pid \d+\) exited 3: no device here/)
    expect(w.seen[0].links.every((l) => gone(l.pid))).toBe(true)
  })

  it('cancelled: every part ends within about a second and the folder goes', async () => {
    const w = watched()
    const solver = gpuBandsSolver(2, w.start)
    const abort = new AbortController()
    const solving = solver.solve(problem, false, { signal: abort.signal })
    solving.catch(() => {})
    const { links } = await w.first()
    const folder = await runFolder()
    const t0 = performance.now()
    abort.abort()
    await expect(solving).rejects.toThrow('cancelled')
    await vi.waitFor(() => expect(links.every((l) => gone(l.pid))).toBe(true), { timeout: 2000 })
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(existsSync(folder)).toBe(false)
  })
})

describe('paralab paths --gpus 2 stopped from outside', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-paths-killed-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  /** The command on a graph whose parts compile and compute for a while, once its folder exists: the process, its folder and its parts' pids. */
  async function started(): Promise<{ cli: ReturnType<typeof spawn>; exited: Promise<{ code: number | null; signal: string | null; stderr: string }>; folder: string; parts: number[] }> {
    const file = join(dir, 'g.bin')
    if (!existsSync(file)) await writeGeneratedGraph(file, { vertices: 600, edges: 6000, seed: 5 })
    const cli = spawn(process.execPath, [CLI, 'paths', file, '--backend', 'gpu', '--gpus', '2', '--repeat', '3'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } })
    let stderr = ''
    cli.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t))
    const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => cli.on('close', (code, signal) => resolve({ code, signal, stderr })))
    const folder = await runFolder(cli.pid!)
    const childrenOf = (pid: number) =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            const stat = readFileSync(`/proc/${p}/stat`, 'utf8')
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('paths-part-worker')
          } catch {
            return false
          }
        })
        .map(Number)
    const parts = await vi.waitFor(() => {
      const found = childrenOf(cli.pid!)
      expect(found).toHaveLength(2)
      return found
    }, { timeout: 60_000, interval: 20 })
    return { cli, exited, folder, parts }
  }

  it('SIGTERM (kill, scancel) cancels as Ctrl-C does: exit 130, every part ended, the folder gone', async () => {
    const { cli, exited, folder, parts } = await started()
    cli.kill('SIGTERM')
    const end = await exited
    expect(end.code, end.stderr).toBe(130)
    expect(end.stderr).toMatch(/cancelled/)
    await vi.waitFor(() => expect(parts.every(gone)).toBe(true), { timeout: 5000 })
    expect(existsSync(folder)).toBe(false)
  })

  it('SIGKILL: the parts end with it, and the next folder made on the host sweeps the one it left', async () => {
    const { cli, exited, folder, parts } = await started()
    cli.kill('SIGKILL')
    expect((await exited).signal).toBe('SIGKILL')
    await vi.waitFor(() => expect(parts.every(gone)).toBe(true), { timeout: 5000 })
    // Nothing of the killed process could remove it: its matrix stays in memory until someone does.
    expect(existsSync(folder)).toBe(true)
    ShmFolder.create('paralab-paths-').remove()
    expect(existsSync(folder)).toBe(false)
  })
})
