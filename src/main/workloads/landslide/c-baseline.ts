// The study's serial program as the landslide bench's named baseline (`bench landslide --baseline c`):
// bench/sciddicat.c compiled once into a temporary folder with the C compiler found here, run on the
// bench's grid (written there in the study's three-file form), and alternated with the `serial`
// backend. Each side's steps are timed by the wall clock and by CPU time: the child's own clocks
// (CLOCK_PROCESS_CPUTIME_ID around its steps, getrusage for its whole life) against this process's
// cpuUsage around `serial`'s steps, since on a loaded machine wall time says more about the load
// than about the code. Both outputs must have the same md5.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import CODE from '../../../../bench/sciddicat.c?raw'
import type { LandslideInput } from './inputs'
import { referenceMd5 } from './reference-format'
import { initialState, ThreadSimulation } from './simulation'

/** The flags the study's program is built with here: optimised, and no fused multiply-add, whose rounding would change the md5. */
export const C_FLAGS = ['-O3', '-ffp-contract=off']

export interface CBuild {
  compiler: string
  version: string
  binary: string
  dir: string
}

/** The C compiler to use: $CC, else the first of cc, gcc, clang that runs; null when none does. */
export function findCompiler(env: NodeJS.ProcessEnv = process.env): { compiler: string; version: string } | null {
  for (const compiler of env.CC ? [env.CC] : ['cc', 'gcc', 'clang']) {
    const r = spawnSync(compiler, ['--version'], { encoding: 'utf8', timeout: 10_000 })
    if (r.status === 0) return { compiler, version: r.stdout.split('\n')[0].trim() }
  }
  return null
}

/** Compiles bench/sciddicat.c into a new temporary folder (removed by `disposeC`). */
export async function buildC(env: NodeJS.ProcessEnv = process.env): Promise<CBuild> {
  const found = findCompiler(env)
  if (!found)
    throw new ApiError(
      'io',
      `--baseline c needs a C compiler to build the study's program, and none was found (${env.CC ? `CC=${env.CC} does not run` : 'no cc, gcc or clang on PATH'}): install one (e.g. apt-get install gcc) or set CC`,
    )
  const dir = await mkdtemp(join(tmpdir(), 'paralab-sciddicat-'))
  const source = join(dir, 'sciddicat.c')
  const binary = join(dir, 'sciddicat')
  await writeFile(source, CODE)
  const r = spawnSync(found.compiler, [...C_FLAGS, '-o', binary, source], { encoding: 'utf8', timeout: 120_000 })
  if (r.status !== 0) {
    await rm(dir, { recursive: true, force: true })
    throw new ApiError('internal', `${found.compiler} could not build the study's program: ${(r.stderr || r.error?.message || '').trim().slice(0, 2000)}`)
  }
  return { ...found, binary, dir }
}

export async function disposeC(build: CBuild): Promise<void> {
  await rm(build.dir, { recursive: true, force: true })
}

/** The grid in the study's three-file form (header, DEM, source; walls as the DEM's NODATA), values exact. */
export async function writeStudyFiles(input: LandslideInput, dir: string): Promise<{ header: string; dem: string; source: string }> {
  const files = { header: join(dir, 'header.txt'), dem: join(dir, 'dem.txt'), source: join(dir, 'source.txt') }
  const { header } = input
  const lines = [`ncols\t${input.cols}`, `nrows\t${input.rows}`, `xllcorner\t${header.xllcorner}`, `yllcorner\t${header.yllcorner}`, `cellsize\t${header.cellsize}`]
  if (header.nodata !== null) lines.push(`NODATA_value\t${header.nodata}`)
  await writeFile(files.header, lines.join('\n') + '\n')
  // Row by row: String(v) is the shortest decimal that reads back as the same double.
  const grid = async (path: string, values: Float64Array) => {
    const rows: string[] = []
    for (let i = 0; i < input.rows; i++) rows.push(Array.from(values.subarray(i * input.cols, (i + 1) * input.cols), String).join(' '))
    await writeFile(path, rows.join('\n') + '\n')
  }
  await grid(files.dem, input.z)
  await grid(files.source, input.h)
  return files
}

export interface CRun {
  /** The steps alone: wall clock and the child's CPU time. */
  wall_ms: number
  cpu_ms: number
  /** The child's whole life (reading the grids, the steps, writing the output), from its getrusage. */
  process_cpu_ms: number
  md5: string
}

const FIGURES = /sciddicat: steps=\d+ sim_wall_ms=([\d.]+) sim_cpu_ms=([\d.]+) cpu_ms=([\d.]+)/

/** One run of the built program on the study files, `steps` steps; its output's md5. */
export async function runC(build: CBuild, files: { header: string; dem: string; source: string }, steps: number): Promise<CRun> {
  const output = join(build.dir, 'output.txt')
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(build.binary, [files.header, files.dem, files.source, output, String(steps)], { stdio: ['ignore', 'ignore', 'pipe'] })
    let text = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new ApiError('internal', `the study's program exited with ${code}: ${text.trim().slice(0, 2000)}`))))
  })
  const m = FIGURES.exec(stderr)
  if (!m) throw new ApiError('internal', `the study's program printed no figures: ${stderr.trim().slice(0, 500)}`)
  const hash = createHash('md5')
  for await (const chunk of createReadStream(output)) hash.update(chunk as Buffer)
  await rm(output, { force: true })
  return { wall_ms: Number(m[1]), cpu_ms: Number(m[2]), process_cpu_ms: Number(m[3]), md5: hash.digest('hex') }
}

export interface SerialRun {
  wall_ms: number
  cpu_ms: number
  md5: string
}

/** One run of the `serial` backend as a job runs it (cancel slicing included), timed around its steps. */
export async function runSerial(input: LandslideInput, steps: number): Promise<SerialRun> {
  const state = initialState(input)
  const sim = new ThreadSimulation(state, false)
  const cpu0 = process.cpuUsage()
  const wall0 = performance.now()
  await sim.advance(steps)
  const wall = performance.now() - wall0
  const cpu = process.cpuUsage(cpu0)
  return { wall_ms: wall, cpu_ms: (cpu.user + cpu.system) / 1000, md5: referenceMd5(await sim.thickness(), input.rows, input.cols) }
}

export interface CBaselineResult {
  compiler: string
  flags: string[]
  runs: { c: CRun[]; serial: SerialRun[] }
  median: { c_wall_ms: number; c_cpu_ms: number; c_process_cpu_ms: number; serial_wall_ms: number; serial_cpu_ms: number }
  /** serial ÷ C, by wall clock and by CPU time (medians). */
  ratio: { wall: number; cpu: number }
  md5: string
  md5_matches: boolean
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/** `repeat` runs of each, alternated (C first in odd rounds, serial first in even ones). */
export async function compareWithC(input: LandslideInput, steps: number, repeat: number, log: (line: string) => void): Promise<CBaselineResult> {
  log('building the study\'s program (bench/sciddicat.c)')
  const build = await buildC()
  try {
    const files = await writeStudyFiles(input, build.dir)
    const c: CRun[] = []
    const serial: SerialRun[] = []
    for (let r = 0; r < repeat; r++) {
      const order = r % 2 === 0 ? (['c', 'serial'] as const) : (['serial', 'c'] as const)
      for (const side of order) {
        log(`run ${r + 1}/${repeat}: ${side === 'c' ? 'C' : 'serial'}`)
        if (side === 'c') c.push(await runC(build, files, steps))
        else serial.push(await runSerial(input, steps))
      }
    }
    const med = {
      c_wall_ms: median(c.map((x) => x.wall_ms)),
      c_cpu_ms: median(c.map((x) => x.cpu_ms)),
      c_process_cpu_ms: median(c.map((x) => x.process_cpu_ms)),
      serial_wall_ms: median(serial.map((x) => x.wall_ms)),
      serial_cpu_ms: median(serial.map((x) => x.cpu_ms)),
    }
    const md5 = serial[0].md5
    return {
      compiler: build.version,
      flags: C_FLAGS,
      runs: { c, serial },
      median: med,
      ratio: { wall: med.serial_wall_ms / med.c_wall_ms, cpu: med.serial_cpu_ms / med.c_cpu_ms },
      md5,
      md5_matches: [...c, ...serial].every((x) => x.md5 === md5),
    }
  } finally {
    await disposeC(build)
  }
}

export function describeC(r: CBaselineResult, steps: number): string {
  const f = (ms: number) => `${Math.round(ms)} ms`
  return [
    `baseline  the study's program (bench/sciddicat.c), ${r.compiler}, ${r.flags.join(' ')}`,
    `steps     ${steps}, ${r.runs.c.length} runs each, alternated (medians; the steps alone)`,
    `  C         wall ${f(r.median.c_wall_ms).padStart(10)}   CPU ${f(r.median.c_cpu_ms).padStart(10)}   (whole process CPU ${f(r.median.c_process_cpu_ms)})`,
    `  serial    wall ${f(r.median.serial_wall_ms).padStart(10)}   CPU ${f(r.median.serial_cpu_ms).padStart(10)}`,
    `  ratio     serial ÷ C: ${r.ratio.wall.toFixed(3)}× by wall clock, ${r.ratio.cpu.toFixed(3)}× by CPU time`,
    `  md5       ${r.md5_matches ? `same (${r.md5})` : `DIFFERS: C ${r.runs.c.map((x) => x.md5).join(', ')}; serial ${r.md5}`}`,
  ].join('\n') + '\n'
}
