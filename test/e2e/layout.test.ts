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

/** Page and main area widths: scrolled width beside the visible one, and what sticks out of the main area. */
function widths() {
  return page.evaluate(() => {
    const main = document.querySelector<HTMLElement>('.main')!
    const right = main.getBoundingClientRect().left + main.clientLeft + main.clientWidth
    // The outermost elements reaching past the main area's right edge.
    const beyond = [...main.querySelectorAll<HTMLElement>('*')]
      .filter((el) => el.getBoundingClientRect().right > right + 1 && !(el.parentElement && el.parentElement !== main && el.parentElement.getBoundingClientRect().right > right + 1))
      .map((el) => `<${el.tagName.toLowerCase()}> in ${el.closest('[data-testid]')?.getAttribute('data-testid') ?? '?'}`)
    // Tables reaching past their card, unless a box between them scrolls sideways.
    const spilling = [...main.querySelectorAll<HTMLElement>('table')]
      .filter((t) => {
        const card = t.closest<HTMLElement>('.card')
        if (!card) return false
        for (let a = t.parentElement; a && a !== card; a = a.parentElement) if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return false
        const c = card.getBoundingClientRect()
        return t.getBoundingClientRect().right > c.left + card.clientLeft + card.clientWidth + 1
      })
      .map((t) => t.getAttribute('data-testid') ?? t.closest('[data-testid]')?.getAttribute('data-testid') ?? '?')
    // Selects too narrow for the option they show (its text measured in the select's font, beside the arrow).
    const ctx = document.createElement('canvas').getContext('2d')!
    const cut = [...main.querySelectorAll<HTMLSelectElement>('select')]
      .filter((s) => {
        const shown = s.selectedOptions[0]?.text
        if (!shown || !s.checkVisibility()) return false
        ctx.font = getComputedStyle(s).font
        return ctx.measureText(shown).width > s.clientWidth - 24
      })
      .map((s) => `${s.getAttribute('data-testid') ?? '?'}: ${s.selectedOptions[0].text}`)
    return { page: document.documentElement.scrollWidth, window: innerWidth, main: main.scrollWidth, mainVisible: main.clientWidth, beyond, spilling, cut }
  })
}

async function box(testId: string) {
  const b = await page.getByTestId(testId).boundingBox()
  expect(b, testId).not.toBeNull()
  return b!
}

/**
 * Text on screen that overlaps other text, or that a box hiding its overflow (overflow hidden or
 * clip) cuts: each as a line naming the text and where it is.
 */
function textProblems(): Promise<string[]> {
  return page.evaluate(() => {
    const name = (el: Element) => {
      const id = el.closest('[data-testid]')?.getAttribute('data-testid')
      return `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}>${id ? ` in ${id}` : ''}`
    }
    const hides = (o: string) => o === 'hidden' || o === 'clip'
    const problems: string[] = []
    /** Each text box where it can be seen: cut to every box that clips it (hiding or scrolling). */
    const seen: { r: { left: number; top: number; right: number; bottom: number }; text: string; node: Node; el: Element }[] = []
    const walker = document.createTreeWalker(document.querySelector('.shell')!, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent!.trim()
      const el = node.parentElement!
      if (!text || !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue
      const range = document.createRange()
      range.selectNodeContents(node)
      for (const r of range.getClientRects()) {
        if (r.width < 1 || r.height < 1) continue
        const v = { left: r.left, top: r.top, right: r.right, bottom: r.bottom }
        for (let a: Element | null = el; a && a !== document.body; a = a.parentElement) {
          const style = getComputedStyle(a)
          const clipX = style.overflowX !== 'visible'
          const clipY = style.overflowY !== 'visible'
          if (!clipX && !clipY) continue
          const b = a.getBoundingClientRect()
          const box = { left: b.left + a.clientLeft, top: b.top + a.clientTop, right: b.left + a.clientLeft + a.clientWidth, bottom: b.top + a.clientTop + a.clientHeight }
          // Cut where the box hides what overflows it, or scrolls sideways though it holds no table
          // (a wide table may scroll in its box; a scrolling column of text must not need to); an
          // ellipsis with the whole text in a tooltip is a shortening, not a cut.
          const table = el.closest('table')
          const sideways = hides(style.overflowX) || (style.overflowX !== 'visible' && !(table && a.contains(table)))
          const cutX = sideways && (r.left < box.left - 1 || r.right > box.right + 1)
          const cutY = hides(style.overflowY) && (r.top < box.top - 1 || r.bottom > box.bottom + 1)
          const explained = getComputedStyle(el).textOverflow === 'ellipsis' && !cutY && (el.closest('[title]')?.getAttribute('title') ?? '').includes(text)
          if ((cutX || cutY) && !explained) problems.push(`"${text}" cut by ${name(a)}`)
          if (clipX) [v.left, v.right] = [Math.max(v.left, box.left), Math.min(v.right, box.right)]
          if (clipY) [v.top, v.bottom] = [Math.max(v.top, box.top), Math.min(v.bottom, box.bottom)]
        }
        if (v.right - v.left >= 1 && v.bottom - v.top >= 1) seen.push({ r: v, text, node, el })
      }
    }
    // Overlaps: the seen parts of different text nodes sharing more than a sliver.
    seen.sort((a, b) => a.r.top - b.r.top)
    for (let i = 0; i < seen.length; i++)
      for (let j = i + 1; j < seen.length && seen[j].r.top < seen[i].r.bottom - 2; j++) {
        const [a, b] = [seen[i], seen[j]]
        if (a.node === b.node) continue
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left)
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top)
        if (w > 2 && h > 2) problems.push(`"${a.text}" (${name(a.el)}) overlaps "${b.text}" (${name(b.el)})`)
      }
    return [...new Set(problems)]
  })
}

/** Shows `view` at `size`, checks nothing overflows sideways and no text collides or is cut, and saves a screenshot. */
async function show(view: View, size: { width: number; height: number }) {
  await page.setViewportSize(size)
  await page.getByTestId(`nav-${view}`).click()
  await judge(view, size)
}

/** Checks what the main area shows (`name` in messages and screenshots), scrolled through from the top. */
async function judge(view: string, size: { width: number; height: number }) {
  // The views share one scrolling area: each screenshot starts at the top of its view.
  await page.evaluate(() => document.querySelector('.main')!.scrollTo(0, 0))
  // Chart.js follows a resize on the next animation frames.
  await page.waitForTimeout(400)
  await page.screenshot({ path: join(SHOTS, `${view}-${size.width}x${size.height}.png`) })
  const w = await widths()
  expect(w.page, `${view} at ${size.width}: page width`).toBeLessThanOrEqual(w.window)
  expect(w.main, `${view} at ${size.width}: main area's scrolled width (beyond it: ${w.beyond.join(', ')})`).toBeLessThanOrEqual(w.mainVisible)
  expect(w.spilling, `${view} at ${size.width}: tables out of their card`).toEqual([])
  expect(w.cut, `${view} at ${size.width}: selects cutting the name they show`).toEqual([])
  // Text is judged where it can be seen: the view is scrolled through, a screenful less a margin at a time.
  const problems = new Set<string>()
  for (let top = 0, screen = 0; ; screen++) {
    const { height, bottom } = await page.evaluate((y) => {
      const main = document.querySelector('.main')!
      main.scrollTo(0, y)
      return { height: main.clientHeight, bottom: main.scrollHeight - main.clientHeight }
    }, top)
    for (const p of await textProblems()) problems.add(p)
    if (screen > 0) await page.screenshot({ path: join(SHOTS, `${view}-${size.width}x${size.height}-${screen}.png`) })
    if (top >= bottom) break
    top = Math.min(bottom, top + Math.floor(height * 0.8))
  }
  expect([...problems], `${view} at ${size.width}×${size.height}: text`).toEqual([])
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
    await judge('compare', size)
    await page.getByTestId('comparison-close').click()
    if (narrow) await toggle.click()
    for (let i = 0; i < 2; i++) await picks.nth(i).uncheck()
    if (narrow) await toggle.click()
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

// The navigation at its narrowest beside the views (the history's times beside or under the workloads).
describe('at 1280×800', () => {
  it.each(VIEWS.map((v) => v.id))('%s: no sideways overflow, no text cut or overlapping', async (view) => {
    await show(view, { width: 1280, height: 800 })
  })
})

it('raised no page errors', () => {
  expect(pageErrors).toEqual([])
})
