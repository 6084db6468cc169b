// The Statistics view in Chromium against the real backend: a generated file from a --data folder,
// every backend (the GPU one on the software adapter), the results table, three drawn charts and
// an SVG export.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

// The GPU backend compiles its shaders on the software adapter first (~15 s per precision).
vi.setConfig({ testTimeout: 240_000 })

let serve: ServeProcess
let browser: Browser
let page: Page
const pageErrors: string[] = []

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-stats-'))
  const gen = spawnSync(process.execPath, [CLI, 'generate', 'acc', join(dir, 'acc.csv'), '--rows', '5000', '--seed', '7'], { encoding: 'utf8' })
  expect(gen.status, gen.stderr).toBe(0)
  serve = await startServe(['--data', dir])
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
})

async function canvasIsDrawn(testId: string): Promise<boolean> {
  const canvas = page.getByTestId(testId).locator('canvas')
  await canvas.waitFor()
  return canvas.evaluate((c: HTMLCanvasElement) => {
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height)
    let painted = 0
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++
    return painted > 1000
  })
}

describe('Statistics view in Chromium', () => {
  it('runs every backend on a generated file and shows the results and the three charts', async () => {
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-file-acc.csv').check()
    await page.getByTestId('stats-backend-all').check()
    await page.getByTestId('stats-repeat').fill('2')
    await page.getByTestId('stats-batches').fill('3')
    await page.getByTestId('stats-run').click()
    await page.getByTestId('stats-results').waitFor({ timeout: 120_000 })

    const reference = await page.getByTestId('stats-table').innerText()
    for (const c of ['acc_x', 'acc_y', 'acc_z']) expect(reference).toContain(c)
    for (const b of ['serial', 'simd', 'workers', 'workers-simd', 'gpu']) await expect.poll(() => page.getByTestId(`stats-result-backend-${b}`).count()).toBe(1)
    for (const chart of ['stats-chart-time', 'stats-chart-cv', 'stats-chart-mad']) expect(await canvasIsDrawn(chart), chart).toBe(true)
  })

  it('exports the time chart as a true SVG', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg-time').click()])
    expect(download.suggestedFilename()).toMatch(/\.svg$/)
    const svg = readFileSync((await download.path())!, 'utf8')
    expect(svg).toMatch(/<svg[^>]*width="\d+"/)
    expect((svg.match(/<path/g) ?? []).length).toBeGreaterThan(20)
    expect(svg).not.toContain('<image')
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
