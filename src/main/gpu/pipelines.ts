// Kernels compiled once per device and reused, keyed by the shader's source after include
// expansion, the entry point and the values of the WGSL `override` constants.
import { ApiError } from '../../shared/errors'
import { type ExpandedSource, sourceLocation } from './include'
import { Kernel } from './kernel'
import { type InlineShader, expandedShader } from './shaders'
import { addSpan } from '../timeline'

export interface KernelOptions {
  /** Values for the shader's `override` declarations, e.g. `{ WG: 256 }`. */
  constants?: Record<string, number>
  /** Defaults to `main`. */
  entryPoint?: string
}

/** `name:entry{constants}`: the pipeline's label. */
function pipelineLabel(name: string, options: KernelOptions = {}): string {
  const constants = Object.entries(options.constants ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',')
  return `${name}:${options.entryPoint ?? 'main'}${constants ? `{${constants}}` : ''}`
}

interface Module {
  /** Stands for the source in the kernels' keys. */
  id: number
  module: GPUShaderModule
  source: ExpandedSource
}

export class PipelineCache {
  /** By expanded source: one module (and one pipeline per entry point and constants) whatever names reach it. */
  private readonly modules = new Map<string, Module>()
  private readonly kernels = new Map<string, Promise<Kernel>>()

  constructor(private readonly device: GPUDevice) {}

  /** The kernel of `shader` (a name under shaders/, or inline WGSL), compiled on first use. */
  get(shader: string | InlineShader, options: KernelOptions = {}): Promise<Kernel> {
    const name = typeof shader === 'string' ? shader : shader.label
    const label = pipelineLabel(name, options)
    let module: Module
    try {
      module = this.module(expandedShader(shader))
    } catch (e) {
      return Promise.reject(e)
    }
    const key = pipelineLabel(String(module.id), options)
    let k = this.kernels.get(key)
    if (!k) {
      k = this.compile(module, label, options)
      this.kernels.set(key, k)
      // A failed compilation is not cached, so other constants can be retried.
      k.catch(() => this.kernels.delete(key))
    }
    return k
  }

  /** Number of distinct pipelines compiled (or compiling). */
  get size(): number {
    return this.kernels.size
  }

  private async compile({ module, source }: Module, label: string, options: KernelOptions): Promise<Kernel> {
    for (const [k, v] of Object.entries(options.constants ?? {}))
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new ApiError('invalid-argument', `override ${k} of ${source.path} must be a finite number, got ${v}`)
    const t = performance.now()
    try {
      const pipeline = await this.device.createComputePipelineAsync({
        label,
        layout: 'auto',
        compute: { module, entryPoint: options.entryPoint ?? 'main', constants: options.constants },
      })
      addSpan('pipeline creation', t)
      return new Kernel(this.device, pipeline)
    } catch (e) {
      const diagnostics = await compilationErrors(module, source)
      const detail = diagnostics || (e instanceof Error ? e.message : String(e))
      throw new ApiError('internal', `pipeline ${label} failed: ${detail}`)
    }
  }

  private module(source: ExpandedSource): Module {
    let m = this.modules.get(source.code)
    if (!m) {
      m = { id: this.modules.size, module: this.device.createShaderModule({ label: source.path, code: source.code }), source }
      this.modules.set(source.code, m)
    }
    return m
  }
}

/** Compiler errors as `shaders/<file>.wgsl:line:col: message`, one per line, located in the file the line came from. */
async function compilationErrors(module: GPUShaderModule, source: ExpandedSource): Promise<string> {
  try {
    const info = await module.getCompilationInfo()
    return info.messages
      .filter((m) => m.type === 'error')
      .map((m) => (m.lineNum > 0 ? `${sourceLocation(source, m.lineNum)}:${m.linePos}: ${m.message}` : `${source.path}: ${m.message}`))
      .join('\n')
  } catch {
    return ''
  }
}
