// The GPU of one rank. A rank process opens the GPU Dawn gives it; that is a choice only where the
// process can see one GPU: the local launcher fences each rank onto its own (src/main/gpu/fence.ts,
// which sets PARALAB_GPU_FENCED), Slurm's ConstrainDevices gives a task the one it granted.
// Otherwise the rank takes the device it gets ('shared'), and says why. Where it really computed
// is observed afterwards (observeRank), never taken from this choice.
import type { Gpu } from '../../../gpu/runtime'
import { FENCED_VARIABLE } from '../../../gpu/fence'
import { grantedGpus } from '../../../gpu/granted'
import { observeGpus } from '../../../gpu/observe'
import { NOT_OBSERVED, SHARED } from '../../../../shared/gpu-placement'

export interface RankGpu {
  gpu: Gpu
  /** The GPU requested for the rank (a PCI tag), or 'shared': the device the process was given. */
  requested: string
  note?: string
  /** Destroys a device opened for the rank (never the process's). */
  close(): void
}

export async function rankGpu(shared: () => Promise<Gpu>, env: NodeJS.ProcessEnv = process.env, roots?: { pci?: string; nvidia?: string }): Promise<RankGpu> {
  const gpu = await shared()
  const own = (requested: string, note?: string): RankGpu => ({ gpu, requested, ...(note && { note }), close() {} })
  const fenced = env[FENCED_VARIABLE]
  if (fenced) return own(fenced)
  const granted = grantedGpus(env, roots)
  if (granted?.slurm && granted.tags.length === 1) return own(granted.tags[0], `Slurm granted each task one GPU (${granted.slurm})`)
  const n = granted?.tags.length ?? 0
  return own(SHARED, n > 1 ? `each rank may use ${n} GPUs and none was fenced onto one: each opened the GPU the driver gave it` : undefined)
}

/** Where this rank computes, by the driver's account: its GPU's tag, or 'not observed' and why. */
export async function observeRank(device: RankGpu): Promise<{ gpu: string; by: string }> {
  if (device.gpu.isSoftware) return { gpu: NOT_OBSERVED, by: 'a software adapter: the rank computed on the CPU' }
  const seen = await observeGpus([process.pid])
  return { gpu: seen.gpus[0], by: seen.by }
}
