// Result envelopes as the backend wraps every job's results (src/main/results/envelope.ts), with a
// fixed host and time so tests can compare them whole.
import type { DeviceSummary, HostInfo, InputFile, ResultEnvelope, Timing } from '../../src/shared/workloads/envelope'

export const HOST: HostInfo = { cpu: 'Test CPU @ 3.0GHz', cores: 8, memoryBytes: 16e9, os: 'linux 6.1.0 x64', node: 'v20.19.0' }

export function envelopeOf<R, P>(
  workload: string,
  params: P,
  results: R,
  more: { files?: InputFile[]; timings?: Record<string, Timing>; device?: DeviceSummary } = {},
): ResultEnvelope<R, P> {
  return {
    workload,
    paralabVersion: '0.1.0',
    createdAt: '2025-01-02T03:04:05.000Z',
    params,
    input: { files: more.files ?? [] },
    host: HOST,
    ...(more.device && { device: more.device }),
    timings: more.timings ?? {},
    results,
  }
}
