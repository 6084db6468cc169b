// The study's row-band decomposition on GPUs (`--gpu-bands N`, and gpu ranks): each band of rows is
// simulated on its own device together with H = 2·S halo rows on each side, and the halos are
// refreshed from the neighbours every S steps. Several bands run as processes, one band each
// (band-processes.ts, through the ranks code of run-ranks.ts): one process cannot choose among GPUs
// of one model.
//
// Why 2·S rows: a band's grid ends at its outer halo rows, which its kernels treat as the grid's
// border (never updated, giving no flow). A cell's new thickness depends on the thicknesses two
// rows away (its neighbours' outflows toward it depend on their neighbours), so the error of a
// frozen border reaches two rows further each step: after S steps it has reached the rows within
// 2·S − 1 of it, and the band's own rows, 2·S away, are still exactly what one grid would hold.
// With the same kernels and the same f32 altitudes, the result is the same bits as one band.
import type { GpuVariant } from '../../../../shared/workloads/landslide/types'

/** Why `variant` cannot run in bands, or undefined when it can. */
export function notInBands(variant: GpuVariant): string | undefined {
  if (variant === 'active') return 'the gpu active kernel keeps its debris box on the GPU, which halo exchanges would invalidate: use one GPU band (--gpu-bands 1) or another variant'
  return undefined
}

/** Bands a grid can hold: every band needs two own rows (a halo of 2·S rows, S ≥ 1, comes from one neighbour). */
export function maxGpuBands(rows: number): number {
  return Math.max(1, Math.floor((rows - 2) / 2))
}
