// Loading the compiled SIMD kernels (out/wasm/stats.wasm, built by `npm run build:wasm`) and laying
// out the one shared linear memory they work in.
import { ApiError } from '../../../../shared/errors'
import { REGION_BYTES } from '../slice-kernels'
import { loadWasmModule } from '../../../workers/wasm-modules'

/** The compiled stats.wasm. */
export function loadStatsWasm(): Promise<WebAssembly.Module> {
  return loadWasmModule('stats')
}

export interface StatsWasmExports {
  scanF64(ptr: number, n: number, hist: number, out: number): void
  scanF32(ptr: number, n: number, hist: number, out: number): void
  passF64: PassFn
  passF32: PassFn
}

type PassFn = (
  ptr: number, n: number, region: number, out: number, gather: number, level: number, prefixes: number,
  p0hi: number, p0lo: number, p1hi: number, p1lo: number, absdev: number, center: number, dev: number, mean: number,
) => void

export function instantiateStats(module: WebAssembly.Module, memory: WebAssembly.Memory): StatsWasmExports {
  return new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as StatsWasmExports
}

const PAGE = 65536
const MAX_PAGES = 65536

/**
 * Linear memory layout: result blocks of 64 bytes per slice at OUT_BASE, one 1 MiB region per
 * slice from REGIONS_BASE, then columns, placed by WasmHeap.
 */
export const OUT_BASE = 1024
export const OUT_BYTES = 64
export const REGIONS_BASE = 65536
export const MAX_SLICES = (REGIONS_BASE - OUT_BASE) / OUT_BYTES

export interface WasmLayout {
  slices: number
}

export function outPtr(slice: number): number {
  return OUT_BASE + slice * OUT_BYTES
}

export function regionPtr(slice: number): number {
  return REGIONS_BASE + slice * REGION_BYTES
}

/** Shared memory sized for `slices` regions; columns grow it. */
export function createStatsMemory(slices: number): WebAssembly.Memory {
  if (slices > MAX_SLICES) throw new ApiError('invalid-argument', `${slices} threads exceed the ${MAX_SLICES} the SIMD kernels lay out`)
  const pages = Math.ceil(regionPtr(slices) / PAGE)
  return new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true })
}

/** Copies values into the memory at `ptr` (f32 columns rounded to nearest, as Math.fround). */
export function copyIntoWasm(values: Float64Array, memory: WebAssembly.Memory, ptr: number, precision: 'f64' | 'f32'): void {
  if (precision === 'f64') new Float64Array(memory.buffer, ptr, values.length).set(values)
  else new Float32Array(memory.buffer, ptr, values.length).set(values)
}

/** First-fit allocator for columns in the linear memory above the regions. */
export class WasmHeap {
  private readonly free: { start: number; size: number }[] = []
  private top: number

  constructor(
    private readonly memory: WebAssembly.Memory,
    base: number,
  ) {
    this.top = align(base)
  }

  alloc(bytes: number): number {
    const size = align(Math.max(bytes, 1))
    const i = this.free.findIndex((b) => b.size >= size)
    if (i >= 0) {
      const block = this.free[i]
      block.start += size
      block.size -= size
      if (block.size === 0) this.free.splice(i, 1)
      return block.start - size
    }
    const start = this.top
    const end = start + size
    if (end > MAX_PAGES * PAGE)
      throw new ApiError('invalid-input', `a column of ${bytes} bytes does not fit the 4 GiB of WebAssembly memory (${start} bytes in use)`)
    const have = this.memory.buffer.byteLength
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE))
    this.top = end
    return start
  }

  release(start: number, bytes: number): void {
    const size = align(Math.max(bytes, 1))
    const blocks = this.free
    let i = 0
    while (i < blocks.length && blocks[i].start < start) i++
    blocks.splice(i, 0, { start, size })
    // Coalesce with the next and the previous block.
    if (i + 1 < blocks.length && blocks[i].start + blocks[i].size === blocks[i + 1].start) {
      blocks[i].size += blocks[i + 1].size
      blocks.splice(i + 1, 1)
    }
    if (i > 0 && blocks[i - 1].start + blocks[i - 1].size === blocks[i].start) {
      blocks[i - 1].size += blocks[i].size
      blocks.splice(i, 1)
      i--
    }
    if (blocks[i].start + blocks[i].size === this.top) {
      this.top = blocks[i].start
      blocks.splice(i, 1)
    }
  }
}

function align(n: number): number {
  return Math.ceil(n / 64) * 64
}
