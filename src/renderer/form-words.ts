// The backend's messages in the dashboard's words: a message names a parameter by its command-line
// flag (`choose with --columns`), which the dashboard shows as a field; the field's label is what
// the user sees there. Flags of command-line-only parameters have no field and stay as they are.
import type { WorkloadDefinition } from '../shared/workloads/definition'
import { flagName, type ParamSchema } from '../shared/workloads/schema'

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function inFormWords(message: string, def: Pick<WorkloadDefinition, 'params'>): string {
  let out = message
  for (const [name, spec] of Object.entries(def.params as ParamSchema)) {
    if (spec.cliOnly) continue
    out = out.replace(new RegExp(`--${escape(flagName(name, spec))}(?![\\w-])`, 'g'), `“${spec.label}”`)
  }
  return out
}
