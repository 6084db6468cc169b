// The steps of a shortest-paths job and what each costs, for its progress bar
// (src/shared/progress-plan.ts): costs in nanoseconds, measured on a graph of 1 200 vertices and
// 200 000 edges (a busy 2-core machine; only their ratios matter). A run grows as V³, the checks,
// the summary and the files written as V², reading as the file's bytes. Before a graph is read its
// vertices are guessed from its size (a dense graph's: V² / 10 edges); once read, it is weighed again.
import { availableParallelism } from 'node:os'
import type { PlanStep } from '../../../shared/progress-plan'
import type { GraphFormat, OutputFormat, PathsBackend } from '../../../shared/workloads/paths/types'
import { COMPILE_COST_NS } from '../../gpu/compile'

/** Reading, per byte: text lines are parsed, the course's binary edges copied. */
const READ_NS_PER_BYTE: Record<GraphFormat, number> = { course: 10, dimacs: 130, 'csv-edges': 130, mtx: 130 }
/** Bytes of an edge in the course's binary format, to guess a graph's size before reading it. */
const EDGE_BYTES = 12
/** One relaxation (d[i][j] against d[i][k] + d[k][j]) on one thread (a GPU's unknown ahead: a fast one). */
const RELAX_NS: Record<PathsBackend, number> = { serial: 3.3, blocked: 3, simd: 0.3, workers: 3, 'workers-simd': 0.3, gpu: 0.02 }
/** Keeping successors: each relaxation also moves a path key. */
const SUCCESSORS_FACTOR = 2
/** The checks of a result against the first, the summary, and the successors' matrix, per cell. */
const CHECK_NS_PER_CELL = 10
/** Writing the distances, per cell: binary words, or text. */
const WRITE_NS_PER_CELL: Record<OutputFormat, number> = { bin: 10, npy: 10, csv: 150, mtx: 200 }
/** Keeping the distances beside the run, per cell. */
const KEEP_NS_PER_CELL = 10

export function readCost(bytes: number, format: GraphFormat | undefined): number {
  return bytes * READ_NS_PER_BYTE[format ?? 'dimacs']
}

/** A graph's vertices as its size suggests, before reading it. */
export function guessVertices(bytes: number): number {
  return Math.max(1, Math.round(Math.sqrt((10 * bytes) / EDGE_BYTES)))
}

/** One run of a backend on V vertices, its threads counted. */
export function runCost(backend: PathsBackend, V: number, successors: boolean, threads = availableParallelism()): number {
  const parallel = backend === 'workers' || backend === 'workers-simd' ? threads : 1
  return (RELAX_NS[backend] * V ** 3 * (successors ? SUCCESSORS_FACTOR : 1)) / parallel
}

export interface GraphSteps {
  V: number
  /** The runs in order, by backend (a GPU's compiles its kernels first): steps `compile K` and `run K` of the K-th. */
  runs: readonly { backend: PathsBackend }[]
  repeat: number
  successors: boolean
  output?: OutputFormat
  keep: boolean
}

/** A graph's steps after its reading, in the order the job takes them. */
export function stepsAfterReading(s: GraphSteps): PlanStep[] {
  const cells = s.V * s.V
  const out: PlanStep[] = []
  for (const [k, run] of s.runs.entries()) {
    if (run.backend === 'gpu') out.push({ key: `compile ${k}`, cost: COMPILE_COST_NS })
    for (let r = 0; r < s.repeat; r++) out.push({ key: `run ${k}`, cost: runCost(run.backend, s.V, s.successors) })
  }
  out.push({ key: 'checking', cost: cells * CHECK_NS_PER_CELL * (s.successors ? 2 : 1) })
  if (s.output) out.push({ key: 'writing', cost: cells * WRITE_NS_PER_CELL[s.output] * (s.successors ? 2 : 1) })
  if (s.keep) out.push({ key: 'keeping', cost: cells * KEEP_NS_PER_CELL })
  return out
}

/** A graph's steps, reading first: its vertices guessed from its size until it is read. */
export function graphSteps(bytes: number, format: GraphFormat | undefined, s: Omit<GraphSteps, 'V'> & { V?: number }): PlanStep[] {
  return [{ key: 'reading', cost: readCost(bytes, format) }, ...stepsAfterReading({ ...s, V: s.V ?? guessVertices(bytes) })]
}
