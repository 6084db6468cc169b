// The statistics kernels: the entry points of shaders/stats/stats_<precision>.wgsl, the
// constants each is compiled with and the bindings each uses.
import type { Precision } from '../../../../shared/workloads/stats/types'
import type { Gpu, Kernel } from '../../../gpu/runtime'
import { SAMPLE, WG } from './layout'

export type Entry = 'sample' | 'start' | 'scan' | 'combine' | 'bracket' | 'refine' | 'pick'

/** Bindings each entry point uses (the pipelines' automatic layouts hold only those). */
export const BINDINGS: Record<Entry, readonly number[]> = {
  sample: [0, 1, 2, 8],
  start: [1, 2],
  scan: [0, 1, 2, 3, 4],
  combine: [1, 2, 3],
  bracket: [1, 2],
  refine: [0, 1, 2, 4, 5, 6],
  pick: [1, 2, 5, 6],
}

/** Entry points whose code depends on the pass (values, or deviations from the centre). */
const PER_PASS: ReadonlySet<Entry> = new Set(['scan', 'refine'])

/**
 * The kernel of `entry` for the values pass or the deviation pass. Entries that do not depend
 * on the pass get the same constants in both, so the runtime's cache compiles them once.
 */
export function statsKernel(gpu: Gpu, precision: Precision, entry: Entry, deviation: boolean): Promise<Kernel> {
  const constants: Record<string, number> = {}
  // The sample sort: one compare per thread and step where the device allows.
  if (entry === 'sample') constants.SAMPLE_WG = Math.min(SAMPLE / 2, gpu.limits.maxComputeInvocationsPerWorkgroup)
  else if (entry !== 'start') constants.WG = WG
  if (PER_PASS.has(entry)) constants.DEV = deviation ? 1 : 0
  return gpu.kernel(`stats/stats_${precision}`, { entryPoint: entry, constants })
}

/** Compiles every kernel of both passes. */
export async function warmStatsKernels(gpu: Gpu, precision: Precision): Promise<void> {
  const entries = Object.keys(BINDINGS) as Entry[]
  await Promise.all(entries.flatMap((e) => [false, true].map((deviation) => statsKernel(gpu, precision, e, deviation))))
}
