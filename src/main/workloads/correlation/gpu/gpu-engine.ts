// The `gpu` correlation backend: the series uploaded once in bands, then per run each chosen means
// kernel, the squares kernel, and for each chosen cross-product kernel the cross-products,
// coefficients and the read-back of the matrix, tile by tile; each stage's time is the sum of its
// submits, which are pieces short enough for a cancel to be seen between them (gpu/pieces.ts).
//
//   const engine = await createGpuCorrelationEngine(gpu, series, 'f64', { means: ['shared'], cross: ['register'] })
//   const times = await engine.run()       // ms per stage and variant
//   const r = engine.matrix()              // m × m on the host, of the last cross variant
//
// f64 mode runs centred f32 with compensated sums (WGSL has no f64): the series go up as two f32
// words, d = x − x̄ is rounded once, and sums keep their rounding errors (shaders/correlation).
import { ApiError } from '../../../../shared/errors'
import type { CrossVariant, MeansVariant, Precision } from '../../../../shared/workloads/correlation/types'
import { type Dispatch, type Gpu, type Kernel, throwIfAborted } from '../../../gpu/runtime'
import type { SeriesMatrix } from '../series-matrix'
import { type Band, type BandPlan, bandPairs, planBands } from './bands'
import { type Work, coefficientsKernel, crossBlock, crossKernel, crossWork, meansKernel, meansUnavailable, meansWork, squaresKernel } from './kernels'
import { FIRST_OFFSET, type KernelParams, paramsWords } from './params'
import { Pace, type Sliceable, runInPieces } from '../../../gpu/pieces'
import { type RegisterShape, defaultRegisterShape, shapeName, shapeUnavailable } from './register-shapes'

export interface GpuEngineOptions {
  means: MeansVariant[]
  cross: CrossVariant[]
  signal?: AbortSignal
  /** Rows per band (a multiple of 128), to cross band edges with few series in tests. */
  bandRows?: number
  /** Tile shape of the register kernel; default: the precision's (gpu/register-shapes.ts). */
  register?: RegisterShape
}

export interface RunOptions {
  /** Read the matrix back after each cross variant (default true); timing sweeps skip it. */
  download?: boolean
}

export interface GpuRunTimes {
  means: Partial<Record<MeansVariant, number>>
  squares: number
  /** Per cross variant: its cross-products, the coefficients after them, and the read-back. */
  cross: Partial<Record<CrossVariant, { cross: number; coefficients: number; download: number }>>
}

/** Called after each variant of a run, for accuracy checks (the means, or the matrix it led to). */
export interface RunChecks {
  means?(variant: MeansVariant, means: Float32Array): void
  cross?(variant: CrossVariant, matrix: Float64Array | Float32Array): void
}

export interface GpuCorrelationEngine {
  readonly gpu: Gpu
  /** Host → device copy of the series, ms. */
  readonly uploadMs: number
  readonly plan: BandPlan
  /** The register kernel's tile shape. */
  readonly register: RegisterShape
  run(checks?: RunChecks, options?: RunOptions): Promise<GpuRunTimes>
  /** The m × m matrix of the last run's last cross variant (f64 mode: widened from f32); the host's own, valid after dispose. */
  matrix(): Float64Array | Float32Array
  /** Work of one run of each stage, for the roofline. */
  work(): { means: Work; cross: Record<CrossVariant, Work> }
  dispose(): void
}

interface BandBuffers {
  band: Band
  xhi: GPUBuffer
  xlo: GPUBuffer
  d: GPUBuffer
  params: GPUBuffer
}

interface PairBuffers {
  a: BandBuffers
  b: BandBuffers
  diag: boolean
  tile: GPUBuffer
  coefficients: GPUBuffer
  /** Uniforms of the cross-product kernels, by block side. */
  cross: Map<number, { params: GPUBuffer; blocks: number }>
}

/** Compiles every kernel a run of `opts` uses (the runtime caches them for the engine). */
export async function compileGpuCorrelationKernels(gpu: Gpu, precision: Precision, opts: Pick<GpuEngineOptions, 'means' | 'cross' | 'register'>): Promise<void> {
  const compensated = precision === 'f64'
  const register = opts.register ?? defaultRegisterShape(gpu, precision)
  await Promise.all([
    ...opts.means.map((v) => meansKernel(gpu, v, compensated)),
    ...opts.cross.map((v) => crossKernel(gpu, v, compensated, register)),
    squaresKernel(gpu, compensated),
    coefficientsKernel(gpu),
  ])
}

export async function createGpuCorrelationEngine(gpu: Gpu, series: SeriesMatrix, precision: Precision, opts: GpuEngineOptions): Promise<GpuCorrelationEngine> {
  for (const v of opts.means) {
    const why = meansUnavailable(gpu, v)
    if (why) throw new ApiError('gpu-unavailable', `means kernel ${v}: ${why}`)
  }
  if (opts.means.length === 0 || opts.cross.length === 0) throw new ApiError('invalid-argument', 'the gpu backend needs a means and a cross-product kernel')
  if (opts.register && opts.cross.includes('register')) {
    const why = shapeUnavailable(gpu, opts.register)
    if (why) throw new ApiError('gpu-unavailable', `register shape ${shapeName(opts.register)}: ${why}`)
  }
  const engine = new Engine(gpu, series, precision, opts)
  try {
    await engine.upload()
  } catch (e) {
    engine.dispose()
    throw e
  }
  return engine
}

class Engine implements GpuCorrelationEngine {
  uploadMs = 0
  readonly plan: BandPlan
  readonly register: RegisterShape
  private readonly compensated: boolean
  private readonly owned: GPUBuffer[] = []
  private bands: BandBuffers[] = []
  private pairs: PairBuffers[] = []
  private means!: GPUBuffer
  private norms!: GPUBuffer
  private constant!: GPUBuffer
  private host: Float64Array | Float32Array
  private readonly bindGroups = new Map<string, GPUBindGroup>()
  /** Workgroups per ms of each stage, learnt as it runs: the size of its pieces. */
  private readonly pace = new Pace()

  constructor(
    readonly gpu: Gpu,
    private readonly series: SeriesMatrix,
    private readonly precision: Precision,
    private readonly opts: GpuEngineOptions,
  ) {
    this.compensated = precision === 'f64'
    this.register = opts.register ?? defaultRegisterShape(gpu, precision)
    const maxBinding = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize)
    this.plan = planBands(series.m, series.n, maxBinding, opts.bandRows)
    this.host = precision === 'f64' ? new Float64Array(series.m * series.m) : new Float32Array(series.m * series.m)
  }

  private own(buffer: GPUBuffer): GPUBuffer {
    this.owned.push(buffer)
    return buffer
  }

  private uniform(label: string, p: KernelParams): GPUBuffer {
    return this.own(this.gpu.uniform(label, paramsWords(p)))
  }

  /** Compiles every kernel of the run, uploads the series (hi and, for f64, lo words) band by band, and allocates every buffer. */
  async upload(): Promise<void> {
    const { gpu, series } = this
    // Compiled before the first timed submit (the runtime caches them).
    await compileGpuCorrelationKernels(gpu, this.precision, { ...this.opts, register: this.register })
    const { m, n, values } = series
    const { k } = this.plan
    const t0 = performance.now()
    this.means = this.own(await gpu.storage('means', m * 4))
    this.norms = this.own(await gpu.storage('norms', m * 4))
    this.constant = this.own(await gpu.storage('constant', Uint32Array.from(series.constant)))
    for (const band of this.plan.bands) {
      throwIfAborted(this.opts.signal)
      const x = values.subarray(band.row0 * n, (band.row0 + band.rows) * n)
      const hi = Float32Array.from(x)
      const xhi = this.own(await gpu.storage(`series ${band.index} hi`, hi))
      let xlo: GPUBuffer
      if (this.compensated) {
        // The rest of each value: x − hi is exact in f64 and close to an f32.
        const lo = new Float32Array(x.length)
        for (let i = 0; i < x.length; i++) lo[i] = x[i] - hi[i]
        xlo = this.own(await gpu.storage(`series ${band.index} lo`, lo))
      } else xlo = this.own(await gpu.storage(`series ${band.index} lo (unused)`, 4))
      const d = this.own(await gpu.storage(`centred ${band.index}`, band.rowsPad * k * 4))
      const params = this.uniform(`band ${band.index}`, { rows: band.rows, n, k, row0: band.row0 })
      this.bands.push({ band, xhi, xlo, d, params })
    }
    await gpu.finish('upload')
    this.uploadMs = performance.now() - t0
    for (const [a, b] of bandPairs(this.plan)) {
      const pa = this.bands[a.index]
      const pb = this.bands[b.index]
      const diag = a.index === b.index
      const tile = this.own(await gpu.storage(`tile ${a.index},${b.index}`, a.rowsPad * b.rowsPad * 4))
      const coefficients = this.uniform(`coefficients ${a.index},${b.index}`, {
        rows: a.rows, n, k, row0: a.row0, rowsJ: b.rows, row0J: b.row0, diag, strideC: b.rowsPad,
      })
      this.pairs.push({ a: pa, b: pb, diag, tile, coefficients, cross: new Map() })
    }
  }

  /** The cross-product uniform of a pair for blocks of `block` outputs a side. */
  private crossParams(pair: PairBuffers, block: number): { params: GPUBuffer; blocks: number } {
    let p = pair.cross.get(block)
    if (!p) {
      const ti = pair.a.band.rowsPad / block
      const tj = pair.b.band.rowsPad / block
      const blocks = pair.diag ? (ti * (ti + 1)) / 2 : ti * tj
      const { band: a } = pair.a
      const { band: b } = pair.b
      const params = this.uniform(`cross ${a.index},${b.index} /${block}`, {
        rows: a.rows, n: this.series.n, k: this.plan.k, row0: a.row0, rowsJ: b.rows, row0J: b.row0, diag: pair.diag, blocks, blocksJ: tj, strideC: b.rowsPad,
      })
      p = { params, blocks }
      pair.cross.set(block, p)
    }
    return p
  }

  private group(key: string, kernel: Kernel, resources: Record<number, GPUBuffer>): GPUBindGroup {
    let g = this.bindGroups.get(key)
    if (!g) {
      g = kernel.bind(resources)
      this.bindGroups.set(key, g)
    }
    return g
  }

  /** A dispatch of `count` workgroups that runs in pieces, each writing its first workgroup into `params` before its submit. */
  private sliceable(params: GPUBuffer, count: number, dispatch: (count: number) => Dispatch): Sliceable {
    return {
      count,
      piece: (first, n) => {
        this.gpu.device.queue.writeBuffer(params, FIRST_OFFSET, Uint32Array.of(first))
        return [dispatch(n)]
      },
    }
  }

  /** Each stage in pieces of about PIECE_MS, so that a cancel is seen between them (gpu/pieces.ts). */
  private pieces(kind: string, parts: Sliceable[]): Promise<number> {
    return runInPieces(this.gpu, kind, parts, this.pace, this.opts.signal)
  }

  async run(checks: RunChecks = {}, options: RunOptions = {}): Promise<GpuRunTimes> {
    const { gpu, opts } = this
    const times: GpuRunTimes = { means: {}, squares: 0, cross: {} }

    for (const variant of opts.means) {
      const kernel = await meansKernel(gpu, variant, this.compensated)
      const parts = this.bands.map((b) => {
        const group = this.group(`means ${variant} ${b.band.index}`, kernel, { 0: b.xhi, 1: b.xlo, 2: this.means, 3: b.params })
        // naive: 64 series a workgroup; the others a workgroup a series.
        const count = variant === 'naive' ? Math.ceil(b.band.rows / 64) : b.band.rows
        return this.sliceable(b.params, count, (n) => kernel.dispatch(group, variant === 'naive' ? n : gpu.grid(n)))
      })
      times.means[variant] = await this.pieces(`means ${variant}`, parts)
      if (checks.means) checks.means(variant, await gpu.readF32(this.means))
    }

    const squares = await squaresKernel(gpu, this.compensated)
    times.squares = await this.pieces(
      'squares',
      this.bands.map((b) => {
        const group = this.group(`squares ${b.band.index}`, squares, { 0: b.xhi, 1: b.xlo, 2: this.means, 3: b.params, 4: b.d, 5: this.norms, 6: this.constant })
        return this.sliceable(b.params, b.band.rows, (n) => squares.dispatch(group, gpu.grid(n)))
      }),
    )

    const coefficients = await coefficientsKernel(gpu)
    // In rows of 16 × 16 workgroups.
    const coefficientParts = this.pairs.map((p) => {
      const group = this.group(`coefficients ${p.a.band.index},${p.b.band.index}`, coefficients, { 0: p.tile, 1: this.norms, 3: p.coefficients })
      return this.sliceable(p.coefficients, Math.ceil(p.a.band.rowsPad / 16), (n) => coefficients.dispatch(group, [Math.ceil(p.b.band.rowsPad / 16), n]))
    })
    for (const variant of opts.cross) {
      const kernel = await crossKernel(gpu, variant, this.compensated, this.register)
      const block = crossBlock(variant, this.register)
      const parts = this.pairs.map((p) => {
        const { params, blocks } = this.crossParams(p, block)
        const group = this.group(`cross ${variant} ${p.a.band.index},${p.b.band.index}`, kernel, { 0: p.a.d, 1: p.b.d, 2: p.tile, 3: params })
        return this.sliceable(params, blocks, (n) => kernel.dispatch(group, gpu.grid(n)))
      })
      const cross = await this.pieces(`cross ${variant}`, parts)
      const coefficientMs = await this.pieces('coefficients', coefficientParts)
      const t = performance.now()
      if (options.download !== false) await this.download()
      times.cross[variant] = { cross, coefficients: coefficientMs, download: performance.now() - t }
      if (options.download !== false) checks.cross?.(variant, this.host)
    }
    return times
  }

  /** Reads every tile into the host matrix: its upper triangle, mirrored. */
  private async download(): Promise<void> {
    const m = this.series.m
    const host = this.host
    let scratch = new Float32Array(0)
    for (const p of this.pairs) {
      throwIfAborted(this.opts.signal)
      const a = p.a.band
      const b = p.b.band
      const size = a.rowsPad * b.rowsPad
      if (scratch.length < size) scratch = new Float32Array(size)
      const tile = scratch.subarray(0, size)
      await this.gpu.readInto(p.tile, tile)
      for (let i = 0; i < a.rows; i++) {
        const gi = a.row0 + i
        for (let j = p.diag ? i : 0; j < b.rows; j++) {
          const gj = b.row0 + j
          const v = tile[i * b.rowsPad + j]
          host[gi * m + gj] = v
          host[gj * m + gi] = v
        }
      }
    }
  }

  matrix(): Float64Array | Float32Array {
    return this.host
  }

  work(): { means: Work; cross: Record<CrossVariant, Work> } {
    const { m, n } = this.series
    const outputs = (block: number) =>
      this.pairs.reduce((sum, p) => {
        const ti = p.a.band.rowsPad / block
        const tj = p.b.band.rowsPad / block
        return sum + (p.diag ? (ti * (ti + 1)) / 2 : ti * tj) * block * block
      }, 0)
    const k = this.plan.k
    return {
      means: meansWork(m, n, this.compensated),
      cross: {
        // The naive kernel reads both rows of every output: no reuse beyond caches.
        naive: crossWork(outputs(crossBlock('naive', this.register)), k, 1),
        tiled: crossWork(outputs(crossBlock('tiled', this.register)), k, crossBlock('tiled', this.register)),
        register: crossWork(outputs(this.register.block), k, this.register.block),
      },
    }
  }

  dispose(): void {
    for (const b of this.owned.splice(0)) b.destroy()
    this.bindGroups.clear()
  }
}
