// The dashboard's layout in Chromium from 800×600 to 2560×1440, with results and charts on screen
// (the statistics example and the device benchmark): nothing overflows sideways at the small size,
// and the large one is used (charts side by side, the device view in two columns). Screenshots of
// every view and size go to test-output/layout/ (not committed) for people to look at.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

vi.setConfig({ testTimeout: 180_000 })

const SHOTS = resolve(__dirname, '../../test-output/layout')
const SIZES = [
  { width: 800, height: 600 },
  { width: 2560, height: 1440 },
] as const
const CHARTS = ['stats-chart-time', 'stats-chart-cv', 'stats-chart-mad']

let dir: string
let serve: ServeProcess
let browser: Browser
let page: Page
const pageErrors: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-layout-'))
  mkdirSync(SHOTS, { recursive: true })
  serve = await startServe([], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history') })
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
  await page.getByTestId('nav-stats').click()
  await page.getByTestId('stats-example').click()
  await page.getByTestId('stats-results').waitFor({ timeout: 120_000 })
  await page.getByTestId('nav-device').click()
  await page.getByTestId('device-example').click()
  await page.getByTestId('bench-results').waitFor({ timeout: 120_000 })
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Page and main area widths: scrolled width beside the visible one. */
function widths() {
  return page.evaluate(() => {
    const main = document.querySelector<HTMLElement>('.main')!
    return { page: document.documentElement.scrollWidth, window: innerWidth, main: main.scrollWidth, mainVisible: main.clientWidth }
  })
}

async function box(testId: string) {
  const b = await page.getByTestId(testId).boundingBox()
  expect(b, testId).not.toBeNull()
  return b!
}

/** Shows `view` at `size`, checks nothing overflows sideways, and saves a screenshot. */
async function show(view: 'stats' | 'device', size: (typeof SIZES)[number]) {
  await page.setViewportSize(size)
  await page.getByTestId(`nav-${view}`).click()
  // The views share one scrolling area: each screenshot starts at the top of its view.
  await page.evaluate(() => document.querySelector('.main')!.scrollTo(0, 0))
  // Chart.js follows a resize on the next animation frames.
  await page.waitForTimeout(400)
  const w = await widths()
  expect(w.page, `${view} at ${size.width}: page width`).toBeLessThanOrEqual(w.window)
  expect(w.main, `${view} at ${size.width}: main area's scrolled width`).toBeLessThanOrEqual(w.mainVisible)
  await page.screenshot({ path: join(SHOTS, `${view}-${size.width}x${size.height}.png`) })
}

/** A chart is on screen when it is visible, drawn at its box's full width and inside the window. */
async function expectChartShown(testId: string, windowWidth: number) {
  const canvasBox = page.getByTestId(testId)
  await canvasBox.scrollIntoViewIfNeeded()
  expect(await canvasBox.locator('canvas').isVisible(), testId).toBe(true)
  const drawn = await canvasBox.evaluate((el) => ({ canvas: el.querySelector('canvas')!.clientWidth, box: el.clientWidth }))
  expect(drawn.canvas, `${testId} fills its box`).toBeGreaterThanOrEqual(drawn.box - 2)
  const b = await box(testId)
  expect(b.x + b.width, testId).toBeLessThanOrEqual(windowWidth)
}

describe.each(SIZES)('at $width×$height', (size) => {
  it('Statistics: results and the three charts on screen, no sideways overflow', async () => {
    await show('stats', size)
    expect(await page.getByTestId('stats-results').isVisible()).toBe(true)
    expect(await page.getByTestId('stats-run').isVisible()).toBe(true)
    for (const chart of CHARTS) await expectChartShown(chart, size.width)
    const charts = await Promise.all(CHARTS.map(box))
    if (size.width >= 2560) {
      // Side by side, sharing the width: one row, together most of the window.
      expect(new Set(charts.map((c) => Math.round(c.y))).size).toBe(1)
      expect(charts[2].x + charts[2].width - charts[0].x).toBeGreaterThan(0.75 * size.width)
    } else {
      // One above the other, each as wide as the results allow.
      expect(charts[1].y).toBeGreaterThan(charts[0].y + charts[0].height - 1)
    }
  })

  it('Device: the adapter, the measured figures and the roofline on screen, no sideways overflow', async () => {
    await show('device', size)
    for (const id of ['adapter-name', 'bench-results', 'limits-table']) expect(await page.getByTestId(id).isVisible(), id).toBe(true)
    await expectChartShown('roofline-chart', size.width)
    const adapter = await box('adapter-name')
    const figures = await box('bench-results')
    if (size.width >= 2560) {
      // Two columns: the benchmark beside the adapter, reaching across the window.
      expect(figures.x).toBeGreaterThan(adapter.x + 400)
      expect(figures.x + figures.width).toBeGreaterThan(0.9 * size.width)
    } else {
      expect(figures.y).toBeGreaterThan(adapter.y)
    }
  })
})

it('raised no page errors', () => {
  expect(pageErrors).toEqual([])
})
