// What the GPU runtime reports about the adapter it uses, and what `bench device` measures.

export interface AdapterInfo {
  vendor: string
  architecture: string
  device: string
  description: string
  /** True for a CPU-emulated adapter such as SwiftShader. */
  isSoftware: boolean
  /** How the adapter was found, e.g. "hardware adapter" or "SwiftShader (Vulkan ICD /usr/lib/chromium/vk_swiftshader_icd.json)". */
  source: string
}

export interface DeviceInfo {
  /** False when no WebGPU adapter could be found; CPU backends keep working. */
  available: boolean
  /** Why the GPU backend is unavailable, when it is. */
  reason?: string
  adapter?: AdapterInfo
  features: string[]
  limits: Record<string, number>
  /** Every GPU of the machine, and which ones Paralab can open separately (a process each). */
  host?: HostGpus
}

/** A GPU of the machine as its PCI bus lists it. */
export interface HostGpu {
  /** The PCI address, `0000:06:00.0`. */
  bus: string
  /** How runs name it: `pci-0000_06_00_0`. */
  tag: string
  /** The vendor's name, or its PCI id where unknown. */
  vendor: string
  /** Its device node (NVIDIA's /dev/nvidiaN), where the driver lists one. */
  node?: string
  /** Whether a process of Paralab's can be given this GPU alone (route). */
  separate: boolean
}

export interface HostGpus {
  /** False when the PCI bus could not be listed (another system, no sysfs). */
  listed: boolean
  gpus: HostGpu[]
  /** How a process is given one GPU alone, or why none can be. */
  route: string
}

/** Results of `paralab bench device`; every figure carries its unit in its key. */
export interface DeviceBenchResult {
  adapter: AdapterInfo
  read_bandwidth_GB_per_s: number
  read_bytes: number
  fma_f32_GFLOP_per_s: number
  fma_flops: number
  upload_GB_per_s: number
  readback_GB_per_s: number
  transfer_bytes: number
  /** How GPU time was measured: "wall clock to completion" or "timestamp queries". */
  timing: string
  repeats: number
}

/**
 * The CPU's ceilings as the CPU backends reach them, measured beside the GPU's (or alone on a
 * machine without one): a read of a buffer far beyond the last-level cache by every thread of the
 * worker pool, and f64 multiply-add chains as each CPU backend computes (scalar TypeScript, WebAssembly
 * SIMD; one thread, every thread). The workers-simd figure and the read are the CPU's roof.
 */
export interface CpuBenchResult {
  /** The CPU as the host names it (the envelope's host.cpu). */
  cpu: string
  /** Threads of the worker pool, one per core as the workers backends run. */
  threads: number
  read_bandwidth_GB_per_s: number
  read_bytes: number
  /** The last-level caches together, where the system lists them: the read is several times larger. */
  last_level_cache_bytes: number | null
  serial_GFLOP_per_s: number
  simd_GFLOP_per_s: number
  workers_GFLOP_per_s: number
  workers_simd_GFLOP_per_s: number
  /** The SIMD build timed: `relaxed` fuses each multiply-add (one instruction), `simd128` multiplies, then adds. */
  simd: 'relaxed' | 'simd128'
  /** How time was measured: wall clock from handing the threads their work to their answers. */
  timing: string
  repeats: number
}

export interface BenchDeviceParams {
  /** Bytes read by the bandwidth kernel; defaults to ≥ 256 MB on hardware, less on a software adapter. */
  readBytes?: number
  repeats?: number
}

/**
 * The adapter's name for people. Some drivers (NVIDIA's Vulkan driver) describe themselves only
 * by vendor and version ("NVIDIA: 580.159.04 …"); the device name says more there.
 */
export function adapterName(a: Pick<AdapterInfo, 'description' | 'device' | 'vendor'>): string {
  const versionOnly = /^[^:]*:\s*[\d.\s]+$/.test(a.description)
  return (versionOnly ? a.device : a.description) || a.description || a.device || a.vendor || 'unnamed adapter'
}
