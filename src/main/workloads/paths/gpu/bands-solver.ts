// The `gpu` backend on several devices (`--gpus N`, the tuned variant): each device holds a run of
// whole block rows (block-rows.ts). In round k the owner of block row k copies it into its pivot
// buffer, closes the pivot block and the rest of the row there, and the row goes through the host to
// every other device's pivot buffer; then every device relaxes its blocks of the pivot column and
// the rest of its rows (shaders/paths/bands.wgsl, bands_minplus.wgsl).
//
// The exchange overlaps phase 3: the owner of the next round's pivot relaxes that block row first,
// produces the next pivot row and starts its readback, and only then relaxes the rest of its rows;
// meanwhile the others are still at this round's phase 3. Pivot buffers alternate between rounds,
// so that a row arriving never overwrites the one still being read. A row arrives in one of two
// mapped staging buffers of the device, reused (queue.writeBuffer staged each 10 MB row in fresh
// memory at ~1.3 GB/s on an H100 machine, slower than phase 3), and is copied into its pivot buffer
// at the start of the device's next submit.
import { ApiError } from '../../../../shared/errors'
import { observeSet, type GpuSet } from '../../../gpu/device-select'
import { median, throwIfAborted, warmUp, type Binding, type Dispatch, type Gpu, type Kernel } from '../../../gpu/runtime'
import { compact, fillMatrix } from '../matrix'
import type { Problem } from '../problem'
import type { SolveOptions, Solved, Solver } from '../solver'
import { type BlockRows, ownerOf, splitBlockRows } from './block-rows'
import { MAX_BANDS, size } from './gpu-solver'
import { DEFAULT_TUNED_SHAPE, parseTunedShape, shapeConstants, shapeUnavailable, type TunedShape } from './tuned-shapes'
import { GPU_ALIGN, bandHeight, paddedSide } from './variants'
import { pushAll } from '../../../../shared/extent'

const BS = GPU_ALIGN
/** Part.skip of a dispatch that leaves no block row out. */
const NO_BLOCK = 0xffffffff
/** Bytes between uniform slots (minUniformBufferOffsetAlignment at most). */
const SLOT_BYTES = 256
/** Rows of invocations of the 64-wide kernels other than pivot_close (256 invocations, as blocked.wgsl's). */
const TY = 4

export interface BandsSolverOptions {
  /** Bytes one binding may hold, below the device's limit (tests split small matrices with it). */
  maxBindingBytes?: number
  /** A tile shape of phase 3 without successors (tuned-shapes.ts); without one, DEFAULT_TUNED_SHAPE. */
  shape?: string
}

/** One device's share: its block rows, buffers and kernels. */
interface Part {
  gpu: Gpu
  rows: BlockRows
  /** Global row of its local row 0, and its rows. */
  row0: number
  height: number
  /** Rows per binding (whole blocks), and its bindings. */
  bindRows: number
  bindings: number
  d: GPUBuffer[]
  key: GPUBuffer[]
  /** Bindings 0–3 and 4–7 with spares for the missing ones. */
  dBound: GPUBuffer[]
  keyBound: GPUBuffer[]
  /** Pivot block rows of even and odd rounds (distances, keys). */
  pivot: GPUBuffer[]
  pivotKey: GPUBuffer[]
  /** Where the owner copies a pivot row for the host: distances, then keys. */
  readback: GPUBuffer
  /** Staging buffers receiving pivot rows of even and odd rounds (MAP_WRITE), and when each is mapped again. */
  inbox: GPUBuffer[]
  inboxMapped: Promise<void>[]
  /** The round whose row waits in an inbox, to be copied into its pivot buffer by the next submit. */
  arrived?: number
  params: GPUBuffer
  slots: GPUBuffer
  kernels: Kernels
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

export function gpuBandsSolver(devices: GpuSet, options: BandsSolverOptions = {}): Solver {
  const tile = parseTunedShape(options.shape ?? DEFAULT_TUNED_SHAPE)
  for (const gpu of new Set(devices.gpus)) {
    const why = shapeUnavailable(gpu, tile) ?? (gpu.limits.maxComputeWorkgroupStorageSize < 2 * BS * BS * 4 ? `the tuned kernels need ${(2 * BS * BS * 4) / 1024} KiB of workgroup memory; ${gpu.adapter.description || 'a device'} allows ${gpu.limits.maxComputeWorkgroupStorageSize / 1024} KiB` : null)
    if (why) throw new ApiError('gpu-unavailable', why)
  }
  const most = (gpu: Gpu) => Math.min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize, options.maxBindingBytes ?? Infinity)
  const layout = (V: number) => {
    const N = paddedSide(V)
    const split = splitBlockRows(N / BS, devices.gpus.length)
    return split.map((rows, g) => {
      const gpu = devices.gpus[g]
      const height = (rows.b1 - rows.b0) * BS
      const b = partBindings(N, height, most(gpu))
      if (!b) throw new ApiError('invalid-input', `a ${V}-vertex matrix (padded to ${N}) in ${split.length} parts: part ${g} of ${height} rows takes ${size(height * N * 4)}, more than ${MAX_BANDS} GPU bindings of ${size(most(gpu))} hold`)
      return { gpu, rows, height, bindRows: b.rows, bindings: b.bindings }
    })
  }
  return {
    backend: 'gpu',
    variant: 'tuned',
    block: BS,
    gpus: devices.gpus.length,
    observe: (parts: number) => observeSet({ ...devices, gpus: devices.gpus.slice(0, parts), placement: devices.placement.slice(0, parts) }, 'part'),
    ...(devices.note !== undefined && { gpusNote: devices.note }),
    ...(options.shape !== undefined && { shape: options.shape }),
    async compile(p: Problem, paths: boolean): Promise<void> {
      await Promise.all(layout(p.V).map((l) => compileKernels(l.gpu, paths, l.bindRows, l.bindings, paths ? undefined : tile)))
    },
    async solve(p: Problem, paths: boolean, opts: SolveOptions = {}): Promise<Solved> {
      const { signal } = opts
      const N = paddedSide(p.V)
      const R = N / BS
      const rounds = Math.ceil(p.V / BS)
      const pivotBytes = BS * N * 4
      const buffers: GPUBuffer[] = []
      const own = async (gpu: Gpu, label: string, bytes: number) => {
        const buf = await gpu.storage(label, bytes)
        buffers.push(buf)
        return buf
      }
      try {
        const parts: Part[] = []
        for (const [g, l] of layout(p.V).entries()) {
          const { gpu, bindRows, bindings, height } = l
          const rowsOf = (t: number) => bandHeight(height, bindRows, t)
          const d: GPUBuffer[] = []
          const key: GPUBuffer[] = []
          for (let t = 0; t < bindings; t++) {
            d.push(await own(gpu, `paths part ${g} distances ${t}`, rowsOf(t) * N * 4))
            if (paths) key.push(await own(gpu, `paths part ${g} keys ${t}`, rowsOf(t) * N * 4))
          }
          // Writable bindings of one dispatch may not share a buffer: spares of a vec4 fill the gaps.
          const spares = async (bufs: GPUBuffer[], n: number, what: string) => {
            const out = [...bufs]
            while (out.length < n) out.push(await own(gpu, `paths part ${g} unused ${what} ${out.length}`, 16))
            return out
          }
          const pivot = [await own(gpu, `paths part ${g} pivot row 0`, pivotBytes), await own(gpu, `paths part ${g} pivot row 1`, pivotBytes)]
          const pivotKey = paths ? [await own(gpu, `paths part ${g} pivot keys 0`, pivotBytes), await own(gpu, `paths part ${g} pivot keys 1`, pivotBytes)] : await spares([], 2, 'pivot keys')
          const readback = gpu.buffer(pivotBytes * (paths ? 2 : 1), GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, `paths part ${g} pivot readback`)
          buffers.push(readback)
          const inbox = [0, 1].map((s) =>
            gpu.device.createBuffer({ label: `paths part ${g} pivot inbox ${s}`, size: pivotBytes * (paths ? 2 : 1), usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true }),
          )
          pushAll(buffers, inbox)
          const words = new Uint32Array((rounds * SLOT_BYTES) / 4)
          for (let k = 0; k < rounds; k++) words.set([N, k], (k * SLOT_BYTES) / 4)
          const params = gpu.uniform(`paths part ${g} parameters`, words)
          buffers.push(params)
          // Part slots: 0 the whole part; 1 + 2·b block b of the part alone, 2 + 2·b the rest (b left out).
          // minplus counts `first` from its binding's start, phase3_keys from the part's.
          const blocks = l.rows.b1 - l.rows.b0
          const slotWords = new Uint32Array(((1 + 2 * blocks) * SLOT_BYTES) / 4)
          const row0 = l.rows.b0 * BS
          const put = (slot: number, first: number, skip: number) => slotWords.set([first, skip, row0], (slot * SLOT_BYTES) / 4)
          put(0, 0, NO_BLOCK)
          for (let b = 0; b < blocks; b++) {
            put(1 + 2 * b, paths ? b * BS : (b * BS) % bindRows, NO_BLOCK)
            put(2 + 2 * b, 0, l.rows.b0 + b)
          }
          const slots = gpu.uniform(`paths part ${g} dispatches`, slotWords)
          buffers.push(slots)
          const kernels = await compileKernels(gpu, paths, bindRows, bindings, paths ? undefined : tile)
          parts.push({ gpu, rows: l.rows, row0, height, bindRows, bindings, d, key, dBound: await spares(d, MAX_BANDS, 'distances'), keyBound: await spares(key, MAX_BANDS, 'keys'), pivot, pivotKey, readback, inbox, inboxMapped: [Promise.resolve(), Promise.resolve()], params, slots, kernels })
        }
        throwIfAborted(signal)

        const d = new Int32Array(N * N)
        const key = paths ? new Uint32Array(N * N) : undefined
        const duplicates = fillMatrix(p, d, key, { stride: N, rows: N })
        const pieces = (part: Part, m: Int32Array | Uint32Array) =>
          Array.from({ length: part.bindings }, (_, t) => m.subarray((part.row0 + t * part.bindRows) * N, (part.row0 + t * part.bindRows + bandHeight(part.height, part.bindRows, t)) * N))
        const t0 = performance.now()
        for (const part of parts) {
          for (const [t, piece] of pieces(part, d).entries()) await part.gpu.upload(part.d[t], piece, { signal })
          if (key) for (const [t, piece] of pieces(part, key).entries()) await part.gpu.upload(part.key[t], piece, { signal })
        }
        await Promise.all([...new Set(parts.map((q) => q.gpu))].map((gpu) => gpu.finish('the upload of the matrix')))
        const upload_ms = performance.now() - t0

        const owner = (block: number) => parts[ownerOf(parts.map((q) => q.rows), block)]
        const param = (q: Part, k: number): Binding => ({ buffer: q.params, offset: k * SLOT_BYTES, size: 8 })
        const slot = (q: Part, s: number): Binding => ({ buffer: q.slots, offset: s * SLOT_BYTES, size: 16 })
        const dist = (q: Part) => ({ 0: q.dBound[0], 1: q.dBound[1], 2: q.dBound[2], 3: q.dBound[3] })
        const keys = (q: Part) => ({ 4: q.keyBound[0], 5: q.keyBound[1], 6: q.keyBound[2], 7: q.keyBound[3] })
        const column = (q: Part, k: number): Dispatch =>
          q.kernels.column.dispatch(q.kernels.column.bind({ ...dist(q), ...keys(q), 8: param(q, k), 9: q.pivot[k % 2], 10: q.pivotKey[k % 2], 11: slot(q, 0) }), [q.height / BS, 1])
        /** Phase 3 of round k on the part's rows: all (s = 0), block b alone (1 + 2b) or all but block b (2 + 2b). */
        const phase3 = (q: Part, k: number, s: number): Dispatch[] => {
          const only = s % 2 === 1 ? ((s - 1) / 2) * BS : undefined
          if (paths) {
            const kernel = q.kernels.phase3[0]
            const bind = kernel.bind({ ...dist(q), ...keys(q), 8: param(q, k), 9: q.pivot[k % 2], 10: q.pivotKey[k % 2], 11: slot(q, s) })
            return [kernel.dispatch(bind, [R, only === undefined ? q.height / BS : 1])]
          }
          const bindingsOf = only === undefined ? Array.from({ length: q.bindings }, (_, t) => t) : [Math.floor(only / q.bindRows)]
          return bindingsOf.map((t) => {
            const kernel = q.kernels.phase3[t]
            const rows = only === undefined ? bandHeight(q.height, q.bindRows, t) : BS
            return kernel.dispatch(kernel.bind({ ...dist(q), 8: param(q, k), 9: q.pivot[k % 2], 11: slot(q, s) }), [N / tile.cols, rows / tile.rows])
          })
        }
        /** Round k's pivot row on its owner: copied out of its rows, closed, copied back and into the readback buffer. */
        const pivotRow = (q: Part, k: number) => (enc: GPUCommandEncoder) => {
          const local = k * BS - q.row0
          const t = Math.floor(local / q.bindRows)
          const at = (local - t * q.bindRows) * N * 4
          const slotP = k % 2
          enc.copyBufferToBuffer(q.d[t], at, q.pivot[slotP], 0, pivotBytes)
          if (paths) enc.copyBufferToBuffer(q.key[t], at, q.pivotKey[slotP], 0, pivotBytes)
          const bind = (kernel: Kernel) => kernel.bind({ 8: param(q, k), 9: q.pivot[slotP], 10: q.pivotKey[slotP] })
          q.gpu.encodeDispatches(enc, [q.kernels.close.dispatch(bind(q.kernels.close), 1), q.kernels.row.dispatch(bind(q.kernels.row), [R, 1])])
          enc.copyBufferToBuffer(q.pivot[slotP], 0, q.d[t], at, pivotBytes)
          enc.copyBufferToBuffer(q.pivot[slotP], 0, q.readback, 0, pivotBytes)
          if (paths) {
            enc.copyBufferToBuffer(q.pivotKey[slotP], 0, q.key[t], at, pivotBytes)
            enc.copyBufferToBuffer(q.pivotKey[slotP], 0, q.readback, pivotBytes, pivotBytes)
          }
        }
        /** Round k's pivot row from its owner's readback buffer (mapping since `mapped`) into every other part's inbox. */
        const deliver = async (from: Part, k: number, mapped: Promise<void>): Promise<number> => {
          const settled = async (what: Promise<void>, q: Part, label: string) => {
            try {
              await what
            } catch (e) {
              throw await q.gpu.failure(e, label)
            }
          }
          await settled(mapped, from, `the pivot row of round ${k}`)
          const t0 = performance.now()
          const row = new Uint8Array(from.readback.getMappedRange())
          for (const q of parts) {
            if (q === from) continue
            await settled(q.inboxMapped[k % 2], q, `the pivot inbox of round ${k}`)
            new Uint8Array(q.inbox[k % 2].getMappedRange()).set(row)
            q.inbox[k % 2].unmap()
            q.arrived = k
          }
          from.readback.unmap()
          return performance.now() - t0
        }
        /** The arrived pivot row's copy into its pivot buffer, recorded first in the part's next submit. */
        const receive = (q: Part, enc: GPUCommandEncoder) => {
          if (q.arrived === undefined) return
          const s = q.arrived % 2
          enc.copyBufferToBuffer(q.inbox[s], 0, q.pivot[s], 0, pivotBytes)
          if (paths) enc.copyBufferToBuffer(q.inbox[s], pivotBytes, q.pivotKey[s], 0, pivotBytes)
        }
        /** After that submit: the inbox maps again once its copy is done. */
        const received = (q: Part) => {
          if (q.arrived === undefined) return
          const s = q.arrived % 2
          q.inboxMapped[s] = q.inbox[s].mapAsync(GPUMapMode.WRITE)
          q.inboxMapped[s].catch(() => {}) // awaited by deliver
          q.arrived = undefined
        }

        const compute = async (progress?: (fraction: number) => void): Promise<{ ms: number; exchange: number; copy: number }> => {
          // Each submit's completion, per part: the host runs at most a few submits (two rounds) ahead of a queue.
          const done: Promise<number>[][] = parts.map(() => [])
          const submit = (i: number, label: string, work: Dispatch[] | ((enc: GPUCommandEncoder) => void)) => {
            const q = parts[i]
            const run = q.gpu.run(label, (enc) => {
              receive(q, enc)
              if (typeof work === 'function') work(enc)
              else q.gpu.encodeDispatches(enc, work)
            }, { signal })
            received(q)
            run.catch(() => {}) // awaited below
            done[i].push(run)
          }
          const t0 = performance.now()
          let exchange = 0
          let copy = 0
          const first = parts.indexOf(owner(0))
          submit(first, 'paths pivot row 0', pivotRow(parts[first], 0))
          let tx = performance.now()
          copy += await deliver(parts[first], 0, parts[first].readback.mapAsync(GPUMapMode.READ))
          exchange += performance.now() - tx
          for (let k = 0; k < rounds; k++) {
            throwIfAborted(signal)
            const next = k + 1 < rounds ? parts.indexOf(owner(k + 1)) : -1
            let mapped: Promise<void> | undefined
            for (const [i, q] of parts.entries()) {
              if (done[i].length >= 4) await done[i][done[i].length - 4]
              if (i === next) {
                const b = k + 1 - q.rows.b0
                // The next pivot's block row first, then that row closed and read back, then the rest.
                submit(i, `paths round ${k}, pivot row ${k + 1}`, (enc) => {
                  q.gpu.encodeDispatches(enc, [column(q, k), ...phase3(q, k, 1 + 2 * b)])
                  pivotRow(q, k + 1)(enc)
                })
                mapped = q.readback.mapAsync(GPUMapMode.READ)
                mapped.catch(() => {}) // awaited by deliver
                submit(i, `paths round ${k}`, [...phase3(q, k, 2 + 2 * b)])
              } else submit(i, `paths round ${k}`, [column(q, k), ...phase3(q, k, 0)])
            }
            if (mapped) {
              tx = performance.now()
              copy += await deliver(parts[next], k + 1, mapped)
              exchange += performance.now() - tx
            }
            progress?.((k + 1) / rounds)
          }
          await Promise.all(done.flat())
          // Every inbox mapped again, as the next computation expects.
          await Promise.all(parts.flatMap((q) => q.inboxMapped))
          return { ms: performance.now() - t0, exchange, copy }
        }

        let computed: { ms: number; exchange: number; copy: number }
        let compute_runs_ms: number[] | undefined
        if (opts.timing) {
          // As the one-device solver: each timed computation starts from the uploaded matrix, kept on the devices.
          const pairs: { gpu: Gpu; from: GPUBuffer; to: GPUBuffer }[] = []
          for (const q of parts) for (const m of [...q.d, ...q.key]) pairs.push({ gpu: q.gpu, from: m, to: await own(q.gpu, `${m.label} as uploaded`, m.size) })
          const copy = (back: boolean) =>
            Promise.all(
              [...new Set(pairs.map((x) => x.gpu))].map((gpu) =>
                gpu.run(`paths: ${back ? 'restore' : 'keep'} the uploaded matrix`, (enc) => {
                  for (const x of pairs) if (x.gpu === gpu) enc.copyBufferToBuffer(back ? x.to : x.from, 0, back ? x.from : x.to, 0, x.from.size)
                }, { signal }),
              ),
            )
          await copy(false)
          await warmUp(async () => {
            await compute()
            await copy(true)
          }, opts.timing.warmupMs, signal)
          const runs: { ms: number; exchange: number; copy: number }[] = []
          for (let r = 0; r < opts.timing.repeat; r++) {
            if (r > 0) await copy(true)
            runs.push(await compute(r === opts.timing.repeat - 1 ? opts.progress : undefined))
          }
          compute_runs_ms = runs.map((x) => x.ms)
          const mid = median(compute_runs_ms)
          computed = runs.find((x) => x.ms === mid) ?? { ms: mid, exchange: median(runs.map((x) => x.exchange)), copy: median(runs.map((x) => x.copy)) }
        } else computed = await compute(opts.progress)

        const t1 = performance.now()
        for (const part of parts) {
          for (const [t, piece] of pieces(part, d).entries()) await part.gpu.readInto(part.d[t], piece, { signal })
          if (key) for (const [t, piece] of pieces(part, key).entries()) await part.gpu.readInto(part.key[t], piece, { signal })
        }
        const readback_ms = performance.now() - t1
        return {
          d: compact(d, p.V, N),
          key: key && compact(key, p.V, N),
          duplicates,
          compute_ms: computed.ms,
          ...(compute_runs_ms && { compute_runs_ms }),
          upload_ms,
          readback_ms,
          gpus: parts.length,
          rounds,
          exchange_ms: computed.exchange,
          exchange_copy_ms: computed.copy,
        }
      } finally {
        for (const b of buffers) b.destroy()
      }
    },
    async dispose() {
      devices.close()
    },
  }
}
