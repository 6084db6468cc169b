// The GPU runtime (Dawn's addon, adapter discovery, device code) loaded when a GPU is first asked
// for: the backend, the app and the CLI use these, so work that never touches the GPU never loads it.
import type { DeviceInfo } from '../../shared/device'
import type { Gpu } from './gpu'

let runtime: Promise<typeof import('./runtime')> | undefined

/** The runtime module, imported once. */
export function loadGpuRuntime(): Promise<typeof import('./runtime')> {
  return (runtime ??= import('./runtime'))
}

/** The shared GPU (see runtime.getGpu). */
export async function getGpu(): Promise<Gpu> {
  return (await loadGpuRuntime()).getGpu()
}

/** What the GPU backend is; never throws (see runtime.gpuInfo). */
export async function gpuInfo(): Promise<DeviceInfo> {
  return (await loadGpuRuntime()).gpuInfo()
}

// Releasing the device (release.ts) needs no runtime: it has one only once the runtime was loaded.
export { shutdownGpu } from './release'
