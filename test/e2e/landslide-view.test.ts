// The Landslide view in Chromium against the real backend: the Tessina grids from a --data folder
// (../shared/data, read in place), the active and workers-active backends and the GPU's active-area
// kernels on the software adapter; the runs table with the reference md5 and the GPU's deviation; the
// thickness heatmap changing as the step slider moves; an SVG export of it; "Try the example".
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

// The GPU kernels compile and run on the software adapter, which is slow: the active variant works on
// the debris' box only.
vi.setConfig({ testTimeout: 240_000 })

const DATA = realpathSync(join(__dirname, '../../../shared/data/landslide'))
// Derived once from `serial` (test/unit/landslide-model.test.ts checks it against the straightforward reference).
const TESSINA_MD5_100 = 'f9ded733d6c9e13963e41ea0cc37a7d4'

let serve: ServeProcess
let browser: Browser
let page: Page
let dir: string
const pageErrors: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-landslide-'))
  serve = await startServe(['--data', DATA], { PARALAB_EXAMPLES: join(dir, 'examples') })
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The heatmap's canvas as a data URL: two different frames draw different pixels. */
async function heatmapPixels(): Promise<string> {
  const canvas = page.getByTestId('landslide-chart-thickness').locator('canvas')
  await canvas.waitFor()
  // Chart.js animates a fresh chart: wait for the drawing to settle.
  await page.waitForTimeout(800)
  return canvas.evaluate((c: HTMLCanvasElement) => c.toDataURL())
}

async function paintedCells(): Promise<number> {
  const canvas = page.getByTestId('landslide-chart-thickness').locator('canvas')
  return canvas.evaluate((c: HTMLCanvasElement) => {
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height)
    let painted = 0
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && Math.abs(data[i] - data[i + 2]) > 60) painted++
    return painted
  })
}

describe('Landslide view in Chromium', () => {
  it('runs the Tessina grids on two CPU backends and the GPU, with md5 checks and the GPU\'s deviation', async () => {
    await page.getByTestId('nav-landslide').click()
    await page.getByTestId('landslide-dem').selectOption(join(DATA, 'tessina_dem.txt'))
    expect(await page.getByTestId('landslide-run').isDisabled()).toBe(true)
    await page.getByTestId('landslide-source').selectOption(join(DATA, 'tessina_source.txt'))
    await page.getByTestId('landslide-header').selectOption(join(DATA, 'tessina_header.txt'))
    await page.getByTestId('landslide-steps').fill('100')
    await page.getByTestId('landslide-frames').fill('25')
    await page.getByTestId('landslide-backend-workers-active').check()
    await page.getByTestId('landslide-backend-gpu').check()
    await page.getByTestId('landslide-variant-active').check()
    await page.getByTestId('landslide-variant-fused').uncheck()
    await page.getByTestId('landslide-run').click()
    await page.getByTestId('landslide-results').waitFor({ timeout: 200_000 })

    expect(await page.getByTestId('landslide-md5').innerText()).toBe(TESSINA_MD5_100)
    for (const run of ['active', 'workers-active']) expect(await page.getByTestId(`landslide-run-${run}`).getByTestId('md5-same').count(), run).toBe(1)
    const gpu = await page.getByTestId('landslide-run-gpu-active').innerText()
    expect(gpu).toContain('f32')
    // Its max |Δh| in metres, a count of cells over 1 mm and a mass error are shown.
    expect(gpu.split('\t').length).toBeGreaterThanOrEqual(12)
  })

  it('moves the thickness heatmap through the recorded steps', async () => {
    expect(await page.getByTestId('landslide-step-label').innerText()).toBe('step 100 of 100')
    const last = await heatmapPixels()
    const lastCells = await paintedCells()
    await page.getByTestId('landslide-step').fill('0')
    await expect.poll(() => page.getByTestId('landslide-step-label').innerText()).toBe('step 0 of 100')
    const first = await heatmapPixels()
    expect(first).not.toBe(last)
    // The debris covers more of the map after 100 steps than at the start.
    expect(lastCells).toBeGreaterThan(await paintedCells())
    await page.getByTestId('landslide-step').fill('2')
    await expect.poll(() => page.getByTestId('landslide-step-label').innerText()).toBe('step 50 of 100')
  })

  it('exports the heatmap as a true SVG', async () => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg-thickness').click()])
    expect(file.suggestedFilename()).toBe('landslide-thickness-50.svg')
    const svg = readFileSync((await file.path())!, 'utf8')
    expect(svg).toContain('Debris thickness after 50 steps')
    expect((svg.match(/<path|<rect/g) ?? []).length).toBeGreaterThan(50)
    expect(svg).not.toContain('<image')
  })

  it('"Try the example" makes the example\'s grids, chooses them and runs every CPU backend', async () => {
    await page.getByTestId('landslide-example').click()
    await expect.poll(() => page.getByTestId('landslide-summary').innerText(), { timeout: 120_000 }).toContain('slope-dem.asc')
    expect(await page.getByTestId('landslide-dem').inputValue()).toBe(realpathSync(join(dir, 'examples', 'landslide', 'slope-dem.asc')))
    expect(await page.getByTestId('landslide-header').inputValue()).toBe('')
    for (const run of ['serial', 'active', 'workers', 'workers-active']) expect(await page.getByTestId(`landslide-run-${run}`).getByTestId('md5-same').count(), run).toBe(1)
    expect(await page.getByTestId('landslide-step-label').innerText()).toBe('step 600 of 600')
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
