// The dashboard's layout in Chromium from 800×600 to 2560×1440, with every view's example results
// on screen: nothing overflows sideways at the small size, no text overlaps other text or is cut
// by a box that hides what overflows it, and the large size is used (charts side by side, the
// device view in two columns). Screenshots of every view and size go to test-output/layout/ (not
// committed) for people to look at.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'
import { judge } from '../helpers/layout'

vi.setConfig({ testTimeout: 180_000 })

const SHOTS = resolve(__dirname, '../../test-output/layout')
const SIZES = [
  { width: 800, height: 600 },
  { width: 2560, height: 1440 },
] as const
const CHARTS = ['stats-chart-time', 'stats-chart-cv', 'stats-chart-mad']
/** Every view, and what shows its example's results. */
const VIEWS = [
  { id: 'device', results: 'bench-results' },
  { id: 'stats', results: 'stats-results' },
  { id: 'paths', results: 'paths-results' },
  { id: 'correlation', results: 'correlation-results' },
  { id: 'landslide', results: 'landslide-results' },
] as const
type View = (typeof VIEWS)[number]['id']

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
  for (const view of VIEWS) {
    await page.getByTestId(`nav-${view.id}`).click()
    await page.getByTestId(`${view.id}-example`).click()
    await page.getByTestId(view.results).waitFor({ timeout: 120_000 })
  }
  // A second statistics run, for Compare.
  await page.getByTestId('nav-stats').click()
  await page.getByTestId('stats-example').click()
  await page.locator('[data-testid^="history-run-"]', { hasText: 'Statistics' }).nth(1).waitFor({ timeout: 120_000 })
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function box(testId: string) {
  const b = await page.getByTestId(testId).boundingBox()
  expect(b, testId).not.toBeNull()
  return b!
}

/** Shows `view` at `size`, checks nothing overflows sideways and no text collides or is cut, and saves a screenshot. */
async function show(view: View, size: { width: number; height: number }) {
  await page.setViewportSize(size)
  await page.getByTestId(`nav-${view}`).click()
  await judge(page, view, size, SHOTS)
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

  it.each(['paths', 'correlation', 'landslide'] as const)('%s: its example results, no sideways overflow, no text cut or overlapping', async (view) => {
    if (view === 'landslide') {
      // The example's grids chosen by role: their names must show whole in the selects.
      await page.getByTestId('nav-landslide').click()
      for (const [role, name] of [['dem', 'slope-dem.asc'], ['source', 'slope-source.asc']]) {
        const select = page.getByTestId(`landslide-${role}`)
        const value = await select.locator('option', { hasText: name }).first().getAttribute('value')
        await select.selectOption(value!)
      }
    }
    await show(view, size)
    expect(await page.getByTestId(`${view}-results`).isVisible()).toBe(true)
  })

  it('Compare: two statistics runs side by side, no sideways overflow, no text cut or overlapping', async () => {
    await page.setViewportSize(size)
    // Narrow windows keep the history behind a button.
    const toggle = page.getByTestId('side-toggle')
    const narrow = await toggle.isVisible()
    if (narrow) await toggle.click()
    const picks = page.locator('[data-testid^="history-run-"]', { hasText: 'Statistics' }).locator('input[type="checkbox"]')
    for (let i = 0; i < 2; i++) await picks.nth(i).check()
    await page.getByTestId('history-compare').click()
    if (narrow) await toggle.click()
    await page.getByTestId('comparison-timings').waitFor()
    await judge(page, 'compare', size, SHOTS)
    await page.getByTestId('comparison-close').click()
    if (narrow) await toggle.click()
    for (let i = 0; i < 2; i++) await picks.nth(i).uncheck()
    if (narrow) await toggle.click()
  })

  it('Device: the adapter, the measured figures and the roofline on screen, no sideways overflow', async () => {
    await show('device', size)
    for (const id of ['adapter-name', 'bench-results', 'limits', 'fastest-backends']) expect(await page.getByTestId(id).isVisible(), id).toBe(true)
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

// The navigation at its narrowest beside the views (the history's times beside or under the workloads).
describe('at 1280×800', () => {
  it.each(VIEWS.map((v) => v.id))('%s: no sideways overflow, no text cut or overlapping', async (view) => {
    await show(view, { width: 1280, height: 800 })
  })
})

it('raised no page errors', () => {
  expect(pageErrors).toEqual([])
})
