// The compiled SIMD kernels (out/wasm/correlation.wasm and correlation-relaxed.wasm, built by
// `npm run build:wasm`): loading them, and the workspace they work in, one shared linear memory
// laid out for a data set.
import { ApiError } from '../../../../shared/errors'
import type { Precision } from '../../../../shared/workloads/correlation/types'
import { relaxedSimd } from '../../../relaxed-simd'
import { LANE_STEP, ROW_STEP, padTo } from '../cpu-layout'
import type { RunSize } from '../ts-kernels'
import { loadWasmModule } from '../../../workers/wasm-modules'

/** The two builds of the kernels: with relaxed SIMD (fused multiply-adds in the cross-products), or SIMD128 alone. */
export type CorrelationWasmBuild = 'relaxed' | 'simd128'

/** The build this process runs: relaxed where V8 accepts it (Electron; Node 20 once the CLI has set its flag). */
export function correlationWasmBuild(): CorrelationWasmBuild {
  return relaxedSimd() ? 'relaxed' : 'simd128'
}

/** The compiled kernels of `build` (default: correlationWasmBuild()). */
export function loadCorrelationWasm(build = correlationWasmBuild()): Promise<WebAssembly.Module> {
  return loadWasmModule(build === 'relaxed' ? 'correlation-relaxed' : 'correlation')
}

type RowsFn = (...args: number[]) => void

/** The module's exports (see simd/assembly/index.ts). */
export interface CorrelationWasmExports {
  meansF64: RowsFn
  meansF32: RowsFn
  squaresF64: RowsFn
  squaresF32: RowsFn
  crossF64: RowsFn
  crossF32: RowsFn
  coefficientsF64: RowsFn
  coefficientsF32: RowsFn
}

const PAGE = 65536
const MAX_PAGES = 65536
/** Below this, the module's own static data. */
const BASE = 65536

export interface WasmWorkspace {
  kind: 'wasm'
  /** Tells threads when to instantiate the module again. */
  id: number
  module: WebAssembly.Module
  memory: WebAssembly.Memory
  precision: Precision
  m: number
  n: number
  /** Samples per row of d: n padded for whole vectors. */
  dStride: number
  ptr: { x: number; d: number; means: number; norms: number; constant: number; c: number }
}

/** Bytes of linear memory a data set of m × n takes, for the check before starting. */
export function wasmBytes(m: number, n: number, precision: Precision): number {
  return layout(m, n, precision).end
}

/** The most linear memory WebAssembly (32-bit) can address. */
export const WASM_MAX_BYTES = MAX_PAGES * PAGE

function layout(m: number, n: number, precision: Precision) {
  const b = precision === 'f64' ? 8 : 4
  const dStride = padTo(n, LANE_STEP)
  const align = (v: number) => padTo(v, 64)
  const x = BASE
  const d = align(x + m * n * b)
  const means = align(d + padTo(m, ROW_STEP) * dStride * b)
  const norms = align(means + m * b)
  const constant = align(norms + m * b)
  const c = align(constant + m)
  return { dStride, ptr: { x, d, means, norms, constant, c }, end: c + m * m * b }
}

let nextId = 1

/** A workspace holding `values` (m × n, rounded to f32 in f32 mode) and the constant flags. */
export function wasmWorkspace(module: WebAssembly.Module, values: Float64Array, m: number, n: number, precision: Precision, constant: Uint8Array): WasmWorkspace {
  const { dStride, ptr, end } = layout(m, n, precision)
  if (end > WASM_MAX_BYTES)
    throw new ApiError(
      'invalid-input',
      `${m} series of ${n} samples need ${(end / 2 ** 30).toFixed(2)} GiB of WebAssembly memory, more than the 4 GiB it can address; use the workers or gpu backend`,
    )
  const memory = new WebAssembly.Memory({ initial: Math.ceil(end / PAGE), maximum: MAX_PAGES, shared: true })
  const buffer = memory.buffer
  if (precision === 'f64') new Float64Array(buffer, ptr.x, m * n).set(values)
  else new Float32Array(buffer, ptr.x, m * n).set(values)
  new Uint8Array(buffer, ptr.constant, m).set(constant)
  return { kind: 'wasm', id: nextId++, module, memory, precision, m, n, dStride, ptr }
}

/** The stages on a workspace, through one instance of the module (one per thread). */
export class WasmKernels {
  private readonly wasm: CorrelationWasmExports

  constructor(private readonly ws: WasmWorkspace) {
    this.wasm = new WebAssembly.Instance(ws.module, { env: { memory: ws.memory } }).exports as unknown as CorrelationWasmExports
  }

  private get f64(): boolean {
    return this.ws.precision === 'f64'
  }

  means(size: RunSize, r0: number, r1: number): void {
    const { ws } = this
    ;(this.f64 ? this.wasm.meansF64 : this.wasm.meansF32)(ws.ptr.x, ws.n, size.n, r0, r1, ws.ptr.means)
  }

  squares(size: RunSize, r0: number, r1: number): void {
    const { ws } = this
    const fn = this.f64 ? this.wasm.squaresF64 : this.wasm.squaresF32
    fn(ws.ptr.x, ws.n, ws.ptr.d, ws.dStride, size.n, r0, r1, ws.ptr.means, ws.ptr.norms, ws.ptr.constant)
  }

  cross(size: RunSize, p0: number, p1: number): void {
    const { ws } = this
    ;(this.f64 ? this.wasm.crossF64 : this.wasm.crossF32)(ws.ptr.d, ws.dStride, ws.ptr.c, ws.m, size.m, size.n, p0, p1)
  }

  coefficients(size: RunSize, r0: number, r1: number): void {
    const { ws } = this
    ;(this.f64 ? this.wasm.coefficientsF64 : this.wasm.coefficientsF32)(ws.ptr.c, ws.m, size.m, r0, r1, ws.ptr.norms)
  }
}
