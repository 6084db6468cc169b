// The real dashboard in Debian's Chromium against the real backend (`paralab serve`) on the
// software GPU adapter: the Device view, its benchmark, the roofline chart and its PNG export.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

let serve: ServeProcess
let browser: Browser
let page: Page

beforeAll(async () => {
  serve = await startServe()
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(serve.url)
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
})

describe('Device view in Chromium', () => {
  it('shows the adapter the backend uses', async () => {
    const name = page.getByTestId('adapter-name')
    await name.waitFor({ timeout: 30_000 })
    expect(await name.textContent()).toMatch(/SwiftShader/i)
    await expect.poll(() => page.getByTestId('software-badge').isVisible()).toBe(true)
  })

  it('runs the benchmark and draws the roofline chart', async () => {
    await page.getByTestId('run-bench').click()
    await page.getByTestId('bench-results').waitFor({ timeout: 120_000 })
    const canvas = page.getByTestId('roofline-chart').locator('canvas')
    await canvas.waitFor()
    // The chart is really drawn: the canvas holds many non-transparent pixels of several colours.
    const drawn = await canvas.evaluate((c: HTMLCanvasElement) => {
      const ctx = c.getContext('2d')!
      const { data } = ctx.getImageData(0, 0, c.width, c.height)
      let painted = 0
      const colours = new Set<number>()
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 0) painted++
        colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2])
      }
      return { painted, colours: colours.size, width: c.width }
    })
    expect(drawn.width).toBeGreaterThan(200)
    expect(drawn.painted).toBeGreaterThan(1000)
    expect(drawn.colours).toBeGreaterThan(5)
  })

  it('exports the roofline as a real PNG', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
    expect(download.suggestedFilename()).toMatch(/\.png$/)
    const bytes = readFileSync((await download.path())!)
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(bytes.readUInt32BE(16)).toBeGreaterThan(100) // IHDR width
    expect(bytes.length).toBeGreaterThan(5000)
  })
})
