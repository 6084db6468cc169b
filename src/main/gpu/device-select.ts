// A device on a chosen GPU of several. Dawn names GPUs of one model alike, and `adapter=` takes the
// first, so the choice is made below Dawn: Mesa's device-select Vulkan layer (an implicit layer
// that Debian's and most distributions' Mesa packages install) puts the GPU that DRI_PRIME names
// first, and with MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE it shows only that one. The layer
// reads both when an instance enumerates its devices, so each fresh Dawn instance can be sent to
// another GPU from the same process.
import { ApiError } from '../../shared/errors'
import { errorText, loadWebgpu, searchDrivers, searchWith } from './adapter'
import { withEnv } from './env'
import { Gpu } from './gpu'
import { grantedGpus } from './granted'
import { DEVICE_SELECT_LAYER as LAYER, deviceSelectLayer } from './vulkan-manifests'

export { deviceSelectLayer }

/** Each opened device's Dawn instance: Dawn tears an instance down once its `GPU` object is collected, devices and all. */
const instances = new WeakMap<Gpu, GPU>()

/**
 * A device on the GPU with DRI_PRIME tag `tag` (gpuBusTags), from a Dawn instance of its own. The
 * caller destroys it. Without the device-select layer the tag is ignored: check deviceSelectLayer() first.
 */
export async function openGpuOn(tag: string): Promise<Gpu> {
  const mod = await loadWebgpu()
  const got = await withEnv({ DRI_PRIME: tag, MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' }, () => searchWith(mod, searchDrivers()))
  if (!got.adapter) throw new ApiError('gpu-unavailable', `no adapter on GPU ${tag}: ${got.error ?? 'Dawn found none'}`)
  try {
    const gpu = await Gpu.open(got.adapter, `hardware adapter (DRI_PRIME=${tag})`)
    instances.set(gpu, got.gpu!)
    return gpu
  } catch (e) {
    throw new ApiError('gpu-unavailable', `opening GPU ${tag} failed: ${errorText(e)}`)
  }
}

/** Devices for `count` parts of one job, and how they were placed. */
export interface GpuSet {
  /** Part k's device. */
  gpus: Gpu[]
  /** Part k's GPU: its DRI_PRIME tag, or 'shared' for the process's device. */
  placement: string[]
  /** Why the parts share the process's device, when they do though several were asked for. */
  note?: string
  /** Destroys the devices opened for the set (never the shared one). */
  close(): void
}

/**
 * One device per part, on as many GPUs as the machine has (part k on GPU k mod G), when it has
 * several and the device-select layer can choose them; otherwise every part on `shared`.
 */
export async function gpusFor(count: number, shared: Gpu): Promise<GpuSet> {
  const sharing = (note?: string): GpuSet => ({ gpus: Array(count).fill(shared), placement: Array(count).fill('shared'), note, close() {} })
  if (count <= 1) return sharing()
  // The GPUs this process may use: those Slurm granted its job step, else the machine's.
  const granted = grantedGpus()
  const tags = granted?.tags ?? []
  if (shared.isSoftware) return sharing(`the adapter is a software one (${shared.adapter.description || shared.adapter.device}): all ${count} bands on it`)
  if (tags.length < 2)
    return sharing(
      granted?.slurm && tags.length === 1
        ? `Slurm granted one GPU (${granted.slurm}): all ${count} bands on it`
        : `this machine has ${tags.length === 1 ? 'one GPU' : 'no PCI GPU listed'}: all ${count} bands on the one device`,
    )
  if (!deviceSelectLayer())
    return sharing(`${tags.length} GPUs, but Mesa's device-select Vulkan layer (${LAYER}, Debian package mesa-vulkan-drivers) is not installed or NODEVICE_SELECT=1: all ${count} bands on one device`)
  const opened = new Map<string, Gpu>()
  const close = () => opened.forEach((gpu) => gpu.destroy())
  try {
    const placement = Array.from({ length: count }, (_, k) => tags[k % tags.length])
    for (const tag of placement) if (!opened.has(tag)) opened.set(tag, await openGpuOn(tag))
    return { gpus: placement.map((tag) => opened.get(tag)!), placement, close }
  } catch (e) {
    close()
    throw e
  }
}
