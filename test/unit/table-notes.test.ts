// Every result table says in one line what its numbers mean, explains NaN and infinities where they
// appear, and keeps that line out of its CSV (results.json of `--out` carries it instead).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Backend } from '../../src/main/backend/backend'
import { writeOutputs } from '../../src/main/results/outputs'
import { ENGINES } from '../../src/main/workloads'
import { correlationTables } from '../../src/shared/workloads/correlation/tables'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { landslideTables } from '../../src/shared/workloads/landslide/tables'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { pathsTables } from '../../src/shared/workloads/paths/tables'
import { statsTables } from '../../src/shared/workloads/stats/tables'
import type { StatsResult } from '../../src/shared/workloads/stats/types'

const dir = mkdtempSync(join(tmpdir(), 'paralab-notes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const spread = (median: number) => ({ median, min: median, max: median })

const correlation: CorrelationResult = {
  input: { path: '/data/walks.csv', format: 'csv', layout: 'columns', series: 6, length: 100, bytes: 3000, load_ms: 2 },
  precision: 'f64',
  reference: 'serial',
  runs: [{ backend: 'serial', arithmetic: 'f64', threads: 1, stages: { means: spread(1), squares: spread(2), cross: spread(3), coefficients: spread(0.5) }, total: spread(6.5), max_abs_dr: 0 }],
  constant: ['flat'],
  // A tight cluster: means 0.9990…0.9994, MAD 0.0001, so a series at 0.6 lies thousands of MADs below.
  ranking: [
    { name: 'odd', index: 1, meanR: 0.6, medianR: 0.6, z: -2637, flagged: true },
    { name: 'a', index: 0, meanR: 0.999, medianR: 0.999, z: -1.35, flagged: false },
    { name: 'b', index: 2, meanR: 0.9991, medianR: 0.9991, z: 0, flagged: false },
    { name: 'd', index: 5, meanR: 0.9991, medianR: 0.9991, z: 0, flagged: false },
    { name: 'c', index: 3, meanR: 0.9992, medianR: 0.9992, z: 0.67, flagged: false },
    { name: 'flat', index: 4, meanR: null, medianR: null, z: null, flagged: false },
  ],
  threshold: -3.5,
  top: 10,
  histogram: { edges: [-1, 0, 1], counts: [0, 6] },
  skipped: [],
}

describe('table notes', () => {
  it('the correlation ranking says what its z-scores are relative to, why they can be huge, and what an empty one is', () => {
    const note = correlationTables(correlation).find((t) => t.name === 'ranking')!.note!
    expect(note).toContain('0.6745 × (mean r − median) / MAD')
    expect(note).toContain('median mean r of all series (0.9991)')
    expect(note).toContain('MAD (0.0001)')
    expect(note).toContain('thousands of MADs')
    expect(note).toContain('a constant series')
    for (const t of correlationTables(correlation)) expect(t.note, t.name).toBeTruthy()
  })

  it('a zero-mean column\'s CV is explained where it is NaN or infinite, and only there', async () => {
    const input = join(dir, 'zero.csv')
    writeFileSync(input, 'acc_x,acc_y\n-1,2\n1,5\n-2,4\n2,4\n')
    const backend = new Backend({ engines: ENGINES })
    const env = await backend.jobs.result(backend.startJob('stats', { files: [input], backends: ['serial'], repeat: 1 }))
    const results = env.results as StatsResult
    expect(Number.isFinite(results.files[0].columns.acc_x.cv)).toBe(false)
    const [table, files] = statsTables(results)
    expect(table.note).toContain('cv = std / mean')
    expect(table.note).toContain('cv is NaN or ±∞')
    expect(files.note).toBeTruthy()
    // Through JSON (history, the dashboard) NaN and ∞ arrive as null: still explained.
    expect(statsTables(JSON.parse(JSON.stringify(results)))[0].note).toContain('cv is NaN or ±∞')

    const plain = join(dir, 'plain.csv')
    writeFileSync(plain, 'acc_x\n1\n2\n4\n')
    const ok = await backend.jobs.result(backend.startJob('stats', { files: [plain], backends: ['serial'], repeat: 1 }))
    expect(statsTables(ok.results as StatsResult)[0].note).not.toContain('NaN')

    // --out: the notes in results.json, the CSV as before (its first line the header, no comment line).
    const out = join(dir, 'set')
    await writeOutputs(out, env)
    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    expect(json.tableNotes.results).toBe(table.note)
    expect(readFileSync(join(out, 'results.csv'), 'utf8').split('\n')[0]).toBe('file,prefix_rows,column,backend,precision,n,missing,mean,std,cv,median,mad,compute_ms,upload_ms,compile_ms')
  })

  it('every landslide and shortest-paths table has a note', () => {
    const landslide: LandslideResult = {
      grid: { rows: 4, cols: 4, cellsize: 10, xllcorner: 0, yllcorner: 0, nodata: null, walls: 0, files: { dem: 'd', source: 's' } },
      steps: 10,
      reference: { backend: 'serial', md5: 'm', mass_start: 1, mass_end: 1 },
      runs: { serial: { backend: 'serial', precision: 'f64', ms: 1, ms_min: 1, ms_max: 1, ms_per_step: 0.1, md5: 'm', mass_end: 1 } },
      series: { step: [0, 10], mass: [1, 1], flooded: [1, 1], max_thickness: [1, 1], active: [1, 1] },
      maps: [],
      skipped: [],
    }
    for (const t of landslideTables(landslide)) expect(t.note, t.name).toBeTruthy()
    const paths = pathsTables({
      graphs: [
        {
          path: 'g', format: 'csv', bytes: 1, vertices: 2, edges: 1, duplicates: 0, selfLoops: 0, negativeWeights: false, read_ms: 1, reachablePairs: 1, checksum: '3',
          minDistance: 3, maxDistance: 3, runs: [{ name: 'serial', backend: 'serial', compute_ms: 1, compute_range_ms: [1, 1], relaxations_per_s: 8e3, matches: true }],
          histogram: { start: 3, width: 1, counts: [1] }, heatmap: { size: 2, cell: 1, min: [0, 3, null, 0] }, successors: false,
          query: { from: '0', to: '1', path: ['0', '1'], length: 3 },
        },
      ],
      skipped: [],
    })
    expect(paths.map((t) => t.name)).toEqual(['runs', 'graphs', 'query'])
    for (const t of paths) expect(t.note, t.name).toBeTruthy()
  })
})

describe('device table notes', () => {
  it('say what was measured, and that nothing was when it was not', async () => {
    const { deviceWorkload } = await import('../../src/shared/workloads/device')
    const info = { available: true, features: [], limits: { maxBufferSize: 1 } }
    for (const t of deviceWorkload.tables({ info })) expect(t.note, t.name).toBeTruthy()
    expect(deviceWorkload.tables({ info })[0].note).toContain('nothing was measured')
  })
})
