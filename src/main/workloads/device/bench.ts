// `bench device`: what the GPU can do at best (read bandwidth, f32 FMA throughput, transfers),
// the ceilings that workload timings and rooflines are compared with.
import { ApiError } from '../../../shared/errors'
import type { DeviceBenchResult } from '../../../shared/device'
import type { PlanStep, PlanSteps } from '../../../shared/progress-plan'
import { throwIfAborted } from '../../../shared/cancel'
import { benchData } from './data'
import { measureFma } from './fma'
import { measureReadBandwidth, repeatedBuffer } from './read-bandwidth'
import { measureReadback, measureUpload } from './transfers'
import { type Gpu, getGpu, TIMING_METHOD } from '../../gpu/runtime'

/** Kernel shapes and batch sizes; the defaults suit an H100 or a software adapter, tune them on others. */
export interface DeviceBenchTuning {
  read: { workgroupSize: number; workgroups: number; loads: number }
  fma: { workgroupSize: number; workgroups: number; iters: number }
  /** Timed batches aim to last this long, so that submit latency is a small part. */
  targetBatchMs: number
  /** Most dispatches per timed batch. */
  maxBatch: number
  /** Transfer chunk size; defaults to the runtime's. */
  chunkBytes?: number
}

export interface BenchDeviceOptions {
  /**
   * Bytes read by the bandwidth kernel; defaults to 1 GB on hardware, less on a software adapter.
   * Transfers move at most TRANSFER_BYTES of them; a larger read is copies of that upload made on the GPU.
   */
  readBytes?: number
  repeats?: number
  tuning?: Partial<Omit<DeviceBenchTuning, 'read' | 'fma'>> & {
    read?: Partial<DeviceBenchTuning['read']>
    fma?: Partial<DeviceBenchTuning['fma']>
  }
}

export interface BenchContext {
  signal?: AbortSignal
  /** The job's plan, holding GPU_STEPS: each measurement begins its step and reports its own fraction. */
  plan?: PlanSteps
  /** Defaults to the shared GPU. */
  gpu?: Gpu
  /** Gets the milliseconds of each timed repetition of each measurement. */
  sample?(measurement: GpuMeasurement, ms: number): void
}

// Tuned on an H100 (132 SMs × 2048 threads; `bench read-bandwidth`, docs/benchmarks/history.md): reading
// 1 GiB a dispatch, 32 K × 256 readers with 4 vec4 loads in flight read 3.14 TB/s, where 256 MiB a
// dispatch topped out at 2.97 (each dispatch's start and drain weigh 4× more); 8 loads in flight and
// workgroups of 512 gained nothing. 16 K × 256 FMA threads, 4 times the resident ones, reach ≈63 TFLOP/s.
const HARDWARE: DeviceBenchTuning & { readBytes: number; repeats: number } = {
  readBytes: 1024e6,
  repeats: 10,
  read: { workgroupSize: 256, workgroups: 32768, loads: 4 },
  fma: { workgroupSize: 256, workgroups: 16384, iters: 2048 },
  targetBatchMs: 50,
  maxBatch: 500,
}
// SwiftShader runs kernels on the CPU: small enough to finish in about a second.
const SOFTWARE: typeof HARDWARE = {
  readBytes: 16e6,
  repeats: 3,
  read: { workgroupSize: 64, workgroups: 64, loads: 4 },
  fma: { workgroupSize: 64, workgroups: 8, iters: 256 },
  targetBatchMs: 5,
  maxBatch: 4,
}

/** The most the host uploads and reads back per transfer measurement (and the read kernel's source). */
export const TRANSFER_BYTES = 256e6

type GpuMeasurement = 'upload' | 'read bandwidth' | 'readback' | 'fma f32'

/** The measurements as steps of a job's plan, weighed roughly as their time, in tenths of the CPU part's (cpu-bench.ts CPU_STEPS). */
export const GPU_STEPS: PlanStep[] = [
  { key: 'upload', cost: 4.5 },
  { key: 'read bandwidth', cost: 10.5 },
  { key: 'readback', cost: 4.5 },
  { key: 'fma f32', cost: 10.5 },
]

export async function benchDevice(params: BenchDeviceOptions, ctx: BenchContext = {}): Promise<DeviceBenchResult> {
  const { signal } = ctx
  throwIfAborted(signal)
  const gpu = ctx.gpu ?? (await getGpu())
  const base = gpu.isSoftware ? SOFTWARE : HARDWARE
  const t = params.tuning ?? {}
  const tuning: DeviceBenchTuning = { ...base, ...t, read: { ...base.read, ...t.read }, fma: { ...base.fma, ...t.fma } }
  const repeats = params.repeats ?? base.repeats
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > 1000)
    throw new ApiError('invalid-argument', `repeats must be an integer in 1…1000, got ${params.repeats}`)
  const asked = chooseReadBytes(gpu, params.readBytes ?? base.readBytes, params.readBytes !== undefined)
  // The read as `copies` of the transferred data, so that host memory stays at TRANSFER_BYTES.
  const copies = Math.ceil(asked / TRANSFER_BYTES)
  const transferBytes = Math.floor(asked / copies / 16) * 16
  const readBytes = transferBytes * copies

  const begin = (phase: GpuMeasurement): void => ctx.plan?.begin(phase, phase)
  // Each repetition reports its throughput (per 10^9); the work of one dispatch or copy turns it into time.
  const rates: Record<GpuMeasurement, number[]> = { upload: [], 'read bandwidth': [], readback: [], 'fma f32': [] }
  const repeatHook = (phase: GpuMeasurement, unit: string) => (n: number, value: number) => {
    ctx.plan?.update(n / repeats, { throughput: { value, unit } })
    rates[phase].push(value)
  }
  const sample = (phase: GpuMeasurement, work: number) => {
    for (const rate of rates[phase]) ctx.sample?.(phase, work / rate / 1e6)
  }

  begin('upload')
  const { data, sum } = benchData(transferBytes)
  throwIfAborted(signal)
  const buffer = await gpu.storage('device bench data', transferBytes)
  let readBuffer: GPUBuffer | undefined
  try {
    const transfer = { repeats, chunkBytes: tuning.chunkBytes, signal }
    const upload = await measureUpload(gpu, buffer, data, { ...transfer, onRepeat: repeatHook('upload', 'GB/s') })

    begin('read bandwidth')
    readBuffer = copies > 1 ? await repeatedBuffer(gpu, buffer, transferBytes, copies) : buffer
    const read = await measureReadBandwidth(gpu, readBuffer, readBytes, sum * copies, {
      ...tuning.read,
      repeats,
      targetBatchMs: tuning.targetBatchMs,
      maxBatch: tuning.maxBatch,
      signal,
      onRepeat: repeatHook('read bandwidth', 'GB/s'),
    })

    begin('readback')
    const readback = await measureReadback(gpu, buffer, data, { ...transfer, onRepeat: repeatHook('readback', 'GB/s') })

    begin('fma f32')
    const fma = await measureFma(gpu, {
      ...tuning.fma,
      repeats,
      targetBatchMs: tuning.targetBatchMs,
      maxBatch: tuning.maxBatch,
      signal,
      onRepeat: repeatHook('fma f32', 'GFLOP/s'),
    })

    sample('upload', transferBytes)
    sample('read bandwidth', read.bytes)
    sample('readback', transferBytes)
    sample('fma f32', fma.flops)
    return {
      adapter: gpu.adapter,
      read_bandwidth_GB_per_s: read.GB_per_s,
      read_bytes: read.bytes,
      fma_f32_GFLOP_per_s: fma.GFLOP_per_s,
      fma_flops: fma.flops,
      upload_GB_per_s: upload,
      readback_GB_per_s: readback,
      transfer_bytes: transferBytes,
      timing: TIMING_METHOD,
      repeats,
    }
  } finally {
    if (readBuffer !== buffer) readBuffer?.destroy()
    buffer.destroy()
  }
}

/** The bytes to read: a multiple of 16 (vec4<f32>) within what one binding and one buffer may hold. */
function chooseReadBytes(gpu: Gpu, wanted: number, explicit: boolean): number {
  const limit = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize)
  if (!Number.isSafeInteger(wanted) || wanted < 16)
    throw new ApiError('invalid-argument', `readBytes must be an integer ≥ 16, got ${wanted}`)
  if (explicit && wanted > limit)
    throw new ApiError('invalid-argument', `readBytes ${wanted} exceeds what this device binds at once (${limit} bytes)`)
  return Math.floor(Math.min(wanted, limit) / 16) * 16
}
