// A workload's parameters, declared once: type, default, range or choices, unit and help. From the
// declaration come the validation of every request, the CLI's flags and help, and the dashboard's
// form fields with their defaults.
import { ApiError } from '../errors'

interface ParamBase {
  /** Short name for forms and tables, e.g. "Repeat". */
  label: string
  /** One sentence for `--help` and tooltips. */
  help: string
  unit?: string
  /** No default: the parameter may be left out (the engine then chooses, as `help` says). */
  optional?: boolean
  /** The CLI flag, when not the parameter's name in kebab case (e.g. `backend` for `backends`). */
  flag?: string
  /**
   * Only the command line may set it (e.g. a path to write to): backends that serve a dashboard
   * refuse it, so that no page can make them write files, and forms leave it out.
   */
  cliOnly?: boolean
  /**
   * Used only when one of these backends runs (e.g. the GPU's kernel variants): left out of a
   * run's recorded parameters when none of them is chosen, so that a record names only what ran.
   */
  usedBy?: readonly string[]
  /** The CLI's placeholder for the value in `--help` (e.g. FILE, VERTEX). */
  arg?: string
}

export interface IntParam extends ParamBase {
  type: 'int'
  min: number
  max: number
  default?: number
}

export interface NumberParam extends ParamBase {
  type: 'number'
  min: number
  max: number
  default?: number
}

export interface BooleanParam extends ParamBase {
  type: 'boolean'
  /** Absent only on an optional flag (false when left out). */
  default?: boolean
}

/** One of a list. */
export interface ChoiceParam<C extends string = string> extends ParamBase {
  type: 'choice'
  choices: readonly C[]
  default: C
}

/** Several of a list (at least one), kept in the list's order; the CLI also accepts `all`. */
export interface ChoicesParam<C extends string = string> extends ParamBase {
  type: 'choices'
  choices: readonly C[]
  default: readonly C[]
}

/** Input files, at least one: the CLI's positional arguments, where a folder stands for its files of these extensions. */
export interface FilesParam extends ParamBase {
  type: 'files'
  extensions: readonly string[]
  /**
   * Files that each have a role, named by CLI flags instead of arguments (`--dem F --source F`):
   * the flags given make the list, in this order. Arguments and these flags do not mix.
   */
  roles?: readonly { flag: string; help: string }[]
}

/** A list of names (e.g. columns), distinct, none empty; may be left out. */
export interface NamesParam extends ParamBase {
  type: 'names'
  optional: true
}

/** One non-empty text, e.g. a file to write or a vertex's name; may be left out. */
export interface TextParam extends ParamBase {
  type: 'text'
  optional: true
}

/**
 * `--force`, for a workload whose run writes files that the command line names (`--output`): the
 * CLI's own `--force` (which also replaces an `--out` folder) sets it.
 */
export const FORCE_PARAM = {
  type: 'boolean',
  label: 'Replace files',
  optional: true,
  cliOnly: true,
  help: 'replace files the run writes',
} as const satisfies BooleanParam

export type ParamSpec = IntParam | NumberParam | BooleanParam | ChoiceParam | ChoicesParam | FilesParam | NamesParam | TextParam
export type ParamSchema = Readonly<Record<string, ParamSpec>>

type ValueOf<S> = S extends { type: 'int' | 'number' }
  ? number
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'choice'; choices: readonly (infer C)[] }
      ? C
      : S extends { type: 'choices'; choices: readonly (infer C)[] }
        ? C[]
        : S extends { type: 'files' | 'names' }
          ? string[]
          : S extends { type: 'text' }
            ? string
            : never

type OptionalKeys<S extends ParamSchema> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S]

/** Validated parameters: every declared one, defaults filled in; optional ones may be absent. */
export type ParamValues<S extends ParamSchema> = { -readonly [K in Exclude<keyof S, OptionalKeys<S>>]: ValueOf<S[K]> } & {
  -readonly [K in OptionalKeys<S>]?: ValueOf<S[K]>
}

/** What a request may carry: files are required, everything else falls back to its default. */
export type ParamInput<S extends ParamSchema> = { [K in keyof S as S[K] extends { type: 'files' } ? K : never]: string[] } & {
  [K in keyof S as S[K] extends { type: 'files' } ? never : K]?: ValueOf<S[K]>
}

/** The parameter's outside name: the CLI flag and the form field's test id (`readMb` → `read-mb`). */
export function flagName(param: string, spec: ParamSpec): string {
  return spec.flag ?? param.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

const MAX_NAMES = 10_000
const MAX_NAME_LENGTH = 4096

function quote(v: unknown): string {
  let text: string
  try {
    text = JSON.stringify(v) ?? String(v)
  } catch {
    text = String(v)
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/** What a parameter accepts, in words: "an integer in 1…1000", "one of f64, f32". */
export function allowedText(spec: ParamSpec): string {
  switch (spec.type) {
    case 'int':
      return `an integer in ${spec.min}…${spec.max}`
    case 'number':
      return `a number in ${spec.min}…${spec.max}`
    case 'boolean':
      return 'true or false'
    case 'choice':
      return `one of ${spec.choices.join(', ')}`
    case 'choices':
      return `a non-empty list of ${spec.choices.join(', ')}`
    case 'files':
      return 'a non-empty list of file paths'
    case 'names':
      return 'a list of distinct, non-empty names'
    case 'text':
      return 'a non-empty text'
  }
}

function bad(owner: string, name: string, value: unknown, spec: ParamSpec): never {
  throw new ApiError('invalid-argument', `${owner}: parameter ${name} must be ${allowedText(spec)}; got ${quote(value)}`)
}

function checkValue(owner: string, name: string, spec: ParamSpec, v: unknown): unknown {
  switch (spec.type) {
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < spec.min || v > spec.max) bad(owner, name, v, spec)
      return v
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v) || v < spec.min || v > spec.max) bad(owner, name, v, spec)
      return v
    case 'boolean':
      if (typeof v !== 'boolean') bad(owner, name, v, spec)
      return v
    case 'choice':
      if (typeof v !== 'string' || !spec.choices.includes(v)) bad(owner, name, v, spec)
      return v
    case 'choices': {
      if (!Array.isArray(v) || v.length === 0 || v.some((c) => typeof c !== 'string' || !spec.choices.includes(c))) bad(owner, name, v, spec)
      // Canonical order, each once, whatever order they were given in.
      return spec.choices.filter((c) => v.includes(c))
    }
    case 'text':
      if (typeof v !== 'string' || v.length === 0 || v.length > MAX_NAME_LENGTH || v.includes('\0')) bad(owner, name, v, spec)
      return v
    case 'files':
    case 'names': {
      const ok =
        Array.isArray(v) &&
        v.length <= MAX_NAMES &&
        (spec.type === 'names' || v.length > 0) &&
        v.every((s) => typeof s === 'string' && s.length > 0 && s.length <= MAX_NAME_LENGTH && !s.includes('\0'))
      if (!ok) bad(owner, name, v, spec)
      if (spec.type === 'names' && new Set(v as string[]).size !== (v as string[]).length) bad(owner, name, v, spec)
      return [...(v as string[])]
    }
  }
}

/** The default of a parameter, or undefined for optional ones and files. */
export function defaultOf(spec: ParamSpec): unknown {
  if (spec.type === 'choices') return [...spec.default]
  return 'default' in spec ? spec.default : undefined
}

/**
 * Checks `input` against `schema` and returns the parameters with defaults filled in. An unknown
 * parameter, a missing required one or a value out of range is an 'invalid-argument' error
 * naming `owner` (the workload), the parameter, the value and what is allowed.
 */
export function validateParams<S extends ParamSchema>(owner: string, schema: S, input: unknown): ParamValues<S> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ApiError('invalid-argument', `${owner}: parameters must be an object; got ${quote(input)}`)
  const given = input as Record<string, unknown>
  for (const key of Object.keys(given))
    if (!Object.hasOwn(schema, key))
      throw new ApiError('invalid-argument', `${owner}: unknown parameter ${quote(key)}; known: ${Object.keys(schema).join(', ')}`)
  const out: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(schema)) {
    const v = given[name]
    if (v !== undefined) out[name] = checkValue(owner, name, spec, v)
    else if (spec.type === 'files') throw new ApiError('invalid-argument', `${owner}: parameter ${name} is required (${allowedText(spec)})`)
    else if (defaultOf(spec) !== undefined) out[name] = defaultOf(spec)
  }
  return out as ParamValues<S>
}

/**
 * The parameters a run records: those of backends that did not run (`usedBy`) left out. The
 * chosen backends are the schema's `backends` parameter.
 */
export function recordedParams<S extends ParamSchema>(schema: S, values: ParamValues<S>): Partial<ParamValues<S>> {
  const chosen = (values as Record<string, unknown>).backends
  if (!Array.isArray(chosen)) return values
  return Object.fromEntries(Object.entries(values).filter(([name]) => !schema[name]?.usedBy || schema[name].usedBy!.some((b) => chosen.includes(b)))) as Partial<ParamValues<S>>
}

/** Every parameter at its default (files and optional ones left out). */
export function defaultParams<S extends ParamSchema>(schema: S): Partial<ParamValues<S>> {
  const out: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(schema)) if (defaultOf(spec) !== undefined) out[name] = defaultOf(spec)
  return out as Partial<ParamValues<S>>
}
