// What a job's envelope says of each input: path, size, modification time, format, the dataset read
// from an HDF5 or NetCDF file, the generator of an example's file, and the sha256 of the bytes read
// (io/input-digest.ts: hashed as the readers read, the rest when the job ends).
import { basename, dirname } from 'node:path'
import { realpath } from 'node:fs/promises'
import type { InputFile, InputGenerator } from '../../shared/workloads/envelope'
import type { WorkloadId } from '../../shared/workloads'
import { stopWatching, watchReads, type InputDigest } from '../io/input-digest'
import { inputFile } from '../results/envelope'

/** The files of the workload's example and how they are made. */
export interface ExampleFiles {
  dir: string
  files: readonly string[]
  generator?: InputGenerator
}

export class InputRecorder {
  private readonly entries: { file: InputFile; digest: InputDigest }[] = []

  constructor(
    private readonly workload: WorkloadId,
    private readonly params: Record<string, unknown>,
    private readonly example?: ExampleFiles,
  ) {}

  /** Records the input `named` (as given; `real` its real path) and starts its digest. */
  async add(real: string, named: string): Promise<void> {
    const file = await inputFile(real, this.workload, named)
    const dataset = file.format === 'hdf5' || file.format === 'netcdf' ? datasetOf(this.params) : undefined
    const generator = await this.generatorOf(real)
    // A file read twice (a grid read again for its final map) shares one digest.
    const digest = this.entries.find((e) => e.digest.path === real)?.digest ?? (await watchReads(real))
    this.entries.push({ file: { ...file, ...(dataset && { dataset }), ...(generator && { generator }) }, digest })
  }

  /**
   * The inputs with their sha256. A cancelled job's (`signal` aborted) get none: hashing the rest of
   * a gigabyte after a cancel would keep the user waiting for what they stopped.
   */
  async finish(signal: AbortSignal): Promise<InputFile[]> {
    try {
      const sums = new Map<InputDigest, string>()
      if (!signal.aborted) for (const { digest } of this.entries) if (!sums.has(digest)) sums.set(digest, await digest.finish(signal))
      return this.entries.map(({ file, digest }) => (sums.has(digest) ? { ...file, sha256: sums.get(digest) } : file))
    } finally {
      this.release()
    }
  }

  /** Stops the digests (a failed job's). */
  release(): void {
    for (const d of new Set(this.entries.map((e) => e.digest))) stopWatching(d)
  }

  private async generatorOf(real: string): Promise<InputGenerator | undefined> {
    const ex = this.example
    if (!ex?.generator || !ex.files.includes(basename(real))) return undefined
    const dir = await realpath(ex.dir).catch(() => null)
    return dir !== null && dirname(real) === dir ? ex.generator : undefined
  }
}

/** The dataset parameter (correlation's --dataset), or the datasets named as columns (statistics' --columns). */
function datasetOf(params: Record<string, unknown>): string | undefined {
  if (typeof params.dataset === 'string') return params.dataset
  if (Array.isArray(params.columns) && params.columns.every((c) => typeof c === 'string')) return params.columns.join(',')
  return undefined
}
