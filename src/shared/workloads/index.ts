// The registry of workload definitions: the only place in src/shared that names every workload.
import { ApiError } from '../errors'
import { deviceWorkload } from './device'
import type { ParamInput, ParamValues } from './schema'
import { statsWorkload } from './stats'
import { pathsWorkload } from './paths'
import { correlationWorkload } from './correlation'
import { landslideWorkload } from './landslide'

export const WORKLOADS = [deviceWorkload, statsWorkload, pathsWorkload, correlationWorkload, landslideWorkload] as const

type AnyWorkload = (typeof WORKLOADS)[number]
export type WorkloadId = AnyWorkload['id']
export type WorkloadOf<Id extends WorkloadId> = Extract<AnyWorkload, { id: Id }>
/** Validated parameters of a workload (defaults filled in). */
export type ParamsOf<Id extends WorkloadId> = ParamValues<WorkloadOf<Id>['params']>
/** What a request to run a workload may carry (defaults may be left out). */
export type InputOf<Id extends WorkloadId> = ParamInput<WorkloadOf<Id>['params']>
export type ResultsOf<Id extends WorkloadId> = WorkloadOf<Id> extends { tables(results: infer R): unknown } ? R : never

export const WORKLOAD_IDS: readonly WorkloadId[] = WORKLOADS.map((w) => w.id)

export function isWorkloadId(id: unknown): id is WorkloadId {
  return typeof id === 'string' && (WORKLOAD_IDS as readonly string[]).includes(id)
}

/** The definition of `id`, or an 'invalid-argument' error listing the known workloads. */
export function workload<Id extends WorkloadId>(id: Id): WorkloadOf<Id>
export function workload(id: unknown): AnyWorkload
export function workload(id: unknown): AnyWorkload {
  const found = WORKLOADS.find((w) => w.id === id)
  if (!found) throw new ApiError('invalid-argument', `unknown workload ${JSON.stringify(id)?.slice(0, 80)}; known: ${WORKLOAD_IDS.join(', ')}`)
  return found
}
