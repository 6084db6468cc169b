// What the built `paralab` loads for a command: `--version` loads no command, `--help` no job, and
// a statistics run on the CPU loads neither the GPU (the `webgpu` addon, the GPU runtime, the
// statistics GPU engine), nor the benchmark's baselines (DuckDB, Polars), nor the canvas that
// renders charts, nor the other workloads' jobs, `serve` or the cluster code. Each module the
// process resolves is recorded by a module hook; the built chunks are recognised by what they hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI } from '../helpers/serve'

const DATA = resolve(__dirname, '../../../shared/data/paths')
const SOFTWARE_ADAPTER = { VK_ICD_FILENAMES: '/usr/lib/chromium/vk_swiftshader_icd.json' }

let dir: string
let hook: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-module-graph-'))
  hook = join(dir, 'hook.mjs')
  // Registered before the CLI loads: every resolved module's URL goes to stderr, marked.
  const resolver = `export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('RESOLVED ' + r.url + '\\n'); return r }`
  writeFileSync(hook, `import { register } from 'node:module'\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolver)}))\n`)
  const rows = Array.from({ length: 3000 }, (_, i) => `t${i},${i % 17},${(i * 7) % 31},${(i * 13) % 5}`)
  writeFileSync(join(dir, 'acc.csv'), `datetime,acc_x,acc_y,acc_z\n${rows.join('\n')}\n`)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The modules a run of the CLI resolved: package names as imported, and the text of each built file. */
function modulesOf(args: string[], env: NodeJS.ProcessEnv = {}, status = 0) {
  const r = spawnSync(process.execPath, ['--import', hook, CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 })
  expect(r.status, r.stderr).toBe(status)
  const urls = [...new Set(r.stderr.split('\n').filter((l) => l.startsWith('RESOLVED ')).map((l) => l.slice('RESOLVED '.length)))]
  const files = urls.filter((u) => u.startsWith('file:') && u.endsWith('.js')).map((u) => fileURLToPath(u))
  const packages = urls.filter((u) => u.includes('/node_modules/')).map((u) => u.split('/node_modules/').at(-1)!)
  const holds = (text: string) => files.some((f) => readFileSync(f, 'utf8').includes(text))
  return { files, packages, holds }
}

// Strings only these modules hold: the statistics job, its GPU engine (a buffer label), its bench.
const RUN_STATS = 'function runStatsJob('
const STATS_GPU_ENGINE = 'stats column ('
const STATS_BENCH = "import('@duckdb/node-api')"
// The chart renderer (every chart's Chart.js configuration): loaded by runs that write charts.
const CHART_RENDERER = 'function renderChart('
// The other workloads' jobs and benches, the GPU runtime (adapter discovery), the server, the cluster runs.
const RUN_PATHS = 'function runPathsJob('
const RUN_CORRELATION = 'function runCorrelationJob('
const RUN_LANDSLIDE = 'function runLandslideJob('
const DEVICE_BENCH = 'function benchDevice('
const GPU_RUNTIME = 'function discoverAdapter('
const SERVE = 'function startServer('
const CLUSTER_RUN = 'function runOnCluster('
const CLUSTER_TASKS = 'function planTasks('
const OTHER_CODE = { RUN_PATHS, RUN_CORRELATION, RUN_LANDSLIDE, DEVICE_BENCH, GPU_RUNTIME, SERVE, CLUSTER_RUN, CLUSTER_TASKS }
const fromPackage = (packages: string[], name: string) => packages.some((p) => p.startsWith(`${name}/`))

describe('modules the CLI loads', () => {
  it('answers --version without loading any command', () => {
    const run = modulesOf(['--version'])
    expect(run.holds(RUN_STATS)).toBe(false)
    expect(run.holds('function engineCommands(')).toBe(false)
    expect(run.files.length).toBeLessThanOrEqual(4)
  })

  it('runs statistics on the CPU without the GPU, the benchmark baselines or the chart canvas', () => {
    const run = modulesOf(['stats', join(dir, 'acc.csv'), '--backend', 'workers-simd', '--json'])
    // The hook sees the job's own code, so not seeing the others means they were not loaded.
    expect(run.holds(RUN_STATS)).toBe(true)
    expect(run.holds(STATS_GPU_ENGINE)).toBe(false)
    expect(run.holds(STATS_BENCH)).toBe(false)
    expect(run.holds(CHART_RENDERER)).toBe(false)
    for (const name of ['webgpu', '@napi-rs', '@duckdb', 'nodejs-polars']) expect(fromPackage(run.packages, name), name).toBe(false)
    for (const [name, text] of Object.entries(OTHER_CODE)) expect(run.holds(text), name).toBe(false)
  })

  it('shows a command\'s help without loading its job', () => {
    for (const command of ['stats', 'paths', 'correlation', 'landslide', 'landslide simulate', 'paths query']) {
      const run = modulesOf([...command.split(' '), '--help'])
      for (const [name, text] of Object.entries({ RUN_STATS, ...OTHER_CODE })) expect(run.holds(text), `${command}: ${name}`).toBe(false)
    }
  })

  // The checks above can fail: each lazily loaded part is seen when its command needs it.
  it('loads the shortest-paths job for a paths run', () => {
    const run = modulesOf(['paths', join(DATA, 'c01.1'), '--backend', 'serial', '--json'])
    expect(run.holds(RUN_PATHS)).toBe(true)
    expect(run.holds(RUN_STATS)).toBe(false)
  })

  it('loads the correlation job for a correlation run', () => {
    writeFileSync(join(dir, 'series.csv'), 'a,b,c\n1,2,3\n2,1,4\n3,5,1\n4,3,2\n5,4,6\n')
    expect(modulesOf(['correlation', join(dir, 'series.csv'), '--backend', 'serial', '--json']).holds(RUN_CORRELATION)).toBe(true)
  })

  it('loads the landslide job for a landslide run', () => {
    expect(modulesOf(['landslide', '--example', '--steps', '5', '--backend', 'serial', '--json']).holds(RUN_LANDSLIDE)).toBe(true)
  })

  it('loads the server for serve, and the cluster code for --slurm', () => {
    // Both fail once loaded: no such folder to serve; no Slurm commands on an empty PATH.
    expect(modulesOf(['serve', '--data', join(dir, 'missing')], {}, 1).holds(SERVE)).toBe(true)
    const cluster = modulesOf(['stats', join(dir, 'acc.csv'), '--slurm', '--out', join(dir, 'job')], { PATH: '' }, 1)
    expect(cluster.holds(CLUSTER_RUN)).toBe(true)
    expect(cluster.holds(CLUSTER_TASKS)).toBe(true)
  })

  it('loads the chart renderer when a run writes its charts (the check above can fail)', () => {
    const run = modulesOf(['stats', join(dir, 'acc.csv'), '--backend', 'serial', '--out', join(dir, 'out'), '--json'])
    expect(run.holds(CHART_RENDERER)).toBe(true)
  })

  it('loads the GPU engine and the webgpu addon when the gpu backend runs (the check above can fail)', () => {
    // The smallest job that opens the device: one column of four values, compiled on the software adapter.
    writeFileSync(join(dir, 'tiny.csv'), 'acc_x\n1\n2\n3\n5\n')
    const run = modulesOf(['stats', join(dir, 'tiny.csv'), '--backend', 'gpu', '--json'], SOFTWARE_ADAPTER)
    expect(run.holds(STATS_GPU_ENGINE)).toBe(true)
    expect(run.holds(GPU_RUNTIME)).toBe(true)
    expect(fromPackage(run.packages, 'webgpu')).toBe(true)
  }, 600_000)
})
