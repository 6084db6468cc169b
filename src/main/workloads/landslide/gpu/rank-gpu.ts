// The GPU of one rank. A rank process opens the GPU Dawn gives it; that is a choice only where the
// process can see one GPU: the local launcher fences each rank onto its own (src/main/gpu/fence.ts,
// which sets PARALAB_GPU_FENCED), as does a Slurm task that reruns itself fenced onto its grant
// (fence-self.ts); Slurm's ConstrainDevices gives a task the one it granted.
// Otherwise the rank takes the device it gets ('shared'), and says why. Where it really computed
// is observed afterwards (observeRank), never taken from this choice.
import type { Gpu } from '../../../gpu/runtime'
import { FENCED_VARIABLE } from '../../../gpu/fence'
import { grantedGpus, type NodeAccess } from '../../../gpu/granted'
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

export async function rankGpu(shared: () => Promise<Gpu>, env: NodeJS.ProcessEnv = process.env, roots?: { pci?: string; nvidia?: string; dev?: string }, opens?: (path: string) => NodeAccess): Promise<RankGpu> {
  const gpu = await shared()
  const own = (requested: string, note?: string): RankGpu => ({ gpu, requested, ...(note && { note }), close() {} })
  const fenced = env[FENCED_VARIABLE]
  if (fenced) return own(fenced)
  const granted = grantedGpus(env, roots, opens)
  if (granted?.slurm && granted.constrained && granted.tags.length === 1) return own(granted.tags[0], `Slurm's devices cgroup leaves each task its one GPU (${granted.slurm})`)
  // Granted one GPU but able to open them all, and not fenced (no route): Dawn took the driver's first.
  if (granted?.slurm && !granted.constrained && granted.tags.length === 1 && granted.all.length > 1)
    return own(SHARED, `Slurm granted ${granted.tags[0]} (${granted.slurm}), but this task could open every GPU and was not fenced onto it: it opened the GPU the driver gave it`)
  const n = granted?.tags.length ?? 0
  return own(SHARED, n > 1 ? `each rank may use ${n} GPUs and none was fenced onto one: each opened the GPU the driver gave it` : undefined)
}

/** Where this rank computes, by the driver's account: its GPU's tag, or 'not observed' and why. */
export async function observeRank(device: RankGpu): Promise<{ gpu: string; by: string }> {
  if (device.gpu.isSoftware) return { gpu: NOT_OBSERVED, by: 'a software adapter: the rank computed on the CPU' }
  const seen = await observeGpus([process.pid])
  return { gpu: seen.gpus[0], by: seen.by }
}
