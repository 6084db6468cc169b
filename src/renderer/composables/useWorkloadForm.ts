// A workload's form, made from its parameter schema: the fields' values as typed, the parameters
// they make (validated by the same code as the backend), and the reason the form cannot run yet.
import { computed, reactive } from 'vue'
import type { WorkloadDefinition } from '../../shared/workloads/definition'
import { defaultOf, validateParams, type ParamSchema } from '../../shared/workloads/schema'
import { messageOf } from './errors'

/** A field's value as the form holds it: numbers may be mid-typing text, names are one comma list. */
export type FieldValue = string | number | boolean | string[]

export function fieldValue(spec: ParamSchema[string], value: unknown): FieldValue {
  if (spec.type === 'names') return Array.isArray(value) ? value.join(', ') : ''
  if (spec.type === 'int' || spec.type === 'number') return typeof value === 'number' ? value : ''
  if (spec.type === 'files' || spec.type === 'choices') return Array.isArray(value) ? [...value] : []
  return (value ?? '') as FieldValue
}

/** The parameters the fields make; empty optional fields are left out. */
export function formParams(schema: ParamSchema, values: Record<string, FieldValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(schema)) {
    const v = values[name]
    // A form sets no command-line-only parameter (a dashboard's backend refuses them).
    if (spec.cliOnly) continue
    if (spec.type === 'names') {
      const names = [...new Set(String(v).split(',').map((s) => s.trim()).filter(Boolean))]
      if (names.length) out[name] = names
    } else if (spec.type === 'text') {
      if (String(v).trim()) out[name] = String(v).trim()
    } else if (spec.type === 'int' || spec.type === 'number') {
      // An empty required field stays empty, so validation names it instead of a default running unseen.
      if (v !== '') out[name] = typeof v === 'number' ? v : Number(v)
      else if (!spec.optional) out[name] = v
    } else out[name] = v
  }
  return out
}

export function useWorkloadForm(def: WorkloadDefinition) {
  const schema = def.params
  const values = reactive<Record<string, FieldValue>>(Object.fromEntries(Object.entries(schema).map(([n, spec]) => [n, fieldValue(spec, defaultOf(spec))])))
  const params = computed(() => formParams(schema, values))
  /** Why the form cannot run, in the backend's words, or null. */
  const problem = computed(() => {
    // No file chosen yet is where every run starts, not a mistake: say what to do.
    const unchosen = Object.entries(schema).find(([n, spec]) => spec.type === 'files' && Array.isArray(values[n]) && (values[n] as string[]).length === 0)
    if (unchosen) return `Choose the ${unchosen[1].label.toLowerCase()} to read`
    try {
      validateParams(def.id, schema, params.value)
      return null
    } catch (e) {
      // The backend's words, with the field's label for the parameter's name.
      let message = messageOf(e).replace(`${def.id}: `, '')
      for (const [name, spec] of Object.entries(schema)) message = message.replace(`parameter ${name} `, `${spec.label} `)
      return message
    }
  })
  /** Sets the fields from parameters (e.g. an example's); the others go back to their defaults. */
  function set(p: Record<string, unknown>): void {
    for (const [n, spec] of Object.entries(schema)) values[n] = fieldValue(spec, n in p ? p[n] : defaultOf(spec))
  }
  return { values, params, problem, set }
}
