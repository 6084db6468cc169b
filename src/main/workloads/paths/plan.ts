// Which runs a job makes: every chosen backend, every chosen GPU variant, at every chosen blocking
// factor where the backend or variant has one.
import type { GpuVariant, PathsBackend } from '../../../shared/workloads/paths/types'
import type { PathsParams } from '../../../shared/workloads/paths'

export interface RunSpec {
  backend: PathsBackend
  variant?: GpuVariant
  block?: number
  /** A tile shape of the tuned variant's min-plus phase 3 (bench sweeps); none: the default one. */
  shape?: string
  /** GPUs of the tuned variant, when more than one (gpu/bands-solver.ts). */
  gpus?: number
}

/** GPU blocks live in workgroup memory: 64 is the most any variant takes. */
export const GPU_MAX_BLOCK = 64
/** Variants with a blocking factor of their own (the study's B = 64 steps). */
const FIXED_BLOCK: Partial<Record<GpuVariant, number>> = { b64: 64, tuned: 64 }
const BLOCKED_VARIANTS: readonly GpuVariant[] = ['shared', 'min']

export function planRuns(params: Pick<PathsParams, 'backends' | 'variants' | 'blocks'> & { gpus?: number }): { runs: RunSpec[]; skipped: { backend: string; reason: string }[] } {
  const blocks = params.blocks.map(Number)
  const gpus = params.gpus ?? 1
  const runs: RunSpec[] = []
  const skipped: { backend: string; reason: string }[] = []
  for (const backend of params.backends) {
    if (backend === 'serial') runs.push({ backend })
    else if (backend !== 'gpu') for (const block of blocks) runs.push({ backend, block })
    else
      for (const variant of params.variants) {
        if (gpus > 1 && variant !== 'tuned') skipped.push({ backend: `gpu ${variant}`, reason: `several GPUs (--gpus ${gpus}) run the tuned variant only` })
        else if (FIXED_BLOCK[variant]) runs.push({ backend, variant, block: FIXED_BLOCK[variant], ...(gpus > 1 && { gpus }) })
        else if (!BLOCKED_VARIANTS.includes(variant)) runs.push({ backend, variant })
        else
          for (const block of blocks) {
            if (block <= GPU_MAX_BLOCK) runs.push({ backend, variant, block })
            else skipped.push({ backend: `gpu ${variant} B=${block}`, reason: `GPU blocks are at most ${GPU_MAX_BLOCK} (they live in workgroup memory)` })
          }
      }
  }
  return { runs, skipped }
}
