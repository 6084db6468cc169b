// The statistics kernels: one WGSL module per precision, composed from the files under
// shaders/stats/ (WGSL has no includes), with a compute pipeline per entry point and pass kind.
import { ApiError } from '../../../../shared/api'
import type { Precision } from '../../../../shared/workloads/stats/types'
import { shaderSource } from '../../../gpu/runtime'
import { SAMPLE, WG } from './layout'

/** The module's parts, in order; the precision part defines `Word`, `Sum` and the key of a value. */
const PARTS = (precision: Precision) => ['stats/common', `stats/${precision}`, 'stats/sums', 'stats/select']

export type Entry = 'sample' | 'start' | 'scan' | 'combine' | 'bracket' | 'refine' | 'pick'

/** Bindings each entry point uses (the pipelines' automatic layouts hold only those). */
export const BINDINGS: Record<Entry, readonly number[]> = {
  sample: [0, 1, 2, 8],
  start: [1, 2],
  scan: [0, 1, 2, 3, 4],
  combine: [1, 2, 3],
  bracket: [1, 2],
  refine: [0, 1, 2, 4, 5, 6],
  pick: [1, 2, 5, 6],
}

/** Entry points whose code depends on the pass (values, or deviations from the centre). */
const PER_PASS: ReadonlySet<Entry> = new Set(['scan', 'refine'])

export interface StatsKernels {
  pipeline(entry: Entry, deviation: boolean): Promise<GPUComputePipeline>
  /** Compiles every pipeline of both passes (once per device and precision). */
  warm(): Promise<void>
}

/** Threads of the sample sort: one compare per thread and step where the device allows. */
export function sampleThreads(device: GPUDevice): number {
  return Math.min(SAMPLE / 2, device.limits.maxComputeInvocationsPerWorkgroup)
}

interface Composed {
  module: GPUShaderModule
  /** First line (1-based) of each part in the composed source. */
  starts: { name: string; line: number }[]
}

const cache = new WeakMap<GPUDevice, Map<string, Promise<GPUComputePipeline>>>()
const modules = new WeakMap<GPUDevice, Map<Precision, Composed>>()

export function statsKernels(device: GPUDevice, precision: Precision): StatsKernels {
  let pipelines = cache.get(device)
  if (!pipelines) cache.set(device, (pipelines = new Map()))
  const compiled = pipelines
  return {
    pipeline(entry, deviation) {
      const dev = PER_PASS.has(entry) && deviation
      const key = `${precision}:${entry}:${dev}`
      let p = compiled.get(key)
      if (!p) {
        p = compile(device, precision, entry, dev)
        compiled.set(key, p)
        p.catch(() => compiled.delete(key))
      }
      return p
    },
    async warm() {
      const entries = Object.keys(BINDINGS) as Entry[]
      await Promise.all(entries.flatMap((e) => [this.pipeline(e, false), ...(PER_PASS.has(e) ? [this.pipeline(e, true)] : [])]))
    },
  }
}

async function compile(device: GPUDevice, precision: Precision, entry: Entry, deviation: boolean): Promise<GPUComputePipeline> {
  const { module, starts } = composed(device, precision)
  const constants: Record<string, number> = {}
  if (entry === 'sample') constants.SAMPLE_WG = sampleThreads(device)
  else if (entry !== 'start') constants.WG = WG
  if (PER_PASS.has(entry)) constants.DEV = deviation ? 1 : 0
  const label = `stats/${precision}:${entry}${deviation ? ':deviation' : ''}`
  try {
    return await device.createComputePipelineAsync({ label, layout: 'auto', compute: { module, entryPoint: entry, constants } })
  } catch (e) {
    const info = await module.getCompilationInfo().catch(() => null)
    const errors = (info?.messages ?? [])
      .filter((m) => m.type === 'error')
      .map((m) => `${where(starts, m.lineNum)}:${m.linePos}: ${m.message}`)
    throw new ApiError('internal', `pipeline ${label} failed: ${errors.join('\n') || (e instanceof Error ? e.message : String(e))}`)
  }
}

function composed(device: GPUDevice, precision: Precision): Composed {
  let perDevice = modules.get(device)
  if (!perDevice) modules.set(device, (perDevice = new Map()))
  let c = perDevice.get(precision)
  if (!c) {
    const starts: Composed['starts'] = []
    let line = 1
    const code = PARTS(precision)
      .map((name) => {
        const src = shaderSource(name)
        starts.push({ name, line })
        line += src.split('\n').length
        return src
      })
      .join('\n')
    c = { module: device.createShaderModule({ label: `stats/${precision}`, code }), starts }
    perDevice.set(precision, c)
  }
  return c
}

/** `shaders/<part>.wgsl:<line>` of a line of the composed source. */
function where(starts: Composed['starts'], line: number): string {
  const part = [...starts].reverse().find((s) => s.line <= line) ?? starts[0]
  return `shaders/${part.name}.wgsl:${line - part.line + 1}`
}
