// The built `paralab` command: help, exit codes, `workloads`, and the device workload on the
// software adapter (and on the CPU alone without one), its --json envelope, its example and its --out files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI } from '../helpers/serve'
import { WORKLOAD_IDS } from '../../src/shared/workloads'
import { envelopeFile, errorLines, expectEnvelope, jsonOf, paralab } from './paralab'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const GPU_MEASUREMENTS = ['upload', 'read bandwidth', 'readback', 'fma f32']
const CPU_MEASUREMENTS = ['cpu read bandwidth', 'cpu fma serial', 'cpu fma simd', 'cpu fma workers', 'cpu fma workers-simd']
const MEASUREMENTS = [...CPU_MEASUREMENTS, ...GPU_MEASUREMENTS]

describe('paralab CLI', () => {
  it('is built without any electron import and starts with a shebang', () => {
    const src = readFileSync(CLI, 'utf8')
    expect(src.startsWith('#!/usr/bin/env node')).toBe(true)
    expect(src).not.toMatch(/from ["']electron["']|require\(["']electron["']\)/)
  })

  it('prints help for the program and for each command, with flags made from the parameters', () => {
    const top = paralab(['--help'])
    expect(top.code).toBe(0)
    for (const cmd of ['device', 'bench device', 'stats', 'generate acc', 'bench stats', 'workloads', 'serve']) expect(top.stdout).toContain(`  ${cmd} `)
    for (const cmd of [['device'], ['bench', 'device'], ['stats'], ['workloads'], ['serve']]) {
      const r = paralab([...cmd, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`Usage: paralab ${cmd.join(' ')}`)
    }
    const device = paralab(['device', '--help']).stdout
    for (const flag of ['--measure', '--read-mb N', '--repeat N', '--example', '--out DIR', '--force', '--json']) expect(device).toContain(`  ${flag} `)
    expect(device).toMatch(/--read-mb N .*\(an integer in 1…16384, in MB\)/)
    // The preset fixes --measure.
    const bench = paralab(['bench', 'device', '--help']).stdout
    expect(bench).toContain('--read-mb N')
    expect(bench).not.toContain('--measure')
    expect(paralab(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    // A group of commands lists its members.
    const group = paralab(['bench', '--help'])
    expect(group.code).toBe(0)
    expect(group.stdout).toMatch(/^ +bench device +Measure the GPU/m)
    expect(group.stdout).toMatch(/^ +bench stats +/m)
  })

  it('exits 2 with a one-line message naming the flag on usage errors', () => {
    const cases: [string[], string | RegExp][] = [
      [["frobnicate"], /^paralab: unknown command "frobnicate"\ncommands: .*\bstats\b.*\bserve\b.* \(paralab --help describes them\)\n$/],
      [['stat'], /^paralab: unknown command "stat"; did you mean "stats"\?\ncommands: /],
      [['landslde'], /^paralab: unknown command "landslde"; did you mean "landslide"\?\n/],
      // A negative value is the option's value, refused by its range.
      [['landslide', '--example', '--steps', '-1'], 'paralab: --steps must be an integer in 0…1000000, got "-1"\n'],
      [['stats', 'a.csv', '--repeat', '-5'], 'paralab: --repeat must be an integer in 1…1000, got "-5"\n'],
      [['generate', 'acc', 'x.csv', '--rows', '-3'], /^paralab: --rows must be .*got "-3"\n$/],
      [["bench"], /^paralab: bench needs one of: device(, [a-z-]+)*, stats(, [a-z-]+)*\n$/],
      // A mistyped subcommand: the nearest one, as for commands.
      [['generate', 'accc', 'x.csv'], 'paralab: unknown command "generate accc"; did you mean "generate acc"? (generate takes one of: acc, graph, walks, slope)\n'],
      [['device', '--nope'], 'paralab: unknown option --nope (paralab device --help lists its options)\n'],
      [['workloads', '--nope'], 'paralab: unknown option --nope (paralab workloads --help lists its options)\n'],
      [['bench', 'device', '--measure'], 'paralab: unknown option --measure (paralab bench device --help lists its options)\n'],
      // The nearest option when one is near, even with a value after it.
      [['stats', 'a.csv', '--repat', '3'], 'paralab: unknown option --repat; did you mean --repeat? (paralab stats --help lists its options)\n'],
      [['generate', 'acc', '--out', 'x.csv'], 'paralab: unknown option --out (paralab generate acc --help lists its options)\n'],
      [['stats', 'a.csv', '-x'], 'paralab: unknown option -x (paralab stats --help lists its options)\n'],
      [['bench', 'device', '--repeat', 'x'], 'paralab: --repeat must be an integer in 1…1000, got "x"\n'],
      [['device', '--read-mb', '0'], 'paralab: --read-mb must be an integer in 1…16384, got "0"\n'],
      [['device', '--read-mb', '1.5'], 'paralab: --read-mb must be an integer in 1…16384, got "1.5"\n'],
      [['device', 'extra'], /^paralab: .*'extra'.*\n$/],
      [['stats', 'a.csv', '--backend', 'cuda'], 'paralab: --backend must be serial, simd, workers, workers-simd, gpu or all, got "cuda"\n'],
      [['stats', 'a.csv', '--precision', 'f16'], 'paralab: --precision must be one of f64, f32, got "f16"\n'],
      [['stats', 'a.csv', '--repeat', '0'], 'paralab: --repeat must be an integer in 1…1000, got "0"\n'],
      [['stats'], 'paralab: stats needs at least one file or folder (.csv, .parquet, .arrow, .feather, .h5, .hdf5, .he5, .nc, .nc4, .cdf) (or --example)\n'],
      [['stats', '--example', 'a.csv'], 'paralab: --example brings its own input; drop a.csv\n'],
    ]
    for (const [args, message] of cases) {
      const r = paralab(args)
      expect(r.code, args.join(' ')).toBe(2)
      if (typeof message === 'string') expect(r.stderr, args.join(' ')).toBe(message)
      else expect(r.stderr, args.join(' ')).toMatch(message)
      expect(r.stdout, args.join(' ')).toBe('')
    }
    const none = paralab([])
    expect(none.code).toBe(2)
    expect(none.stdout).toContain('Usage: paralab <command>')
  })

  it('lists the workloads, as text and as JSON', () => {
    const text = paralab(['workloads'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^device +The WebGPU adapter.*\n +backends: gpu, cpu; run `paralab device --help`\n/)
    expect(text.stdout).toMatch(/\nstats +Coefficient of variation.*\n +backends: serial, simd, workers, workers-simd, gpu; run `paralab stats --help`\n/)

    const json = jsonOf(paralab(['workloads', '--json']))
    expect(json.map((w: { id: string }) => w.id)).toEqual(WORKLOAD_IDS)
    const [device, stats] = json
    expect(Object.keys(device).sort()).toEqual(['backends', 'example', 'formats', 'id', 'params', 'phases', 'summary', 'title'])
    expect(device.formats).toEqual([])
    expect(device.title).toBe('Device')
    expect(device.params.readMb).toMatchObject({ type: 'int', min: 1, max: 16384, unit: 'MB', optional: true })
    expect(device.phases.map((p: { id: string }) => p.id)).toEqual(MEASUREMENTS)
    expect(device.example).toMatchObject({ files: [], params: { measure: true, readMb: 16, repeat: 3 } })
    expect(stats.backends.map((b: { id: string }) => b.id)).toEqual(['serial', 'simd', 'workers', 'workers-simd', 'gpu'])
    expect(stats.params.backends).toMatchObject({ type: 'choices', flag: 'backend', default: ['workers-simd'] })
    expect(stats.params.files).toMatchObject({ type: 'files', extensions: ['csv', 'parquet', 'arrow', 'feather', 'h5', 'hdf5', 'he5', 'nc', 'nc4', 'cdf'] })
    expect(stats.example.files).toEqual(['acc-example.csv'])
    expect(stats.formats[0]).toEqual({ id: 'csv', name: 'CSV', extensions: ['csv'], reads: 'numeric columns under a header' })
  })

  it('device --json prints the envelope: the software adapter as device and its report as results.info', () => {
    const r = paralab(['device', '--json'])
    const env = jsonOf(r)
    expectEnvelope(env, { workload: 'device', params: { measure: false }, device: true, timings: {}, run: r })
    const info = env.results.info
    expect(Object.keys(env.results)).toEqual(['info'])
    expect(info.available).toBe(true)
    expect(info.adapter.isSoftware).toBe(true)
    expect(info.adapter.description).toMatch(/SwiftShader/i)
    expect(info.adapter.source).toMatch(/swiftshader/i)
    expect(env.device.adapter).toContain(info.adapter.description)
    expect(env.device.vendor).toBe(info.adapter.vendor)
    expect(info.limits.maxStorageBufferBindingSize).toBeGreaterThan(0)
    expect(info.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256)
    // Every GPU of the machine as its PCI bus lists them (whatever this machine has), and the route to one alone.
    expect(info.host).toMatchObject({ listed: expect.any(Boolean), gpus: expect.any(Array), route: expect.any(String) })
    for (const g of info.host.gpus) expect(g).toMatchObject({ bus: expect.stringMatching(/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/), separate: expect.any(Boolean) })
  })

  it('reports the GPU as unavailable, without failing, when there is none (and names no device)', () => {
    const r = paralab(['device', '--json'], { PARALAB_GPU: 'off' })
    const env = jsonOf(r)
    expectEnvelope(env, { workload: 'device', params: { measure: false }, device: false, timings: {}, run: r })
    expect(env.results.info.available).toBe(false)
    expect(env.results.info.reason).toMatch(/PARALAB_GPU=off/)

    const text = paralab(['device'], { PARALAB_GPU: 'off' })
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^GPU backend unavailable: .*PARALAB_GPU=off\n/)
    // The machine's GPUs are listed all the same: what Paralab could open, apart from the device it opened.
    expect(text.stdout).toMatch(/\nGPUs of this machine: (\d+\n(  \S+ .*\n)*separately by: .+|not listed \(.+\))\n/)
  })

  it('bench device --json prints the envelope with the figures and a timing per measurement', () => {
    const r = paralab(['bench', 'device', '--json', '--read-mb', '4', '--repeat', '2'])
    const env = jsonOf(r)
    expectEnvelope(env, {
      workload: 'device',
      params: { measure: true, readMb: 4, repeat: 2 },
      device: true,
      timings: Object.fromEntries(MEASUREMENTS.map((m) => [m, 2])),
      run: r,
    })
    const b = env.results.bench
    for (const key of ['read_bandwidth_GB_per_s', 'fma_f32_GFLOP_per_s', 'upload_GB_per_s', 'readback_GB_per_s']) {
      expect(Number.isFinite(b[key]) && b[key] > 0, key).toBe(true)
    }
    expect(b.read_bytes).toBe(4e6)
    expect(b.repeats).toBe(2)
    expect(b.adapter.isSoftware).toBe(true)
    expect(env.results.info.available).toBe(true)
    // The figures are the medians of the timings: bytes over median time.
    expect(b.read_bandwidth_GB_per_s).toBeCloseTo(b.read_bytes / 1e9 / (env.timings['read bandwidth'].median / 1e3), 6)
    // The CPU's roof beside it, as many repeats.
    const c = env.results.cpu
    expect(c).toMatchObject({ repeats: 2, cpu: env.host.cpu, threads: env.host.cores })
    for (const key of ['read_bandwidth_GB_per_s', 'serial_GFLOP_per_s', 'simd_GFLOP_per_s', 'workers_GFLOP_per_s', 'workers_simd_GFLOP_per_s'])
      expect(Number.isFinite(c[key]) && c[key] > 0, key).toBe(true)
  })

  it('device --example measures with the example\'s small buffers', () => {
    const r = paralab(['device', '--example', '--json'], { PARALAB_EXAMPLES: join(dir, 'examples') })
    const env = jsonOf(r)
    expectEnvelope(env, {
      workload: 'device',
      params: { measure: true, readMb: 16, repeat: 3 },
      device: true,
      timings: Object.fromEntries(MEASUREMENTS.map((m) => [m, 3])),
      run: r,
    })
    expect(env.results.bench).toMatchObject({ read_bytes: 16e6, repeats: 3 })
    // The device example has no input files: nothing is made.
    expect(existsSync(join(dir, 'examples'))).toBe(false)
  })

  it('bench device --out writes the envelope, the tables and the roofline, and prints the figures', () => {
    const out = join(dir, 'bench-out')
    const r = paralab(['bench', 'device', '--read-mb', '2', '--repeat', '1', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^adapter +SwiftShader/m)
    expect(r.stdout).toMatch(/^read bandwidth +\d+(\.\d)? GB\/s +\(2 MB\)$/m)
    expect(r.stdout).toMatch(/^timing +wall clock to completion, median of 1$/m)
    expect(r.stdout).toMatch(/^f64 FMA workers-simd +\d+\.\d\d GFLOP\/s +\(every thread, SIMD: the CPU's roof\)$/m)
    expect(readdirSync(out).sort()).toEqual(['device.csv', 'device.parquet', 'gpus.csv', 'gpus.parquet', 'limits.csv', 'limits.parquet', 'results.json', 'roofline.png', 'roofline.svg'])
    const env = envelopeFile(join(out, 'results.json'))
    expectEnvelope(env, {
      workload: 'device',
      params: { measure: true, readMb: 2, repeat: 1 },
      device: true,
      timings: Object.fromEntries(MEASUREMENTS.map((m) => [m, 1])),
      run: r,
    })
    const device = readFileSync(join(out, 'device.csv'), 'utf8').trim().split(/\r?\n/)
    expect(device[0]).toBe('quantity,value,unit')
    expect(device).toContain('available,true,')
    expect(device.find((l) => l.startsWith('read bandwidth,'))).toBe(`read bandwidth,${env.results.bench.read_bandwidth_GB_per_s},GB/s`)
    expect(device.find((l) => l.startsWith('cpu f64 FMA workers-simd,'))).toBe(`cpu f64 FMA workers-simd,${env.results.cpu.workers_simd_GFLOP_per_s},GFLOP/s`)
    const limits = readFileSync(join(out, 'limits.csv'), 'utf8').trim().split(/\r?\n/)
    expect(limits[0]).toBe('limit,value')
    expect(limits).toContain(`maxStorageBufferBindingSize,${env.results.info.limits.maxStorageBufferBindingSize}`)
    expect([...readFileSync(join(out, 'roofline.png')).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    expect(readFileSync(join(out, 'roofline.svg'), 'utf8')).toMatch(/<svg[^>]*viewBox=/)
  })

  it("bench device measures the CPU alone when the GPU is unavailable, and draws the CPU's roof", () => {
    const out = join(dir, 'no-gpu-out')
    const r = paralab(['bench', 'device', '--repeat', '1', '--out', out], { PARALAB_GPU: 'off' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^GPU backend unavailable: .*PARALAB_GPU=off\n/)
    expect(r.stdout).toMatch(/^read bandwidth +\d+\.\d GB\/s +\(\d+ MB, every thread/m)
    const env = envelopeFile(join(out, 'results.json'))
    expectEnvelope(env, { workload: 'device', params: { measure: true, repeat: 1 }, device: false, timings: Object.fromEntries(CPU_MEASUREMENTS.map((m) => [m, 1])), run: r })
    expect(Object.keys(env.results)).toEqual(['info', 'cpu'])
    expect(readFileSync(join(out, 'roofline.svg'), 'utf8')).toMatch(/<svg[^>]*viewBox=/)
  })

  it('bench --save never writes over a file without --force, refusing before the bench runs', () => {
    const saved = join(dir, 'bench.json')
    writeFileSync(saved, 'earlier figures\n')
    const args = ['bench', 'stats', '--rows', '2000', '--backend', 'serial', '--e2e-backend', 'serial', '--repeat', '1', '--load-repeat', '1', '--no-duckdb', '--no-polars', '--save', saved]
    const refused = paralab(args)
    expect(refused.code).toBe(1)
    expect(errorLines(refused.stderr)).toEqual([`paralab: --save ${saved} exists (use --force to replace it)`])
    expect(readFileSync(saved, 'utf8')).toBe('earlier figures\n')
    const forced = paralab([...args, '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(JSON.parse(readFileSync(saved, 'utf8')).compute).toHaveProperty('serial')
  })
})
