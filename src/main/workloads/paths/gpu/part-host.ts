// The part's side of a run on several GPUs: requests from the process that started the part
// (compile, load its rows, keep the uploaded matrix, compute, store its rows, unload) and the pivot
// exchange's notices, answered over one message channel: Node's IPC to a part's own process
// (paths-part-worker.ts), or calls within one process (part-links.ts).
import { ApiError } from '../../../../shared/errors'
import type { Gpu } from '../../../gpu/runtime'
import { openSlots, type ShmSlots } from '../../../ranks/shm-slots'
import { BandsPart, compilePart, type PartShape, type PartSpec, type PartTimes } from './bands-part'
import { GPU_ALIGN } from './variants'
import { PIVOT_SLOTS, SlotExchange, type ExchangeMessage } from './pivot-exchange'

export type PartRequest =
  | { op: 'compile'; shape: PartShape }
  | { op: 'load'; spec: PartSpec }
  | { op: 'keep'; restore: boolean }
  | { op: 'compute' }
  | { op: 'store' }
  | { op: 'unload' }

/** What a part's process is: its pid (where nvidia-smi finds it) and its adapter. */
export interface PartLoaded {
  pid: number
  software: boolean
  adapter: string
  upload_ms: number
}

export interface PartAnswers {
  compile: null
  load: PartLoaded
  keep: null
  compute: PartTimes
  store: number
  unload: null
}

export type ToPart = { t: 'do'; id: number; req: PartRequest } | ExchangeMessage
export type FromPart = { t: 'done'; id: number; value: unknown } | { t: 'failed'; id: number; message: string; code?: string } | ExchangeMessage

/** Pivot-row bytes of a part of `spec`: a 64-row block row of distances (and keys). */
export function pivotSlotBytes(N: number, paths: boolean): number {
  return GPU_ALIGN * N * 4 * (paths ? 2 : 1)
}

export class PartHost {
  private part?: BandsPart
  private pivot?: ShmSlots
  private exchange?: SlotExchange
  private readonly abort = new AbortController()

  constructor(
    private readonly gpu: () => Promise<Gpu>,
    private readonly send: (m: FromPart) => void,
  ) {}

  /** Ends whatever the part waits for or computes (the run was cancelled or a peer died). */
  stop(why: Error): void {
    this.abort.abort(why)
    this.exchange?.fail(why)
  }

  onMessage(m: ToPart): void {
    if (m.t === 'row' || m.t === 'free') {
      try {
        this.exchange?.onMessage(m)
      } catch (e) {
        // A notice that does not fit the pivot file: the computation waiting for it fails with why.
        this.exchange?.fail(e instanceof Error ? e : new Error(String(e)))
      }
      return
    }
    if (m.t !== 'do') return
    this.do(m.req).then(
      (value) => this.send({ t: 'done', id: m.id, value }),
      (e: unknown) => this.send({ t: 'failed', id: m.id, message: e instanceof Error ? e.message : String(e), ...(e instanceof ApiError && { code: e.code }) }),
    )
  }

  private async do(req: PartRequest): Promise<unknown> {
    const signal = this.abort.signal
    switch (req.op) {
      case 'compile':
        await compilePart(await this.gpu(), req.shape)
        return null
      case 'load': {
        this.unload()
        const { spec } = req
        const gpu = await this.gpu()
        this.pivot = openSlots(spec.pivot, { slots: PIVOT_SLOTS, slotBytes: pivotSlotBytes(spec.N, spec.paths) })
        this.exchange = new SlotExchange(this.pivot, Math.ceil(spec.V / GPU_ALIGN), (x) => this.send(x))
        this.part = await BandsPart.open(gpu, spec, this.exchange, signal)
        const loaded: PartLoaded = { pid: process.pid, software: gpu.isSoftware, adapter: gpu.adapter.description || gpu.adapter.device || 'a WebGPU adapter', upload_ms: this.part.upload_ms }
        return loaded
      }
      case 'keep':
        await this.loaded().keep(req.restore, signal)
        return null
      case 'compute':
        return await this.loaded().compute(signal)
      case 'store':
        return await this.loaded().store(signal)
      case 'unload':
        this.unload()
        return null
    }
  }

  private loaded(): BandsPart {
    if (!this.part) throw new Error('no rows loaded')
    return this.part
  }

  private unload(): void {
    this.part?.close()
    this.pivot?.close()
    this.part = this.pivot = this.exchange = undefined
  }
}
