// One results envelope for every workload: JSON export, `--json`, the dashboard and the charts all
// carry it, so a result file says what ran, on what, with which parameters, and how long it took.
import { median } from '../median'
import { maxOf, minOf } from '../extent'

export interface InputFile {
  path: string
  bytes: number
  /** ISO 8601 modification time. */
  modified: string
  /**
   * The format the workload read it as: an id of src/shared/formats.ts (FILE_FORMATS), decided by
   * its content and, among text and binary files, its name. Absent in runs saved before formats
   * were recorded, and where no format of the workload takes the file.
   */
  format?: string
  /** sha256 of the file's bytes as the job read them, lowercase hex (absent in runs saved before it was recorded, and in a cancelled job's). */
  sha256?: string
  /** In an HDF5 or NetCDF file: the dataset (variable) read, or the datasets, comma-separated. */
  dataset?: string
  /** The file was made by Paralab's seeded generator: the same name, parameters and seed make the same bytes. */
  generator?: InputGenerator
}

/** How a generated input was made, e.g. `{ name: 'generate acc', parameters: { rows: 20000 }, seed: 1 }`. */
export interface InputGenerator {
  /** The `paralab` command that makes it. */
  name: string
  parameters: Record<string, unknown>
  seed: number
}

export interface HostInfo {
  cpu: string
  cores: number
  memoryBytes: number
  /** e.g. "linux 6.1.0 x64". */
  os: string
  /** Node.js version, e.g. "v20.20.2". */
  node: string
}

/** The GPU a job ran on. */
export interface DeviceSummary {
  adapter: string
  vendor: string
  /** How the adapter is reached, e.g. "Vulkan (hardware adapter)". */
  backend: string
  software: boolean
}

/** Milliseconds of repeated runs of one backend or variant. */
export interface Timing {
  median: number
  min: number
  max: number
  runs: number
}

export interface ResultEnvelope<R = unknown, P = unknown> {
  workload: string
  paralabVersion: string
  /** The git commit Paralab was built from ("-dirty" after it where the tree had changes); absent where the build had none. */
  paralabCommit?: string
  /** ISO 8601. */
  createdAt: string
  params: P
  input: { files: InputFile[] }
  host: HostInfo
  /** Present when a GPU ran. */
  device?: DeviceSummary
  /** Per backend or variant. */
  timings: Record<string, Timing>
  /** The job was cancelled, or tasks of its cluster run did not complete: `results` hold only what had finished (e.g. some backends). */
  partial?: boolean
  /** With `partial`: the runs that had not finished (backends, variants, files, `file: backend`), as the timings name them. */
  missing?: string[]
  /**
   * Files the dashboard's backend keeps of this run beside its history entry (the full matrix),
   * by the run's id: downloaded by name (exportRunFile) while the bound on kept files leaves them.
   */
  kept?: { run: string; files: string[] }
  results: R
}

/** Summary of timing samples (ms). */
export function timingOf(samples: readonly number[]): Timing {
  if (samples.length === 0) throw new RangeError('timing of no runs')
  return { median: median(samples), min: minOf(samples), max: maxOf(samples), runs: samples.length }
}
