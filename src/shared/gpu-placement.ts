// Where the parts of a run (ranks, GPU bands) were to compute, and where the driver saw them compute.

/** A part whose GPU the platform did not report. */
export const NOT_OBSERVED = 'not observed'
/** A part that asked for no GPU of its own: it took the device its process was given. */
export const SHARED = 'shared'

export interface GpuPlacement {
  /** Each part's GPU as chosen: a PCI tag (`pci-0000_06_00_0`) where its process could see that GPU alone, else 'shared'. */
  gpus_requested: string[]
  /** Each part's GPU as the driver reported it while the part held its buffers, or 'not observed'. */
  gpus_observed: string[]
  /** How gpus_observed was established, or why it could not be. */
  gpus_observed_by: string
  /** Parts that computed on one GPU together, in words; absent when none were seen doing so. */
  gpus_shared?: string
}

/**
 * The parts seen on one GPU together (`bands 0, 1 on pci-0000_06_00_0`), or undefined when every
 * observed part had a GPU of its own. Parts not observed count for nothing either way.
 */
export function sharedGpus(observed: string[], part = 'band'): string | undefined {
  const on = new Map<string, number[]>()
  observed.forEach((tag, k) => {
    if (tag !== NOT_OBSERVED) on.set(tag, [...(on.get(tag) ?? []), k])
  })
  const together = [...on].filter(([, parts]) => parts.length > 1)
  if (together.length === 0) return undefined
  return together.map(([tag, parts]) => `${part}s ${parts.join(', ')} on ${tag}`).join('; ')
}

/** The placement of parts given what each asked for and what was seen. */
export function placementOf(requested: string[], observed: { gpus: string[]; by: string }, part = 'band'): GpuPlacement {
  const shared = sharedGpus(observed.gpus, part)
  return { gpus_requested: requested, gpus_observed: observed.gpus, gpus_observed_by: observed.by, ...(shared && { gpus_shared: shared }) }
}

/** One line for a terminal: where the parts ran, and a warning when some shared a GPU. */
export function describePlacement(p: GpuPlacement, part = 'band'): string {
  const seen = p.gpus_observed.every((g) => g === NOT_OBSERVED) ? `GPUs not observed (${p.gpus_observed_by})` : `observed on ${p.gpus_observed.join(', ')}`
  const line = `${p.gpus_requested.length} ${part}s: requested ${p.gpus_requested.join(', ')}; ${seen}`
  return p.gpus_shared ? `${line}\nWARNING: ${p.gpus_shared} — computed on one GPU together` : line
}
