// The command that runs a recorded job again: `paralab <workload>`, every parameter the command
// takes as a flag at its recorded value (defaults too, so that a later version's other defaults
// change nothing), then `--` and the input files as the job was given them. Each word is quoted
// for a POSIX shell (cluster/script-words.ts), so a file name with spaces, quotes or `$` is
// carried as it is.
import { workload } from '../../shared/workloads'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import type { ParamSchema } from '../../shared/workloads/schema'
import { commandLine } from '../cluster/script-words'
import { flagWords } from '../cluster/task-plan'
import { flagParams } from '../terminal/flag-params'

export interface RerunCommand {
  /** For a shell. */
  line: string
  /** Input files given by a relative path: the command runs from the folder the job was started in. */
  relative: boolean
}

export function rerunCommand(env: ResultEnvelope): RerunCommand {
  const def = workload(env.workload)
  const schema = def.params as ParamSchema
  const params = env.params as Record<string, unknown>
  const flags = flagParams(schema).flatMap(([name, spec]) => {
    if (params[name] === undefined) return []
    try {
      return flagWords(name, spec, params[name])
    } catch {
      // A name a flag cannot carry back (a comma in it): shown as recorded, for people to read.
      return [`--${name}=${JSON.stringify(params[name])}`]
    }
  })
  if (params.force === true && schema.force) flags.push('--force')
  const files = Object.entries(schema).flatMap(([name, spec]) => (spec.type === 'files' && Array.isArray(params[name]) ? (params[name] as string[]) : []))
  const words = ['paralab', def.id, ...flags, ...(files.length ? ['--', ...files] : [])]
  return { line: commandLine(words), relative: files.some((f) => !f.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(f)) }
}
