// The study's row-band decomposition on GPUs: each band of rows is simulated on its own device (one
// per GPU where the machine has several) together with H = 2·S halo rows on each side, and the
// halos are refreshed from the neighbours every S steps, through the host.
//
// Why 2·S rows: a band's grid ends at its outer halo rows, which its kernels treat as the grid's
// border (never updated, giving no flow). A cell's new thickness depends on the thicknesses two
// rows away (its neighbours' outflows toward it depend on their neighbours), so the error of a
// frozen border reaches two rows further each step: after S steps it has reached the rows within
// 2·S − 1 of it, and the band's own rows, 2·S away, are still exactly what one grid would hold.
// With the same kernels and the same f32 altitudes, the result is the same bits as one band.
import { ApiError } from '../../../../shared/errors'
import { throwIfAborted } from '../../../../shared/cancel'
import { observeSet, type GpuSet } from '../../../gpu/device-select'
import type { GpuPlacement } from '../../../../shared/gpu-placement'
import { stateRows, type InitialState, type Simulation } from '../simulation'
import { splitRows } from '../workers-simulation'
import { altitudeBase, type GpuArithmetic, GpuSimulation } from './gpu-simulation'
import type { GpuVariant } from '../../../../shared/workloads/landslide/types'
import { minOf } from '../../../../shared/extent'

/** One band: its own rows r0 … r1−1, its device's grid holding global rows a … b−1. */
interface GpuBand {
  r0: number
  r1: number
  a: number
  b: number
  sim: GpuSimulation
}

/** Steps between exchanges by default: halos of an eighth of the thinnest band, within one submit. */
export function defaultExchangeEvery(thinnest: number, stepsPerSubmit: number): number {
  return Math.max(1, Math.min(stepsPerSubmit, Math.floor(thinnest / 16)))
}

/** Why `variant` cannot run in bands, or undefined when it can. */
export function notInBands(variant: GpuVariant): string | undefined {
  if (variant === 'active') return 'the gpu active kernel keeps its debris box on the GPU, which halo exchanges would invalidate: use one GPU band (--gpu-bands 1) or another variant'
  return undefined
}

/** Bands a grid can hold: every band needs two own rows (a halo of 2·S rows, S ≥ 1, comes from one neighbour). */
export function maxGpuBands(rows: number): number {
  return Math.max(1, Math.floor((rows - 2) / 2))
}

export class GpuBandsSimulation implements Simulation {
  done = 0
  /** Steps since the halos were last refreshed. */
  private since = 0
  private readonly out: Float64Array

  private constructor(
    private readonly state: InitialState,
    private readonly bands: GpuBand[],
    private readonly devices: GpuSet,
    /** Steps between halo exchanges (S). */
    readonly exchangeEvery: number,
    readonly stepsPerSubmit: number,
    readonly passesPerStep: number,
  ) {
    this.out = state.h.slice()
  }

  get ranks(): number {
    return this.bands.length
  }

  /** Where the bands were to compute and were seen computing, once observe() has run. */
  observed?: GpuPlacement

  /** Asks the driver where the bands compute (while they hold their buffers). */
  async observe(): Promise<GpuPlacement> {
    this.observed = await observeSet({ ...this.devices, gpus: this.devices.gpus.slice(0, this.bands.length), placement: this.devices.placement.slice(0, this.bands.length) })
    return this.observed
  }

  get note(): string | undefined {
    return this.devices.note
  }

  /**
   * `devices.gpus[k]` runs band k (the same device may run several); the simulation closes the set
   * when disposed. `exchangeEvery`: steps between halo exchanges (default defaultExchangeEvery);
   * each band must hold at least 2 × that many rows.
   */
  static async create(
    devices: GpuSet,
    state: InitialState,
    variant: GpuVariant,
    stepsPerSubmit: number,
    opts: { arithmetic?: GpuArithmetic; exchangeEvery?: number } = {},
  ): Promise<GpuBandsSimulation> {
    const { rows, cols } = state
    const refused = notInBands(variant)
    if (refused) throw new ApiError('invalid-argument', refused)
    const gpus = devices.gpus
    const count = Math.min(gpus.length, maxGpuBands(rows))
    const owned = splitRows(rows, cols, state.mask, count)
    const thinnest = minOf(owned.map((o) => o.r1 - o.r0))
    const every = opts.exchangeEvery ?? defaultExchangeEvery(thinnest, stepsPerSubmit)
    if (count > 1 && 2 * every > thinnest)
      throw new ApiError(
        'invalid-argument',
        `exchanging halos every ${every} steps needs bands of at least ${2 * every} rows; the thinnest of ${count} bands of this ${rows}-row grid has ${thinnest}: exchange more often or use fewer bands`,
      )
    const halo = count > 1 ? 2 * every : 0
    const base = altitudeBase(state)
    const bands: GpuBand[] = []
    try {
      for (const [k, { r0, r1 }] of owned.entries()) {
        // The first and last bands reach the grid's own border rows.
        const a = k === 0 ? 0 : r0 - halo
        const b = k === count - 1 ? rows : r1 + halo
        const sub = stateRows(state, a, b)
        const sim = await GpuSimulation.create(gpus[k], sub, variant, stepsPerSubmit, { arithmetic: opts.arithmetic, altitudeBase: base })
        bands.push({ r0, r1, a, b, sim })
      }
    } catch (e) {
      await Promise.all(bands.map((band) => band.sim.dispose()))
      throw e
    }
    return new GpuBandsSimulation(state, bands, devices, every, stepsPerSubmit, bands[0].sim.passesPerStep)
  }

  async advance(steps: number, signal?: AbortSignal): Promise<void> {
    let left = steps
    while (left > 0) {
      throwIfAborted(signal)
      if (this.since === this.exchangeEvery) await this.exchange()
      const count = Math.min(left, this.exchangeEvery - this.since)
      // The bands' devices work at the same time; on one device their submits queue up.
      await Promise.all(this.bands.map((band) => band.sim.advance(count, signal)))
      this.since += count
      this.done += count
      left -= count
    }
  }

  /** Every band's halo rows from its neighbours' own rows, all read before any is written. */
  private async exchange(): Promise<void> {
    const moves: { to: GpuBand; at: number; bytes: Promise<ArrayBuffer> }[] = []
    this.bands.forEach((band, k) => {
      const north = this.bands[k - 1]
      const south = this.bands[k + 1]
      // Halo rows a … r0−1 are the north band's last own rows; r1 … b−1 the south band's first.
      if (north) moves.push({ to: band, at: 0, bytes: north.sim.readRows(band.a - north.a, band.r0 - band.a) })
      if (south) moves.push({ to: band, at: band.r1 - band.a, bytes: south.sim.readRows(band.r1 - south.a, band.b - band.r1) })
    })
    const data = await Promise.all(moves.map((m) => m.bytes))
    await Promise.all(moves.map((m, i) => m.to.sim.writeRows(m.at, data[i])))
    this.since = 0
  }

  async thickness(): Promise<Float64Array> {
    const { cols } = this.state
    const grids = await Promise.all(this.bands.map((band) => band.sim.thickness()))
    this.bands.forEach((band, k) => {
      // Own rows, and the grid's border rows with the first and last band (they never change).
      const from = k === 0 ? 0 : band.r0
      const to = k === this.bands.length - 1 ? band.b : band.r1
      this.out.set(grids[k].subarray((from - band.a) * cols, (to - band.a) * cols), from * cols)
    })
    return this.out
  }

  async dispose(): Promise<void> {
    await Promise.all(this.bands.map((band) => band.sim.dispose()))
    this.devices.close()
  }
}
