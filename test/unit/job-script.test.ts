// Job scripts built from values: every field fed hostile values (line breaks, $(), backticks,
// quotes, ;, %, #, spaces, a leading -, tabs and other control characters, non-ASCII), the script
// run by the real bash with a stand-in for paralab that records the words it was given: the same
// command on the same files, in the same folders, and nothing else executed. Values no script can
// carry (NUL, text that is not UTF-8, a line break on a #SBATCH line) are refused by name.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { mergeScript, taskScript, type TaskScript } from '../../src/main/cluster/job-script'
import { commentText, sbatchOption, sbatchWord, shellWord, slurmPathPattern } from '../../src/main/cluster/script-words'
import { flagWords } from '../../src/main/cluster/task-plan'
import { parse, type Command } from '../../src/main/terminal/command'

const root = mkdtempSync(join(tmpdir(), 'paralab-job-script-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Names that would run `touch PWNED` or add a #SBATCH line if pasted into a script as text. */
const HOSTILE = [
  'evil\ntouch PWNED\n.csv',
  'x\n#SBATCH --nice=777\n#.csv',
  'y\ntouch PWNED\n#.csv',
  '$(touch PWNED).csv',
  '`touch PWNED`.csv',
  `it's "q".csv`,
  'a;touch PWNED;.csv',
  '100%j %a %%.csv',
  'sp ace.csv',
  '--example',
  '-x.csv',
  '#h.csv',
  'back\\slash.csv',
  'tab\there\r\u0001\u007f\u0085.csv',
  "$'x'.csv",
  'é ü 中.csv',
]

/** A stand-in for node: writes the words it was given, NUL-separated, where PARALAB_ARGS says. */
function recorder(dir: string): string {
  const path = join(dir, 'record-args')
  writeFileSync(path, '#!/bin/bash\nprintf \'%s\\0\' "$PWD" "$@" >> "$PARALAB_ARGS"\n')
  chmodSync(path, 0o755)
  return path
}

/** Runs a script with bash as a task would run (array index in SLURM_ARRAY_TASK_ID); returns the words of each run. */
function runScript(script: string, cwd: string, tasks: (number | undefined)[]): string[][] {
  const file = join(cwd, '..', `script-${Math.random().toString(36).slice(2)}.sh`)
  writeFileSync(file, script)
  const out = join(cwd, '..', 'args')
  const runs: string[][] = []
  for (const task of tasks) {
    rmSync(out, { force: true })
    const r = spawnSync('bash', [file], { cwd: root, env: { PATH: process.env.PATH, PARALAB_ARGS: out, ...(task !== undefined && { SLURM_ARRAY_TASK_ID: String(task) }) }, encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    runs.push(readFileSync(out, 'utf8').split('\0').slice(0, -1))
  }
  return runs
}

/** The arguments of a script's #SBATCH lines, as sbatch splits and unquotes them. */
function sbatchArgs(script: string): string[] {
  const args: string[] = []
  for (const line of script.split('\n')) {
    if (!line.startsWith('#SBATCH ')) continue
    // sbatch's reading: "…" is one argument with \" and \\ inside; an unquoted # ends the line.
    let arg = ''
    let quoted = false
    const text = line.slice('#SBATCH '.length)
    for (let i = 0; i < text.length; i++) {
      const c = text[i]
      if (c === '\\') arg += text[++i]
      else if (c === '"') quoted = !quoted
      else if (!quoted && c === '#') break
      else if (!quoted && c === ' ') {
        if (arg) args.push(arg)
        arg = ''
      } else arg += c
    }
    if (arg) args.push(arg)
  }
  return args
}

function scriptOf(over: Partial<TaskScript> & { dir: string; cwd: string }): TaskScript {
  return {
    name: 'paralab-stats',
    paralab: [recorder(join(over.cwd, '..')), '/opt/paralab/cli.js'],
    request: { sbatchArgs: [] },
    command: ['stats'],
    taskFiles: [['a.csv']],
    flags: [],
    typed: 'paralab stats a.csv',
    ...over,
  }
}

/** A job folder and a working folder whose names are themselves hostile. */
function folders(name: string): { dir: string; cwd: string } {
  const base = join(root, name)
  const cwd = join(base, "cwd $(touch PWNED) `touch PWNED` 'q' \"dq\" ; -x #h é")
  const dir = join(base, "runs $(touch PWNED) 'q' \"dq\" ; %j %a %% #h -x", 'r1')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(dir, { recursive: true })
  return { dir, cwd }
}

const pwned = () => {
  const found: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('PWNED')) found.push(join(d, e.name))
      if (e.isDirectory()) walk(join(d, e.name))
    }
  }
  walk(root)
  return found
}

describe('a job script built from values', () => {
  it('runs each array task\'s command on its own file, with the parameters as given, from the folder it was typed in', () => {
    const { dir, cwd } = folders('array')
    const columns = ['acc_x\ntouch PWNED\n#', 'acc y;$(touch PWNED) \'q\' %j', '-lead']
    const flags = [...flagWords('columns', { type: 'names', label: '', help: '', optional: true }, columns), ...flagWords('from', { type: 'text', label: '', help: '', optional: true }, '-5\n#SBATCH --nice=777')]
    const s = scriptOf({ dir, cwd, taskFiles: HOSTILE.map((f) => [f]), flags, typed: 'paralab stats\n#SBATCH --nice=777\ntouch PWNED', request: { sbatchArgs: ['--comment=a b "c" #d'], arrayParallelism: 2, time: '30' } })
    const script = taskScript(s)
    const runs = runScript(script, cwd, HOSTILE.map((_, i) => i))
    HOSTILE.forEach((file, i) => {
      expect(runs[i]).toEqual([cwd, '/opt/paralab/cli.js', 'stats', `--columns=${columns.join(',')}`, '--from=-5\n#SBATCH --nice=777', `--task-dir=${dir}/tasks/${i}`, '--', file])
    })
    // sbatch reads exactly these options: the folder whole, its % doubled where Slurm expands it.
    const pattern = dir.replace(/%/g, '%%')
    expect(sbatchArgs(script)).toEqual([
      '--job-name=paralab-stats',
      `--comment=paralab:${dir}`,
      `--array=0-${HOSTILE.length - 1}%2`,
      `--output=${pattern}/tasks/%a/stdout.log`,
      `--error=${pattern}/tasks/%a/stderr.log`,
      '--time=30',
      '--comment=a b "c" #d',
    ])
    // Every line of the script is one of its own: comments stay comments, whatever they show.
    const lines = script.split('\n')
    expect(lines.filter((l) => l.startsWith('#SBATCH')).length).toBe(7)
    expect(lines[1]).toBe('# Paralab: paralab stats\\n#SBATCH --nice=777\\ntouch PWNED')
    expect(pwned()).toEqual([])
  })

  it('runs one task on all its files, under srun for several ranks, and the merge on its folder', () => {
    const { dir, cwd } = folders('single')
    const s = scriptOf({ dir, cwd, taskFiles: [HOSTILE], request: { sbatchArgs: [], ntasks: 2 } })
    // srun stands in as the local executor's: it runs the command as given.
    const script = taskScript(s).replace('set -euo pipefail', 'set -euo pipefail\nsrun() { while [[ $1 == -* ]]; do shift; done; "$@"; }')
    const [run] = runScript(script, cwd, [undefined])
    expect(run).toEqual([cwd, '/opt/paralab/cli.js', 'stats', `--task-dir=${dir}/tasks/0`, '--', ...HOSTILE])
    const merge = mergeScript(s)
    expect(runScript(merge, cwd, [undefined])[0]).toEqual([cwd, '/opt/paralab/cli.js', 'merge', '--', dir])
    expect(sbatchArgs(merge)).toEqual(['--job-name=paralab-stats-merge', `--comment=paralab:${dir}`, `--output=${dir.replace(/%/g, '%%')}/merge.log`])
    expect(sbatchArgs(taskScript(s))).toContain(`--output=${dir.replace(/%/g, '%%')}/tasks/0/stdout.log`)
    expect(pwned()).toEqual([])
  })

  it('refuses what no script can carry, naming it', () => {
    const { dir, cwd } = folders('refused')
    const script = (over: Partial<TaskScript>) => () => taskScript(scriptOf({ dir, cwd, ...over }))
    expect(script({ taskFiles: [['\uFFFD.csv']] })).toThrow(/the file name "\uFFFD\.csv" is not valid UTF-8/)
    expect(script({ taskFiles: [['a\u0000b.csv']] })).toThrow(/holds a NUL character/)
    expect(script({ taskFiles: [['\uD800.csv']] })).toThrow(/is not valid UTF-8/)
    expect(script({ dir: join(root, 'new\nline') })).toThrow(/the job folder \(--out\) ".*new\\nline" holds a line break .* #SBATCH line cannot carry/)
    expect(script({ dir: join(root, 'back\\slash') })).toThrow(/holds a backslash, which Slurm reads as an escape/)
    expect(script({ request: { sbatchArgs: ['--mem=1G\ntouch PWNED'] } })).toThrow(/--sbatch-arg "--mem=1G\\ntouch PWNED" holds a line break/)
    expect(script({ request: { sbatchArgs: ['touch PWNED'] } })).toThrow(/--sbatch-arg must be an sbatch option starting with -/)
    expect(() => flagWords('columns', { type: 'names', label: '', help: '', optional: true }, ['a,b'])).toThrow(/--columns: the name "a,b" holds a comma/)
  })

  it('quotes each place as it reads its values', () => {
    expect(shellWord('plain/a-b_c.csv')).toBe('plain/a-b_c.csv')
    expect(shellWord("it's")).toBe(`'it'\\''s'`)
    expect(shellWord('a\nb')).toBe(`$'a\\nb'`)
    expect(shellWord('\u0085')).toBe(`$'\\xc2\\x85'`)
    expect(sbatchWord('a b', 'x')).toBe('"a b"')
    expect(sbatchWord('q"\\', 'x')).toBe('"q\\"\\\\"')
    expect(sbatchOption('--mem=8G')).toBe('--mem=8G')
    expect(slurmPathPattern('/a%j/b', 'x')).toBe('/a%%j/b')
    expect(commentText('a\nb\tc\u0001')).toBe('a\\nb\\tc\\x01')
  })

  it('reads every word after -- on a task\'s command line as a file, whatever it looks like', () => {
    const cmd: Command = { name: 'stats', summary: '', usage: '', help: '', options: { repeat: { type: 'string' }, 'task-dir': { type: 'string' } }, allowPositionals: true, run: async () => undefined }
    const { values, positionals } = parse(cmd, ['--repeat=-1', '--task-dir=-t', '--', '--repeat', '-1', '--example', '-'])
    expect(values).toEqual({ repeat: '-1', 'task-dir': '-t' })
    expect(positionals).toEqual(['--repeat', '-1', '--example', '-'])
  })
})
