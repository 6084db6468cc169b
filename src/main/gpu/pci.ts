// The machine's GPUs as the PCI bus lists them (Linux sysfs), below any graphics API.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * PCI display controllers (class 0x03xxxx: VGA, 3D) as DRI_PRIME tags `pci-DDDD_BB_SS_F`, in bus
 * order; null when the bus cannot be listed (no sysfs, another system), so "no GPU" is never guessed.
 */
export function gpuBusTags(root = '/sys/bus/pci/devices'): string[] | null {
  let entries: string[]
  try {
    entries = readdirSync(root)
  } catch {
    return null
  }
  if (entries.length === 0) return null
  const tags: string[] = []
  for (const address of entries.sort()) {
    const m = /^([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(address)
    if (!m) continue
    let cls = ''
    try {
      cls = readFileSync(join(root, address, 'class'), 'utf8').trim()
    } catch {
      continue
    }
    if (/^0x03/i.test(cls)) tags.push(`pci-${m[1]}_${m[2]}_${m[3]}_${m[4]}`.toLowerCase())
  }
  return tags
}
