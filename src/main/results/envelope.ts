// The envelope around a job's results: what ran, when, on which host and device, with which
// parameters and inputs, and how long each backend took.
import { cpus, arch, availableParallelism, release, totalmem, type } from 'node:os'
import { stat } from 'node:fs/promises'
import { adapterName, type AdapterInfo } from '../../shared/device'
import type { DeviceSummary, HostInfo, InputFile, ResultEnvelope, Timing } from '../../shared/workloads/envelope'
import { formatReadBy } from '../../shared/formats'
import type { WorkloadId } from '../../shared/workloads'
import { sniffFile } from '../io/sniff'
import { version } from '../../../package.json'
import { sourceCommit } from '../build-info'

export function hostInfo(): HostInfo {
  return {
    cpu: cpus()[0]?.model.trim() || arch(),
    cores: availableParallelism(),
    memoryBytes: totalmem(),
    os: `${type()} ${release()} ${arch()}`,
    node: process.version,
  }
}

/** Dawn's native API per platform: Vulkan on Linux, Metal on macOS, Direct3D 12 on Windows. */
const NATIVE_API: Partial<Record<NodeJS.Platform, string>> = { linux: 'Vulkan', darwin: 'Metal', win32: 'D3D12' }

export function deviceSummary(a: AdapterInfo): DeviceSummary {
  return {
    adapter: adapterName(a),
    vendor: a.vendor,
    backend: `WebGPU (Dawn) on ${NATIVE_API[process.platform] ?? process.platform}, ${a.source}`,
    software: a.isSoftware,
  }
}

/**
 * A file a job read, with the format `workload` reads it as (its content sniffed; `named` is the
 * path as given, whose extension tells text formats apart).
 */
export async function inputFile(path: string, workload?: WorkloadId, named = path): Promise<InputFile> {
  const s = await stat(path)
  const file: InputFile = { path, bytes: s.size, modified: s.mtime.toISOString() }
  if (!workload) return file
  const format = formatReadBy(workload, named, (await sniffFile(path)).kind)
  return format ? { ...file, format: format.id } : file
}

export function envelope<R, P>(
  workload: string,
  params: P,
  outcome: { results: R; timings: Record<string, Timing>; partial?: boolean; missing?: string[] },
  context: { createdAt: Date; inputs: InputFile[]; adapter?: AdapterInfo },
): ResultEnvelope<R, P> {
  return {
    workload,
    paralabVersion: version,
    ...(sourceCommit() && { paralabCommit: sourceCommit() }),
    createdAt: context.createdAt.toISOString(),
    params,
    input: { files: context.inputs },
    host: hostInfo(),
    ...(context.adapter && { device: deviceSummary(context.adapter) }),
    timings: outcome.timings,
    ...(outcome.partial && { partial: true, ...(outcome.missing?.length && { missing: outcome.missing }) }),
    results: outcome.results,
  }
}
