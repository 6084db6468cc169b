// Checkpoints of a landslide run: the automaton's state at a step, in a folder of its own under the
// checkpoint folder (`step-0000500/`), so that a run stopped (preempted, past its time limit,
// killed) and started again with the same folder resumes there and ends with the same bits.
//
// The state is the thickness h of every interior row, as each rank's band of own rows (band-<k>.f64,
// little-endian f64): the altitudes never change after the source is carved out of the DEM (the grid
// identity below covers them) and the outflows are reset every step. manifest.json holds the step,
// the grid's identity, the arithmetic, the bands with their rows and sha256, and the samples
// recorded so far (series and snapshots), so a resumed run reports what an uninterrupted one would.
//
// Writing: rank 0 makes a fresh hidden folder and tells the other ranks its name; every rank writes
// its band there; rank 0 then writes the manifest and its seal and renames the folder into place
// (../../checkpoints/folder.ts), and only then removes checkpoints older than the previous one: a
// run killed while writing leaves the last complete checkpoint (and the one before). Reading checks
// the seal, the step against the folder's name, every field the resume believes, and the bands'
// names, sizes and sha256.
import { createHash } from 'node:crypto'
import { ApiError } from '../../../shared/errors'
import { MAX_SAMPLES, P_EPSILON, P_R, type LandslideSeries, type RunArithmetic } from '../../../shared/workloads/landslide/types'
import * as folder from '../../checkpoints/folder'
import type { Snapshot } from './grid-stats'
import type { LandslideInput } from './inputs'

const KIND: folder.CheckpointKind = { format: 'paralab-landslide-checkpoint', version: 2, unit: 'step', what: 'landslide' }

/** What a checkpoint must match to be resumed: the grid (its values, not only its size) and the model's arithmetic. */
export interface CheckpointIdentity {
  rows: number
  cols: number
  /** sha256 of the DEM and the initial thickness as read. */
  grid: string
  /** The files the grid came from, for messages. */
  files: string
  arithmetic: RunArithmetic
  p_epsilon: number
  p_r: number
}

export interface CheckpointBand extends folder.CheckpointFile {
  r0: number
  r1: number
}

export interface CheckpointSamples {
  series: LandslideSeries
  snapshots: { step: number; i0: number; j0: number; rows: number; cols: number; h: string }[]
}

export interface CheckpointManifest {
  format: string
  version: number
  step: number
  identity: CheckpointIdentity
  bands: CheckpointBand[]
  samples: CheckpointSamples
}

export type Checkpoint = folder.FoundCheckpoint<CheckpointManifest>

export function checkpointIdentity(input: LandslideInput, arithmetic: RunArithmetic): CheckpointIdentity {
  const hash = createHash('sha256')
  hash.update(new Uint8Array(input.z.buffer, input.z.byteOffset, input.z.byteLength))
  hash.update(new Uint8Array(input.h.buffer, input.h.byteOffset, input.h.byteLength))
  const files = [input.files.header, input.files.dem, input.files.source].filter(Boolean).join(', ')
  return { rows: input.rows, cols: input.cols, grid: hash.digest('hex'), files, arithmetic, p_epsilon: P_EPSILON, p_r: P_R }
}

/** Makes the checkpoint folder if need be and refuses, before any work, one where checkpoints cannot be written. */
export const prepareCheckpointFolder = folder.prepareCheckpointFolder

/** A fresh hidden folder (rank 0's) for the checkpoint of `step`; `attempt` is the job's identity. */
export function makePendingFolder(dir: string, step: number, attempt: string): Promise<string> {
  return folder.makePendingFolder(dir, KIND, step, attempt)
}

/** The pending folder rank 0 made for the checkpoint of `step`, from its name. */
export function pendingFolderNamed(dir: string, step: number, name: string): string {
  return folder.pendingFolderNamed(dir, KIND, step, name)
}

/** Writes one rank's own rows (global rows r0 … r1−1) into the pending folder. */
export async function writeBand(pending: string, rank: number, r0: number, r1: number, h: Float64Array): Promise<CheckpointBand> {
  const written = await folder.writeCheckpointFile(pending, `band-${rank}.f64`, [new Uint8Array(h.buffer, h.byteOffset, h.byteLength)])
  return { file: written.file, r0, r1, sha256: written.sha256 }
}

/** Rank 0, once every band is written: the manifest, then the folder into place, then the old ones away. */
export async function commitCheckpoint(dir: string, pending: string, manifest: Omit<CheckpointManifest, 'format' | 'version'>): Promise<string> {
  return folder.commitCheckpoint(dir, pending, KIND, manifest.step, manifest)
}

/**
 * The newest checkpoint in `dir`, checked against this run, or undefined when there is none. A
 * checkpoint of another grid, arithmetic or model, one past the steps asked for, or a corrupted one
 * is refused with the reason (the older ones are left as they are).
 */
export async function latestCheckpoint(dir: string, identity: CheckpointIdentity, steps: number): Promise<Checkpoint | undefined> {
  const found = await folder.latestManifest<CheckpointManifest>(dir, KIND, wellFormed, { maxBytes: manifestBound(identity) })
  if (!found) return undefined
  const { path, manifest } = found
  const theirs = manifest.identity
  if (theirs.rows !== identity.rows || theirs.cols !== identity.cols || theirs.grid !== identity.grid)
    throw new ApiError(
      'invalid-input',
      `checkpoint ${path} is of another grid: ${theirs.rows} × ${theirs.cols} from ${theirs.files} (sha256 ${theirs.grid.slice(0, 12)}…), this run's is ${identity.rows} × ${identity.cols} from ${identity.files} (sha256 ${identity.grid.slice(0, 12)}…): use another checkpoint folder`,
    )
  if (theirs.arithmetic !== identity.arithmetic) throw new ApiError('invalid-input', `checkpoint ${path} was computed in ${theirs.arithmetic}, this run computes in ${identity.arithmetic}: use another checkpoint folder`)
  if (theirs.p_epsilon !== identity.p_epsilon || theirs.p_r !== identity.p_r)
    throw new ApiError('invalid-input', `checkpoint ${path} was computed with p_ε = ${theirs.p_epsilon}, p_r = ${theirs.p_r}; this run uses p_ε = ${identity.p_epsilon}, p_r = ${identity.p_r}`)
  if (manifest.step > steps) throw new ApiError('invalid-input', `checkpoint ${path} is at step ${manifest.step}, past the ${steps} steps asked for`)
  // Every interior row exactly once, each band a plain file of the folder.
  const sorted = [...manifest.bands].sort((a, b) => a.r0 - b.r0)
  if (sorted.length === 0 || sorted[0].r0 !== 1 || sorted.at(-1)!.r1 !== identity.rows - 1 || sorted.some((b, i) => i > 0 && b.r0 !== sorted[i - 1].r1))
    throw found.corrupted('its bands do not cover the grid\'s rows')
  folder.checkFileNames(found, manifest.bands)
  // Samples of steps taken so far, each snapshot within the grid.
  const { series, snapshots } = manifest.samples
  if (series.step.some((s, i) => s > manifest.step || (i > 0 && s <= series.step[i - 1])) || snapshots.some((s) => s.step > manifest.step || s.i0 + s.rows > identity.rows || s.j0 + s.cols > identity.cols))
    throw found.corrupted(`its samples are not those of a run at step ${manifest.step} on this grid`)
  return found
}

const SERIES = ['step', 'mass', 'flooded', 'max_thickness', 'active'] as const
const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/** Whether a manifest has every field the resume reads, of its type (nothing in it is used unchecked). */
function wellFormed(m: CheckpointManifest): boolean {
  const id = m.identity as unknown
  if (!isCount(m.step) || !isObject(id) || !isObject(m.samples) || !Array.isArray(m.bands)) return false
  if (!isCount(id.rows) || !isCount(id.cols) || typeof id.grid !== 'string' || typeof id.files !== 'string' || typeof id.arithmetic !== 'string') return false
  if (typeof id.p_epsilon !== 'number' || typeof id.p_r !== 'number') return false
  if (!m.bands.every((b) => isObject(b) && isCount(b.r0) && isCount(b.r1) && b.r0 < b.r1)) return false
  const { series, snapshots } = m.samples as { series: unknown; snapshots: unknown }
  if (!isObject(series) || !Array.isArray(snapshots)) return false
  const length = Array.isArray(series.step) ? series.step.length : -1
  if (!SERIES.every((k) => Array.isArray(series[k]) && series[k].length === length && series[k].every((x: unknown) => typeof x === 'number'))) return false
  if (!(series.step as unknown[]).every(isCount)) return false
  return snapshots.every(
    (s) => isObject(s) && isCount(s.step) && isCount(s.i0) && isCount(s.j0) && isCount(s.rows) && isCount(s.cols) && typeof s.h === 'string' && Buffer.byteLength(s.h, 'base64') === s.rows * s.cols * 4,
  )
}

/** The most bytes a manifest of this grid can hold: its samples, each with a snapshot of at most the whole grid in base64 (within what one string can hold). */
function manifestBound(identity: CheckpointIdentity): number {
  const perSample = 256 + Math.ceil((identity.rows * identity.cols * 4) / 3) * 4
  return Math.min(2 ** 29 - 2 ** 16, 2 ** 20 + (MAX_SAMPLES + 1) * perSample)
}

/** Global rows `from` … `to`−1 (interior rows) of h from the checkpoint's bands, each checked against its sha256; `signal` stops it between pieces. */
export async function readCheckpointRows(checkpoint: Checkpoint, cols: number, from: number, to: number, signal?: AbortSignal): Promise<Float64Array> {
  const out = new Float64Array((to - from) * cols)
  const outBytes = new Uint8Array(out.buffer)
  const row = cols * 8
  for (const band of checkpoint.manifest.bands) {
    const lo = Math.max(from, band.r0)
    const hi = Math.min(to, band.r1)
    if (lo >= hi) continue
    // Whole rows at a time: those of this band within from … to−1.
    await folder.readCheckpointFile(
      checkpoint,
      band,
      (band.r1 - band.r0) * row,
      (piece, at) => {
        const r0 = band.r0 + at / row
        const a = Math.max(lo, r0)
        const b = Math.min(hi, r0 + piece.length / row)
        if (a < b) outBytes.set(piece.subarray((a - r0) * row, (b - r0) * row), (a - from) * row)
      },
      row,
      signal,
    )
  }
  return out
}

export function packSamples(series: LandslideSeries, snapshots: Snapshot[]): CheckpointSamples {
  return {
    series,
    snapshots: snapshots.map((s) => ({ ...s, h: Buffer.from(s.h.buffer, s.h.byteOffset, s.h.byteLength).toString('base64') })),
  }
}

export function unpackSamples(samples: CheckpointSamples): { series: LandslideSeries; snapshots: Snapshot[] } {
  return {
    series: samples.series,
    snapshots: samples.snapshots.map((s) => {
      const bytes = Buffer.from(s.h, 'base64')
      return { ...s, h: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)) }
    }),
  }
}

/** Removes an attempt's pending folder (a run that failed leaves no half-written checkpoint). */
export const discardPending = folder.discardPending
