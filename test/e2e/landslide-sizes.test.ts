// The landslide at the study's size through `paralab serve`: the Tessina grid tiled TILE (7 320 × 6 944
// cells at 12 × 14) run as the dashboard runs it, which keeps its final grid on disk. Its view,
// reopened from the history in Chromium, is judged at both window sizes as test/e2e/layout-sizes.test.ts
// judges the other studies' (the map and frames aggregating blocks of cells), and each of its charts,
// tables and its envelope is exported within a quarter of the grid's size. Its result files:
// final.npy, final.asc and final.tif are read from the kept grid as they are sent (the server's memory
// grows by far less than the file), byte for byte the files the grid gives (the tiled grid's final
// thickness is the original's tiled, tiled-grid.ts); the full-resolution frame stays bounded and says
// its blocks; the whole-reply route refuses a grid past its limit, naming it; kept files that are not
// the run's are refused (last: it spoils them).
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { writeFileAtomic } from '../../src/main/io/atomic-write'
import { ascPieces, npyPieces, tifPieces } from '../../src/main/workloads/landslide/grid-writers'
import { readLandslideInput, type LandslideInput } from '../../src/main/workloads/landslide/inputs'
import { tiledReference, tileInput } from '../../src/main/workloads/landslide/tiled-grid'
import { FULL_SIDE, fullFrameWindow } from '../../src/shared/workloads/landslide/thickness-frame'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { connectApi, measuredDownload, type ApiClient } from '../helpers/api-client'
import { launchChromium } from '../helpers/browser'
import { judge } from '../helpers/layout'
import { startServe, type ServeProcess } from '../helpers/serve'
import { describeExports, expectEachWithin, HEAP_SLACK, reopenRun, runExports, SIZES } from '../helpers/study-sizes'

vi.setConfig({ testTimeout: 120_000 })

const TESSINA = ['header', 'dem', 'source'].map((f) => join(__dirname, '../../../shared/data/landslide', `tessina_${f}.txt`))
/** The study's tiling: 7 320 × 6 944 cells, a 406 MB .npy. */
const TILE = { rows: 12, cols: 14 }
const STEPS = 20
/** A download's growth of the server's memory may not grow with the file: pieces in flight and the collector's slack. */
const DOWNLOAD_BOUND = 64 * 2 ** 20

let dir: string
let serve: ServeProcess
let api: ApiClient
let run: string
let envelope: ResultEnvelope
let results: LandslideResult
/** The grid as the server read it (the GeoTIFFs written here), and its final thickness. */
let grid: LandslideInput
let expected: Float64Array

const sha256Of = (pieces: Iterable<Uint8Array>) => {
  const hash = createHash('sha256')
  for (const p of pieces) hash.update(p)
  return hash.digest('hex')
}
const address = (path: string) => `${serve.base}${path}${path.includes('?') ? '&' : '?'}token=${serve.token}`

/** Downloads `path` from the server, measured (helpers/api-client.ts). */
const download = (path: string) => measuredDownload(address(path))

const timed: string[] = []
async function time<T>(what: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now()
  const out = await work()
  timed.push(`${what} ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return out
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-landslide-sizes-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  // The tiled grid as GeoTIFFs: read by the server in seconds, where its text would take minutes.
  const tessina = await readLandslideInput(TESSINA, TESSINA)
  const tiled = tileInput(tessina, TILE)
  await time('writing the tiled GeoTIFFs', async () => {
    await writeFileAtomic(join(data, 'dem.tif'), tifPieces(tiled.z, tiled))
    await writeFileAtomic(join(data, 'source.tif'), tifPieces(tiled.h, { ...tiled, walls: null }))
  })
  const reference = await time('the original\'s reference, tiled', () => tiledReference(tessina, TILE, STEPS))
  if (!('grid' in reference)) throw new Error(reference.touching)
  expected = reference.grid
  grid = await readLandslideInput([join(data, 'dem.tif'), join(data, 'source.tif')], [join(data, 'dem.tif'), join(data, 'source.tif')])
  serve = await startServe(['--data', data], { PARALAB_HISTORY: join(dir, 'history'), PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_GPU: 'off' })
  api = await connectApi(serve)
  const done = await time('the run under serve', async () => {
    const jobId = await api.call<string>('startJob', 'landslide', { grids: [join(data, 'dem.tif'), join(data, 'source.tif')], steps: STEPS, frames: 10, backends: ['active'], repeat: 1 })
    return api.event((e) => e.jobId === jobId && e.type !== 'progress', 300_000)
  })
  expect(done.type, JSON.stringify(done.error)).toBe('done')
  expect(done.envelope.kept.files.sort()).toEqual(['final-frame.f64', 'final-grid.json', 'final-walls.bits', 'final.npy'])
  envelope = done.envelope
  run = done.envelope.kept.run
  results = done.envelope.results
  expect([results.grid.rows, results.grid.cols]).toEqual([tessina.rows * TILE.rows, tessina.cols * TILE.cols])
}, 400_000)

afterAll(async () => {
  console.log(`landslide at ${TILE.rows} × ${TILE.cols}: ${timed.join('; ')}`)
  api?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe(`the landslide's view at the study's size (Tessina tiled ${TILE.rows} × ${TILE.cols})`, () => {
  const SHOTS = resolve(__dirname, '../../test-output/landslide-sizes')
  let browser: Browser
  let page: Page
  let historyId: string
  const pageErrors: string[] = []
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(serve.url)
    const listed = await api.call<{ id: string; workload: string }[]>('listRuns')
    historyId = listed.find((r) => r.workload === 'landslide')!.id
  })
  afterAll(async () => {
    await browser?.close()
  })

  it.each(SIZES)('reopened from the history at $width×$height: no sideways overflow, no text cut or overlapping; the map says its blocks', async (size) => {
    await time(`the view at ${size.width} px`, async () => {
      await reopenRun(page, 'landslide', historyId, size)
      await judge(page, `landslide-${SIZES.indexOf(size) ? 'large' : 'small'}`, size, SHOTS)
    })
    // The full-resolution frame's map cells stand for blocks of grid cells at this size, and its downloads say so.
    expect(await page.getByTestId('landslide-results').locator('[title*="each the deepest of"]').count()).toBeGreaterThan(0)
    expect(pageErrors).toEqual([])
  })

  it('every chart (PNG, SVG), every table (CSV) and the envelope (JSON), each within a quarter of the grid\'s size', async () => {
    const gridBytes = results.grid.rows * results.grid.cols * 8
    const asked = await time('the exports', () => runExports(api, 'landslide', envelope))
    timed.push(`exports (${(gridBytes / 2 ** 20).toFixed(0)} MiB grid): ${describeExports(asked)}`)
    expect(asked.length).toBeGreaterThan(3)
    expectEachWithin(asked, gridBytes)
  })
})

describe(`the landslide's result files at the study's size (Tessina tiled ${TILE.rows} × ${TILE.cols})`, () => {
  it('final.npy is the final grid, sent from the kept file with its length: the server grows by far less than the file', async () => {
    const got = await time('final.npy', () => download(`runs/${run}/final.npy?name=final.npy`))
    expect(got.status).toBe(200)
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="final.npy"')
    expect(Number(got.headers.get('content-length'))).toBe(got.bytes)
    expect(got.bytes).toBe(128 + expected.length * 8)
    expect(got.sha256).toBe(sha256Of(npyPieces(expected, grid.rows, grid.cols, grid.walls)))
    timed.push(`final.npy ${got.bytes} bytes, +${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`)
    expect(got.rssGrowth).toBeLessThan(DOWNLOAD_BOUND)
  })

  it('final.asc is written a block of rows at a time, dry cells 0 and walls −9999, byte for byte', async () => {
    const got = await time('final.asc', () => download(`runs/${run}/final.asc`))
    expect(got.status).toBe(200)
    expect(got.headers.get('content-type')).toBe('text/plain')
    expect(got.head.toString('latin1')).toMatch(/^ncols\s+6944\nnrows\s+7320\n/)
    expect(got.sha256).toBe(sha256Of(ascPieces(expected, grid.header, grid.walls)))
    timed.push(`final.asc ${got.bytes} bytes, +${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`)
    expect(got.rssGrowth).toBeLessThan(DOWNLOAD_BOUND)
  })

  it('final.tif is the GeoTIFF the grid gives, placed like the DEM, with its length', async () => {
    const got = await time('final.tif', () => download(`runs/${run}/final.tif`))
    expect(got.status).toBe(200)
    expect(Number(got.headers.get('content-length'))).toBe(got.bytes)
    expect(got.sha256).toBe(sha256Of(tifPieces(expected, grid)))
    timed.push(`final.tif ${got.bytes} bytes, +${(got.rssGrowth / 2 ** 20).toFixed(1)} MiB`)
    expect(got.rssGrowth).toBeLessThan(DOWNLOAD_BOUND)
  })

  it('the final frame is bounded at this size and says what a map cell stands for', async () => {
    const window = fullFrameWindow(results.maps.at(-1)!)
    expect(window.size).toBeLessThanOrEqual(FULL_SIDE)
    const png = await time('thickness-full.png', () => download(`runs/${run}/thickness-full.png`))
    expect(png.status).toBe(200)
    expect(png.head.subarray(1, 4).toString('latin1')).toBe('PNG')
    // Its pixels: 2 a layout pixel, the map a layout pixel a cell with room for axes and the colour bar.
    const [width, height] = [png.head.readUInt32BE(16), png.head.readUInt32BE(20)]
    expect(Math.max(width, height)).toBeLessThan(2 * (FULL_SIDE + 400))
    const svg = await time('thickness-full.svg', () => download(`runs/${run}/thickness-full.svg`))
    expect(svg.status).toBe(200)
    const text = await (await fetch(address(`runs/${run}/thickness-full.svg`))).text()
    expect(Buffer.byteLength(text)).toBe(svg.bytes)
    expect([text.slice(0, 38), text.slice(-8)]).toEqual(['<?xml version="1.0" encoding="UTF-8"?>', '\n</svg>\n'])
    expect(text).toContain(window.block === 1 ? 'a grid cell' : `max of ${window.block} × ${window.block} grid cells`)
    timed.push(`frame ${window.size}² cells of ${window.block}² (PNG ${width} × ${height} px, ${png.bytes} bytes, +${(png.rssGrowth / 2 ** 20).toFixed(1)} MiB; SVG ${svg.bytes} bytes, +${(svg.rssGrowth / 2 ** 20).toFixed(1)} MiB)`)
    expect(svg.bytes).toBeLessThan(64 * 2 ** 20)
    // Sent a piece of elements at a time; drawn whole first, so bounded as the exports are.
    expect(svg.rssGrowth).toBeLessThan((results.grid.rows * results.grid.cols * 8) / 4 + HEAP_SLACK)
  })

  it('asked whole with the results alone, a grid past the reply\'s limit is refused, naming the limit and the way that works', async () => {
    await expect(api.call('exportResultFile', { workload: 'landslide', results, file: 'final.npy', fileName: 'x.npy' })).rejects.toThrow(
      /final\.npy of this 7320 × 6944 grid is 406\.\d MB, more than the 64 MiB a file sent whole may take: download it from the run in the history/,
    )
  })

  it('refuses kept files that are not the run\'s: a description of another grid, a link, walls of the wrong size', async () => {
    const kept = join(dir, 'history', 'kept', run)
    const info = readFileSync(join(kept, 'final-grid.json'), 'utf8')
    writeFileSync(join(kept, 'final-grid.json'), info.replace(/"steps":20/, '"steps":21'))
    let res = await fetch(address(`runs/${run}/final.npy`))
    expect(res.status).toBe(500)
    expect(await res.text()).toMatch(/the kept grid is not this run's \(7320 × 6944 after 21 steps/)
    writeFileSync(join(kept, 'final-grid.json'), info.replace('"entries":[', '"entries":[["x\\nNODATA_value","1"],'))
    res = await fetch(address(`runs/${run}/final.asc`))
    expect(await res.text()).toMatch(/the kept grid's description has no valid header lines/)
    writeFileSync(join(kept, 'final-grid.json'), info)
    const walls = readFileSync(join(kept, 'final-walls.bits'))
    writeFileSync(join(kept, 'final-walls.bits'), walls.subarray(1))
    res = await fetch(address(`runs/${run}/final.asc`))
    expect(res.status).toBe(500)
    expect(await res.text()).toMatch(/the kept walls hold \d+ bytes, not the \d+ of this run's 7320 × 6944 grid/)
    writeFileSync(join(kept, 'final-walls.bits'), walls)
    unlinkSync(join(kept, 'final.npy'))
    symlinkSync(join(dir, 'data', 'dem.tif'), join(kept, 'final.npy'))
    res = await fetch(address(`runs/${run}/final.tif`))
    expect(res.status).toBe(500)
    expect(await res.text()).toMatch(/is a symbolic link, not a file Paralab wrote/)
  })
})
