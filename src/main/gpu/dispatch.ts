// Compute dispatches: bind groups by position and many dispatches in one compute pass.
import { ApiError } from '../../shared/errors'

/** A buffer bound whole, or a range of it. */
export type Binding = GPUBuffer | GPUBufferBinding

/** Workgroup counts: x, or [x, y, z]. */
export type Workgroups = number | readonly [number, number?, number?]

export interface Dispatch {
  pipeline: GPUComputePipeline
  /** Bind groups by group index (one group: pass it alone). */
  bindGroups: GPUBindGroup | readonly GPUBindGroup[]
  workgroups: Workgroups
}

/**
 * A bind group whose binding numbers are the positions in `resources` (an array) or its keys
 * (an object, for shaders with gaps), with the pipeline's automatic layout for `group`.
 */
export function bindGroup(
  device: GPUDevice,
  pipeline: GPUComputePipeline,
  resources: readonly Binding[] | Readonly<Record<number, Binding>>,
  group = 0,
): GPUBindGroup {
  const entries = Object.entries(resources).map(([binding, r]) => ({
    binding: Number(binding),
    resource: isBuffer(r) ? { buffer: r } : r,
  }))
  return device.createBindGroup({ label: `${pipeline.label} group ${group}`, layout: pipeline.getBindGroupLayout(group), entries })
}

/** Records `dispatches` in one compute pass: Dawn orders them, with barriers where they share buffers. */
export function encodeDispatches(encoder: GPUCommandEncoder, dispatches: readonly Dispatch[], maxPerDimension: number): void {
  const pass = encoder.beginComputePass({ label: encoder.label })
  for (const d of dispatches) {
    const [x, y = 1, z = 1] = typeof d.workgroups === 'number' ? [d.workgroups] : d.workgroups
    for (const n of [x, y, z])
      if (!Number.isSafeInteger(n) || n < 0 || n > maxPerDimension)
        throw new ApiError(
          'invalid-argument',
          `dispatch of ${d.pipeline.label}: ${n} workgroups in one dimension (allowed 0…${maxPerDimension}; use workgroupGrid)`,
        )
    pass.setPipeline(d.pipeline)
    const groups = Array.isArray(d.bindGroups) ? d.bindGroups : [d.bindGroups as GPUBindGroup]
    groups.forEach((g, i) => pass.setBindGroup(i, g))
    pass.dispatchWorkgroups(x, y, z)
  }
  pass.end()
}

/**
 * A 2-D grid of at least `count` workgroups for counts beyond maxComputeWorkgroupsPerDimension.
 * The kernel computes its linear id as `wid.x + wid.y * nwg.x` and skips ids ≥ count.
 */
export function workgroupGrid(count: number, maxPerDimension: number): [number, number, number] {
  if (!Number.isSafeInteger(count) || count < 0) throw new ApiError('invalid-argument', `workgroup count must be a non-negative integer, got ${count}`)
  if (count <= maxPerDimension) return [count, 1, 1]
  const y = Math.ceil(count / maxPerDimension)
  if (y > maxPerDimension) throw new ApiError('invalid-argument', `${count} workgroups exceed ${maxPerDimension}² in a 2-D grid`)
  return [Math.ceil(count / y), y, 1]
}

function isBuffer(r: Binding): r is GPUBuffer {
  return !('buffer' in r)
}
