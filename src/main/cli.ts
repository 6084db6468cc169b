#!/usr/bin/env node
// `paralab`: the command line of Paralab. Exit codes: 0 success, 1 failure (one line on stderr
// naming what went wrong), 2 usage error.
//
// Only the version is read at start: the commands, the engines and the machinery are imported
// once a command needs them (`--version` loads none of them). The commands' list and help need only
// their declarations: each engine imports its job (and through it GPU code, benchmarks' baselines,
// chart rendering) only when a job runs, each command its implementation only in `run`, `serve`
// its server and `--slurm` the cluster code; the GPU runtime loads when a GPU is first asked for.
import { ApiError } from '../shared/errors'
import type { Command } from './terminal/command'
import { nearestName } from './terminal/nearest'
import { version } from '../../package.json'

/** Every command, and what the entry needs beside them. */
async function loadCommands() {
  const [command, jobs, merge, serve, workloads, workloadCommand, registry, gpu, relaxed, headline, report, rerun] = await Promise.all([
    import('./terminal/command'),
    import('./cli/commands/jobs'),
    import('./cli/commands/merge'),
    import('./cli/commands/serve'),
    import('./cli/commands/workloads'),
    import('./cli/workload-command'),
    import('./workloads'),
    import('./gpu/on-demand'),
    import('./relaxed-simd'),
    import('./cli/commands/headline'),
    import('./cli/commands/report'),
    import('./cli/commands/rerun'),
  ])
  // Node 20 needs a flag for the correlation kernels' fused multiply-adds; set before any
  // WebAssembly is compiled (the modules above compile none on import).
  relaxed.enableRelaxedSimd()
  // Releases the device if a command opened one; the GPU runtime itself loads with the first use.
  shutdownGpu = gpu.shutdownGpu
  UsageError = command.UsageError
  const commands: Command[] = [
    ...registry.ENGINES.flatMap(workloadCommand.engineCommands),
    headline.benchHeadlineCommand,
    workloads.workloadsCommand,
    serve.serveCommand,
    jobs.jobsCommand,
    jobs.jobsCancelCommand,
    merge.mergeCommand,
    report.reportCommand,
    rerun.rerunCommand,
  ]
  return { commands, helpText: command.helpText, parse: command.parse }
}

/** Set once the commands are loaded: nothing to shut down or to recognise before. */
let shutdownGpu: () => Promise<void> = async () => {}
let UsageError: typeof import('./terminal/command').UsageError | undefined
let COMMANDS: Command[] = []

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'Paralab: data-parallel computing on local files, on the CPU and the GPU.',
    '',
    'Usage: paralab <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `paralab <command> --help` for a command\'s options. Global: --help, --version.',
    '',
  ].join('\n')
}

/** The command named by the longest matching prefix of words, e.g. `bench device`. */
function findCommand(argv: string[]): { cmd: Command; rest: string[] } | undefined {
  let best: { cmd: Command; rest: string[] } | undefined
  for (const cmd of COMMANDS) {
    const words = cmd.name.split(' ')
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.cmd.name.split(' ').length))
      best = { cmd, rest: argv.slice(words.length) }
  }
  return best
}

/** An unknown command's message: the nearest command when one is near, and every command's first word. */
function unknownCommand(word: string): string {
  const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))]
  const nearest = nearestName(word, names)
  const hint = nearest ? `; did you mean "${nearest}"?` : ''
  return `unknown command "${word}"${hint}\ncommands: ${names.join(', ')} (paralab --help describes them)`
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') {
    process.stdout.write(`${version}\n`)
    return 0
  }
  const { commands, helpText, parse } = await loadCommands()
  COMMANDS = commands
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(overview())
    return argv.length === 0 ? 2 : 0
  }
  const found = findCommand(argv)
  if (!found) {
    const group = COMMANDS.filter((c) => c.name.startsWith(argv[0] + ' '))
    if (group.length && (argv[1] === '--help' || argv[1] === '-h')) {
      process.stdout.write(`Usage: paralab ${argv[0]} <${group.map((c) => c.name.split(' ')[1]).join('|')}> [options]\n\n${group.map((c) => `  ${c.name.padEnd(16)} ${c.summary}`).join('\n')}\n`)
      return 0
    }
    if (group.length) {
      const subs = group.map((c) => c.name.split(' ').slice(1).join(' '))
      // `generate accc`: the subcommand nearest to what was typed, as for commands.
      const nearest = argv[1] === undefined ? undefined : nearestName(argv[1], subs)
      if (argv[1] !== undefined && !argv[1].startsWith('-'))
        throw new UsageError!(`unknown command "${argv[0]} ${argv[1]}"${nearest ? `; did you mean "${argv[0]} ${nearest}"?` : ''} (${argv[0]} takes one of: ${subs.join(', ')})`)
      throw new UsageError!(`${argv[0]} needs one of: ${subs.join(', ')}`)
    }
    throw new UsageError!(unknownCommand(argv[0]))
  }
  const { values, positionals } = parse(found.cmd, found.rest)
  if (values.help) {
    process.stdout.write(helpText(found.cmd))
    return 0
  }
  // A command whose launcher is gone (an npx or a script killed) stops rather than running on as an orphan.
  ;(await import('./cli/launcher-watch')).stopWhenLaunchersEnd()
  return (await found.cmd.run(values, positionals)) ?? 0
}

async function exit(code: number): Promise<never> {
  // Should the process end on its own while the GPU shuts down or the streams drain, it ends with this code.
  process.exitCode = code
  await shutdownGpu().catch(() => undefined)
  // Let stdout and stderr drain before exiting (pipes are written asynchronously); exiting rather
  // than returning because Dawn's threads would otherwise keep the process alive.
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))))
  process.exit(code)
}

// A command whose work is still pending when the event loop runs dry (a promise that nothing will
// settle) would otherwise end with exit code 0 and no word: it is a failure, and says so.
let settled = false
process.on('beforeExit', () => {
  if (settled) return
  settled = true
  process.stderr.write('paralab: error: the command ended before its work finished (nothing was left to wait for); please report this\n')
  void exit(1)
})

main(process.argv.slice(2)).finally(() => (settled = true)).then(exit, (e: unknown) => {
  if (UsageError && e instanceof UsageError) {
    process.stderr.write(`paralab: ${e.message}\n`)
    return exit(2)
  }
  const err = ApiError.from(e)
  process.stderr.write(`paralab: ${err.code === 'internal' ? 'error: ' : ''}${err.message.split('\n')[0]}\n`)
  if (process.env.PARALAB_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`)
  // Cancelled (Ctrl-C, or SIGTERM: cli/interrupt.ts) is 130, 128 + SIGINT as shells report Ctrl-C.
  return exit(err.code === 'cancelled' ? 130 : 1)
})
