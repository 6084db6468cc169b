// The Correlation view in Chromium against the real backend (`paralab serve`): generated walks from
// a --data folder, a run on two CPU backends, the ranking and a drawn heatmap; a click on a cell
// overlays its pair, downsampled by the backend; 600 series draw in blocks (each a block's minimum r
// by default, the histogram's counts on a log axis), zoom to a block range and page their ranking;
// an HDF5 file's series named by a dataset of strings chosen beside the dataset.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { aspectRatioOf } from '../../src/shared/charts'
import { launchChromium } from '../helpers/browser'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 120_000 })

const STATIONS = ['Belluno', 'Feltre', 'Agordo', 'Cortina', 'Pieve', 'Alpago', 'Longarone', 'Sedico']
const NAMED_H5 = `
import sys, numpy as np, h5py
rng = np.random.default_rng(2)
x = np.cumsum(rng.standard_normal(200))[:, None] + 0.2 * rng.standard_normal((200, 8))
with h5py.File(sys.argv[1], 'w') as f:
    f['/lab/walks'] = x
    f['/lab/names'] = np.array(${JSON.stringify(STATIONS)}, dtype=h5py.string_dtype())
`

let serve: ServeProcess
let browser: Browser
let page: Page
let dir: string
let anomalies: string[]
const pageErrors: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-correlation-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  const gen = spawnSync(process.execPath, [CLI, 'generate', 'walks', join(data, 'walks.csv'), '--series', '40', '--length', '3000', '--anomalies', '2', '--json'], { encoding: 'utf8' })
  expect(gen.status, gen.stderr).toBe(0)
  anomalies = JSON.parse(gen.stdout).anomalies
  // 600 series: a heatmap in blocks (the stack overflowed from 360 before).
  const wide = spawnSync(process.execPath, [CLI, 'generate', 'walks', join(data, 'w600.npy'), '--series', '600', '--length', '100'], { encoding: 'utf8' })
  expect(wide.status, wide.stderr).toBe(0)
  // An HDF5 file written by h5py: the series under /lab/walks, their names under /lab/names.
  const h5 = spawnSync('/usr/bin/python3', ['-c', NAMED_H5, join(data, 'named.h5')], { encoding: 'utf8' })
  expect(h5.status, h5.stderr).toBe(0)
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_GPU: 'off' })
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

/** Whether the canvas under `testId` has been painted (more than a blank frame). */
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

describe('Correlation view in Chromium', () => {
  it('runs two CPU backends on the file and shows the ranking and a drawn heatmap', async () => {
    await page.getByTestId('nav-correlation').click()
    await page.getByTestId('correlation-file-walks.csv').check()
    await page.getByTestId('correlation-backend-serial').check()
    await page.getByTestId('correlation-repeat').fill('1')
    await page.getByTestId('correlation-run').click()
    await page.getByTestId('correlation-results').waitFor({ timeout: 60_000 })

    for (const b of ['serial', 'workers-simd']) await expect.poll(() => page.getByTestId(`correlation-run-${b}`).count()).toBe(1)
    const ranking = await page.getByTestId('correlation-ranking-table').innerText()
    expect(ranking).toContain('2 flagged')
    for (const a of anomalies) expect(await page.getByTestId(`correlation-rank-${a}`).getAttribute('class')).toContain('flagged')
    expect(await canvasIsDrawn('correlation-chart-heatmap')).toBe(true)
    expect(await canvasIsDrawn('correlation-chart-histogram')).toBe(true)
  })

  it('overlays the pair of a clicked heatmap cell, downsampled by the backend', async () => {
    const canvas = page.getByTestId('correlation-chart-heatmap').locator('canvas')
    await canvas.scrollIntoViewIfNeeded()
    const box = (await canvas.boundingBox())!
    // Inside the plot, off the diagonal (the colour bar takes the right margin).
    await canvas.click({ position: { x: box.width * 0.35, y: box.height * 0.6 } })
    const names = page.getByTestId('correlation-pair-names')
    await names.waitFor({ timeout: 30_000 })
    expect(await names.innerText()).toMatch(/^s\d+ × s\d+\s+r = −?-?\d\.\d{4}$/)
    // 3000 samples a series, sent as a chart's worth of points.
    expect(await page.getByTestId('correlation-pair-step').innerText()).toBe('1000 points: the least and greatest of every 6 samples, in order.')
    expect(await canvasIsDrawn('correlation-chart-pair')).toBe(true)
    expect(pageErrors).toEqual([])
  })

  it('600 series: a heatmap of blocks, their aggregate chosen, a block range zoomed to full resolution and drawn, the ranking paged', async () => {
    await page.getByTestId('correlation-file-w600.npy').check()
    await page.getByTestId('correlation-file-walks.csv').uncheck()
    await page.getByTestId('correlation-backend-serial').uncheck()
    await page.getByTestId('correlation-run').click()
    await expect.poll(() => page.getByTestId('correlation-ranking-table').innerText(), { timeout: 60_000 }).toContain('of 600')
    expect(await canvasIsDrawn('correlation-chart-heatmap')).toBe(true)
    // Half the row at 1 280 px, in the heatmap's squarer frame (its plot then keeps half the width: test/unit/heatmap-scale.test.ts).
    const box = (await page.getByTestId('correlation-chart-heatmap').locator('canvas').boundingBox())!
    expect(box.width).toBeGreaterThan(400)
    expect(box.width / box.height).toBeCloseTo(aspectRatioOf('heatmap'), 1)
    // Blocks of 3 × 3 series, each drawn as its least r unless another is chosen.
    expect(await page.getByTestId('correlation-heatmap-aggregate').inputValue()).toBe('min')
    // Nearly every pair of the cluster in one bin: the histogram counts on a log axis.
    expect(await page.getByTestId('log-y-histogram').isChecked()).toBe(true)
    await page.getByTestId('correlation-heatmap-aggregate').selectOption('max')
    await page.getByTestId('correlation-ranking-next').click()
    expect(await page.getByTestId('correlation-ranking-table').innerText()).toContain('Series 11–20 of 600')
    await page.getByTestId('correlation-zoom-rows').fill('0:99')
    await page.getByTestId('correlation-zoom-cols').fill('300:399')
    await page.getByTestId('correlation-zoom').click()
    await page.getByTestId('correlation-chart-zoom').locator('canvas').waitFor({ timeout: 60_000 })
    expect(await canvasIsDrawn('correlation-chart-zoom')).toBe(true)
    expect(pageErrors).toEqual([])
  })

  it('names an HDF5 file\'s series by the dataset of strings chosen beside the dataset', async () => {
    await page.getByTestId('correlation-file-w600.npy').uncheck()
    await page.getByTestId('correlation-file-named.h5').check()
    await page.getByTestId('correlation-datasets-/lab/walks').check()
    // Only the datasets of strings are offered for names.
    await expect.poll(() => page.getByTestId('correlation-names-datasets').innerText()).toContain('/lab/names')
    expect(await page.getByTestId('correlation-names-datasets').innerText()).not.toContain('/lab/walks')
    await page.getByTestId('correlation-names-datasets-/lab/names').check()
    await page.getByTestId('correlation-run').click()
    await expect.poll(() => page.getByTestId('correlation-ranking-table').innerText(), { timeout: 60_000 }).toContain('of 8')
    const ranked = await page.getByTestId('correlation-ranking-table').locator('tbody th').allInnerTexts()
    expect(ranked).toHaveLength(STATIONS.length)
    expect(new Set([...ranked, ...STATIONS]).size).toBe(STATIONS.length)
    expect(pageErrors).toEqual([])
  })
})
