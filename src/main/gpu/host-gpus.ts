// Every GPU of the machine with its PCI address, and which ones Paralab can open separately: those
// whose device node a fence can leave a process alone with (fence.ts). For `paralab device` and the
// Device view.
import type { HostGpus } from '../../shared/device'
import { FENCED_VARIABLE, fenceRoute, nodeGpus } from './fence'
import { pciGpus } from './pci'

const VENDORS: Record<string, string> = { '0x10de': 'NVIDIA', '0x1002': 'AMD', '0x8086': 'Intel', '0x1a03': 'ASPEED', '0x102b': 'Matrox' }

export function hostGpus(opts: { env?: NodeJS.ProcessEnv; roots?: { pci?: string; nvidia?: string; dev?: string } } = {}): HostGpus {
  const env = opts.env ?? process.env
  const roots = opts.roots ?? {}
  const pci = pciGpus(roots.pci)
  if (!pci) return { listed: false, gpus: [], route: 'none: the PCI bus cannot be listed here (Linux sysfs)' }
  const nodes = nodeGpus(roots)
  const fenced = env[FENCED_VARIABLE]
  const route = fenceRoute(env)
  const separate = !fenced && route.ok && nodes.length > 1
  const gpus = pci.map((g) => {
    const node = nodes.find((n) => n.tag === g.tag)?.node
    return { bus: g.address, tag: g.tag, vendor: VENDORS[g.vendor] ?? (g.vendor || 'unknown'), ...(node && { node }), separate: separate && node !== undefined }
  })
  const text = fenced
    ? `this process is fenced onto ${fenced}: it sees that GPU alone`
    : nodes.length < 2
      ? `none needed or none known: ${nodes.length === 1 ? 'one NVIDIA GPU with a device node' : 'no NVIDIA GPU with a device node (/dev/nvidiaN); other GPUs are not chosen between'}; a process opens the GPU the driver gives it`
      : route.ok
        ? `a process per GPU, started in ${route.how} where the other GPUs' device nodes are /dev/null (the ranks of bench landslide --ranks and of a job run with --executor local --gpus-per-task G)`
        : `none: ${route.why}; every process opens the GPU the driver gives it`
  return { listed: true, gpus, route: text }
}
