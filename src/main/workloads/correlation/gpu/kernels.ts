// The correlation kernels: the shader of each stage and variant, the constants it is compiled
// with, the block a cross-product workgroup computes, and each stage's work for the roofline.
import type { CrossVariant, MeansVariant } from '../../../../shared/workloads/correlation/types'
import type { Gpu, Kernel } from '../../../gpu/runtime'
import { type RegisterShape, shapeConstants } from './register-shapes'

/** Outputs per side of a cross-product workgroup's block (the register kernel's is its shape's). */
const CROSS_BLOCK = { naive: 16, tiled: 16 } as const

export function crossBlock(variant: CrossVariant, shape: RegisterShape): number {
  return variant === 'register' ? shape.block : CROSS_BLOCK[variant]
}

export function meansKernel(gpu: Gpu, variant: MeansVariant, compensated: boolean): Promise<Kernel> {
  const constants: Record<string, number> = { COMP: compensated ? 1 : 0 }
  if (variant === 'naive') constants.WG = 64
  if (variant === 'shared') constants.WG = 256
  return gpu.kernel(`correlation/means_${variant}`, { constants })
}

export function squaresKernel(gpu: Gpu, compensated: boolean): Promise<Kernel> {
  return gpu.kernel('correlation/squares', { constants: { COMP: compensated ? 1 : 0, WG: 256 } })
}

export function crossKernel(gpu: Gpu, variant: CrossVariant, compensated: boolean, shape: RegisterShape): Promise<Kernel> {
  const constants = { COMP: compensated ? 1 : 0, ...(variant === 'register' ? shapeConstants(shape) : {}) }
  return gpu.kernel(`correlation/cross_${variant}`, { constants })
}

export function coefficientsKernel(gpu: Gpu): Promise<Kernel> {
  return gpu.kernel('correlation/coefficients')
}

/** Whether the adapter can run a means variant, or why not. */
export function meansUnavailable(gpu: Gpu, variant: MeansVariant): string | null {
  return variant === 'subgroup' && !gpu.features.includes('subgroups') ? `the adapter (${gpu.adapter.description || gpu.adapter.vendor}) has no subgroups` : null
}

/** Work of one run of a stage: the arithmetic of the algorithm (compensation not counted) and the compulsory memory traffic. */
export interface Work {
  flop: number
  bytes: number
}

/** Means: an addition per sample; reads each sample (two words under compensation). */
export function meansWork(m: number, n: number, compensated: boolean): Work {
  return { flop: m * n, bytes: m * n * (compensated ? 8 : 4) + m * 4 }
}

/**
 * Cross-products of `outputs` computed outputs over k samples: 2 FLOP per sample and output; each
 * workgroup reads its block's two sides of rows once (`block` outputs per side), so the traffic is
 * the outputs' share of 2 × block rows of k samples, plus the outputs written.
 */
export function crossWork(outputs: number, k: number, block: number): Work {
  return { flop: 2 * outputs * k, bytes: (outputs / (block * block)) * 2 * block * k * 4 + outputs * 4 }
}
