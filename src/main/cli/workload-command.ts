// `paralab <workload>`: one command per workload, its flags and help made from the workload's
// parameter schema, plus --example, --out, --force and --json, which every workload has.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { CHART_SIZE_LIMITS, type ChartSize } from '../../shared/api'
import { ApiError } from '../../shared/errors'
import { formatLine, formatsOf } from '../../shared/formats'
import { allowedText, defaultOf, flagName, type ParamSchema, type ParamSpec } from '../../shared/workloads/schema'
import type { ResultEnvelope } from '../../shared/workloads/envelope'
import type { AnyEngine, EngineCli } from '../engine'
import { checkOutputDir, type OutputFile, writeOutputs } from '../results/outputs'
import { Backend } from '../backend/backend'
import { ENGINES } from '../workloads'
import { CLUSTER_HELP, clusterMode } from './cluster-flags'
import { CLUSTER_OPTIONS, flagParams } from '../terminal/flag-params'
import { intOption, numberOption, UsageError, writeJson, type Command } from '../terminal/command'
import { describeRun, presentRun } from './present'
import { runJob } from './run-job'
import { placementFromEnv, type RankPlacement } from '../ranks/placement'
import { pushAll } from '../../shared/extent'
import { addSpan, recordTimeline, timelineSpans } from '../timeline'
import { timingsText } from './timings'

const ARG: Record<ParamSpec['type'], string> = { int: ' N', number: ' X', boolean: '', choice: ' C', choices: ' a,b', names: ' a,b', files: '', text: ' TEXT' }


const COMMON_HELP: [string, string][] = [
  ['--example', 'run the workload\'s example (its input is made on first use)'],
  ['--out DIR', 'write results.json (the envelope), the result tables as CSV and the charts as SVG and PNG'],
  ['--width N, --height N, --scale S', 'size of the charts in --out: 960 × 600 layout pixels, PNG at scale 2 (1920 × 1200) by default'],
  ['--report FILE', 'also write the run\'s report to FILE: one self-contained HTML file (inputs, machine, parameters, tables, charts, checks, the command that runs it again)'],
  ['--force', 'replace the --out folder of an earlier run, and any file the run writes'],
  ['--json', 'print the result envelope as one JSON object on stdout'],
  ['--progress json', 'progress on stderr as one JSON object per event (default: a bar on a terminal, else a line per phase and one at least every 10 s, PARALAB_PROGRESS_MS, with the rate and the time left)'],
  ['--timings', 'print on stderr where the time went, stage by stage (process start, the load, the GPU\'s adapter, device and pipelines, uploads, computes, writing the results), and what ran beside the load'],
  ...CLUSTER_HELP,
  ['-h, --help', 'show this help'],
]

/** A flag's help line: its name and placeholder, and the parameter's help with what it accepts. */
function flagHelp(name: string, spec: ParamSpec): [string, string] {
  const head = `--${flagName(name, spec)}${spec.arg ? ` ${spec.arg}` : ARG[spec.type]}`
  const def = defaultOf(spec)
  const shown = Array.isArray(def) ? def.join(',') : def
  const detail = spec.type === 'boolean' || spec.type === 'text' ? '' : ` (${allowedText(spec)}${spec.type === 'choices' ? ', or all' : ''}${spec.unit ? `, in ${spec.unit}` : ''}${shown !== undefined && shown !== false ? `; default ${shown}` : ''})`
  return [head, `${spec.help}${detail}`]
}


function filesParam(schema: ParamSchema): [string, Extract<ParamSpec, { type: 'files' }>] | undefined {
  return Object.entries(schema).find((e): e is [string, Extract<ParamSpec, { type: 'files' }>] => e[1].type === 'files')
}

/** A flag's text as the parameter's value, or a usage error naming the flag and what it accepts. */
function parseFlag(name: string, spec: ParamSpec, raw: string | boolean): unknown {
  const flag = `--${flagName(name, spec)}`
  if (spec.type === 'boolean') return raw
  const text = String(raw)
  const list = () => text.split(',').map((s) => s.trim()).filter(Boolean)
  switch (spec.type) {
    case 'int':
    case 'number': {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n) || (spec.type === 'int' && !Number.isInteger(n)) || n < spec.min || n > spec.max)
        throw new UsageError(`${flag} must be ${allowedText(spec)}, got "${text}"`)
      return n
    }
    case 'choice':
      if (!spec.choices.includes(text)) throw new UsageError(`${flag} must be ${allowedText(spec)}, got "${text}"`)
      return text
    case 'choices': {
      if (text === 'all') return [...spec.choices]
      const picked = list()
      const unknown = picked.find((c) => !spec.choices.includes(c))
      if (unknown !== undefined || picked.length === 0) throw new UsageError(`${flag} must be ${spec.choices.join(', ')} or all, got "${unknown ?? text}"`)
      return picked
    }
    case 'names':
      return [...new Set(list())]
    case 'text':
      if (text === '') throw new UsageError(`${flag} needs a value`)
      return text
    case 'files':
      throw new UsageError(`${flag}: files are given as arguments`)
  }
}

/** A task's place in its job: its rank of `srun --ntasks R` (one of one without srun), the task folder its ranks meet and checkpoint in. */
function taskRanks(taskDir: string): RankPlacement | null {
  return placementFromEnv(process.env, taskDir) ?? null
}

/** Files as given; a folder stands for its files with the parameter's extensions, sorted. */
async function expandInputs(inputs: string[], extensions: readonly string[]): Promise<string[]> {
  const files: string[] = []
  for (const input of inputs) {
    const s = await stat(input).catch(() => {
      throw new ApiError('io', `${input}: no such file or directory`)
    })
    if (!s.isDirectory()) {
      files.push(input)
      continue
    }
    const found = (await readdir(input)).filter((f) => extensions.some((e) => f.toLowerCase().endsWith(`.${e}`))).sort()
    if (found.length === 0) throw new ApiError('invalid-input', `${input}: no ${extensions.map((e) => `*.${e}`).join(' or ')} files in this folder`)
    pushAll(files, found.map((f) => join(input, f)))
  }
  return files
}

/** The command that runs `engine`'s workload, optionally under another name with parameters fixed. */
export function workloadCommand(engine: AnyEngine, preset?: { name: string; summary: string; params: Record<string, unknown> }): Command {
  const def = engine.definition
  const schema: ParamSchema = def.params
  const fixed = preset?.params ?? {}
  const free = flagParams(schema, fixed)
  const takesForce = schema.force?.type === 'boolean'
  const files = filesParam(schema)
  const name = preset?.name ?? def.id
  const roles = files?.[1].roles ?? []
  const fileFlags = engine.cli.fileFlags as EngineCli<unknown>['fileFlags']
  const usage = `paralab ${name}${files ? ` <${files[1].extensions.join('|')} file|folder>…` : ''} [options]${roles.length ? `\n       paralab ${name} ${roles.map((r) => `--${r.flag} FILE`).join(' ')} [options]` : ''}`
  return {
    name,
    summary: preset?.summary ?? def.summary,
    usage,
    help: [
      ...[
        ...(files ? [['<files>', files[1].help] as [string, string]] : []),
        ...roles.map((r): [string, string] => [`--${r.flag} FILE`, `${r.help} (instead of the arguments)`]),
        ...free.map(([n, spec]) => flagHelp(n, spec)),
        ...(fileFlags?.flags ?? []).map((f): [string, string] => [`--${f.flag} FILE`, f.help]),
        ...COMMON_HELP,
      ].map(([head, text]) => `  ${head}  ${text}`),
      '',
      `Backends: ${def.backends.map((b) => `${b.id} (${b.summary})`).join('; ')}.`,
      ...(formatsOf(def.id).length ? ['File formats (a file\'s content decides, its extension only among text and binary files; docs/formats.md):', ...formatsOf(def.id).map((f) => `    ${formatLine(f, def.id)}`)] : []),
      `Example: ${def.example.summary}`,
    ].join('\n'),
    options: {
      ...Object.fromEntries(free.map(([n, spec]) => [flagName(n, spec), { type: spec.type === 'boolean' ? ('boolean' as const) : ('string' as const) }])),
      ...Object.fromEntries([...roles, ...(fileFlags?.flags ?? [])].map((r) => [r.flag, { type: 'string' as const }])),
      example: { type: 'boolean' },
      out: { type: 'string' },
      report: { type: 'string' },
      force: { type: 'boolean' },
      json: { type: 'boolean' },
      progress: { type: 'string' },
      timings: { type: 'boolean' },
      width: { type: 'string' },
      height: { type: 'string' },
      scale: { type: 'string' },
      ...CLUSTER_OPTIONS,
    },
    allowPositionals: !!files,
    passThrough: ['sbatch-arg'],
    async run(values, positionals) {
      // A task Slurm granted a GPU, where nothing hides the node's other GPUs: the same command again, fenced onto its grant.
      if (values['task-dir'] !== undefined && !values.slurm && values.executor === undefined) {
        const fenced = await (await import('../gpu/fence-self')).fenceSlurmTask()
        if (fenced !== undefined) return fenced
      }
      if (values.timings) {
        recordTimeline()
        addSpan('process start and modules', 0)
      }
      const params: Record<string, unknown> = {}
      for (const [n, spec] of free) if (values[flagName(n, spec)] !== undefined) params[n] = parseFlag(n, spec, values[flagName(n, spec)])
      Object.assign(params, fixed)
      for (const [n, v] of Object.entries(engine.cli.implied?.(params) ?? {})) params[n] ??= v
      if (takesForce && values.force) params.force = true
      if (values.progress !== undefined && values.progress !== 'json') throw new UsageError(`--progress must be json, got "${values.progress}"`)
      const [lo, hi] = CHART_SIZE_LIMITS.side
      const chartSize: ChartSize = {
        width: intOption(values.width, 'width', lo, hi),
        height: intOption(values.height, 'height', lo, hi),
        scale: numberOption(values.scale, 'scale', ...CHART_SIZE_LIMITS.scale),
      }
      const cluster = clusterMode(values)
      const taskDir: string | undefined = values['task-dir']
      if (taskDir !== undefined && values.out) throw new ApiError('invalid-argument', '--task-dir writes the task\'s outcome there; --out is for the merge')
      // A target that cannot be written is refused before any work.
      if (values.out && !cluster) await checkOutputDir(values.out, { force: values.force })
      if (values.report !== undefined) {
        if (cluster) throw new UsageError('--report is for a run on this machine; make a cluster run\'s report from its merged folder: paralab report DIR')
        await (await import('../report/make-report')).checkReportPath(values.report, !!values.force)
      }
      const filePaths = Object.fromEntries((fileFlags?.flags ?? []).filter((f) => values[f.flag] !== undefined).map((f) => [f.flag, String(values[f.flag])]))
      if (fileFlags && Object.keys(filePaths).length) await fileFlags.check(filePaths, !!values.force)
      const prepare = async (backend: Backend) => {
        const given = roles.filter((r) => values[r.flag] !== undefined)
        const byRole = given.map((r) => String(values[r.flag]))
        if (values.example) {
          if (positionals.length || given.length) throw new UsageError(`--example brings its own input; drop ${[...positionals, ...given.map((r) => `--${r.flag}`)].join(' ')}`)
          return { ...(await backend.example(def.id)).params, ...params }
        }
        if (files && byRole.length) {
          if (positionals.length) throw new UsageError(`give the files either as arguments or as ${roles.map((r) => `--${r.flag}`).join(', ')}, not both (arguments: ${positionals.join(' ')})`)
          params[files[0]] = byRole
        } else if (files) {
          if (positionals.length === 0)
            throw new UsageError(`${name} needs at least one file or folder (${files[1].extensions.map((e) => `.${e}`).join(', ')})${roles.length ? `, or ${roles.map((r) => `--${r.flag}`).join(', ')}` : ''} (or --example)`)
          params[files[0]] = await expandInputs(positionals, files[1].extensions)
        }
        return params
      }
      // The cluster code (job folders, scripts, sbatch, the merge) loads only for a cluster run.
      if (cluster)
        return (await import('./cluster-run')).runOnCluster(cluster, {
          engine,
          command: name.split(' '),
          params: await prepare(new Backend({ engines: ENGINES })),
          flagParams: free,
          filesParam: files?.[0],
          fileFlags: filePaths,
          out: values.out,
          force: !!values.force,
          json: !!values.json,
          chartSize,
          typed: ['paralab', ...process.argv.slice(2)],
        })
      const task = taskDir === undefined ? undefined : await (await import('../cluster/task-folder')).TaskFolder.open(taskDir)
      let result: ResultEnvelope
      try {
        result = await runJob(def.id, params, prepare, values.progress, task && ((p) => void task.progress(p)), task && taskRanks(taskDir!))
      } catch (e) {
        await task?.failed(ApiError.from(e), ApiError.from(e).code === 'cancelled' ? 130 : 1)
        throw e
      }
      if (task) {
        if (fileFlags && Object.keys(filePaths).length && !result.partial && task.writesOutcome) await fileFlags.write(result.results, filePaths, !!values.force)
        const code = result.partial ? 130 : presentRun(engine, result, !!values.json)
        await task.succeeded(result, code)
        return code
      }
      // Writes the run's outputs and prints it; the exit code.
      const present = async (): Promise<number> => {
        // A cancelled run prints what it had finished, and writes no result set nor report.
        const extra = (values.out || values.report !== undefined) && !result.partial ? await (engine.cli.outputFiles as ((r: unknown) => Promise<OutputFile[]>) | undefined)?.(result.results) : undefined
        if (values.out && !result.partial) await writeOutputs(values.out, result, { force: values.force, chartSize, extra })
        if (values.report !== undefined && !result.partial) {
          const report = await import('../report/make-report')
          await report.writeReport(values.report, await report.makeReport(result, { engine, outputFiles: extra ?? [], source: 'the run\'s envelope' }), !!values.force)
        }
        if (fileFlags && Object.keys(filePaths).length && !result.partial) await fileFlags.write(result.results, filePaths, !!values.force)
        if (result.partial) {
          if (values.json) writeJson(result)
          else process.stdout.write(describeRun(engine, result))
          process.stderr.write('paralab: cancelled; the results above are what had finished\n')
          return 130
        }
        return presentRun(engine, result, !!values.json)
      }
      const written = performance.now()
      const code = await present()
      if (values.timings) {
        addSpan('result writing', written)
        process.stderr.write(timingsText(timelineSpans(), performance.now()))
      }
      return code
    },
  }
}

/** Every command of an engine: its workload's, its presets and its own extra commands. */
export function engineCommands(engine: AnyEngine): Command[] {
  return [workloadCommand(engine), ...(engine.cli.presets ?? []).map((p) => workloadCommand(engine, p)), ...(engine.cli.commands ?? [])]
}
