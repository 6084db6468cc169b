// The JSON manifests the Vulkan loader reads on Linux: drivers (icd.d) and implicit layers
// (implicit_layer.d, Mesa's device-select layer among them), from its standard search folders.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The loader's standard folders for `kind` on Linux, in its search order. */
export function loaderFolders(kind: 'icd.d' | 'implicit_layer.d'): string[] {
  const home = process.env.HOME ?? ''
  const split = (v: string | undefined, fallback: string) => (v || fallback).split(':').filter(Boolean)
  return [
    ...split(process.env.XDG_CONFIG_DIRS, '/etc/xdg').map((d) => join(d, 'vulkan', kind)),
    join('/etc/vulkan', kind),
    join(process.env.XDG_DATA_HOME || join(home, '.local/share'), 'vulkan', kind),
    ...split(process.env.XDG_DATA_DIRS, '/usr/local/share:/usr/share').map((d) => join(d, 'vulkan', kind)),
  ]
}

/** Every readable `.json` file of `folders`, once each, with its text; missing folders and unreadable files are skipped, as the loader does. */
export function manifests(folders: string[]): { path: string; text: string }[] {
  const out = new Map<string, string>()
  for (const dir of folders) {
    let names: string[]
    try {
      names = readdirSync(dir).filter((f) => f.endsWith('.json'))
    } catch {
      continue
    }
    for (const f of names) {
      const path = join(dir, f)
      if (out.has(path)) continue
      try {
        out.set(path, readFileSync(path, 'utf8'))
      } catch {
        // unreadable: skipped
      }
    }
  }
  return [...out].map(([path, text]) => ({ path, text }))
}

export const DEVICE_SELECT_LAYER = 'VK_LAYER_MESA_device_select'

/** Mesa's device-select layer's manifest, or null when the loader would not load it (absent, or NODEVICE_SELECT=1). */
export function deviceSelectLayer(): string | null {
  if (process.env.NODEVICE_SELECT === '1') return null
  const extra = [process.env.VK_LAYER_PATH, process.env.VK_ADD_LAYER_PATH].flatMap((v) => (v ?? '').split(':').filter(Boolean))
  return manifests([...extra, ...loaderFolders('implicit_layer.d')]).find((m) => m.text.includes(DEVICE_SELECT_LAYER))?.path ?? null
}
