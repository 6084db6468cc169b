// Runs the built `paralab` as a user does, and checks the result envelope its --json prints.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { arch, availableParallelism, release, totalmem, type } from 'node:os'
import { basename, resolve } from 'node:path'
import { expect } from 'vitest'
import { CLI } from '../helpers/serve'
import { workload } from '../../src/shared/workloads'
import { recordedParams } from '../../src/shared/workloads/schema'

export const PACKAGE_VERSION: string = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')).version

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
  /** Date.now() before the process started and after it ended. */
  started: number
  ended: number
}

/** `cwd`: the folder the command runs in (default: this process's). */
export function paralab(args: string[], env: NodeJS.ProcessEnv = {}, timeout = 180_000, cwd?: string): CliRun {
  const started = Date.now()
  // Envelopes with maps run past spawnSync's 1 MiB default, which kills the child.
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout, maxBuffer: 1 << 30, cwd })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, started, ended: Date.now() }
}

/** stderr without the progress lines drawn when stderr is no terminal (`paralab:  42%  phase`). */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '' && !/^paralab: +\d+%  /.test(l))
}

/** The envelope `--json` printed, after checking that the command succeeded. */
export function jsonOf(r: CliRun): any {
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

export interface EnvelopeExpectation {
  workload: string
  /** Every parameter, defaults filled in (those of backends that did not run are expected left out). */
  params: Record<string, unknown>
  /** Input files as given; the envelope names their real paths with size, modification time, format and sha256. */
  files?: string[]
  /** The format ids (src/shared/formats.ts) the files were read as (default: any). */
  formats?: string[]
  /** Whether a GPU ran, and if so on the software adapter. */
  device: boolean
  /** The backends or measurements timed, with their runs. */
  timings: Record<string, number>
  /** The run the envelope came from: createdAt lies within it. */
  run?: CliRun
}

/** The envelope an `--out` folder's results.json holds, after checking the table notes written beside it. */
export function envelopeFile(path: string): any {
  const { tableNotes, ...env } = JSON.parse(readFileSync(path, 'utf8'))
  expect(tableNotes).toBeTypeOf('object')
  for (const note of Object.values(tableNotes)) expect(note).toMatch(/\S/)
  return env
}

/** Whether this checkout is a git work tree, so that the build recorded its commit in every envelope. */
const BUILT_FROM_GIT = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: resolve(__dirname, '../..'), encoding: 'utf8' }).status === 0

/** Checks every field of a result envelope. */
export function expectEnvelope(env: any, want: EnvelopeExpectation): void {
  expect(Object.keys(env).sort()).toEqual(
    ['workload', 'paralabVersion', 'createdAt', 'params', 'input', 'host', 'timings', 'results', ...(want.device ? ['device'] : []), ...(BUILT_FROM_GIT ? ['paralabCommit'] : [])].sort(),
  )
  if (BUILT_FROM_GIT) expect(env.paralabCommit).toMatch(/^[0-9a-f]{40}(-dirty)?$/)
  expect(env.workload).toBe(want.workload)
  expect(env.paralabVersion).toBe(PACKAGE_VERSION)
  expect(env.createdAt).toMatch(ISO)
  if (want.run) {
    const t = Date.parse(env.createdAt)
    expect(t).toBeGreaterThanOrEqual(want.run.started - 1000)
    expect(t).toBeLessThanOrEqual(want.run.ended)
  }
  expect(env.params).toEqual(recordedParams(workload(want.workload).params, want.params as never))

  const files = (want.files ?? []).map((f, i) => {
    const real = realpathSync(f)
    const s = statSync(real)
    // The workload's example files are made by its seeded generator, which the envelope names.
    const example = (workload(want.workload).example.files as readonly string[]).includes(basename(real))
    return {
      path: real,
      bytes: s.size,
      modified: s.mtime.toISOString(),
      format: want.formats?.[i] ?? expect.any(String),
      sha256: createHash('sha256').update(readFileSync(real)).digest('hex'),
      ...(example && { generator: { name: expect.stringMatching(/^generate [a-z]+$/), parameters: expect.any(Object), seed: expect.any(Number) } }),
    }
  })
  expect(env.input).toEqual({ files })
  for (const f of env.input.files) expect(f.modified).toMatch(ISO)

  expect(env.host).toEqual({
    cpu: expect.any(String),
    cores: availableParallelism(),
    memoryBytes: totalmem(),
    os: `${type()} ${release()} ${arch()}`,
    node: process.version,
  })
  expect(env.host.cpu.length).toBeGreaterThan(0)

  if (want.device)
    expect(env.device).toEqual({
      adapter: expect.stringMatching(/SwiftShader/i),
      vendor: expect.any(String),
      backend: expect.stringMatching(/^WebGPU \(Dawn\) on Vulkan, SwiftShader/),
      software: true,
    })
  else expect(env.device).toBeUndefined()

  expect(Object.keys(env.timings).sort()).toEqual(Object.keys(want.timings).sort())
  for (const [name, runs] of Object.entries(want.timings)) {
    const t = env.timings[name]
    expect(Object.keys(t).sort(), name).toEqual(['max', 'median', 'min', 'runs'])
    expect(t.runs, name).toBe(runs)
    expect(t.min, name).toBeGreaterThan(0)
    expect(t.min, name).toBeLessThanOrEqual(t.median)
    expect(t.median, name).toBeLessThanOrEqual(t.max)
  }
  expect(env.results).toBeTypeOf('object')
}
