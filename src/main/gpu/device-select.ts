// Devices for the parts of one job in one process: the GPU bands of a landslide. One process opens
// one GPU: Dawn takes the first GPU Vulkan lists and names GPUs of one model alike, and no setting
// of the process's own was seen to pick another (Mesa's device-select layer with DRI_PRIME put
// processes on other GPUs than the one named: fence.ts). So the parts share the process's device
// and the run says so; a GPU each comes from a process each, fenced onto its own GPU (fence.ts,
// ranks/launch.ts, paths' part processes). Where the parts computed is observed (observe.ts).
import { NOT_OBSERVED, placementOf, SHARED, type GpuPlacement } from '../../shared/gpu-placement'
import { FENCED_VARIABLE } from './fence'
import type { Gpu } from './gpu'
import { gpuBusTags } from './pci'
import { observeGpus } from './observe'

export { deviceSelectLayer } from './vulkan-manifests'

/** Devices for `count` parts of one job, and how they were placed. */
export interface GpuSet {
  /** Part k's device. */
  gpus: Gpu[]
  /** Part k's GPU as requested: 'shared' (the process's device) for each. */
  placement: string[]
  /** Why the parts share the process's device, when several were asked for. */
  note?: string
  /** Destroys the devices opened for the set (never the shared one). */
  close(): void
}

/** `count` parts on the process's device `shared`, with the reason when there are several. */
export async function gpusFor(count: number, shared: Gpu): Promise<GpuSet> {
  const sharing = (note?: string): GpuSet => ({ gpus: Array(count).fill(shared), placement: Array(count).fill(SHARED), note, close() {} })
  if (count <= 1) return sharing()
  if (shared.isSoftware) return sharing(`the adapter is a software one (${shared.adapter.description || shared.adapter.device}): all ${count} bands on it`)
  const fenced = process.env[FENCED_VARIABLE]
  if (fenced) return sharing(`this process sees one GPU (${fenced}): all ${count} bands on it`)
  const gpus = gpuBusTags()?.length ?? 0
  return sharing(
    gpus > 1
      ? `one process opens one of this machine's ${gpus} GPUs: all ${count} bands on the process's device (ranks, one process each, get a GPU each)`
      : `this machine has ${gpus === 1 ? 'one GPU' : 'no PCI GPU listed'}: all ${count} bands on the one device`,
  )
}

/** Where the set's parts computed: the GPU holding the process's memory, for each (they share its device). */
export async function observeSet(set: GpuSet, part = 'band'): Promise<GpuPlacement> {
  if (set.gpus.some((g) => g.isSoftware)) return placementOf(set.placement, { gpus: set.placement.map(() => NOT_OBSERVED), by: 'a software adapter: the parts computed on the CPU' }, part)
  const seen = await observeGpus([process.pid])
  return placementOf(set.placement, { gpus: set.placement.map(() => seen.gpus[0]), by: seen.by }, part)
}
