// The landslide job and its commands: the example through every CPU backend (md5s, series, maps,
// timings, tables, charts), the GPU skipped or refused without an adapter, cancellation keeping the
// runs that finished, and the CLI: `paralab landslide` on the Tessina files, `landslide simulate`
// writing the reference output (its md5), .asc, .npy and frames, refusing bad input with exit 1 and
// nothing written, `--example --out`, and `bench landslide`.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JobProgress } from '../../src/shared/jobs'
import { landslideWorkload, type LandslideParams } from '../../src/shared/workloads/landslide'
import { validateParams } from '../../src/shared/workloads/schema'
import { writeExample } from '../../src/main/workloads/landslide/example'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { readGif } from '../helpers/gif'
import { CLI } from '../helpers/serve'
import { jobContext, NO_ADAPTER } from '../helpers/job-context'

const DATA = join(__dirname, '../../../shared/data/landslide')
const TESSINA = ['header', 'dem', 'source'].map((f) => join(DATA, `tessina_${f}.txt`))
// Derived once from `serial` (test/unit/landslide-model.test.ts checks it against the straightforward reference).
const TESSINA_MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'

const dir = mkdtempSync(join(tmpdir(), 'paralab-landslide-engine-'))
const grids = landslideWorkload.example.files.map((f) => join(dir, f))
beforeAll(() => writeExample(dir, landslideWorkload.example.files))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const paralab = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 2 ** 20, env: { ...process.env, PARALAB_GPU: 'off' } })

const params = (p: Partial<LandslideParams>): LandslideParams => validateParams('landslide', landslideWorkload.params, { grids, ...p }) as LandslideParams

describe('the landslide job', () => {
  it('runs the example on every CPU backend: one md5, series and maps every K steps, repeated timings, tables and charts', async () => {
    const events: JobProgress[] = []
    const { results: r, timings, partial } = await runLandslideJob(params({ steps: 200, frames: 50, backends: ['serial', 'active', 'workers', 'workers-active'], ranks: 2, repeat: 2 }), jobContext({ events }))
    expect(partial).toBeUndefined()
    expect(r.grid).toMatchObject({ rows: 120, cols: 160, cellsize: 10, nodata: -9999, files: { dem: grids[0], source: grids[1] } })
    expect(r.grid.walls).toBeGreaterThan(100)
    expect(r.reference.backend).toBe('serial')
    expect(Object.keys(r.runs)).toEqual(['serial', 'active', 'workers', 'workers-active'])
    for (const run of Object.values(r.runs)) {
      expect(run.md5).toBe(r.reference.md5)
      expect(run.precision).toBe('f64')
      expect(run.ms_min).toBeLessThanOrEqual(run.ms)
      expect(run.ms).toBeLessThanOrEqual(run.ms_max)
    }
    expect(r.runs.workers.ranks).toBe(2)
    expect(Object.keys(timings)).toEqual(Object.keys(r.runs))
    for (const t of Object.values(timings)) expect(t.runs).toBe(2)
    // Samples at 0, 50, …, 200; the mass kept (the example's basin holds the debris).
    expect(r.series.step).toEqual([0, 50, 100, 150, 200])
    for (const m of r.series.mass) expect(m).toBeCloseTo(r.reference.mass_start, 9)
    expect(r.series.flooded[4]).toBeGreaterThan(r.series.flooded[0])
    expect(r.series.active[4]).toBeGreaterThanOrEqual(r.series.flooded[4])
    // Maps over one square window: the debris grows in them as it spreads.
    expect(r.maps.map((m) => m.step)).toEqual([0, 50, 100, 150, 200])
    const [first, last] = [r.maps[0], r.maps[4]]
    expect(last.values).toHaveLength(last.size * last.size)
    expect(last.size).toBeLessThanOrEqual(64)
    expect(new Set(r.maps.map((m) => `${m.row0},${m.col0},${m.size},${m.block}`)).size).toBe(1)
    const cells = (m: typeof first) => m.values.filter((v) => v !== null).length
    expect(cells(last)).toBeGreaterThan(cells(first))
    expect(Math.max(...(first.values.filter((v) => v !== null) as number[]))).toBeCloseTo(r.series.max_thickness[0], 3)
    // Progress through every run to the end.
    expect(events.at(-1)!.fraction).toBe(1)
    expect(events.map((e) => e.phase.replace(/ · step \d+ of \d+$/, ''))).toEqual(expect.arrayContaining(['simulating serial', 'simulating workers-active']))

    const tables = landslideWorkload.tables(r)
    expect(tables.map((t) => t.name)).toEqual(['runs', 'series'])
    expect(tables[0].rows.map((row) => row[tables[0].columns.indexOf('matches_reference')])).toEqual([true, true, true, true])
    expect(tables[1].rows).toHaveLength(5)
    const charts = landslideWorkload.charts(r)
    expect(charts.map((c) => [c.name, c.spec.kind])).toEqual([
      ['mass', 'series'],
      ['area', 'series'],
      ['depth', 'series'],
      ['time', 'bars'],
      ['speedup', 'bars'],
    ])
  })

  it('skips the GPU, saying why, when no adapter exists and other backends were asked for; refuses a GPU-only run', async () => {
    const { results } = await runLandslideJob(params({ steps: 10, backends: ['active', 'gpu'] }), jobContext())
    expect(results.skipped).toEqual([{ backend: 'gpu', reason: NO_ADAPTER }])
    expect(Object.keys(results.runs)).toEqual(['active'])
    await expect(runLandslideJob(params({ steps: 10, backends: ['gpu'] }), jobContext())).rejects.toThrow(NO_ADAPTER)
  })

  it('keeps the runs that finished when cancelled, marked partial', async () => {
    const controller = new AbortController()
    const ctx = jobContext({ signal: controller.signal, progress: (p) => p.phase.startsWith('simulating active ') && controller.abort() })
    const outcome = await runLandslideJob(params({ steps: 300, backends: ['serial', 'active', 'workers'] }), ctx)
    expect(outcome.partial).toBe(true)
    expect(Object.keys(outcome.results.runs)).toEqual(['serial'])
    // Cancelled before anything finished: no results at all.
    const early = new AbortController()
    early.abort()
    await expect(runLandslideJob(params({ steps: 300 }), jobContext({ signal: early.signal }))).rejects.toMatchObject({ code: 'cancelled' })
  })

  it('a GDAL float32 grid: cells equal to its NODATA_value −3.4028234663852886e+38 are walls, with the md5 of the −9999 grid', async () => {
    // GDAL's default NODATA for float32; values beyond 1e12 in magnitude are refused unless they are NODATA.
    const gdal = grids.map((g) => join(dir, `gdal-${g.split('/').pop()}`))
    for (const [i, g] of grids.entries()) writeFileSync(gdal[i], readFileSync(g, 'utf8').replaceAll('-9999', '-3.4028234663852886e+38'))
    expect(readFileSync(gdal[0], 'utf8')).toMatch(/NODATA_value\s+-3\.4028234663852886e\+38\n/)
    const run = async (files: string[]) => (await runLandslideJob(params({ grids: files, steps: 60, backends: ['serial'] }), jobContext())).results
    const [plain, float32] = [await run(grids), await run(gdal)]
    expect(float32.grid.walls).toBe(plain.grid.walls)
    expect(float32.grid.walls).toBeGreaterThan(100)
    expect(float32.reference.md5).toBe(plain.reference.md5)
    // Any other value of that magnitude is still out of range.
    writeFileSync(gdal[0], readFileSync(gdal[0], 'utf8').replace(/NODATA_value\s+\S+/, 'NODATA_value -9999'))
    await expect(run(gdal)).rejects.toThrow('"-3.4028234663852886e+38" is out of range (at most 1000000000000 in magnitude)')
  })

  it('asks for two or three files', async () => {
    await expect(runLandslideJob(params({ grids: [grids[0]] }), jobContext())).rejects.toThrow('landslide needs the DEM and the source')
  })
})

describe('paralab landslide', () => {
  it('runs on the study\'s three files, given in any order, and prints the md5 in --json', () => {
    const r = paralab(['landslide', TESSINA[1], TESSINA[0], TESSINA[2], '--steps', '100', '--backend', 'active,workers-active', '--ranks', '3', '--json'])
    expect(r.status, r.stderr).toBe(0)
    const env = JSON.parse(r.stdout)
    expect(env.results.reference).toMatchObject({ backend: 'active', md5: TESSINA_MD5_100, mass_start: 5557 })
    expect(env.results.reference.mass_end).toBeCloseTo(5557, 9)
    expect(env.results.runs['workers-active']).toMatchObject({ md5: TESSINA_MD5_100, ranks: 3 })
    expect(env.results.grid).toMatchObject({ rows: 610, cols: 496, walls: 229801, files: { header: TESSINA[0], dem: TESSINA[1], source: TESSINA[2] } })
  })

  it('writes results, tables and charts with --example --out', () => {
    const out = join(dir, 'out')
    const r = spawnSync(process.execPath, [CLI, 'landslide', '--example', '--steps', '60', '--frames', '20', '--backend', 'active', '--out', out], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, PARALAB_GPU: 'off', PARALAB_EXAMPLES: join(dir, 'examples') },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('active')
    expect(readdirSync(out).sort()).toEqual(
      ['area', 'depth', 'mass', 'thickness', 'time'].flatMap((c) => [`${c}.png`, `${c}.svg`]).concat(['results.json', 'runs.csv', 'runs.parquet', 'series.csv', 'series.parquet', 'thickness.gif']).sort(),
    )
    expect(readFileSync(join(out, 'series.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 4)
    // The thickness over the relief: the last frame, and the animation of the maps at 0, 20, 40 and 60 steps.
    expect(readFileSync(join(out, 'thickness.svg'), 'utf8')).toContain('Debris thickness after 60 steps')
    expect(readGif(readFileSync(join(out, 'thickness.gif'))).frames).toHaveLength(4)
  })
})

describe('paralab landslide simulate', () => {
  const target = (name: string) => join(dir, 'sim', name)
  beforeAll(() => mkdirSync(join(dir, 'sim', 'frames'), { recursive: true }))

  it('writes the reference output (its md5), an .asc with the DEM\'s header, a .npy and the frames', () => {
    const r = paralab([
      'landslide', 'simulate', '--header', TESSINA[0], '--dem', TESSINA[1], '--source', TESSINA[2], '--steps', '100', '--backend', 'workers-active', '--ranks', '2',
      '--output', target('h.txt'), '--asc', target('h.asc'), '--npy', target('h.npy'), '--frames', '50', '--frames-dir', target('frames'), '--json',
    ])
    expect(r.status, r.stderr).toBe(0)
    const summary = JSON.parse(r.stdout)
    expect(summary).toMatchObject({ backend: 'workers-active', steps: 100, rows: 610, cols: 496, md5: TESSINA_MD5_100, mass_start: 5557 })
    expect(createHash('md5').update(readFileSync(target('h.txt'))).digest('hex')).toBe(TESSINA_MD5_100)
    const asc = readFileSync(target('h.asc'), 'utf8').split('\n')
    expect(asc.slice(0, 6).map((l) => l.split(/\s+/)[0])).toEqual(['ncols', 'nrows', 'xllcorner', 'yllcorner', 'cellsize', 'NODATA_value'])
    expect(asc[6].split(' ')).toHaveLength(496)
    expect(readFileSync(target('h.npy')).length).toBeGreaterThan(610 * 496 * 8)
    expect(readdirSync(target('frames')).sort()).toEqual(['h-000.npy', 'h-050.npy', 'h-100.npy'])
  })

  it('refuses bad input with exit 1, naming the file and line, and writes nothing', () => {
    const bad = join(dir, 'sim', 'bad_dem.txt')
    const lines = readFileSync(TESSINA[1], 'utf8').split('\n')
    lines[6] = lines[6].replace(/^(\S+) (\S+)/, '$1 x9')
    writeFileSync(bad, lines.join('\n'))
    const r = paralab(['landslide', 'simulate', '--header', TESSINA[0], '--dem', bad, '--source', TESSINA[2], '--steps', '10', '--output', target('bad.txt')])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(`${bad}:7:3: "x9" is not a number`)
    expect(existsSync(target('bad.txt'))).toBe(false)
    // An existing output is not overwritten without --force.
    const again = paralab(['landslide', 'simulate', '--header', TESSINA[0], '--dem', TESSINA[1], '--source', TESSINA[2], '--steps', '1', '--output', target('h.txt')])
    expect(again.status).toBe(1)
    expect(again.stderr).toContain('exists (use --force to overwrite)')
    expect(createHash('md5').update(readFileSync(target('h.txt'))).digest('hex')).toBe(TESSINA_MD5_100)
  })
})

describe('paralab bench landslide', () => {
  it('times each backend, with ratios to serial from the same run and the md5 of each', () => {
    const r = paralab(['bench', 'landslide', '--steps', '40', '--repeat', '2', '--backend', 'serial,active', '--json'])
    expect(r.status, r.stderr).toBe(0)
    const bench = JSON.parse(r.stdout)
    expect(bench.input).toMatchObject({ rows: 120, cols: 160 })
    expect(Object.keys(bench.runs)).toEqual(['serial', 'active'])
    expect(bench.runs.serial.ratio_vs_serial).toBe(1)
    expect(bench.runs.active.md5).toBe(bench.reference_md5)
    expect(bench.runs.active.ratio_vs_serial).toBeCloseTo(bench.runs.active.median_ms / bench.runs.serial.median_ms, 12)
  })
})
