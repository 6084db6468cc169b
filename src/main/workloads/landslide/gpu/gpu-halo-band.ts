// A rank's band on its GPU: the band's rows (own and 2·S halo rows on each side) as a grid of their
// own on one device (halo-band.ts says why that is exact), with the halo rows moved between ranks
// as the GPU holds them (f32, or double-float pairs), so an exchange never rounds.
import type { Gpu } from '../../../gpu/runtime'
import type { GpuVariant } from '../../../../shared/workloads/landslide/types'
import type { InitialState } from '../simulation'
import { fromDoubleFloat, type GpuArithmetic, GpuSimulation } from './gpu-simulation'

export class GpuHaloBand {
  private constructor(
    private readonly sim: GpuSimulation,
    private readonly cols: number,
  ) {}

  /**
   * `state`: the band's rows; `altitudeBase`: the whole grid's (altitudeBase of the full state), so
   * that f32 altitudes are the same numbers in every rank as in a run on one device.
   */
  static async create(
    gpu: Gpu,
    state: InitialState,
    variant: GpuVariant,
    stepsPerSubmit: number,
    opts: { arithmetic: GpuArithmetic; altitudeBase: number },
  ): Promise<GpuHaloBand> {
    return new GpuHaloBand(await GpuSimulation.create(gpu, state, variant, stepsPerSubmit, opts), state.cols)
  }

  get done(): number {
    return this.sim.done
  }

  set done(step: number) {
    this.sim.done = step
  }

  get stepsPerSubmit(): number {
    return this.sim.stepsPerSubmit
  }

  get passesPerStep(): number {
    return this.sim.passesPerStep
  }

  advance(steps: number, signal?: AbortSignal): Promise<void> {
    return this.sim.advance(steps, signal)
  }

  /** Rows `first` … `first + count − 1` as the GPU holds them, for a neighbour's halo. */
  async readRaw(first: number, count: number): Promise<Uint8Array> {
    return new Uint8Array(await this.sim.readRows(first, count))
  }

  /** Overwrites rows from `first` on with another rank's readRaw(); ordered before later steps. */
  writeRaw(first: number, rows: Uint8Array): Promise<void> {
    const copy = rows.byteOffset === 0 && rows.byteLength === rows.buffer.byteLength ? (rows.buffer as ArrayBuffer) : rows.slice().buffer
    return this.sim.writeRows(first, copy)
  }

  /** Rows `first` … `first + count − 1` of h in f64 (exact: f32 and double-float pairs widen without rounding). */
  async readRows(first: number, count: number): Promise<Float64Array> {
    const values = new Float32Array(await this.sim.readRows(first, count))
    return this.sim.arithmetic === 'double-float' ? fromDoubleFloat(values) : Float64Array.from(values)
  }

  dispose(): Promise<void> {
    return this.sim.dispose()
  }
}
