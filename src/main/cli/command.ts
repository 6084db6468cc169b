// What every `paralab` command shares: option parsing with usage errors (exit 2), one-line
// failures (exit 1), `--help` text, and output helpers.
import { parseArgs, type ParseArgsConfig } from 'node:util'

export class UsageError extends Error {}

export interface Command {
  /** e.g. 'bench device' */
  name: string
  summary: string
  usage: string
  /** Option help lines, shown under the usage. */
  help: string
  options: NonNullable<ParseArgsConfig['options']>
  allowPositionals?: boolean
  run(values: Record<string, any>, positionals: string[]): Promise<number | void>
}

export function parse(cmd: Command, argv: string[]): { values: Record<string, any>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: cmd.allowPositionals ?? false,
      strict: true,
    })
    return { values, positionals }
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0])
  }
}

export function helpText(cmd: Command): string {
  return `${cmd.summary}\n\nUsage: ${cmd.usage}\n\n${cmd.help}${cmd.help ? '\n\n' : ''}  -h, --help  show this help\n`
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
