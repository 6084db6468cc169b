// The machine's GPUs as the PCI bus lists them (Linux sysfs), below any graphics API.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface PciGpu {
  /** The PCI address, `0000:06:00.0`. */
  address: string
  /** The same as a DRI_PRIME tag, `pci-0000_06_00_0`: how runs name a GPU. */
  tag: string
  /** The PCI vendor id, `0x10de` (NVIDIA); '' when unreadable. */
  vendor: string
}

/**
 * PCI display controllers (class 0x03xxxx: VGA, 3D), in bus order; null when the bus cannot be
 * listed (no sysfs, another system), so "no GPU" is never guessed.
 */
export function pciGpus(root = '/sys/bus/pci/devices'): PciGpu[] | null {
  let entries: string[]
  try {
    entries = readdirSync(root)
  } catch {
    return null
  }
  if (entries.length === 0) return null
  const gpus: PciGpu[] = []
  for (const address of entries.sort()) {
    if (!PCI_ADDRESS.test(address)) continue
    const read = (name: string) => {
      try {
        return readFileSync(join(root, address, name), 'utf8').trim().toLowerCase()
      } catch {
        return ''
      }
    }
    if (/^0x03/.test(read('class'))) gpus.push({ address: address.toLowerCase(), tag: busTag(address)!, vendor: read('vendor') })
  }
  return gpus
}

/** The GPUs' DRI_PRIME tags (pciGpus), in bus order; null when the bus cannot be listed. */
export function gpuBusTags(root = '/sys/bus/pci/devices'): string[] | null {
  return pciGpus(root)?.map((g) => g.tag) ?? null
}

const PCI_ADDRESS = /^([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i

/**
 * A PCI address as a tag, `pci-DDDD_BB_SS_F`: sysfs writes the domain with 4 digits, nvidia-smi
 * with 8 (`00000000:06:00.0`); both give the same tag. Undefined for anything else.
 */
export function busTag(address: string): string | undefined {
  const m = PCI_ADDRESS.exec(address.trim())
  if (!m) return undefined
  const domain = parseInt(m[1], 16)
  if (domain > 0xffff) return undefined
  return `pci-${domain.toString(16).padStart(4, '0')}_${m[2]}_${m[3]}_${m[4]}`.toLowerCase()
}
