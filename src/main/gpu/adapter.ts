// Finding a WebGPU adapter: the hardware one Dawn picks by default, else SwiftShader's
// software Vulkan driver, which Chromium and Electron ship. Never throws: failure is a reason.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import type { AdapterInfo } from '../../shared/device'
import { setEnv, withEnv } from './env'
import { grantedGpus, type GrantedGpus } from './granted'
import { loaderFolders, manifests } from './vulkan-manifests'
import { addSpan } from '../timeline'

/** The `GPU` object of one Dawn instance plus how it was found; adapters are requested from it per device. */
export interface Discovery {
  gpu: GPU
  /** Where the adapter came from, for AdapterInfo.source. */
  source: string
}

export type DiscoveryResult = { ok: true; discovery: Discovery; adapter: GPUAdapter } | { ok: false; reason: string }

type WebgpuModule = { create(options: string[]): GPU; globals: object }

let webgpu: WebgpuModule | null = null

export async function loadWebgpu(): Promise<WebgpuModule> {
  if (!webgpu) {
    // Loaded lazily so that a missing or broken native addon makes the GPU unavailable, not the app.
    const t = performance.now()
    const mod = (await import('webgpu')) as unknown as WebgpuModule
    addSpan('Dawn addon load', t)
    // GPUBufferUsage, GPUMapMode, … are globals in browsers; Dawn hands them over as an object.
    Object.assign(globalThis, mod.globals)
    webgpu = mod
  }
  return webgpu
}

export const DISABLE_ENV = 'PARALAB_GPU'

/**
 * Dawn toggles of a SwiftShader instance. `disable_workgroup_init`: Dawn no longer zeroes workgroup
 * memory at each workgroup's start, which is most of what SwiftShader's compiler spends on a kernel
 * (the statistics' nine pipelines: 13 s with the zeroing, 4.7 s without, on a 2-core machine). So
 * every kernel writes each workgroup variable before reading it (src/main/gpu/README.md); one that
 * does not shows in the tests on SwiftShader. Hardware adapters keep WebGPU's zeroing: there it
 * costs milliseconds.
 */
export const SWIFTSHADER_FLAGS: readonly string[] = ['enable-dawn-features=disable_workgroup_init']

/** Finds an adapter, trying SwiftShader when the default search finds no hardware one. */
export async function discoverAdapter(): Promise<DiscoveryResult> {
  if (process.env[DISABLE_ENV]?.toLowerCase() === 'off') return { ok: false, reason: `disabled by ${DISABLE_ENV}=off` }
  let mod: WebgpuModule
  try {
    mod = await loadWebgpu()
  } catch (e) {
    return { ok: false, reason: `the webgpu addon failed to load: ${errorText(e)}` }
  }

  const preset = presetDriverFiles()
  // Without any Vulkan driver installed the default search can only fail, and Dawn says so on
  // stderr ("vkCreateInstance: Found no drivers!"): go straight to SwiftShader then. Otherwise the
  // search is pinned to the drivers that may hold a hardware GPU (hardwareDriverFiles).
  const drivers = searchDrivers()
  let granted: GrantedGpus | null
  try {
    granted = grantedGpus()
  } catch (e) {
    return { ok: false, reason: errorText(e) }
  }
  // On x86 every GPU is a PCI device: with none, the drivers' search would only complain.
  const noGpu = !preset && process.arch === 'x64' && granted?.all.length === 0
  // Which GPU of several this is, is no choice made here: one is found where the process can see
  // one alone (a fence, fence.ts; Slurm's ConstrainDevices), and runs observe where they computed (observe.ts).
  const first = drivers?.length === 0 ? { error: 'no Vulkan driver for a GPU is installed' } : noGpu ? { error: 'no GPU on the PCI bus' } : await searchWith(mod, drivers)
  const via = preset ? ` (Vulkan ICD ${preset})` : ''
  if (first.adapter && !isSoftwareAdapter(first.adapter)) return found(first.gpu!, first.adapter, `hardware adapter${via}`)
  if (first.adapter && isSwiftShader(first.adapter)) {
    // Found by the default search: the same search again, on an instance with SwiftShader's toggles.
    const again = await searchWith(mod, drivers, SWIFTSHADER_FLAGS)
    if (again.adapter && isSwiftShader(again.adapter)) return found(again.gpu!, again.adapter, `SwiftShader${via || ' (default Vulkan search)'}`)
    return found(first.gpu!, first.adapter, `SwiftShader${via || ' (default Vulkan search)'}`)
  }

  const tried: string[] = []
  for (const icd of swiftShaderCandidates()) {
    if (!existsSync(icd)) {
      tried.push(`${icd} (absent)`)
      continue
    }
    // The Vulkan loader reads these when Dawn creates its instance, so a fresh create() sees them.
    const restore = setEnv({ VK_ICD_FILENAMES: icd, VK_DRIVER_FILES: icd })
    const next = await tryInstance(mod, SWIFTSHADER_FLAGS)
    if (next.adapter) return found(next.gpu!, next.adapter, `SwiftShader (Vulkan ICD ${icd})`)
    restore()
    tried.push(`${icd} (${next.error ?? 'no adapter'})`)
  }

  if (first.adapter) {
    return found(first.gpu!, first.adapter, `software adapter ${describe(first.adapter)}${via}`)
  }
  const why = first.error ?? 'Dawn found no adapter'
  return {
    ok: false,
    reason: `no WebGPU adapter: ${why}; SwiftShader tried: ${tried.length ? tried.join(', ') : 'none'}`,
  }
}

/**
 * The Vulkan drivers' manifests the loader would find on Linux, lavapipe's (Mesa's CPU driver) left
 * out: Dawn rejects its device aloud ("Warning: Vulkan shaderUniform*ArrayDynamicIndexing
 * required") and SwiftShader is the software adapter used anyway. Null on other systems (assume
 * drivers and let the loader search).
 */
export function hardwareDriverFiles(): string[] | null {
  if (process.platform !== 'linux') return null
  return manifests(loaderFolders('icd.d'))
    .filter((m) => !/libvulkan_lvp\b/.test(m.text))
    .map((m) => m.path)
}

/** Reads the adapter's identity; its fields are prototype getters, so they are read one by one. */
export function adapterInfo(adapter: GPUAdapter, source: string): AdapterInfo {
  const i = adapter.info
  return {
    vendor: i.vendor,
    architecture: i.architecture,
    device: i.device,
    description: i.description,
    isSoftware: isSoftwareAdapter(adapter),
    source,
  }
}

export function isSoftwareAdapter(adapter: GPUAdapter): boolean {
  const i = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean }
  return i.isFallbackAdapter === true || /swiftshader|llvmpipe|lavapipe/i.test(`${i.architecture} ${i.device} ${i.description}`)
}

function isSwiftShader(adapter: GPUAdapter): boolean {
  return /swiftshader/i.test(`${adapter.info.architecture} ${adapter.info.description}`)
}

/** Where SwiftShader's Vulkan ICD may be: Debian's Chromium, the running Electron, the electron package. */
export function swiftShaderCandidates(): string[] {
  const file = 'vk_swiftshader_icd.json'
  const list = ['/usr/lib/chromium/' + file]
  if (process.versions.electron) list.push(join(dirname(process.execPath), file))
  list.push(resolve('node_modules/electron/dist', file))
  try {
    const electronPkg = createRequire(import.meta.url).resolve('electron/package.json')
    list.push(join(dirname(electronPkg), 'dist', file))
  } catch {
    // electron is not installed next to this build: nothing to add
  }
  return [...new Set(list)]
}

/** The drivers to pin the default search to: null where the user pinned their own (VK_DRIVER_FILES, VK_ICD_FILENAMES) or off Linux. */
export function searchDrivers(): string[] | null {
  return presetDriverFiles() ? null : hardwareDriverFiles()
}

/** tryInstance with the loader's search pinned to `drivers` (null: its own search). */
export async function searchWith(mod: WebgpuModule, drivers: string[] | null, flags: readonly string[] = []): ReturnType<typeof tryInstance> {
  if (!drivers) return tryInstance(mod, flags)
  const files = drivers.join(':')
  return withEnv({ VK_DRIVER_FILES: files, VK_ICD_FILENAMES: files }, () => tryInstance(mod, flags))
}

/** A Dawn instance made with `flags` (`create`'s options: Dawn toggles, backend, …) and its adapter. */
export async function tryInstance(mod: WebgpuModule, flags: readonly string[] = []): Promise<{ gpu?: GPU; adapter?: GPUAdapter; error?: string }> {
  try {
    const gpu = mod.create([...flags])
    const adapter = await requestAdapterQuietly(gpu)
    return adapter ? { gpu, adapter } : { gpu }
  } catch (e) {
    return { error: errorText(e) }
  }
}

/** Where no Wayland socket is: an absolute path that cannot exist. */
const NO_RUNTIME_DIR = '/nonexistent/paralab-no-wayland'

/**
 * An adapter from `gpu`, without the Vulkan layers' chatter: Mesa's device-select layer (installed
 * with Mesa's Vulkan drivers) asks Wayland for the default GPU as devices are enumerated, and
 * libwayland prints "error: XDG_RUNTIME_DIR is invalid or not set" to stderr when the session has
 * none (SSH, services, CI). An absolute path where no socket can be makes that lookup fail quietly;
 * the layer then picks the GPU as it would have.
 */
export async function requestAdapterQuietly(gpu: GPU): Promise<GPUAdapter | null> {
  const request = () => gpu.requestAdapter({ powerPreference: 'high-performance' })
  return process.env.XDG_RUNTIME_DIR?.startsWith('/') ? request() : withEnv({ XDG_RUNTIME_DIR: NO_RUNTIME_DIR }, request)
}

function found(gpu: GPU, adapter: GPUAdapter, source: string): DiscoveryResult {
  return { ok: true, discovery: { gpu, source }, adapter }
}

function presetDriverFiles(): string | undefined {
  return process.env.VK_DRIVER_FILES || process.env.VK_ICD_FILENAMES || undefined
}

function describe(adapter: GPUAdapter): string {
  const i = adapter.info
  return [i.vendor, i.architecture, i.description].filter(Boolean).join(' ') || 'unnamed'
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
