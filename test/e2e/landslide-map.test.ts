// The landslide's map in Chromium against the real backend: the example run through `paralab serve`,
// reopened from the history. The map fills its panel; the read-out under the pointer gives the
// cell's h and the ground's elevation as the run's results hold them (the elevation also against the
// example's DEM read here, carved as the model carves it) and its map coordinates from the grid's
// header; zoom (buttons, wheel, keys) and pan (drag, arrow keys) move the coordinates as they should,
// and Reset view brings the whole map back.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ExampleSetup } from '../../src/shared/api'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { connectApi, type ApiClient } from '../helpers/api-client'
import { launchChromium } from '../helpers/browser'
import { startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 60_000 })

let dir: string
let serve: ServeProcess
let api: ApiClient
let browser: Browser
let page: Page
let results: LandslideResult
let demPath: string
let sourcePath: string
const pageErrors: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-landslide-map-'))
  mkdirSync(join(dir, 'data'))
  serve = await startServe(['--data', join(dir, 'data')], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' })
  api = await connectApi(serve)
  const example = await api.call<ExampleSetup>('example', 'landslide')
  ;[demPath, sourcePath] = ['slope-dem.asc', 'slope-source.asc'].map((name) => example.files.find((f) => f.path.endsWith(name))!.path)
  const jobId = await api.call<string>('startJob', 'landslide', { ...example.params, grids: [demPath, sourcePath], backends: ['active'], repeat: 1 })
  const done = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 60_000)
  expect(done.type, JSON.stringify(done.error)).toBe('done')
  results = done.envelope.results
  const [run] = await api.call<{ id: string; workload: string }[]>('listRuns')
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
  // From the history, as a user reopens a run (a narrow window keeps it behind a button).
  const open = page.getByTestId(`history-open-${run.id}`)
  const toggle = page.getByTestId('side-toggle')
  // The history lists its runs once the page has asked for them.
  await page.locator(`[data-testid="history-open-${run.id}"]:visible, [data-testid="side-toggle"]:visible`).first().waitFor()
  if (!(await open.isVisible())) await toggle.click()
  await open.click()
  await page.getByTestId('landslide-results').waitFor()
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) === 'true') await toggle.click()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  api?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const frame = () => page.getByTestId('landslide-frame')
const readout = () => page.getByTestId('landslide-readout')

/** The canvas's box on the page and the map's square in it, CSS pixels. */
async function mapBox(): Promise<{ left: number; top: number; side: number }> {
  const box = (await frame().boundingBox())!
  const [x, y, side] = await Promise.all(['data-map-x', 'data-map-y', 'data-map-side'].map(async (a) => Number(await frame().getAttribute(a))))
  return { left: box.x + x, top: box.y + y, side }
}

/** Moves the pointer to `at` and waits for the read-out there. */
async function hover(at: { x: number; y: number }): Promise<void> {
  await page.mouse.move(at.x, at.y)
  await expect.poll(() => readout().getAttribute('data-x')).not.toBeNull()
}

/** The read-out's numbers (NaN where absent). */
async function read(): Promise<{ x: number; y: number; row: number; col: number; h: number; elevation: number }> {
  const [x, y, row, col, h, elevation] = await Promise.all(['x', 'y', 'row', 'col', 'h', 'elevation'].map(async (a) => Number((await readout().getAttribute(`data-${a}`)) ?? NaN)))
  return { x, y, row, col, h, elevation }
}

/** An ESRI ASCII grid's values, NODATA as NaN. */
function readAsc(path: string): { cols: number; values: number[] } {
  const lines = readFileSync(path, 'utf8').trim().split('\n')
  const head = Object.fromEntries(lines.slice(0, 6).map((l) => l.trim().split(/\s+/)).map(([k, v]): [string, number] => [k.toLowerCase(), Number(v)]))
  const values = lines.slice(6).flatMap((l) => l.trim().split(/\s+/).map(Number)).map((v) => (v === head.nodata_value ? NaN : v))
  return { cols: head.ncols, values }
}

describe('the landslide map in Chromium', () => {
  it('fills its panel', async () => {
    const panel = await page.getByTestId('landslide-player').evaluate((el) => el.clientWidth)
    await expect.poll(async () => (await frame().boundingBox())!.width).toBeGreaterThan(0.85 * panel)
    const { side } = await mapBox()
    const drawn = (await frame().boundingBox())!.width
    expect(drawn).toBeLessThanOrEqual(panel)
    // Its map gives up only the cells' whole pixels and the margins (northings, colour bar).
    expect(side).toBeGreaterThan(0.6 * panel)
    // Still the map cells of the run, as its extent line says.
    expect(Number(await frame().getAttribute('data-map-cells'))).toBe(results.maps.at(-1)!.size)
  })

  /** The deepest map cell of the final map, and where it lies on the screen now (a click above may scroll the page). */
  let cell: { r: number; c: number }
  const pointOf = async () => {
    const { left, top, side } = await mapBox()
    const per = side / results.maps.at(-1)!.size
    return { x: left + (cell.c + 0.5) * per, y: top + (cell.r + 0.5) * per }
  }
  let first: Awaited<ReturnType<typeof read>>
  it("reads out the deepest cell's h, the ground's elevation and its map coordinates", async () => {
    const map = results.maps.at(-1)!
    const { grid } = results
    const k = map.values.reduce<number>((best, v, i) => ((v ?? 0) > (map.values[best] ?? 0) ? i : best), 0)
    const [r, c] = [Math.floor(k / map.size), k % map.size]
    // The whole frame in sight: the map is as wide as its panel.
    await frame().evaluate((el) => el.scrollIntoView({ block: 'center' }))
    cell = { r, c }
    const { side } = await mapBox()
    await hover(await pointOf())
    expect(await readout().getAttribute('data-row')).toBe(String(r))
    first = await read()
    expect(first.col).toBe(c)
    expect(first.h).toBe(map.values[k])
    expect(first.elevation).toBe(results.hillshade!.elevation![k])
    // For a person to look at: the map, its read-out and its controls.
    await page.screenshot({ path: join(__dirname, '../../test-output/landslide-map/read-out-1280x1000.png') })
    // The pointer's coordinates, within a CSS pixel of the cell's centre.
    const metresPerPixel = (map.block * grid.cellsize) / (side / map.size)
    expect(Math.abs(first.x - (grid.xllcorner + (map.col0 + (c + 0.5) * map.block) * grid.cellsize))).toBeLessThanOrEqual(metresPerPixel)
    expect(Math.abs(first.y - (grid.yllcorner + (grid.rows - map.row0 - (r + 0.5) * map.block) * grid.cellsize))).toBeLessThanOrEqual(metresPerPixel)
    // The elevation against the example's DEM: its block's mean, the source carved out (interior cells).
    const dem = readAsc(demPath)
    const source = readAsc(sourcePath)
    let [sum, count] = [0, 0]
    for (let i = map.row0 + r * map.block; i < map.row0 + (r + 1) * map.block; i++)
      for (let j = map.col0 + c * map.block; j < map.col0 + (c + 1) * map.block; j++) {
        if (i < 0 || j < 0 || i >= grid.rows || j >= grid.cols || Number.isNaN(dem.values[i * dem.cols + j])) continue
        const interior = i > 0 && j > 0 && i < grid.rows - 1 && j < grid.cols - 1
        const h0 = source.values[i * source.cols + j]
        sum += dem.values[i * dem.cols + j] - (interior && h0 > 0 ? h0 : 0)
        count++
      }
    expect(Math.abs(first.elevation - sum / count)).toBeLessThanOrEqual(0.005 + 1e-9)
    // Said in words, with the block each value stands for and the CRS.
    const text = await readout().innerText()
    expect(text).toContain('CRS unknown')
    if (map.block > 1) {
      expect(text).toContain(`deepest of ${map.block} × ${map.block} cells`)
      expect(text).toContain(`mean of ${map.block} × ${map.block} cells`)
    }
    expect(await page.getByTestId('landslide-readout-resolution').innerText()).toContain('zooming magnifies the map')
  })

  /** The window's centre in map coordinates: where the buttons zoom about. */
  const centre = () => {
    const map = results.maps.at(-1)!
    const { grid } = results
    const half = (map.size * map.block) / 2
    return { x: grid.xllcorner + (map.col0 + half) * grid.cellsize, y: grid.yllcorner + (grid.rows - map.row0 - half) * grid.cellsize }
  }
  /** Equal but for rounding: a millimetre. */
  const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-3)

  it('zooms in about the centre with +, the coordinates under the pointer closing in on it', async () => {
    await page.getByTestId('landslide-zoom-in').click()
    await hover(await pointOf())
    await expect.poll(() => frame().getAttribute('data-zoom')).toBe('2')
    const zoomed = await read()
    near(zoomed.x, centre().x + (first.x - centre().x) / 2)
    near(zoomed.y, centre().y + (first.y - centre().y) / 2)
    expect(await page.getByTestId('landslide-zoom').innerText()).toBe('zoom 2×')
  })

  it('pans by dragging and by the arrow keys, and zooms by + and − keys', async () => {
    const before = await read()
    const point = await pointOf()
    const { side } = await mapBox()
    const metresPerPixel = (results.maps.at(-1)!.size * results.maps.at(-1)!.block * results.grid.cellsize) / side / 2
    await page.mouse.down()
    await page.mouse.move(point.x - 100, point.y - 60, { steps: 5 })
    await page.mouse.up()
    await hover(point)
    await expect.poll(async () => (await read()).x).not.toBe(before.x)
    const dragged = await read()
    // The map follows the pointer: 100 px left shows what lay 100 px to the east.
    near(dragged.x, before.x + 100 * metresPerPixel)
    near(dragged.y, before.y - 60 * metresPerPixel)
    // An eighth of the view to the west per arrow press.
    await frame().focus()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(async () => (await read()).x).not.toBe(dragged.x)
    near((await read()).x, dragged.x - (side / 8) * metresPerPixel)
    await page.keyboard.press('+')
    await expect.poll(() => frame().getAttribute('data-zoom')).toBe('4')
    await page.keyboard.press('-')
    await expect.poll(() => frame().getAttribute('data-zoom')).toBe('2')
  })

  it('Reset view shows the whole map again, and the wheel zooms about the point under the pointer', async () => {
    await page.getByTestId('landslide-zoom-reset').click()
    await expect.poll(() => frame().getAttribute('data-zoom')).toBe('1')
    await hover(await pointOf())
    await expect.poll(async () => Math.abs((await read()).x - first.x)).toBeLessThan(1e-3)
    near((await read()).y, first.y)
    expect((await read()).row).toBe(first.row)
    await page.mouse.wheel(0, -400)
    await expect.poll(async () => Number(await frame().getAttribute('data-zoom'))).toBeGreaterThan(1.5)
    near((await read()).x, first.x)
    near((await read()).y, first.y)
    expect((await read()).h).toBe(first.h)
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
