// compareGrids on real landslide runs of a dashboard's backend: a valley with walls run twice with
// different steps and sources, B − A read from the grids the runs kept and checked against the same
// figures worked out here from their final.npy files; runs on another grid refused with the reason,
// a wall in one run only counted as such. Then hostile requests and kept files: ids that are paths,
// runs of other workloads, kept files truncated, swapped for links, described as another grid or
// removed, an envelope naming another run's folder: each is said, nothing else is read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiHandlers, handleRequest } from '../../src/main/backend/api-handlers'
import { Backend } from '../../src/main/backend/backend'
import { RunHistory } from '../../src/main/backend/history'
import { ENGINES } from '../../src/main/workloads'
import type { GridComparison } from '../../src/shared/grid-difference'
import { validateRequest } from '../../src/shared/validate'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { writeValley } from '../helpers/landslide-valley'

// More cells than the comparison reads at a time (a quarter of a million): two blocks of rows.
const ROWS = 520
const COLS = 512

let dir: string
let history: string
let backend: Backend
let dem: string
let source: string
/** The same source, half as deep again: more debris on the same grid. */
let deeper: string
/** The DEM with one more NODATA cell, in the valley's floor. */
let walled: string
let otherGrid: [string, string]

interface Kept {
  id: string
  envelope: ResultEnvelope<LandslideResult>
}
let a: Kept
let b: Kept

async function run(grids: string[], steps: number, on = backend): Promise<Kept> {
  const envelope = (await on.jobs.result(on.startJob('landslide', { grids, steps, backends: ['active'], repeat: 1 } as never))) as ResultEnvelope<LandslideResult>
  return { id: envelope.kept?.run ?? (await on.listRuns())[0].id, envelope }
}

/** A run's kept final.npy, read here: its cells (walls NaN). */
function keptGrid(id: string): Float64Array {
  const bytes = readFileSync(join(history, 'kept', id, 'final.npy'))
  const headerLength = bytes.readUInt16LE(8)
  const data = bytes.subarray(10 + headerLength)
  return new Float64Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength))
}

const compared = (c: GridComparison) => {
  if (c.outcome !== 'compared') throw new Error(`not compared: ${JSON.stringify(c)}`)
  return c
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-compare-grids-'))
  history = join(dir, 'history')
  ;[dem, source] = writeValley(dir, ROWS, COLS, 7)
  deeper = join(dir, 'valley-source-deeper.asc')
  // The header's six lines, then the cells.
  const lines = readFileSync(source, 'utf8').split('\n')
  writeFileSync(deeper, [...lines.slice(0, 6), ...lines.slice(6).map((l) => l.split(' ').map((v) => (v === '' ? v : String(Number(v) * 1.5))).join(' '))].join('\n'))
  const demLines = readFileSync(dem, 'utf8').split('\n')
  const cells = demLines[6 + 30].split(' ')
  cells[16] = '-9999'
  demLines[6 + 30] = cells.join(' ')
  walled = join(dir, 'valley-dem-walled.asc')
  writeFileSync(walled, demLines.join('\n'))
  const other = join(dir, 'other')
  mkdirSync(other)
  otherGrid = writeValley(other, ROWS + 8, COLS, 7)
  backend = new Backend({ engines: ENGINES, historyDir: history, exampleDir: join(dir, 'examples') })
  a = await run([dem, source], 150)
  b = await run([dem, deeper], 300)
}, 120_000)

afterAll(() => {
  backend?.dispose()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('compareGrids on two landslide runs', () => {
  it('gives B − A over the full grids: the volumes the runs reported, and the cells that differ as counted here', async () => {
    const c = compared(await backend.compareGrids(a.id, b.id))
    const [ra, rb] = [a.envelope.results, b.envelope.results]
    expect(c.grid).toMatchObject({ rows: ROWS, cols: COLS, cellsize: 5, xllcorner: 0, yllcorner: 0 })
    // Σh × cell area, as the runs' own results compute their volume.
    expect(c.stats.sum[0]).toBeCloseTo(ra.reference.mass_end, 9)
    expect(c.stats.sum[1]).toBeCloseTo(rb.reference.mass_end, 9)
    expect(c.stats.volume[0]).toBeCloseTo(ra.reference.volume_end!, 6)
    expect(c.stats.delta.volume).toBeCloseTo(rb.reference.volume_end! - ra.reference.volume_end!, 6)
    // Worked out here from the kept files, walls NaN.
    const [ha, hb] = [keptGrid(a.id), keptGrid(b.id)]
    let differing = 0
    let over = 0
    let maxAbs = 0
    let at = -1
    let walls = 0
    for (let k = 0; k < ha.length; k++) {
      if (Number.isNaN(ha[k]) && Number.isNaN(hb[k])) {
        walls++
        continue
      }
      const d = hb[k] - ha[k]
      if (d !== 0) differing++
      if (Math.abs(d) > 0.001) over++
      if (Math.abs(d) > maxAbs) [maxAbs, at] = [Math.abs(d), k]
    }
    expect(walls).toBe(ra.grid.walls)
    expect(walls).toBeGreaterThan(0)
    expect(c.stats.walls).toEqual({ both: walls, onlyA: 0, onlyB: 0 })
    expect([c.stats.compared, c.stats.differing, c.stats.over]).toEqual([ROWS * COLS - walls, differing, over])
    expect(differing).toBeGreaterThan(10)
    expect(c.stats.maxAbs).toBe(maxAbs)
    expect(c.stats.at).toEqual({ row: Math.floor(at / COLS), col: at % COLS, delta: hb[at] - ha[at] })
    // The map: a grid cell a map cell here, its window holding the greatest difference.
    const { map } = c
    expect(map.block).toBe(1)
    const [r, col] = [c.stats.at!.row - map.row0, c.stats.at!.col - map.col0]
    expect(map.values[r * map.size + col]).toBe(Number(c.stats.at!.delta.toPrecision(6)))
    expect(Math.max(...map.values.map((v) => Math.abs(v ?? 0)))).toBe(Number(maxAbs.toPrecision(6)))
  })

  it('finds nothing between a run and itself, and swaps the sign with the runs', async () => {
    const same = compared(await backend.compareGrids(a.id, a.id))
    expect([same.stats.differing, same.stats.maxAbs, same.stats.delta.volume]).toEqual([0, 0, 0])
    const [ab, ba] = [compared(await backend.compareGrids(a.id, b.id)), compared(await backend.compareGrids(b.id, a.id))]
    expect(ba.stats.delta.volume).toBeCloseTo(-ab.stats.delta.volume, 9)
    expect(ba.stats.at!.delta).toBe(-ab.stats.at!.delta)
  })

  it('says the grids differ in shape instead of comparing them', async () => {
    const other = await run(otherGrid, 50)
    const c = await backend.compareGrids(a.id, other.id)
    expect(c).toEqual({ outcome: 'incomparable', reasons: [`The grids differ in shape: A is ${ROWS} × ${COLS} cells, B ${ROWS + 8} × ${COLS}.`] })
  }, 60_000)

  it('counts a wall in one run only as such, its other run\'s thickness in Δ mass', async () => {
    const w = await run([walled, source], 150)
    const c = compared(await backend.compareGrids(a.id, w.id))
    expect(c.stats.walls.onlyB).toBe(1)
    expect(c.stats.walls.onlyA).toBe(0)
    expect(c.stats.walls.both).toBe(a.envelope.results.grid.walls)
    expect(c.map.wallsDiffer).toHaveLength(1)
    expect(c.stats.delta.sum).toBeCloseTo(c.stats.sum[1] - c.stats.sum[0], 9)
  }, 60_000)

  it('is an API method: checked, then answered through the handlers as the transports do', async () => {
    const handlers = apiHandlers(backend)
    const c = (await handleRequest(handlers, 'compareGrids', [a.id, b.id])) as GridComparison
    expect(c.outcome).toBe('compared')
    // What crosses the wire is the map of at most 256 cells a side, never the grids (2 MiB each here).
    if (c.outcome === 'compared') expect(c.map.size).toBeLessThanOrEqual(256)
    expect(JSON.stringify(c).length).toBeLessThan((ROWS * COLS * 8) / 10)
  })
})

describe('compareGrids against hostile requests and kept files', () => {
  it('takes only run ids, never paths or anything else', () => {
    for (const bad of ['../../etc/passwd', '/tmp/x', 'kept/x', '', 'x'.repeat(200)])
      expect(() => validateRequest('compareGrids', [bad, a.id])).toThrow(/each run must be a run id from listRuns/)
    expect(() => validateRequest('compareGrids', [a.id, 42])).toThrow(/each run must be a run id/)
    expect(() => validateRequest('compareGrids', [a.id])).toThrow(/takes 2 argument/)
    expect(() => validateRequest('compareGrids', [a.id, b.id])).not.toThrow()
  })

  it('refuses runs the history does not hold, and runs of workloads without grids', async () => {
    await expect(backend.compareGrids('20240101T000000000Z-landslide-zzzz', a.id)).rejects.toThrow(/no run "20240101T000000000Z-landslide-zzzz" in the history/)
    // A statistics run in the same history.
    const statsId = await new RunHistory(history).save({ ...a.envelope, workload: 'stats', results: { files: [], failed: [] }, kept: undefined } as never)
    await expect(backend.compareGrids(a.id, statsId)).rejects.toThrow(/run A is a landslide run and run B a stats run/)
    await expect(backend.compareGrids(statsId, statsId)).rejects.toThrow(/stats runs keep no grids to compare/)
    await expect(new Backend({ engines: ENGINES }).compareGrids(a.id, b.id)).rejects.toThrow(/keeps no run history/)
  })

  /** A fresh run like A whose kept files a test may damage, and the comparison's answer for it as B. */
  async function damaged(damage: (folder: string) => void): Promise<GridComparison> {
    const victim = await run([dem, source], 150)
    damage(join(history, 'kept', victim.id))
    return backend.compareGrids(a.id, victim.id)
  }
  const missingB = (c: GridComparison) => {
    expect(c.outcome).toBe('missing')
    if (c.outcome !== 'missing') return ''
    expect(c.runs.map((r) => r.run)).toEqual(['B'])
    return c.runs[0].reason
  }

  it('says which run\'s grid is damaged, by its size or header, before reading a cell', async () => {
    expect(missingB(await damaged((f) => truncateSync(join(f, 'final.npy'), 1000)))).toMatch(new RegExp(`kept final grid cannot be read: the kept grid holds 1000 bytes, not the \\d+ of this run's ${ROWS} × ${COLS} grid`))
    expect(missingB(await damaged((f) => truncateSync(join(f, 'final-walls.bits'), 3)))).toMatch(/the kept walls hold 3 bytes/)
    expect(
      missingB(
        await damaged((f) => {
          const bytes = readFileSync(join(f, 'final.npy'))
          bytes.write("'<i8'", bytes.indexOf("'<f8'"), 'latin1')
          writeFileSync(join(f, 'final.npy'), bytes)
        }),
      ),
    ).toMatch(`header is not that of this run's ${ROWS} × ${COLS} f64 grid`)
  }, 120_000)

  it('believes no description of another grid, however it is sized', async () => {
    const describe = (change: (info: Record<string, unknown>) => void) => (f: string) => {
      const info = JSON.parse(readFileSync(join(f, 'final-grid.json'), 'utf8'))
      change(info)
      writeFileSync(join(f, 'final-grid.json'), JSON.stringify(info))
    }
    // Two billion cells would be 16 GB to read: refused as not this run's before any file is opened.
    const huge = (i: Record<string, unknown>) => {
      Object.assign(i, { rows: 50_000, cols: 40_000 })
      Object.assign(i.header as object, { nrows: 50_000, ncols: 40_000 })
    }
    expect(missingB(await damaged(describe(huge)))).toMatch(/the kept grid is not this run's \(50000 × 40000/)
    expect(missingB(await damaged(describe((i) => (i.rows = -1))))).toMatch(/description has no valid size/)
    expect(missingB(await damaged((f) => writeFileSync(join(f, 'final-grid.json'), ' '.repeat(2 ** 20 + 1))))).toMatch(/takes 1048577 bytes, more than/)
  }, 120_000)

  it('follows no link in a run\'s kept folder', async () => {
    const reason = missingB(
      await damaged((f) => {
        unlinkSync(join(f, 'final.npy'))
        symlinkSync(join(history, 'kept', a.id, 'final.npy'), join(f, 'final.npy'))
      }),
    )
    expect(reason).toMatch(/final\.npy is a symbolic link, not a file Paralab wrote/)
  }, 60_000)

  it('says which run\'s files were removed, and reads no other run\'s folder than its own', async () => {
    expect(missingB(await damaged((f) => rmSync(f, { recursive: true })))).toMatch(/its final grid is no longer kept/)
    // An envelope edited to name another run's folder still has its files looked for under its own id.
    const victim = await run([dem, source], 150)
    rmSync(join(history, 'kept', victim.id), { recursive: true })
    const file = join(history, `${victim.id}.json`)
    const envelope = JSON.parse(readFileSync(file, 'utf8'))
    envelope.kept = { run: a.id, files: ['final.npy', 'final-grid.json'] }
    writeFileSync(file, JSON.stringify(envelope))
    expect(missingB(await backend.compareGrids(a.id, victim.id))).toMatch(/no longer kept/)
  }, 120_000)

  it('says a run kept no grid where its grid was over the bound on kept files', async () => {
    process.env.PARALAB_KEPT_BYTES = '1000'
    let small: Backend
    try {
      small = new Backend({ engines: ENGINES, historyDir: history, exampleDir: join(dir, 'examples') })
    } finally {
      delete process.env.PARALAB_KEPT_BYTES
    }
    const unkept = await run([dem, source], 150, small)
    expect(unkept.envelope.kept).toBeUndefined()
    const c = await backend.compareGrids(unkept.id, a.id)
    expect(c).toEqual({ outcome: 'missing', runs: [{ run: 'A', id: unkept.id, reason: expect.stringMatching(/it kept no final grid: .*PARALAB_KEPT_BYTES/) }] })
    small.dispose()
  }, 60_000)
})
