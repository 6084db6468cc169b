// The Shortest paths view in Chromium against the real backend: a course graph from a --data
// folder on CPU backends and the GPU (software adapter), the runs table, the checksum, the drawn
// charts (the heatmap among them), a path query, and "Try the example".
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'
import { INF } from '../../src/shared/workloads/paths/types'

// The GPU variant compiles its kernels on the software adapter first.
vi.setConfig({ testTimeout: 240_000 })

const DATA = resolve(__dirname, '../../../shared/data/paths')
const expected = new Int32Array(readFileSync(join(DATA, 'c05.1.out')).buffer.slice(0))
const V = Math.sqrt(expected.length)

let serve: ServeProcess
let browser: Browser
let page: Page
let dir: string
const pageErrors: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-paths-'))
  serve = await startServe(['--data', DATA], { PARALAB_EXAMPLES: join(dir, 'examples') })
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

describe('Shortest paths view in Chromium', () => {
  it('starts from the schema\'s defaults and waits for a graph', async () => {
    await page.getByTestId('nav-paths').click()
    await page.getByTestId('paths-file-c05.1').waitFor()
    expect(await page.getByTestId('paths-backend-workers-simd').isChecked()).toBe(true)
    expect(await page.getByTestId('paths-backend-serial').isChecked()).toBe(false)
    expect(await page.getByTestId('paths-variant-tuned').isChecked()).toBe(true)
    expect(await page.getByTestId('paths-block-64').isChecked()).toBe(true)
    expect(await page.getByTestId('paths-repeat').inputValue()).toBe('3')
    expect(await page.getByTestId('paths-problem').textContent()).toMatch(/graphs/i)
    expect(await page.getByTestId('paths-run').isDisabled()).toBe(true)
  })

  it('runs a course graph on CPU backends and the GPU: the runs agree, the checksum is the expected output\'s, the charts are drawn', async () => {
    await page.getByTestId('paths-file-c05.1').check()
    await page.getByTestId('paths-backend-serial').check()
    await page.getByTestId('paths-backend-gpu').check()
    await page.getByTestId('paths-block-16').check()
    await page.getByTestId('paths-repeat').fill('2')
    await page.getByTestId('paths-run').click()
    await page.getByTestId('paths-results').waitFor({ timeout: 200_000 })

    const rows = page.getByTestId('paths-runs-table').locator('tbody tr')
    expect(await rows.locator('th').allInnerTexts()).toEqual(['serial', 'workers-simd B=16', 'workers-simd B=64', 'gpu tuned B=64'].map((n) => expect.stringMatching(new RegExp(`^${n}( · \\d+ threads)?$`))))
    expect(await rows.locator('td:last-child').allInnerTexts()).toEqual(['yes', 'yes', 'yes', 'yes'])
    const sum = expected.reduce((s, x) => (x === INF ? s : s + x), 0)
    expect(await page.getByTestId('paths-checksum').innerText()).toBe(String(sum))
    for (const chart of ['paths-chart-steps', 'paths-chart-blocks', 'paths-chart-split', 'paths-chart-heatmap', 'paths-chart-histogram'])
      expect(await canvasIsDrawn(chart), chart).toBe(true)
    expect(await page.getByTestId('paths-chart-heatmap').getAttribute('data-chart-kind')).toBe('heatmap')
  })

  it('queries a path: the vertices from one end to the other, and the expected distance', async () => {
    await page.getByTestId('paths-query-from').fill('3')
    await page.getByTestId('paths-query-to').fill('71')
    await page.getByTestId('paths-query-run').click()
    const path = page.getByTestId('paths-query-path')
    await path.waitFor({ timeout: 60_000 })
    const vertices = await path.locator('li').allInnerTexts()
    expect(vertices[0]).toBe('3')
    expect(vertices.at(-1)).toBe('71')
    expect(await page.getByTestId('paths-query-result').innerText()).toContain(`length ${expected[3 * V + 71]} · ${vertices.length - 1} edge`)
    // An unknown vertex is the backend's error, beside the boxes; the path to 71 is gone.
    await page.getByTestId('paths-query-to').fill('999')
    expect(await page.getByTestId('paths-query-result').count()).toBe(0)
    await page.getByTestId('paths-query-run').click()
    await expect.poll(() => page.getByTestId('paths-query-error').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/^to "999": .*c05\.1 numbers its vertices 0…79/)
    expect(await page.getByTestId('paths-query-to').getAttribute('aria-invalid')).toBe('true')
  })

  it('"Try the example" runs the example and shows its path from 0 to 299', async () => {
    const successors = await page.getByTestId('paths-paths').isChecked()
    await page.getByTestId('paths-example').click()
    const results = page.getByTestId('paths-graph-results-graph-example.bin')
    await results.waitFor({ timeout: 120_000 })
    // The example's graph is offered, not chosen for the next run.
    expect(await page.getByTestId('paths-file-graph-example.bin').isChecked()).toBe(false)
    // The example's Successors ended with its run; its runs' labels say they kept successors.
    await expect.poll(() => page.getByTestId('paths-paths').isChecked()).toBe(successors)
    expect(await results.getByTestId('paths-runs-table').locator('tbody tr').count()).toBe(5)
    expect(await results.getByTestId('paths-runs-successors').innerText()).toMatch(/^Every run with successors/)
    const vertices = await results.getByTestId('paths-query-path').locator('li').allInnerTexts()
    expect([vertices[0], vertices.at(-1)]).toEqual(['0', '299'])
    expect(await canvasIsDrawn('paths-chart-heatmap')).toBe(true)
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
