// A prepared kernel: one entry point of a shader with its constants, compiled, ready to bind
// buffers to and to dispatch.
import { type Binding, type Dispatch, type Workgroups, bindGroup } from './dispatch'

export class Kernel {
  constructor(
    private readonly device: GPUDevice,
    readonly pipeline: GPUComputePipeline,
  ) {}

  /** `shader:entry{constants}`, the pipeline's label. */
  get label(): string {
    return this.pipeline.label
  }

  /**
   * A bind group of the kernel's automatic layout for `group`: binding i is resources[i] (an
   * array), or the buffer under key i (an object, for shaders whose bindings have gaps).
   */
  bind(resources: readonly Binding[] | Readonly<Record<number, Binding>>, group = 0): GPUBindGroup {
    return bindGroup(this.device, this.pipeline, resources, group)
  }

  /** One dispatch of this kernel, for `gpu.run` or `gpu.encodeDispatches`. */
  dispatch(bindGroups: GPUBindGroup | readonly GPUBindGroup[], workgroups: Workgroups): Dispatch {
    return { pipeline: this.pipeline, bindGroups, workgroups }
  }
}
