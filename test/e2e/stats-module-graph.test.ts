// What the built `paralab` loads for a command: `--version` loads no command, and a statistics run
// on the CPU loads neither the GPU (the `webgpu` addon, the statistics GPU engine), nor the
// benchmark's baselines (DuckDB, Polars), nor the canvas that renders charts. Each module the
// process resolves is recorded by a module hook; the built chunks are recognised by what they hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI } from '../helpers/serve'

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
function modulesOf(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ['--import', hook, CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 })
  expect(r.status, r.stderr).toBe(0)
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
    expect(fromPackage(run.packages, 'webgpu')).toBe(true)
  }, 600_000)
})
