// `paralab bench paths`: every backend (and GPU variant) on one seeded graph, median of repeated
// computations, and ratios against SciPy's floyd_warshall on the same graph.
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { median } from '../../../shared/median'
import { describePlacement, type GpuPlacement } from '../../../shared/gpu-placement'
import type { BLOCK_SIZES, GpuVariant, PathsBackend } from '../../../shared/workloads/paths/types'
import { GPU_WARMUP_MS, getGpu, type Gpu } from '../../gpu/runtime'
import { writeGeneratedGraph } from './generate-graph'
import { planRuns } from './plan'
import { prepareProblem } from './prepare-problem'
import { readGraph } from './read-graph'
import { runName } from './solver-contract'
import { createSolver } from './pick-solver'
import { finiteSum } from './summary'
import { scipyFloydWarshall } from './scipy'
import { maxOf, minOf, pushAll } from '../../../shared/extent'

export interface PathsBenchOptions {
  vertices: number
  edges: number
  seed: number
  /** A course-format graph to use instead of a generated one. */
  file?: string
  backends: PathsBackend[]
  variants: GpuVariant[]
  blocks: (typeof BLOCK_SIZES)[number][]
  /** Tile shapes of the tuned variant (gpu/tuned-shapes.ts): one run each; none, its default. */
  shapes?: string[]
  /** GPU counts of the tuned variant (gpu/bands-solver.ts beyond one): one run each; none, one GPU. */
  gpus?: number[]
  repeat: number
  scipyRepeat: number
  scipy: boolean
  log(line: string): void
}

export interface PathsBenchRun extends Partial<GpuPlacement> {
  median_ms: number
  min_ms: number
  max_ms: number
  relaxations_per_s: number
  upload_ms?: number
  readback_ms?: number
  ratio_vs_scipy?: number
  /** Several GPUs: how many, where each part was to compute and was seen computing (GpuPlacement), and the host's time exchanging pivot rows in the median computation, in all and per round. */
  gpus?: number
  gpus_note?: string
  exchange_ms?: number
  exchange_round_ms?: number
  /** Of exchange_ms, the host's copies of the rows into the other GPUs' staging buffers. */
  exchange_copy_ms?: number
}

export interface PathsBenchResult {
  machine: { cpu: string; cores: number; memory_GB: number; gpu: string }
  graph: { path: string; vertices: number; edges: number; checksum: string }
  repeat: number
  runs: Record<string, PathsBenchRun>
  scipy?: { median_ms: number; min_ms: number; version: string; repeat: number; checksum_matches: boolean }
  /** Runs that failed or computed another checksum than the first: named in the notes, left out of `runs`. */
  failed: string[]
  notes: string[]
}

/** Relaxations per second for people: `9.87 T`, `412 G`. */
export function relaxRate(perSecond: number): string {
  return perSecond >= 1e12 ? `${(perSecond / 1e12).toPrecision(3)} T` : `${(perSecond / 1e9).toPrecision(3)} G`
}

export async function benchPaths(o: PathsBenchOptions): Promise<PathsBenchResult> {
  const notes: string[] = []
  let gpu: Gpu | undefined
  let gpuName = 'none'
  if (o.backends.includes('gpu')) {
    try {
      gpu = await getGpu()
      gpuName = `${gpu.adapter.description || gpu.adapter.device}${gpu.adapter.isSoftware ? ' (software)' : ''}`
      if (gpu.adapter.isSoftware) notes.push('the GPU is a software adapter: its times say nothing of GPU speed')
    } catch (e) {
      notes.push(`gpu skipped: ${(e as Error).message}`)
    }
  }
  const dir = o.file ? undefined : await mkdtemp(join(tmpdir(), 'paralab-bench-paths-'))
  try {
    const path = o.file ?? join(dir!, `graph-${o.vertices}.bin`)
    if (!o.file) {
      o.log(`generating ${o.vertices} vertices, ${o.edges} edges (seed ${o.seed})`)
      await writeGeneratedGraph(path, { vertices: o.vertices, edges: o.edges, seed: o.seed })
    }
    const graph = await readGraph(path, path)
    const problem = prepareProblem(graph, path)
    const V = graph.V
    const planned = planRuns({ backends: o.backends.filter((b) => b !== 'gpu' || gpu), variants: o.variants, blocks: o.blocks })
    const { skipped } = planned
    const shaped = planned.runs.flatMap((s) => (s.variant === 'tuned' && o.shapes?.length ? o.shapes.map((shape) => ({ ...s, shape })) : [s]))
    const specs = shaped.flatMap((s) => (s.variant === 'tuned' && o.gpus?.length ? o.gpus.map((n) => ({ ...s, ...(n > 1 && { gpus: n }) })) : [s]))
    for (const s of skipped) notes.push(`${s.backend} skipped: ${s.reason}`)
    const runs: Record<string, PathsBenchRun> = {}
    const failed: string[] = []
    let checksum: string | undefined
    for (const spec of specs) {
      const name = runName(spec)
      let several: Pick<PathsBenchRun, 'gpus' | 'gpus_note' | 'exchange_ms' | 'exchange_round_ms' | 'exchange_copy_ms' | keyof GpuPlacement> | undefined
      let solver
      try {
        solver = await createSolver(spec, async () => gpu!)
      } catch (e) {
        notes.push(`${name} skipped: ${(e as Error).message}`)
        continue
      }
      try {
        const times: number[] = []
        const uploads: number[] = []
        const readbacks: number[] = []
        // The GPU computes its repeats on the uploaded matrix, after a warm-up (SolveOptions.timing).
        const gpuTiming = spec.backend === 'gpu' ? { repeat: o.repeat, warmupMs: GPU_WARMUP_MS } : undefined
        for (let r = 0; r < (gpuTiming ? 1 : o.repeat); r++) {
          const solved = await solver.solve(problem, false, gpuTiming && { timing: gpuTiming })
          pushAll(times, solved.compute_runs_ms ?? [solved.compute_ms])
          if (solved.upload_ms !== undefined) uploads.push(solved.upload_ms)
          if (solved.readback_ms !== undefined) readbacks.push(solved.readback_ms)
          if (solved.gpus !== undefined)
            several = {
              gpus: solved.gpus,
              ...(solver.observe && (await solver.observe(solved.gpus))),
              ...(solver.gpusNote !== undefined && { gpus_note: solver.gpusNote }),
              exchange_ms: solved.exchange_ms,
              exchange_round_ms: solved.exchange_ms! / (solved.rounds ?? 1),
              exchange_copy_ms: solved.exchange_copy_ms,
            }
          const sum = finiteSum(solved.d, V)
          if (checksum !== undefined && sum !== checksum) throw new Error(`computed checksum ${sum}, the first run ${checksum}: WRONG distances`)
          checksum = sum
        }
        const m = median(times)
        runs[name] = {
          median_ms: m,
          min_ms: minOf(times),
          max_ms: maxOf(times),
          relaxations_per_s: V ** 3 / (m / 1000),
          ...(uploads.length && { upload_ms: median(uploads) }),
          ...(readbacks.length && { readback_ms: median(readbacks) }),
          ...several,
        }
        const exchanged = several ? `, pivot rows exchanged in ${several.exchange_ms!.toFixed(1)} ms (${several.exchange_round_ms!.toFixed(3)} ms a round, ${several.exchange_copy_ms?.toFixed(1)} ms of it copying); ${describePlacement(several as GpuPlacement, 'part')}` : ''
        o.log(`${name}: ${m.toFixed(1)} ms, ${relaxRate(V ** 3 / (m / 1000))} relax/s${exchanged}`)
      } catch (e) {
        // One failing run (a shape the device rejects, wrong distances) does not lose the others' figures.
        failed.push(name)
        notes.push(`${name} FAILED: ${(e as Error).message}`)
        o.log(`${name} FAILED: ${(e as Error).message}`)
      } finally {
        await solver.dispose()
      }
    }

    let scipy: PathsBenchResult['scipy']
    if (o.scipy) {
      if (graph.format !== 'course') notes.push('SciPy skipped: it reads the course binary format only here')
      else
        try {
          o.log(`SciPy floyd_warshall × ${o.scipyRepeat}`)
          const s = await scipyFloydWarshall(path, o.scipyRepeat)
          scipy = { median_ms: median(s.times_ms), min_ms: minOf(s.times_ms), version: s.scipy, repeat: o.scipyRepeat, checksum_matches: s.checksum === checksum }
          if (!scipy.checksum_matches) notes.push(`SciPy's checksum ${s.checksum} differs from ours (${checksum})`)
          for (const r of Object.values(runs)) r.ratio_vs_scipy = r.median_ms / scipy.median_ms
        } catch (e) {
          notes.push(`SciPy skipped: ${(e as Error).message}`)
        }
    } else notes.push('SciPy skipped (--no-scipy)')
    if (gpu && !gpu.adapter.isSoftware) notes.push('GPU compute times are data resident: upload and readback apart')
    return {
      machine: { cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: availableParallelism(), memory_GB: Math.round(totalmem() / 2 ** 30), gpu: gpuName },
      graph: { path: o.file ?? `generated (seed ${o.seed})`, vertices: V, edges: graph.src.length, checksum: checksum ?? '' },
      repeat: o.repeat,
      runs,
      ...(scipy && { scipy }),
      failed,
      notes,
    }
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true })
  }
}

