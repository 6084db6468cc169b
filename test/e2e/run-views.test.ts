// Views of a run in Chromium against `paralab serve`: a heatmap click's pair, a zoom (of the
// correlation matrix, and of the distances read from the matrix the paths run kept) and a path
// query show their answers without adding runs to the History, which lists runs only.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 120_000 })

let serve: ServeProcess
let browser: Browser
let page: Page
let dir: string
const pageErrors: string[] = []

function generate(...args: string[]): void {
  const run = spawnSync(process.execPath, [CLI, 'generate', ...args], { encoding: 'utf8' })
  expect(run.status, run.stderr).toBe(0)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-views-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  // Past 256 series and vertices: heatmaps of blocks, with their Zoom fields.
  generate('walks', join(data, 'w300.npy'), '--series', '300', '--length', '50')
  generate('graph', join(data, 'g300.bin'), '--vertices', '300', '--edges', '3000')
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' })
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const historyRuns = () => page.getByTestId('history').locator('[data-testid^="history-run-"]').count()

describe('views of a run in Chromium', () => {
  it('a heatmap click and a zoom of a correlation run add no History entry', async () => {
    await page.getByTestId('nav-correlation').click()
    await page.getByTestId('correlation-file-w300.npy').check()
    await page.getByTestId('correlation-repeat').fill('1')
    await page.getByTestId('correlation-run').click()
    await page.getByTestId('correlation-results').waitFor({ timeout: 60_000 })
    await expect.poll(historyRuns).toBe(1)

    const canvas = page.getByTestId('correlation-chart-heatmap').locator('canvas')
    await canvas.scrollIntoViewIfNeeded()
    const box = (await canvas.boundingBox())!
    // The plot's middle: a square plot beside wrapped axis titles and the colour bar.
    await canvas.click({ position: { x: box.width * 0.5, y: box.height * 0.5 } })
    await page.getByTestId('correlation-pair-names').waitFor({ timeout: 30_000 })
    await page.getByTestId('correlation-zoom-rows').fill('0:9')
    await page.getByTestId('correlation-zoom').click()
    await page.getByTestId('correlation-chart-zoom').locator('canvas').waitFor({ timeout: 30_000 })
    // A reload lists what the backend keeps, afresh.
    await page.reload()
    await page.getByTestId('history').waitFor()
    await expect.poll(historyRuns).toBe(1)
  })

  it('a path query and a zoom of a paths run add no History entry; the zoom reads the kept distances', async () => {
    await page.getByTestId('nav-paths').click()
    await page.getByTestId('paths-file-g300.bin').check()
    await page.getByTestId('paths-repeat').fill('1')
    await page.getByTestId('paths-run').click()
    await page.getByTestId('paths-results').waitFor({ timeout: 60_000 })
    await expect.poll(historyRuns).toBe(2)

    await page.getByTestId('paths-query-from').fill('0')
    await page.getByTestId('paths-query-to').fill('299')
    await page.getByTestId('paths-query-run').click()
    await page.getByTestId('paths-query-result').waitFor({ timeout: 60_000 })
    // A zoom at full resolution, read from the distances the run kept.
    await page.getByTestId('paths-zoom-rows').fill('0:99')
    await page.getByTestId('paths-zoom-cols').fill('200:299')
    await page.getByTestId('paths-zoom').click()
    await page.getByTestId('paths-chart-zoom').locator('canvas').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('paths-zoom-source').innerText()).toMatch(/^Read from the distance matrix this run kept\./)
    expect(await page.getByTestId('paths-chart-zoom').innerText()).not.toMatch(/error/i)
    // A reload lists what the backend keeps, afresh.
    await page.reload()
    await page.getByTestId('history').waitFor()
    await expect.poll(historyRuns).toBe(2)
    expect(pageErrors).toEqual([])
  })
})
