// One part of the `gpu` backend on several GPUs (`--gpus N`, the tuned variant): a run of whole
// block rows (block-rows.ts) on one device, in the process of that device. In round k the owner of
// block row k closes the pivot block and the rest of the row in its pivot buffer, and the row goes
// to every other part (pivot-exchange.ts); then every part relaxes its blocks of the pivot column
// and the rest of its rows (shaders/paths/bands.wgsl, bands_minplus.wgsl).
//
// The exchange overlaps phase 3: the owner of the next round's pivot relaxes that block row first,
// produces the next pivot row and starts its readback, and only then relaxes the rest of its rows;
// meanwhile the others are still at this round's phase 3. Pivot buffers alternate between rounds,
// so that a row arriving never overwrites the one still being read. A row arrives in one of INBOXES
// mapped staging buffers of the device, reused (queue.writeBuffer staged each 10 MB row in fresh
// memory at ~1.3 GB/s on an H100 machine, slower than phase 3), and is copied into its pivot buffer
// at the start of the part's next submit; with several, the host reads the next rows in while the
// device still computes the rounds before. Likewise an owner reads its rows back into one of
// INBOXES readback buffers and hands them on in order while its device goes on computing, so that
// its next submits never wait for a row's readback (when they did, a round took phase 3 plus the
// whole exchange on 4 H200: docs/benchmarks/history.md).
//
// The part's rows come from, and go back to, the run's matrix files (ShmSlots of one row a slot):
// the process that made the matrix never hands a part more than its rows.
//
// One file: the round's order (the next pivot's row first) and the buffers it alternates are one
// schedule, each half of which relies on the other's invariants.
import { ApiError } from '../../../../shared/errors'
import { pushAll } from '../../../../shared/extent'
import { throwIfAborted, type Binding, type Dispatch, type Gpu, type Kernel } from '../../../gpu/runtime'
import { openSlots, type ShmSlots } from '../../../ranks/shm-slots'
import { type BlockRows, ownerOf } from './block-rows'
import { MAX_BANDS, size } from './gpu-solver'
import type { PartExchange } from './pivot-exchange'
import { DEFAULT_TUNED_SHAPE, parseTunedShape, shapeConstants, shapeUnavailable, type TunedShape } from './tuned-shapes'
import { GPU_ALIGN, bandHeight } from './variants'

const BS = GPU_ALIGN
/** Part.skip of a dispatch that leaves no block row out. */
const NO_BLOCK = 0xffffffff
/** Bytes between uniform slots (minUniformBufferOffsetAlignment at most). */
const SLOT_BYTES = 256
/** Rows of invocations of the 64-wide kernels other than pivot_close (256 invocations, as blocked.wgsl's). */
const TY = 4
/** Staging buffers receiving pivot rows, and as many reading them back; submits a part's host runs ahead of its device. */
const INBOXES = 4

/** What a part is told to solve: plain values, as they travel to a part's process. */
export interface PartSpec {
  /** This part, and every part's block rows. */
  index: number
  split: BlockRows[]
  V: number
  /** The padded side (paddedSide(V)). */
  N: number
  paths: boolean
  /** A tile shape of phase 3 without successors (tuned-shapes.ts); without one, DEFAULT_TUNED_SHAPE. */
  shape?: string
  /** Bytes one binding may hold, below the device's limit (tests split small matrices with it). */
  maxBindingBytes?: number
  /** The run's matrix files: N rows of N int32 distances (and path keys); this part reads and writes its rows. */
  distances: string
  keys?: string
  /** The run's pivot file (pivot-exchange.ts). */
  pivot: string
}

/** What a part's kernels depend on. */
export type PartShape = Omit<PartSpec, 'distances' | 'keys' | 'pivot'>

/** What a part's computation took, on its host. */
export interface PartTimes {
  ms: number
  /** Waiting for pivot rows and handing them on (readback mapped, slots written and read). */
  exchange: number
  /** Of exchange: copying rows into and out of the slots. */
  copy: number
}

interface Kernels {
  close: Kernel
  row: Kernel
  column: Kernel
  /** With successors one (bands.wgsl phase3_keys); without, minplus per binding. */
  phase3: Kernel[]
}

/** Rows per binding of an N-wide matrix part of `height` rows, and the bindings; null beyond MAX_BANDS. */
export function partBindings(N: number, height: number, maxBindingBytes: number): { rows: number; bindings: number } | null {
  const rows = Math.floor(maxBindingBytes / (N * 4) / BS) * BS
  if (rows === 0) return null
  const bindings = Math.ceil(height / rows)
  return bindings <= MAX_BANDS ? { rows: Math.min(rows, height), bindings } : null
}

/** Why `gpu` cannot run the tuned bands kernels, or null. */
export function bandsUnavailable(gpu: Gpu, shape = DEFAULT_TUNED_SHAPE): string | null {
  return (
    shapeUnavailable(gpu, parseTunedShape(shape)) ??
    (gpu.limits.maxComputeWorkgroupStorageSize < 2 * BS * BS * 4 ? `the tuned kernels need ${(2 * BS * BS * 4) / 1024} KiB of workgroup memory; ${gpu.adapter.description || 'a device'} allows ${gpu.limits.maxComputeWorkgroupStorageSize / 1024} KiB` : null)
  )
}

/** The part's bindings on `gpu`, or the error saying why its rows do not fit. */
function layoutOf(gpu: Gpu, spec: Pick<PartSpec, 'index' | 'split' | 'V' | 'N' | 'maxBindingBytes'>) {
  const rows = spec.split[spec.index]
  const height = (rows.b1 - rows.b0) * BS
  const most = Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize, spec.maxBindingBytes ?? Infinity)
  const b = partBindings(spec.N, height, most)
  if (!b) throw new ApiError('invalid-input', `a ${spec.V}-vertex matrix (padded to ${spec.N}) in ${spec.split.length} parts: part ${spec.index} of ${height} rows takes ${size(height * spec.N * 4)}, more than ${MAX_BANDS} GPU bindings of ${size(most)} hold`)
  return { rows, height, row0: rows.b0 * BS, bindRows: b.rows, bindings: b.bindings }
}

async function compileKernels(gpu: Gpu, paths: boolean, bindRows: number, bindings: number, tile: TunedShape | undefined): Promise<Kernels> {
  const banded: Record<string, number> = bindings > 1 ? { BAND_ROWS: bindRows } : {}
  const c = { PATHS: paths ? 1 : 0, ...banded }
  // Phase 1 waits on itself 64 times: as many invocations as the device allows (as the tuned variant).
  const wide = Math.max(1, Math.min(BS, Math.floor(gpu.limits.maxComputeInvocationsPerWorkgroup / BS)))
  const [close, row, column, ...phase3] = await Promise.all([
    gpu.kernel('paths/bands', { entryPoint: 'pivot_close', constants: { ...c, TY: wide } }),
    gpu.kernel('paths/bands', { entryPoint: 'pivot_row', constants: { ...c, TY } }),
    gpu.kernel('paths/bands', { entryPoint: 'pivot_column', constants: { ...c, TY } }),
    ...(paths
      ? [gpu.kernel('paths/bands', { entryPoint: 'phase3_keys', constants: c })]
      : Array.from({ length: bindings }, (_, t) => gpu.kernel('paths/bands_minplus', { constants: { ...shapeConstants(tile!), ...banded, TILE_BAND: t } }))),
  ])
  return { close, row, column, phase3 }
}

/** Compiles the kernels a part of `spec` will use (kept by the device's pipeline cache). */
export async function compilePart(gpu: Gpu, spec: PartShape): Promise<void> {
  const l = layoutOf(gpu, spec)
  await compileKernels(gpu, spec.paths, l.bindRows, l.bindings, spec.paths ? undefined : parseTunedShape(spec.shape ?? DEFAULT_TUNED_SHAPE))
}

/** One part on its device: its rows uploaded, ready to compute and to be read back. */
export class BandsPart {
  private readonly buffers: GPUBuffer[] = []
  private d: GPUBuffer[] = []
  private key: GPUBuffer[] = []
  private dBound: GPUBuffer[] = []
  private keyBound: GPUBuffer[] = []
  /** Pivot block rows of even and odd rounds (distances, keys). */
  private pivot: GPUBuffer[] = []
  private pivotKey: GPUBuffer[] = []
  /** Where the owner copies the pivot row of round k for the others, readback k mod INBOXES: distances, then keys. */
  private readback: GPUBuffer[] = []
  /** Staging buffers receiving the pivot row of round k in inbox k mod INBOXES (MAP_WRITE), and when each is mapped again. */
  private inbox: GPUBuffer[] = []
  private inboxMapped: Promise<void>[] = Array.from({ length: INBOXES }, () => Promise.resolve())
  /** The round whose row waits in an inbox, to be copied into its pivot buffer by the next submit. */
  private arrived?: number
  private params!: GPUBuffer
  private slots!: GPUBuffer
  private kernels!: Kernels
  /** The matrix as uploaded, for timed repeats (keep/restore). */
  private kept: { from: GPUBuffer; to: GPUBuffer }[] = []
  private files: ShmSlots[] = []
  /** Time reading the part's rows and uploading them. */
  upload_ms = 0

  private constructor(
    readonly gpu: Gpu,
    readonly spec: PartSpec,
    private readonly exchange: PartExchange,
    private readonly l: ReturnType<typeof layoutOf>,
  ) {}

  /** The part's buffers and kernels on `gpu`, and its rows read from the matrix files and uploaded. */
  static async open(gpu: Gpu, spec: PartSpec, exchange: PartExchange, signal?: AbortSignal): Promise<BandsPart> {
    const why = bandsUnavailable(gpu, spec.shape)
    if (why) throw new ApiError('gpu-unavailable', why)
    const part = new BandsPart(gpu, spec, exchange, layoutOf(gpu, spec))
    try {
      await part.allocate()
      await part.load(signal)
      return part
    } catch (e) {
      part.close()
      throw e
    }
  }

  private async own(label: string, bytes: number): Promise<GPUBuffer> {
    const buf = await this.gpu.storage(label, bytes)
    this.buffers.push(buf)
    return buf
  }

  private async allocate(): Promise<void> {
    const { gpu, spec } = this
    const { N, paths, index: g } = spec
    const { bindRows, bindings, height, rows } = this.l
    const rounds = Math.ceil(spec.V / BS)
    const pivotBytes = BS * N * 4
    for (let t = 0; t < bindings; t++) {
      this.d.push(await this.own(`paths part ${g} distances ${t}`, bandHeight(height, bindRows, t) * N * 4))
      if (paths) this.key.push(await this.own(`paths part ${g} keys ${t}`, bandHeight(height, bindRows, t) * N * 4))
    }
    // Writable bindings of one dispatch may not share a buffer: spares of a vec4 fill the gaps.
    const spares = async (bufs: GPUBuffer[], n: number, what: string) => {
      const out = [...bufs]
      while (out.length < n) out.push(await this.own(`paths part ${g} unused ${what} ${out.length}`, 16))
      return out
    }
    this.dBound = await spares(this.d, MAX_BANDS, 'distances')
    this.keyBound = await spares(this.key, MAX_BANDS, 'keys')
    this.pivot = [await this.own(`paths part ${g} pivot row 0`, pivotBytes), await this.own(`paths part ${g} pivot row 1`, pivotBytes)]
    this.pivotKey = paths ? [await this.own(`paths part ${g} pivot keys 0`, pivotBytes), await this.own(`paths part ${g} pivot keys 1`, pivotBytes)] : await spares([], 2, 'pivot keys')
    this.readback = Array.from({ length: INBOXES }, (_, s) => gpu.buffer(pivotBytes * (paths ? 2 : 1), GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, `paths part ${g} pivot readback ${s}`))
    pushAll(this.buffers, this.readback)
    this.inbox = Array.from({ length: INBOXES }, (_, s) =>
      gpu.device.createBuffer({ label: `paths part ${g} pivot inbox ${s}`, size: pivotBytes * (paths ? 2 : 1), usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true }),
    )
    pushAll(this.buffers, this.inbox)
    const words = new Uint32Array((rounds * SLOT_BYTES) / 4)
    for (let k = 0; k < rounds; k++) words.set([N, k], (k * SLOT_BYTES) / 4)
    this.params = gpu.uniform(`paths part ${g} parameters`, words)
    this.buffers.push(this.params)
    // Part slots: 0 the whole part; 1 + 2·b block b of the part alone, 2 + 2·b the rest (b left out).
    // minplus counts `first` from its binding's start, phase3_keys from the part's.
    const blocks = rows.b1 - rows.b0
    const slotWords = new Uint32Array(((1 + 2 * blocks) * SLOT_BYTES) / 4)
    const put = (slot: number, first: number, skip: number) => slotWords.set([first, skip, this.l.row0], (slot * SLOT_BYTES) / 4)
    put(0, 0, NO_BLOCK)
    for (let b = 0; b < blocks; b++) {
      put(1 + 2 * b, paths ? b * BS : (b * BS) % bindRows, NO_BLOCK)
      put(2 + 2 * b, 0, rows.b0 + b)
    }
    this.slots = gpu.uniform(`paths part ${g} dispatches`, slotWords)
    this.buffers.push(this.slots)
    this.kernels = await compileKernels(gpu, paths, bindRows, bindings, paths ? undefined : parseTunedShape(spec.shape ?? DEFAULT_TUNED_SHAPE))
  }

  /** The matrix files, opened as a peer: one row of N int32 a slot. */
  private matrixFiles(): ShmSlots[] {
    if (this.files.length === 0) {
      const geometry = { slots: this.spec.N, slotBytes: this.spec.N * 4 }
      this.files = [this.spec.distances, ...(this.spec.keys !== undefined ? [this.spec.keys] : [])].map((f) => openSlots(f, geometry))
    }
    return this.files
  }

  /** Binding t of the part: its first global row and its rows. */
  private piece(t: number): { row: number; rows: number } {
    return { row: this.l.row0 + t * this.l.bindRows, rows: bandHeight(this.l.height, this.l.bindRows, t) }
  }

  private async load(signal?: AbortSignal): Promise<void> {
    const t0 = performance.now()
    const files = this.matrixFiles()
    for (const [m, file] of files.entries()) {
      for (let t = 0; t < this.l.bindings; t++) {
        const { row, rows } = this.piece(t)
        const data = new Int32Array(rows * this.spec.N)
        file.readInto(row, data)
        await this.gpu.upload((m === 0 ? this.d : this.key)[t], data, { signal })
      }
    }
    await this.gpu.finish('the upload of the matrix')
    this.upload_ms = performance.now() - t0
  }

  /** Writes the part's rows back into the matrix files; returns the time it took. */
  async store(signal?: AbortSignal): Promise<number> {
    const t0 = performance.now()
    for (const [m, file] of this.matrixFiles().entries()) {
      for (let t = 0; t < this.l.bindings; t++) {
        const { row, rows } = this.piece(t)
        const data = new Int32Array(rows * this.spec.N)
        await this.gpu.readInto((m === 0 ? this.d : this.key)[t], data, { signal })
        file.write(row, data)
      }
    }
    return performance.now() - t0
  }

  /** Keeps the uploaded matrix on the device (the first call), or restores it: each timed computation starts from it. */
  async keep(restore: boolean, signal?: AbortSignal): Promise<void> {
    if (this.kept.length === 0) for (const m of [...this.d, ...this.key]) this.kept.push({ from: m, to: await this.own(`${m.label} as uploaded`, m.size) })
    await this.gpu.run(`paths: ${restore ? 'restore' : 'keep'} the uploaded matrix`, (enc) => {
      for (const x of this.kept) enc.copyBufferToBuffer(restore ? x.to : x.from, 0, restore ? x.from : x.to, 0, x.from.size)
    }, { signal })
  }

  /** Every round of Floyd–Warshall on the part's rows, exchanging pivot rows with the other parts. */
  async compute(signal?: AbortSignal): Promise<PartTimes> {
    const { gpu, spec, exchange: ex } = this
    const { N, paths } = spec
    const R = N / BS
    const rounds = Math.ceil(spec.V / BS)
    const pivotBytes = BS * N * 4
    const { height, bindRows, bindings, row0 } = this.l
    const mine = spec.split[spec.index]
    const owns = (block: number) => ownerOf(spec.split, block) === spec.index
    const tile = parseTunedShape(spec.shape ?? DEFAULT_TUNED_SHAPE)
    const param = (k: number): Binding => ({ buffer: this.params, offset: k * SLOT_BYTES, size: 8 })
    const slot = (s: number): Binding => ({ buffer: this.slots, offset: s * SLOT_BYTES, size: 16 })
    const dist = { 0: this.dBound[0], 1: this.dBound[1], 2: this.dBound[2], 3: this.dBound[3] }
    const keys = { 4: this.keyBound[0], 5: this.keyBound[1], 6: this.keyBound[2], 7: this.keyBound[3] }
    const { close, row, column: columnKernel, phase3: phase3Kernels } = this.kernels
    const column = (k: number): Dispatch => columnKernel.dispatch(columnKernel.bind({ ...dist, ...keys, 8: param(k), 9: this.pivot[k % 2], 10: this.pivotKey[k % 2], 11: slot(0) }), [height / BS, 1])
    /** Phase 3 of round k on the part's rows: all (s = 0), block b alone (1 + 2b) or all but block b (2 + 2b). */
    const phase3 = (k: number, s: number): Dispatch[] => {
      const only = s % 2 === 1 ? ((s - 1) / 2) * BS : undefined
      if (paths) {
        const kernel = phase3Kernels[0]
        const bind = kernel.bind({ ...dist, ...keys, 8: param(k), 9: this.pivot[k % 2], 10: this.pivotKey[k % 2], 11: slot(s) })
        return [kernel.dispatch(bind, [R, only === undefined ? height / BS : 1])]
      }
      const bindingsOf = only === undefined ? Array.from({ length: bindings }, (_, t) => t) : [Math.floor(only / bindRows)]
      return bindingsOf.map((t) => {
        const kernel = phase3Kernels[t]
        const rows = only === undefined ? bandHeight(height, bindRows, t) : BS
        return kernel.dispatch(kernel.bind({ ...dist, 8: param(k), 9: this.pivot[k % 2], 11: slot(s) }), [N / tile.cols, rows / tile.rows])
      })
    }
    /** Round k's pivot row: copied out of the part's rows, closed, copied back and into the readback buffer. */
    const pivotRow = (k: number) => (enc: GPUCommandEncoder) => {
      const local = k * BS - row0
      const t = Math.floor(local / bindRows)
      const at = (local - t * bindRows) * N * 4
      const slotP = k % 2
      enc.copyBufferToBuffer(this.d[t], at, this.pivot[slotP], 0, pivotBytes)
      if (paths) enc.copyBufferToBuffer(this.key[t], at, this.pivotKey[slotP], 0, pivotBytes)
      const bind = (kernel: Kernel) => kernel.bind({ 8: param(k), 9: this.pivot[slotP], 10: this.pivotKey[slotP] })
      gpu.encodeDispatches(enc, [close.dispatch(bind(close), 1), row.dispatch(bind(row), [R, 1])])
      const readback = this.readback[k % INBOXES]
      enc.copyBufferToBuffer(this.pivot[slotP], 0, this.d[t], at, pivotBytes)
      enc.copyBufferToBuffer(this.pivot[slotP], 0, readback, 0, pivotBytes)
      if (paths) {
        enc.copyBufferToBuffer(this.pivotKey[slotP], 0, this.key[t], at, pivotBytes)
        enc.copyBufferToBuffer(this.pivotKey[slotP], 0, readback, pivotBytes, pivotBytes)
      }
    }
    const settled = async (what: Promise<void>, label: string) => {
      try {
        await what
      } catch (e) {
        throw await gpu.failure(e, label)
      }
    }
    // Each submit's completion: the host runs at most a few submits (two rounds) ahead of the queue.
    const done: Promise<number>[] = []
    const submit = (label: string, work: Dispatch[] | ((enc: GPUCommandEncoder) => void)) => {
      const run = gpu.run(label, (enc) => {
        // The arrived pivot row's copy into its pivot buffer, first.
        if (this.arrived !== undefined) {
          const from = this.inbox[this.arrived % INBOXES]
          const s = this.arrived % 2
          enc.copyBufferToBuffer(from, 0, this.pivot[s], 0, pivotBytes)
          if (paths) enc.copyBufferToBuffer(from, pivotBytes, this.pivotKey[s], 0, pivotBytes)
        }
        if (typeof work === 'function') work(enc)
        else gpu.encodeDispatches(enc, work)
      }, { signal })
      // After that submit the inbox maps again once its copy is done.
      if (this.arrived !== undefined) {
        const s = this.arrived % INBOXES
        this.inboxMapped[s] = this.inbox[s].mapAsync(GPUMapMode.WRITE)
        this.inboxMapped[s].catch(() => {}) // awaited before the inbox is written
        this.arrived = undefined
      }
      run.catch(() => {}) // awaited below
      done.push(run)
    }
    const times = { exchange: 0, copy: 0 }
    // Rows handed on one after another, behind the device: `published` settles when the last has
    // gone, `unmapped[s]` when readback s may take a row again.
    let published: Promise<void> = Promise.resolve()
    const unmapped: Promise<void>[] = this.readback.map(() => Promise.resolve())
    /** Round k's row, read back since `mapped`, to the other parts after the rows before it. */
    const publish = (k: number, mapped: Promise<void>) => {
      const readback = this.readback[k % INBOXES]
      published = published.then(async () => {
        await settled(mapped, `the pivot row of round ${k}`)
        times.copy += await ex.publish(k, new Uint8Array(readback.getMappedRange()))
        readback.unmap()
      })
      published.catch(() => {}) // awaited before the readback is used again, and at the end
      unmapped[k % INBOXES] = published
    }
    /** Waits (as exchange time) until round k's readback buffer is free again. */
    const readbackFree = async (k: number) => {
      const tx = performance.now()
      await unmapped[k % INBOXES]
      times.exchange += performance.now() - tx
    }
    ex.begin()
    const t0 = performance.now()
    if (owns(0)) {
      submit('paths pivot row 0', pivotRow(0))
      publish(0, this.readback[0].mapAsync(GPUMapMode.READ))
    }
    for (let k = 0; k < rounds; k++) {
      throwIfAborted(signal)
      if (!owns(k)) {
        const tx = performance.now()
        const at = k % INBOXES
        await settled(this.inboxMapped[at], `the pivot inbox of round ${k}`)
        times.copy += await ex.receive(k, new Uint8Array(this.inbox[at].getMappedRange()), signal)
        this.inbox[at].unmap()
        this.arrived = k
        times.exchange += performance.now() - tx
      }
      if (done.length >= INBOXES) await done[done.length - INBOXES]
      if (k + 1 < rounds && owns(k + 1)) {
        const b = k + 1 - mine.b0
        await readbackFree(k + 1)
        // The next pivot's block row first, then that row closed and read back, then the rest.
        submit(`paths round ${k}, pivot row ${k + 1}`, (enc) => {
          gpu.encodeDispatches(enc, [column(k), ...phase3(k, 1 + 2 * b)])
          pivotRow(k + 1)(enc)
        })
        const mapped = this.readback[(k + 1) % INBOXES].mapAsync(GPUMapMode.READ)
        mapped.catch(() => {}) // awaited by publish
        submit(`paths round ${k}`, [...phase3(k, 2 + 2 * b)])
        publish(k + 1, mapped)
      } else submit(`paths round ${k}`, [column(k), ...phase3(k, 0)])
    }
    await published
    await Promise.all(done)
    // Every inbox mapped again, as the next computation expects.
    await Promise.all(this.inboxMapped)
    return { ms: performance.now() - t0, ...times }
  }

  /** Destroys the part's buffers and closes its files. */
  close(): void {
    for (const b of this.buffers) b.destroy()
    this.buffers.length = 0
    for (const f of this.files) f.close()
    this.files = []
  }
}
