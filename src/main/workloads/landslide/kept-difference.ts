// Two landslide runs of the history set against each other by the final grids they kept
// (kept-grid.ts), B − A: each run's description and files checked as a download's are, the grids
// compared only where they are one grid (shape, cell size, place, CRS: nothing is resampled), then
// read a block of rows at a time, twice: once for the statistics over every cell, once for the map
// over the window where they differ.
import { ApiError } from '../../../shared/errors'
import type { GridComparison, MissingGrid } from '../../../shared/grid-difference'
import { crsText, type LandslideResult } from '../../../shared/workloads/landslide/types'
import type { HistoryRun, KeptFileOpener } from '../../engine'
import { DifferenceMapper, DifferenceStats, type RowBlock } from './grid-difference'
import { gridBlocks, type KeptInfo, openGrid, openWalls, readInfo } from './kept-grid'

type Found = { run: HistoryRun<LandslideResult>; kept: KeptFileOpener; info: KeptInfo }

export async function compareKeptGrids(a: HistoryRun<LandslideResult>, b: HistoryRun<LandslideResult>, signal?: AbortSignal): Promise<GridComparison> {
  const found = [await keptGrid(a, 'A'), await keptGrid(b, 'B')]
  const missing = found.filter((f): f is MissingGrid => 'reason' in f)
  if (missing.length) return { outcome: 'missing', runs: missing }
  const [fa, fb] = found as Found[]
  const reasons = differences(fa, fb)
  if (reasons.length) return { outcome: 'incomparable', reasons }
  const { rows, cols, header } = fa.info
  const stats = new DifferenceStats(cols)
  for await (const block of bothGrids(fa, fb, signal)) stats.add(block)
  const window = stats.window(rows)
  const mapper = new DifferenceMapper(window, cols)
  for await (const block of bothGrids(fa, fb, signal, window.row0, window.row0 + window.size * window.block)) mapper.add(block)
  const crs = a.results.grid.crs
  return {
    outcome: 'compared',
    grid: { rows, cols, cellsize: header.cellsize, xllcorner: header.xllcorner, yllcorner: header.yllcorner, ...(crs && { crs }) },
    stats: stats.stats(header.cellsize),
    map: mapper.map(),
  }
}

/** The run's kept grid, its description and files checked (size, header) before any cell is read; or why there is none. */
async function keptGrid(run: HistoryRun<LandslideResult>, which: 'A' | 'B'): Promise<Found | MissingGrid> {
  const missing = (reason: string): MissingGrid => ({ run: which, id: run.id, reason })
  const r = run.results
  if (typeof r !== 'object' || r === null || typeof r.grid !== 'object' || r.grid === null || typeof r.reference !== 'object' || typeof r.steps !== 'number')
    return missing('its results are not a landslide run\'s')
  const { kept } = run
  if (!kept)
    return missing(
      r.ranks
        ? 'it ran in ranks, and a run in ranks keeps no final grid'
        : `it kept no final grid${run.partial ? ' (a partial run)' : ''}: a run from the command line keeps none, nor one whose grid was larger than the bound on kept files (PARALAB_KEPT_BYTES)`,
    )
  try {
    const info = await readInfo(r, kept)
    if (!info) return missing('its final grid is no longer kept: older runs\' files made room for newer ones, or the files were removed')
    await (await openGrid(kept, info)).file.close()
    await (await openWalls(kept, info))?.file.close()
    return { run, kept, info }
  } catch (e) {
    return missing(`its kept final grid cannot be read: ${ApiError.from(e).message}`)
  }
}

const count = (n: number) => n.toLocaleString('en-US')

/** Each way the two grids are not one grid, said plainly; none when they are. */
function differences(a: Found, b: Found): string[] {
  const [ha, hb] = [a.info.header, b.info.header]
  const out: string[] = []
  if (a.info.rows !== b.info.rows || a.info.cols !== b.info.cols)
    out.push(`The grids differ in shape: A is ${count(a.info.rows)} × ${count(a.info.cols)} cells, B ${count(b.info.rows)} × ${count(b.info.cols)}.`)
  if (ha.cellsize !== hb.cellsize) out.push(`The cells differ in size: A's are ${ha.cellsize} m, B's ${hb.cellsize} m.`)
  if (ha.xllcorner !== hb.xllcorner || ha.yllcorner !== hb.yllcorner)
    out.push(`The grids lie in different places: A's south-west corner is at x ${ha.xllcorner}, y ${ha.yllcorner}, B's at x ${hb.xllcorner}, y ${hb.yllcorner}.`)
  const [ca, cb] = [crsText(a.run.results.grid.crs), crsText(b.run.results.grid.crs)]
  if (ca !== cb) out.push(`The CRS differ: A's is ${ca}, B's ${cb}.`)
  return out
}

/**
 * Bytes of each grid read at a time (a quarter of a million cells): a block's comparison holds the
 * event loop, which a dashboard's other requests share, for tens of milliseconds at most.
 */
const COMPARE_BLOCK_BYTES = 2 * 2 ** 20

/** Both grids' rows `from` … `to` − 1, a block at a time (one grid, so their blocks are the same rows). */
async function* bothGrids(a: Found, b: Found, signal?: AbortSignal, from = 0, to = a.info.rows): AsyncGenerator<RowBlock> {
  const rows = { from, to, blockBytes: COMPARE_BLOCK_BYTES }
  const ga = gridBlocks(a.kept, a.info, signal, rows)
  const gb = gridBlocks(b.kept, b.info, signal, rows)
  try {
    let row0 = Math.max(0, from)
    for (;;) {
      const [x, y] = [await ga.next(), await gb.next()]
      if (x.done || y.done) return
      if (x.value.rows !== y.value.rows) throw new ApiError('internal', `blocks of ${x.value.rows} and ${y.value.rows} rows of one grid`)
      yield { row0, a: x.value.h, aWalls: x.value.walls, b: y.value.h, bWalls: y.value.walls }
      row0 += x.value.rows
    }
  } finally {
    await ga.return(undefined)
    await gb.return(undefined)
  }
}
