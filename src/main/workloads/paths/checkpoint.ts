// Checkpoints of a long shortest-paths run: the matrix after a whole round of blocked Floyd–Warshall
// (one pivot block of B vertices; V/B rounds in all), in a folder of its own under the checkpoint
// folder (`round-0000012/`, named for the next round to compute), so that a run stopped and started
// again with the same folder, graph and parameters resumes there and ends with the same bits.
//
// The state is the distance matrix (d.i32: V × V little-endian int32, row-major, as distances are
// reweighted when the graph has negative weights) and, with successors, the path keys (key.u32):
// after a whole round every blocked CPU backend holds the same matrix, whatever its threads or
// kernels, so a checkpoint resumes on any of them at the same B. manifest.json holds the round, the
// identity below and the files with their sha256; the folder machinery is ../../checkpoints/folder.ts.
//
// The solving thread writes them (it holds the matrix) between rounds; the job finds the one to
// resume from and checks it against this run before any work.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { ApiError } from '../../../shared/errors'
import type { PathsParams } from '../../../shared/workloads/paths'
import * as folder from '../../checkpoints/folder'
import type { RunSpec } from './plan'

const KIND: folder.CheckpointKind = { format: 'paralab-paths-checkpoint', version: 2, unit: 'round', what: 'shortest-paths' }

/** The CPU backends whose rounds are checkpointed: they share one round loop (blocked.ts); the GPU's tuned variant too (gpu/gpu-solver.ts). */
export const CHECKPOINT_BACKENDS = ['blocked', 'simd', 'workers', 'workers-simd'] as const
const CHECKPOINTED = `--backend ${CHECKPOINT_BACKENDS.join(', ')}, or gpu with --variant tuned`

export type CheckpointFamily = 'cpu-blocked' | 'gpu-tuned'

/** The family of a run that checkpoints (checkCheckpointRun has refused the others). */
export const familyOf = (spec: RunSpec): CheckpointFamily => (spec.backend === 'gpu' ? 'gpu-tuned' : 'cpu-blocked')

/** What a checkpoint must match to be resumed. */
export interface PathsCheckpointIdentity {
  /** sha256 of the graph file's bytes. */
  graph: string
  /** The graph as given, for messages. */
  file: string
  vertices: number
  block: number
  /** Whether path keys are kept (successors, or a path query). */
  successors: boolean
  /** Backends that reach the same matrix after each round: the blocked CPU ones, or the GPU's tuned variant. */
  family: CheckpointFamily
  /** Whether the distances are reweighted by Johnson's potentials (negative weights). */
  reweighted: boolean
}

export interface PathsCheckpointManifest {
  format: string
  version: number
  /** The next round to compute: rounds 0 … round−1 are in the matrix. */
  round: number
  rounds: number
  identity: PathsCheckpointIdentity
  files: folder.CheckpointFile[]
}

/** What the solving thread is given: where to write, how often, and the checkpoint to resume from (checked by the job). */
export interface RoundCheckpointTask {
  dir: string
  every: number
  /** The job's identity, naming its pending folders. */
  attempt: string
  identity: PathsCheckpointIdentity
  resume?: { path: string; previous?: string; round: number; files: folder.CheckpointFile[] }
}

/** The matrix a blocked solver computes on: V rows of stride S (≥ V; the padding columns are left as they are). */
export interface MatrixView {
  V: number
  S: number
  d: Int32Array
  key?: Uint32Array
}

/** What a run's checkpoints did, for its results. */
export interface RoundCheckpointReport {
  resumed_from: number
  last: number | null
  written: number
  write_ms: number
  bytes: number
}

/**
 * Refuses, before any work, what one checkpointed run cannot be: several runs, several graphs,
 * repeats, or a backend whose rounds are not checkpointed.
 */
export function checkCheckpointRun(params: PathsParams, runs: RunSpec[]): void {
  if (params.checkpointEvery === undefined) return
  const backend = runs[0]?.backend
  if (backend === 'serial')
    throw new ApiError('invalid-argument', `--checkpoint-every with --backend serial: the plain triple loop has no rounds of pivot blocks to resume at; checkpoint with ${CHECKPOINTED}`)
  if (backend === 'gpu' && (params.gpus ?? 1) > 1)
    throw new ApiError(
      'invalid-argument',
      `--checkpoint-every with --gpus ${params.gpus}: the GPUs' bands exchange pivot rows within each round and are not read back between rounds; checkpoint on one GPU or with --backend ${CHECKPOINT_BACKENDS.join(', ')}`,
    )
  const variants = runs.filter((r) => r.backend === 'gpu' && r.variant !== 'tuned').map((r) => r.variant)
  if (variants.length)
    throw new ApiError(
      'invalid-argument',
      `--checkpoint-every with --variant ${variants.join(',')}: only the tuned variant computes whole rounds of pivot blocks, one step each; checkpoint with ${CHECKPOINTED}`,
    )
  if (runs.length !== 1)
    throw new ApiError(
      'invalid-argument',
      `--checkpoint-every checkpoints one run: one --backend, --variant and --block; got --backend ${params.backends.join(',')}${params.blocks.length > 1 ? ` --block ${params.blocks.join(',')}` : ''}${params.backends.includes('gpu') && params.variants.length > 1 ? ` --variant ${params.variants.join(',')}` : ''}`,
    )
  if (params.repeat !== 1) throw new ApiError('invalid-argument', `--checkpoint-every computes once; got --repeat ${params.repeat}`)
  if (params.files.length !== 1) throw new ApiError('invalid-argument', `--checkpoint-every takes one graph; got ${params.files.length}`)
}

/** sha256 of a file's bytes; `signal` stops the reading. */
export async function fileSha256(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, { signal })) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Makes the checkpoint folder if need be and refuses, before any work, one where checkpoints cannot be written. */
export const prepareCheckpointFolder = folder.prepareCheckpointFolder

/**
 * The newest checkpoint in `dir`, checked against this run, or undefined when there is none. A
 * checkpoint of another graph or other parameters, one past the last round, or a corrupted one is
 * refused naming it and what differs (the older ones are left as they are).
 */
export async function latestPathsCheckpoint(dir: string, identity: PathsCheckpointIdentity, rounds: number): Promise<RoundCheckpointTask['resume']> {
  const found = await folder.latestManifest<PathsCheckpointManifest>(
    dir,
    KIND,
    (m) => Number.isInteger(m.round) && Number.isInteger(m.rounds) && Array.isArray(m.files) && typeof m.identity === 'object' && m.identity !== null,
  )
  if (!found) return undefined
  const { path, manifest } = found
  const theirs = manifest.identity
  const refuse = (what: string) => new ApiError('invalid-input', `checkpoint ${path} ${what}: use another checkpoint folder, or remove this one`)
  if (theirs.graph !== identity.graph || theirs.vertices !== identity.vertices)
    throw refuse(
      `is of another graph: ${theirs.file}, ${theirs.vertices} vertices (sha256 ${String(theirs.graph).slice(0, 12)}…); this run's is ${identity.file}, ${identity.vertices} vertices (sha256 ${identity.graph.slice(0, 12)}…)`,
    )
  if (theirs.block !== identity.block) throw refuse(`was computed with --block ${theirs.block}; this run's is --block ${identity.block}`)
  if (theirs.successors !== identity.successors)
    throw refuse(`${theirs.successors ? 'keeps' : 'does not keep'} successors (--paths or --from/--to); this run ${identity.successors ? 'keeps' : 'does not keep'} them`)
  if (theirs.family !== identity.family) throw refuse(`was computed by ${theirs.family}; this run's backend is ${identity.family}`)
  if (theirs.reweighted !== identity.reweighted) throw refuse(`holds ${theirs.reweighted ? 'reweighted' : 'plain'} distances; this run's are ${identity.reweighted ? 'reweighted' : 'plain'}`)
  if (manifest.rounds !== rounds || manifest.round > rounds || manifest.round < 1)
    throw found.corrupted(`it is at round ${manifest.round} of ${manifest.rounds}, and this run has ${rounds} rounds (${identity.vertices} vertices, B = ${identity.block})`)
  folder.checkFileNames(found, manifest.files)
  const want = identity.successors ? ['d.i32', 'key.u32'] : ['d.i32']
  if (manifest.files.map((f) => f.file).join() !== want.join()) throw found.corrupted(`its manifest.json lists ${manifest.files.map((f) => f.file).join(', ') || 'no files'}, not ${want.join(', ')}`)
  return { path, ...(found.previous && { previous: found.previous }), round: manifest.round, files: manifest.files }
}

/** The checkpoints of one solve, as the blocked round loop calls them. */
export interface RoundCheckpoints {
  /** The round to start at (0: from the graph). */
  from: number
  /** Fills the matrix from the checkpoint resumed from (over the graph's: the padding stays as filled); `signal` stops the reading. */
  load(m: MatrixView, signal?: AbortSignal): Promise<void>
  /** Whether a checkpoint is due after `done` rounds: a multiple of `every`, and rounds left. */
  due(done: number, rounds: number): boolean
  /** After each round: writes a checkpoint when one is due, of the matrix `matrix` gives (read back from a device: timed with the writing). */
  after(done: number, rounds: number, matrix: () => MatrixView | Promise<MatrixView>): Promise<void>
  report(): RoundCheckpointReport
}

/** Rows packed at stride V in pieces of about this many bytes. */
const PIECE = 16 * 2 ** 20

/** A stride-S matrix as its V × V bytes, a piece of whole rows at a time (the view itself when S = V). */
function* compactRows(m: Int32Array | Uint32Array, V: number, S: number): Generator<Uint8Array> {
  if (S === V) {
    yield new Uint8Array(m.buffer, m.byteOffset, V * V * 4)
    return
  }
  const rows = Math.max(1, Math.floor(PIECE / (V * 4)))
  const staging = new Uint8Array(Math.min(rows, V) * V * 4)
  const bytes = new Uint8Array(m.buffer, m.byteOffset, m.byteLength)
  for (let i0 = 0; i0 < V; i0 += rows) {
    const i1 = Math.min(V, i0 + rows)
    for (let i = i0; i < i1; i++) staging.set(bytes.subarray(i * S * 4, (i * S + V) * 4), (i - i0) * V * 4)
    // Written before the next piece is packed (folder.ts awaits each write).
    yield staging.subarray(0, (i1 - i0) * V * 4)
  }
}

/** Reads a V × V file of the checkpoint into a stride-S matrix, whole rows at a time. */
async function loadMatrix(resume: NonNullable<RoundCheckpointTask['resume']>, entry: folder.CheckpointFile, m: Int32Array | Uint32Array, V: number, S: number, signal?: AbortSignal): Promise<void> {
  const into = new Uint8Array(m.buffer, m.byteOffset, m.byteLength)
  const row = V * 4
  const found = { path: resume.path, corrupted: folder.corruptedError(resume.path, resume.previous) }
  await folder.readCheckpointFile(
    found,
    entry,
    V * row,
    (piece, at) => {
      const first = at / row
      for (let r = 0; r < piece.length / row; r++) into.set(piece.subarray(r * row, (r + 1) * row), (first + r) * S * 4)
    },
    row,
    signal,
  )
}

export function roundCheckpoints(task: RoundCheckpointTask): RoundCheckpoints {
  const report: RoundCheckpointReport = { resumed_from: task.resume?.round ?? 0, last: task.resume?.round ?? null, written: 0, write_ms: 0, bytes: 0 }
  const due = (done: number, rounds: number) => done % task.every === 0 && done < rounds
  return {
    due,
    from: task.resume?.round ?? 0,
    async load(m, signal) {
      const resume = task.resume
      if (!resume) return
      await loadMatrix(resume, resume.files[0], m.d, m.V, m.S, signal)
      if (m.key) await loadMatrix(resume, resume.files[1], m.key, m.V, m.S, signal)
    },
    async after(done, rounds, matrix) {
      if (!due(done, rounds)) return
      const t0 = performance.now()
      const m = await matrix()
      let pending: string | undefined
      try {
        pending = await folder.makePendingFolder(task.dir, KIND, done, task.attempt)
        const files = [await folder.writeCheckpointFile(pending, 'd.i32', compactRows(m.d, m.V, m.S))]
        if (m.key) files.push(await folder.writeCheckpointFile(pending, 'key.u32', compactRows(m.key, m.V, m.S)))
        await folder.commitCheckpoint(task.dir, pending, KIND, done, { round: done, rounds, identity: task.identity, files })
      } catch (e) {
        if (pending) await folder.discardPending(pending).catch(() => {})
        const err = ApiError.from(e)
        throw new ApiError(err.code, `writing the checkpoint of round ${done} into ${task.dir}: ${err.message}`)
      }
      report.last = done
      report.written++
      report.write_ms += performance.now() - t0
      report.bytes += m.V * m.V * 4 * (m.key ? 2 : 1)
    },
    report: () => report,
  }
}

/** Removes what an attempt's solving thread left half-written when it was stopped (cancelled, failed). */
export function discardRoundCheckpoint(task: RoundCheckpointTask): Promise<void> {
  return folder.discardAttempt(task.dir, KIND, task.attempt)
}
