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
// Writing: every rank writes its band into a hidden folder of this attempt; rank 0 then writes the
// manifest and renames the folder into place (../../checkpoints/folder.ts), and only then removes
// checkpoints older than the previous one: a run killed while writing leaves the last complete
// checkpoint (and the one before).
import { createHash } from 'node:crypto'
import { ApiError } from '../../../shared/errors'
import { P_EPSILON, P_R, type LandslideSeries, type RunArithmetic } from '../../../shared/workloads/landslide/types'
import * as folder from '../../checkpoints/folder'
import type { Snapshot } from './grid-stats'
import type { LandslideInput } from './inputs'

const KIND: folder.CheckpointKind = { format: 'paralab-landslide-checkpoint', version: 1, unit: 'step', what: 'landslide' }

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

/** The hidden folder one attempt (`attempt`: the job's identity) writes a checkpoint of `step` into. */
export function pendingFolder(dir: string, step: number, attempt: string): string {
  return folder.pendingFolder(dir, KIND, step, attempt)
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
  const found = await folder.latestManifest<CheckpointManifest>(dir, KIND, (m) => Number.isInteger(m.step) && Array.isArray(m.bands) && !!m.identity && !!m.samples)
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
  // Every interior row exactly once.
  const sorted = [...manifest.bands].sort((a, b) => a.r0 - b.r0)
  if (sorted.length === 0 || sorted[0].r0 !== 1 || sorted.at(-1)!.r1 !== identity.rows - 1 || sorted.some((b, i) => i > 0 && b.r0 !== sorted[i - 1].r1))
    throw found.corrupted('its bands do not cover the grid\'s rows')
  return found
}

/** Global rows `from` … `to`−1 (interior rows) of h from the checkpoint's bands, each checked against its sha256. */
export async function readCheckpointRows(checkpoint: Checkpoint, cols: number, from: number, to: number): Promise<Float64Array> {
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
