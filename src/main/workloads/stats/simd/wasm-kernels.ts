// The slice kernels backed by the WebAssembly SIMD module (simd and workers-simd backends).
import { type ColumnRef, type PassPartial, type PassSpec, type ScanPartial, type SliceKernels, bytesPerValue } from '../slice-kernels'
import { type StatsWasmExports, instantiateStats, outPtr, regionPtr } from './wasm-module'

export class WasmKernels implements SliceKernels {
  private readonly wasm: StatsWasmExports

  constructor(
    module: WebAssembly.Module,
    private readonly memory: WebAssembly.Memory,
  ) {
    this.wasm = instantiateStats(module, memory)
  }

  scan(column: ColumnRef, start: number, end: number, region: number): ScanPartial {
    const ptr = columnPtr(column) + start * bytesPerValue(column.precision)
    const scan = column.precision === 'f64' ? this.wasm.scanF64 : this.wasm.scanF32
    scan(ptr, end - start, regionPtr(region), outPtr(region))
    const out = new Float64Array(this.memory.buffer, outPtr(region), 5)
    return { s: out[0], c: out[1], min: out[2], max: out[3], fits: out[4] === 1 }
  }

  pass(column: ColumnRef, start: number, end: number, region: number, spec: PassSpec): PassPartial {
    const ptr = columnPtr(column) + start * bytesPerValue(column.precision)
    const pass = column.precision === 'f64' ? this.wasm.passF64 : this.wasm.passF32
    const [p0hi, p0lo, p1hi = 0, p1lo = 0] = spec.prefixes
    const dev = spec.devMean !== undefined
    pass(
      ptr, end - start, regionPtr(region), outPtr(region), spec.gather ? 1 : 0, spec.level, spec.prefixes.length / 2,
      p0hi, p0lo, p1hi, p1lo, spec.absdev ? 1 : 0, spec.center, dev ? 1 : 0, dev ? spec.devMean! : 0,
    )
    const out = new Float64Array(this.memory.buffer, outPtr(region), 3)
    return { s: out[0], c: out[1], gathered: out[2] }
  }
}

function columnPtr(column: ColumnRef): number {
  if (column.where !== 'wasm') throw new Error('SIMD kernels read columns from wasm memory, not array buffers')
  return column.ptr
}
