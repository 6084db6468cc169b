// The GPU of one rank: SLURM_LOCALID (the rank's index on its node, which the local launcher sets
// too) picks one of the GPUs the process may use — those Slurm granted the job step, else the
// node's (src/main/gpu/granted.ts) — through Mesa's device-select layer as GPU bands pick theirs
// (src/main/gpu/device-select.ts). With one GPU, a software adapter or no layer, the rank uses the
// process's device, and says why.
import type { Gpu } from '../../../gpu/runtime'
import { deviceSelectLayer, openGpuOn } from '../../../gpu/device-select'
import { grantedGpus } from '../../../gpu/granted'

export interface RankGpu {
  gpu: Gpu
  /** The GPU's DRI_PRIME tag, or 'shared' for the process's device. */
  placement: string
  note?: string
  /** Destroys a device opened for the rank (never the process's). */
  close(): void
}

/** The node-local index of this rank (SLURM_LOCALID), or undefined outside such a launch. */
export function localRank(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env.SLURM_LOCALID
  const n = text === undefined || text === '' ? NaN : Number(text)
  return Number.isInteger(n) && n >= 0 ? n : undefined
}

export async function rankGpu(shared: () => Promise<Gpu>, local = localRank()): Promise<RankGpu> {
  const own = async (note?: string): Promise<RankGpu> => ({ gpu: await shared(), placement: 'shared', note, close() {} })
  if (local === undefined) return own('SLURM_LOCALID is not set: the process\'s device')
  const granted = grantedGpus()
  if (!granted || granted.all.length < 2) return own(granted?.all.length === 1 ? 'the node has one GPU' : 'no PCI GPU listed: the process\'s device')
  if (!deviceSelectLayer()) return own(`${granted.all.length} GPUs, but Mesa's device-select Vulkan layer is not installed or NODEVICE_SELECT=1: the process's device`)
  const tag = granted.tags[local % granted.tags.length]
  const gpu = await openGpuOn(tag)
  return { gpu, placement: tag, ...(granted.slurm && { note: `of the GPUs Slurm granted (${granted.slurm})` }), close: () => gpu.destroy() }
}
