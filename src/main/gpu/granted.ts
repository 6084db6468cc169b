// The GPUs this process may use. Under Slurm, those granted to its job step: Slurm names them by
// their index on the node (SLURM_STEP_GPUS in a step, SLURM_JOB_GPUS in the batch script), the
// N of /dev/nvidiaN as gres.conf lists them; it hands the same list to CUDA as
// CUDA_VISIBLE_DEVICES, which Vulkan (and so Dawn) ignores. Two jobs sharing a node must not both
// open its first GPUs, and where Slurm fences the devices (cgroups) the others cannot be opened:
// so each index is mapped to its PCI address — through the NVIDIA driver's own listing of its
// device minors where it has one, else by bus order — and a rank is put on one by hiding the
// others' device nodes from it (fence.ts). Elsewhere: every GPU of the PCI bus.
// Where a devices cgroup (Slurm's ConstrainDevices) refuses the other GPUs' nodes, the task's GPUs
// are the nodes it can open, and Slurm numbers them from 0: with Slurm 22.05 and
// `--gpus-per-task 1`, every task read SLURM_STEP_GPUS=0 while each could open only its own
// /dev/nvidiaK; without the cgroup each read its node's index, K.
import { closeSync, constants, openSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ApiError } from '../../shared/errors'
import { gpuBusTags } from './pci'

export interface GrantedGpus {
  /** DRI_PRIME tags (gpuBusTags) of the GPUs this process may use, in the order they are handed out. */
  tags: string[]
  /** Every GPU of the node: more than `tags` where Slurm granted some. */
  all: string[]
  /** Where Slurm granted the GPUs: the variable and its value, for notes. */
  slurm?: string
  /** The devices cgroup refuses this process the other GPUs' nodes: it can open only `tags`. */
  constrained?: boolean
}

/** How opening a device node went: 'refused' is a devices cgroup's no (EPERM), or the node's modes' (EACCES). */
export type NodeAccess = 'opens' | 'refused' | 'absent' | 'other'

/** Opens and closes `path` (read-only, never blocking): whether this process may use that device. */
export function nodeAccess(path: string): NodeAccess {
  try {
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK))
    return 'opens'
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    // ENXIO and the like: the node may be opened, its driver had nothing to say to a bare open.
    return code === 'EPERM' || code === 'EACCES' ? 'refused' : code === 'ENOENT' ? 'absent' : 'other'
  }
}

/** The node indices of the GPUs Slurm granted (`0,2`, `4-7`), or undefined outside such a job. */
export function slurmGpuIndices(env: NodeJS.ProcessEnv = process.env): { variable: string; text: string; indices: number[] } | undefined {
  const variable = ['SLURM_STEP_GPUS', 'SLURM_JOB_GPUS'].find((v) => (env[v] ?? '').trim() !== '')
  if (!variable) return undefined
  const text = env[variable]!.trim()
  const indices: number[] = []
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(part)
    if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1])))
      throw new ApiError('invalid-argument', `${variable} must list GPU indices such as 0,2 or 4-7, got "${text}"`)
    for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]); i++) indices.push(i)
  }
  return { variable, text, indices }
}

/** The NVIDIA driver's device minor of each of its GPUs (/dev/nvidiaN), as DRI_PRIME tags by minor. */
export function nvidiaMinors(root = '/proc/driver/nvidia/gpus'): Map<number, string> {
  const byMinor = new Map<number, string>()
  let entries: string[]
  try {
    entries = readdirSync(root)
  } catch {
    return byMinor
  }
  for (const address of entries) {
    const bus = /^([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(address)
    if (!bus) continue
    let text = ''
    try {
      text = readFileSync(join(root, address, 'information'), 'utf8')
    } catch {
      continue
    }
    const minor = /^Device Minor:\s*(\d+)/m.exec(text)
    if (minor) byMinor.set(Number(minor[1]), `pci-${bus[1]}_${bus[2]}_${bus[3]}_${bus[4]}`.toLowerCase())
  }
  return byMinor
}

/** The GPUs this process may use (see above); null when the PCI bus cannot be listed. */
export function grantedGpus(
  env: NodeJS.ProcessEnv = process.env,
  roots: { pci?: string; nvidia?: string; dev?: string } = {},
  opens: (path: string) => NodeAccess = nodeAccess,
): GrantedGpus | null {
  const all = gpuBusTags(roots.pci)
  if (all === null) return null
  const grant = slurmGpuIndices(env)
  if (!grant) return { tags: all, all }
  const minors = nvidiaMinors(roots.nvidia)
  const slurm = `${grant.variable}=${grant.text}`
  const nodes = [...minors]
    .sort((a, b) => a[0] - b[0])
    .map(([minor, tag]) => ({ minor, tag, access: opens(join(roots.dev ?? '/dev', `nvidia${minor}`)) }))
    .filter((n) => n.access !== 'absent' && all.includes(n.tag))
  const usable = nodes.filter((n) => n.access !== 'refused')
  if (usable.length > 0 && usable.length < nodes.length) {
    // Constrained: Slurm's indices number the task's own GPUs (or, where every one names a node it may open, those nodes).
    const byMinor = grant.indices.every((i) => usable.some((n) => n.minor === i)) && !grant.indices.every((i) => i < usable.length)
    const tags = grant.indices.map((i) => (byMinor ? usable.find((n) => n.minor === i) : usable[i])?.tag)
    if (tags.some((t) => t === undefined))
      throw new ApiError('gpu-unavailable', `${slurm} grants GPU ${grant.indices.join(', ')}, but this process may open only ${usable.map((n) => `/dev/nvidia${n.minor}`).join(', ')} of the node's ${nodes.length}`)
    return { tags: tags as string[], all, slurm, constrained: true }
  }
  const tags = grant.indices.map((i) => {
    const tag = minors.get(i) ?? (minors.size === 0 ? all[i] : undefined)
    if (tag === undefined || !all.includes(tag))
      throw new ApiError('gpu-unavailable', `${grant.variable}=${grant.text} grants GPU ${i}, but this node lists ${all.length} GPU${all.length === 1 ? '' : 's'} (${all.join(', ') || 'none'})`)
    return tag
  })
  return { tags, all, slurm }
}
