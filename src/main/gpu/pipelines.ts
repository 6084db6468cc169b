// Compute pipelines compiled once per device and reused, keyed by shader name, entry point
// and the values of the WGSL `override` constants.
import { ApiError } from '../../shared/api'
import { shaderPath, shaderSource } from './shaders'

export interface PipelineOptions {
  /** Values for the shader's `override` declarations, e.g. `{ WG: 256 }`. */
  constants?: Record<string, number>
  /** Defaults to `main`. */
  entryPoint?: string
}

export function pipelineKey(name: string, options: PipelineOptions = {}): string {
  const constants = Object.entries(options.constants ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',')
  return `${name}:${options.entryPoint ?? 'main'}${constants ? `{${constants}}` : ''}`
}

export class PipelineCache {
  private readonly modules = new Map<string, GPUShaderModule>()
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>()

  constructor(private readonly device: GPUDevice) {}

  /** The pipeline for `shaders/<name>.wgsl`, compiled on first use. */
  get(name: string, options: PipelineOptions = {}): Promise<GPUComputePipeline> {
    const key = pipelineKey(name, options)
    let p = this.pipelines.get(key)
    if (!p) {
      p = this.compile(name, key, options)
      this.pipelines.set(key, p)
      // A failed compilation is not cached, so a fixed shader or other constants can be retried.
      p.catch(() => this.pipelines.delete(key))
    }
    return p
  }

  /** Number of distinct pipelines compiled (or compiling). */
  get size(): number {
    return this.pipelines.size
  }

  private async compile(name: string, key: string, options: PipelineOptions): Promise<GPUComputePipeline> {
    for (const [k, v] of Object.entries(options.constants ?? {}))
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new ApiError('invalid-argument', `override ${k} of ${shaderPath(name)} must be a finite number, got ${v}`)
    const module = this.module(name)
    try {
      return await this.device.createComputePipelineAsync({
        label: key,
        layout: 'auto',
        compute: { module, entryPoint: options.entryPoint ?? 'main', constants: options.constants },
      })
    } catch (e) {
      const diagnostics = await compilationErrors(module, name)
      const detail = diagnostics || (e instanceof Error ? e.message : String(e))
      throw new ApiError('internal', `pipeline ${key} failed: ${detail}`)
    }
  }

  private module(name: string): GPUShaderModule {
    let m = this.modules.get(name)
    if (!m) {
      m = this.device.createShaderModule({ label: shaderPath(name), code: shaderSource(name) })
      this.modules.set(name, m)
    }
    return m
  }
}

/** Compiler errors as `shaders/x.wgsl:line:col: message`, one per line. */
async function compilationErrors(module: GPUShaderModule, name: string): Promise<string> {
  try {
    const info = await module.getCompilationInfo()
    return info.messages
      .filter((m) => m.type === 'error')
      .map((m) => `${shaderPath(name)}:${m.lineNum}:${m.linePos}: ${m.message}`)
      .join('\n')
  } catch {
    return ''
  }
}
