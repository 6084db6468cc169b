// What every `paralab` command shares: option parsing with usage errors (exit 2), one-line
// failures (exit 1), `--help` text, and output helpers.
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ApiError } from '../../shared/errors'
import { nearestName } from './nearest'

export class UsageError extends Error {}

/** Makes the folders above files a command is about to write, as `--out` makes its own. */
export async function makeParents(files: string[]): Promise<void> {
  for (const file of files)
    await mkdir(dirname(file), { recursive: true }).catch((e: NodeJS.ErrnoException) => {
      throw new ApiError('io', `cannot write ${file}: ${e.code === 'EEXIST' || e.code === 'ENOTDIR' ? `a file stands where a folder above it should be (${e.path ?? dirname(file)})` : e.message}`)
    })
}

export interface Command {
  /** e.g. 'bench device' */
  name: string
  summary: string
  usage: string
  /** Option help lines, shown under the usage. */
  help: string
  options: NonNullable<ParseArgsConfig['options']>
  allowPositionals?: boolean
  /** Options whose value is another program's option (`--sbatch-arg --mem=8G`): taken whatever it starts with. */
  passThrough?: string[]
  run(values: Record<string, any>, positionals: string[]): Promise<number | void>
}

/**
 * `--steps -1` as `--steps=-1`: a negative number after an option that takes a value is its value
 * (to be refused by the option's own check, saying what is allowed), not an unknown option; so is
 * anything after a pass-through option.
 */
function joinNegativeValues(cmd: Command, argv: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    // After `--` every word is an argument, whatever it looks like.
    if (argv[i] === '--') {
      out.push(...argv.slice(i))
      break
    }
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : undefined
    const next = argv[i + 1]
    const joins = name !== undefined && cmd.options[name]?.type === 'string' && next !== undefined && (/^-(\d|\.\d|Infinity)/.test(next) || (cmd.passThrough?.includes(name) ?? false))
    if (joins) out.push(`${argv[i]}=${argv[++i]}`)
    else out.push(argv[i])
  }
  return out
}

export function parse(cmd: Command, argv: string[]): { values: Record<string, any>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: joinNegativeValues(cmd, argv),
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: cmd.allowPositionals ?? false,
      strict: true,
    })
    return { values, positionals }
  } catch (e) {
    const err = e as Error & { code?: string }
    const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-{1,2}[^'=]+)/.exec(err.message)?.[1] : undefined
    if (unknown) throw new UsageError(unknownOption(cmd, unknown))
    throw new UsageError(err.message.split('\n')[0])
  }
}

/** An unknown option's message: the nearest of the command's options when one is near, and where its options are listed. */
function unknownOption(cmd: Command, option: string): string {
  const nearest = option.startsWith('--') ? nearestName(option.slice(2), [...Object.keys(cmd.options), 'help']) : undefined
  return `unknown option ${option}${nearest ? `; did you mean --${nearest}?` : ''} (paralab ${cmd.name} --help lists its options)`
}

export function helpText(cmd: Command): string {
  const help = cmd.help.includes('-h, --help') ? cmd.help : `${cmd.help}${cmd.help ? '\n' : ''}  -h, --help  show this help`
  return `${cmd.summary}\n\nUsage: ${cmd.usage}\n\n${alignHelp(help)}\n`
}

/**
 * An option (or argument) line: `  --flag ARG  what it does`, `  <graph>  …` or `  DIR  …`, the
 * two parts apart by two spaces or more.
 */
const OPTION_LINE = /^  ((?:[-<]|[A-Z][A-Z_]*(?= |$))\S*(?: \S+)*)  +(\S.*)$/
/** Option names longer than this put their text on the next line. */
const WIDEST_OPTION = 28

/**
 * Help text with every option's description starting in one column, after the longest option
 * name (up to WIDEST_OPTION); the lines that continue a description follow it.
 */
export function alignHelp(help: string): string {
  const lines = help.split('\n')
  const heads = lines.map((l) => OPTION_LINE.exec(l)?.[1]).filter((h): h is string => h !== undefined)
  const width = Math.max(0, ...heads.map((h) => h.length).filter((n) => n <= WIDEST_OPTION))
  const indent = ' '.repeat(width + 4)
  let inOption = false
  return lines
    .map((line) => {
      const m = OPTION_LINE.exec(line)
      if (m) {
        inOption = true
        return m[1].length > width ? `  ${m[1]}\n${indent}${m[2]}` : `  ${m[1].padEnd(width)}  ${m[2]}`
      }
      if (inOption && /^ {4,}\S/.test(line)) return indent + line.trimStart()
      inOption = false
      return line
    })
    .join('\n')
}
/** A whole number option within bounds, or a usage error naming the option. */
export function intOption(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in ${min}…${max}, got "${value}"`)
  return n
}

/** A number option within bounds, or a usage error naming the option. */
export function numberOption(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (String(value).trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} must be a number in ${min}…${max}, got "${value}"`)
  return n
}

export function writeJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n')
}
