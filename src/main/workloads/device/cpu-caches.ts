// The last-level caches of the machine, from Linux's sysfs: the CPU read must be well beyond them,
// or it would measure a cache instead of memory.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const CPUS = '/sys/devices/system/cpu'

/** "32768K" → bytes. */
function cacheBytes(size: string): number {
  const m = /^(\d+)\s*([KMG]?)/i.exec(size.trim())
  if (!m) return NaN
  return Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2].toUpperCase() as '' | 'K' | 'M' | 'G']
}

/**
 * Bytes of every last-level cache of the machine together (one L3 per socket or per chiplet, each
 * counted once by the CPUs it is shared by), or null where the system does not list them.
 */
export function lastLevelCacheBytes(root = CPUS): number | null {
  const seen = new Map<string, number>()
  let level = 0
  try {
    for (const cpu of readdirSync(root).filter((d) => /^cpu\d+$/.test(d))) {
      const dir = join(root, cpu, 'cache')
      let entries: string[]
      try {
        entries = readdirSync(dir).filter((d) => d.startsWith('index'))
      } catch {
        continue // a CPU offline, or no cache listing
      }
      for (const index of entries) {
        const read = (f: string) => readFileSync(join(dir, index, f), 'utf8').trim()
        const type = read('type')
        if (type === 'Instruction') continue
        const l = Number(read('level'))
        const bytes = cacheBytes(read('size'))
        if (!(l >= level) || !(bytes > 0)) continue
        if (l > level) {
          level = l
          seen.clear()
        }
        seen.set(read('shared_cpu_list'), bytes)
      }
    }
  } catch {
    return null
  }
  return seen.size ? [...seen.values()].reduce((s, b) => s + b, 0) : null
}
