// One GPU per process. Dawn takes the first GPU Vulkan lists, and names GPUs of one model alike;
// Vulkan ignores CUDA_VISIBLE_DEVICES; Mesa's device-select layer with DRI_PRIME was seen on a
// 4-GPU machine to put processes on other GPUs than the one named. What does choose: a process in
// a mount namespace of its own, where every NVIDIA device node but its GPU's (/dev/nvidiaN) has
// /dev/null bind-mounted over it, can open no other GPU — seen there, /dev/nvidiaK kept → the GPU
// of minor K, with no context on any other. Slurm's cgroup ConstrainDevices gives a job step the same;
// a Slurm task without it reruns itself inside a fence onto its grant (taskFence, fence-self.ts).
// `unshare -m` makes the namespace as root; `unshare -Urm` where user namespaces are allowed.
import { spawnSync } from 'node:child_process'
import { accessSync, constants, readdirSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { grantedGpus, nvidiaMinors, type GrantedGpus, type NodeAccess } from './granted'

/** `off` turns the route off (every process then gets the GPU Dawn gives it). */
export const FENCE_VARIABLE = 'PARALAB_GPU_FENCE'
/** Set in a fenced process: the tag of the one GPU it can see. */
export const FENCED_VARIABLE = 'PARALAB_GPU_FENCED'

export type FenceRoute = { ok: true; flags: string[]; how: string } | { ok: false; why: string }

/** An executable's path on PATH, or undefined. */
export function onPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue
    try {
      accessSync(join(dir, name), constants.X_OK)
      return join(dir, name)
    } catch {
      // not here
    }
  }
  return undefined
}

let cached: FenceRoute | undefined

/**
 * Whether this process can start others with device nodes hidden, and how: tried once (a bind
 * mount in a throwaway namespace), since containers and security modules refuse what the
 * kernel's settings would allow.
 */
export function fenceRoute(env: NodeJS.ProcessEnv = process.env): FenceRoute {
  if (env[FENCE_VARIABLE]?.toLowerCase() === 'off') return { ok: false, why: `${FENCE_VARIABLE}=off` }
  if (cached) return cached
  cached = probeRoute(env)
  return cached
}

/** Forgets the probed route (tests). */
export function resetFenceRoute(): void {
  cached = undefined
}

function probeRoute(env: NodeJS.ProcessEnv): FenceRoute {
  if (process.platform !== 'linux') return { ok: false, why: `device nodes are hidden through Linux mount namespaces; this is ${process.platform}` }
  const unshare = onPath('unshare', env.PATH)
  if (!unshare || !onPath('mount', env.PATH)) return { ok: false, why: 'unshare or mount (util-linux) is not on PATH' }
  const tries: [string[], string][] = [
    [['-m'], 'a mount namespace of its own (unshare -m, as root)'],
    [['-Urm'], 'a user and mount namespace of its own (unshare -Urm)'],
  ]
  const failed: string[] = []
  for (const [flags, how] of process.getuid?.() === 0 ? tries : tries.slice(1)) {
    const r = spawnSync(unshare, [...flags, '--', 'mount', '--bind', '/dev/null', '/dev/null'], { timeout: 5000, encoding: 'utf8', env })
    if (r.status === 0) return { ok: true, flags, how }
    failed.push(`unshare ${flags.join(' ')}: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]}`)
  }
  return { ok: false, why: `no namespace could be made (${failed.join('; ')})` }
}

/** An NVIDIA GPU with its device node. */
export interface NodeGpu {
  tag: string
  minor: number
  /** `/dev/nvidiaN`. */
  node: string
}

/** The NVIDIA driver's GPUs whose device node exists, by minor. */
export function nodeGpus(roots: { nvidia?: string; dev?: string } = {}): NodeGpu[] {
  const nodes = new Set(deviceNodes(roots.dev))
  const dev = roots.dev ?? '/dev'
  return [...nvidiaMinors(roots.nvidia)]
    .map(([minor, tag]) => ({ tag, minor, node: join(dev, `nvidia${minor}`) }))
    .filter((g) => nodes.has(g.node))
    .sort((a, b) => a.minor - b.minor)
}

/** Every GPU device node `/dev/nvidiaN` (not nvidiactl, nvidia-uvm, …). */
export function deviceNodes(dev = '/dev'): string[] {
  try {
    return readdirSync(dev)
      .filter((n) => /^nvidia\d+$/.test(n))
      .map((n) => join(dev, n))
  } catch {
    return []
  }
}

/** A process's view: the one node it keeps, every other one hidden. */
export interface GpuFence {
  tag: string
  keep: string
  hide: string[]
}

export function fenceFor(gpu: NodeGpu, dev?: string): GpuFence {
  return { tag: gpu.tag, keep: gpu.node, hide: deviceNodes(dev ?? gpu.node.slice(0, gpu.node.lastIndexOf('/'))).filter((n) => n !== gpu.node) }
}

/**
 * `command args` started inside the fence: `unshare <flags> -- sh -c SCRIPT paralab-gpu-fence
 * <nodes…> -- command args`. The script binds /dev/null over each node named before `--`, stops at
 * the first failure, and execs the command, which keeps the pid the launcher was given. Node paths
 * and the command travel as arguments, never inside the script's text.
 */
export const FENCE_SCRIPT = 'while [ "$1" != -- ]; do mount --bind /dev/null "$1" || exit 126; shift; done; shift; exec "$@"'

export function fencedCommand(fence: GpuFence, route: Extract<FenceRoute, { ok: true }>, command: string, args: string[]): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: 'unshare',
    args: [...route.flags, '--', 'sh', '-c', FENCE_SCRIPT, 'paralab-gpu-fence', ...fence.hide, '--', command, ...args],
    env: { [FENCED_VARIABLE]: fence.tag },
  }
}

/** The GPUs processes of this machine can each be fenced onto, in the order they are handed out, or why none can. */
export type FenceableGpus = { ok: true; gpus: NodeGpu[]; route: Extract<FenceRoute, { ok: true }> } | { ok: false; why: string }

type FenceOptions = { env?: NodeJS.ProcessEnv; roots?: { pci?: string; nvidia?: string; dev?: string } }

export function fenceableGpus(opts: FenceOptions = {}): FenceableGpus {
  const env = opts.env ?? process.env
  const roots = opts.roots ?? {}
  let granted: string[] | undefined
  try {
    granted = grantedGpus(env, roots)?.tags
  } catch (e) {
    return { ok: false, why: e instanceof Error ? e.message : String(e) }
  }
  const nodes = nodeGpus(roots)
  // The GPUs this process may use (Slurm's grant, else the bus), in that order, that have a node.
  const gpus = granted ? granted.flatMap((tag) => nodes.filter((g) => g.tag === tag)) : nodes
  if (gpus.length === 0) return { ok: false, why: 'no NVIDIA GPU with a device node (/dev/nvidiaN) is listed: the ranks open the GPU they are given' }
  if (gpus.length === 1) return { ok: false, why: `one GPU (${gpus[0].tag}): every rank on it` }
  const route = fenceRoute(env)
  if (!route.ok) return { ok: false, why: `${gpus.length} GPUs, but no route shows a process only one of them (${route.why}): the ranks open the GPU they are given` }
  return { ok: true, gpus, route }
}

/** How `ranks` processes of this machine each get a GPU: rank k fenced onto the (k mod G)-th, or why they cannot be. */
export type RankFences = { ok: true; fences: GpuFence[]; route: Extract<FenceRoute, { ok: true }> } | { ok: false; why: string }

export function rankFences(ranks: number, opts: FenceOptions = {}): RankFences {
  const f = fenceableGpus(opts)
  if (!f.ok) return f
  return { ok: true, fences: Array.from({ length: ranks }, (_, k) => fenceFor(f.gpus[k % f.gpus.length], opts.roots?.dev)), route: f.route }
}

/**
 * A task that Slurm granted a GPU, on a node where it can still open every GPU's node (no devices
 * cgroup): the fence that keeps it to its grant, or why it needs none or cannot have one (`why`
 * undefined: nothing was granted, nothing to say).
 */
export type TaskFence = { ok: true; fence: GpuFence; route: Extract<FenceRoute, { ok: true }>; note: string } | { ok: false; why?: string }

export function taskFence(opts: FenceOptions & { opens?: (path: string) => NodeAccess } = {}): TaskFence {
  const env = opts.env ?? process.env
  const roots = opts.roots ?? {}
  if (env[FENCED_VARIABLE]) return { ok: false }
  let granted: GrantedGpus | null
  try {
    granted = grantedGpus(env, roots, opts.opens)
  } catch (e) {
    return { ok: false, why: e instanceof Error ? e.message : String(e) }
  }
  if (!granted?.slurm) return { ok: false }
  const gpus = nodeGpus(roots)
  const gpu = gpus.find((g) => g.tag === granted.tags[0])
  if (granted.constrained) return { ok: false, why: `Slurm's devices cgroup leaves this task only ${granted.tags.join(', ')} (${granted.slurm}): no fence needed` }
  if (!gpu || gpus.length < 2) return { ok: false }
  const route = fenceRoute(env)
  if (!route.ok) return { ok: false, why: `Slurm granted ${gpu.tag} (${granted.slurm}), but every GPU's node is open to this task and no fence can be made (${route.why}): it opens the GPU the driver gives it` }
  const more = granted.tags.length > 1 ? ` (${granted.tags.length} granted: a process opens one)` : ''
  return { ok: true, fence: fenceFor(gpu, roots.dev), route, note: `Slurm granted ${gpu.tag}, /dev/nvidia${gpu.minor} (${granted.slurm})${more}; every other GPU's node is hidden from the task, in ${route.how}` }
}
