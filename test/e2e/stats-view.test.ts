// The Statistics view in Chromium against the real backend: a generated file from a --data folder,
// every backend (the GPU one on the software adapter), the results table, three drawn charts, an
// SVG export, CSV and JSON exports of the results, and "Try the example".
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
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
let dir: string
let examples: string
const pageErrors: string[] = []
const BACKENDS = ['serial', 'simd', 'workers', 'workers-simd', 'gpu']

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-stats-'))
  const data = join(dir, 'data')
  examples = join(dir, 'examples')
  mkdirSync(data)
  const gen = spawnSync(process.execPath, [CLI, 'generate', 'acc', join(data, 'acc.csv'), '--rows', '5000', '--seed', '7'], { encoding: 'utf8' })
  expect(gen.status, gen.stderr).toBe(0)
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: examples })
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

/** Clicks `testId` and returns the downloaded file's name and text. */
async function download(testId: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()])
  return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') }
}

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
  it('starts from the schema\'s defaults and says why it cannot run without a file', async () => {
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-file-acc.csv').waitFor()
    for (const b of BACKENDS) expect(await page.getByTestId(`stats-backend-${b}`).isChecked(), b).toBe(b === 'workers-simd')
    expect(await page.getByTestId('stats-backend-all').isChecked()).toBe(false)
    expect(await page.getByTestId('stats-precision').inputValue()).toBe('f64')
    expect(await page.getByTestId('stats-repeat').inputValue()).toBe('10')
    expect(await page.getByTestId('stats-batches').inputValue()).toBe('1')
    expect(await page.getByTestId('stats-columns').inputValue()).toBe('')
    expect(await page.getByTestId('stats-problem').textContent()).toMatch(/files/i)
    expect(await page.getByTestId('stats-run').isDisabled()).toBe(true)
    // A value out of range is named, in the backend's words.
    await page.getByTestId('stats-file-acc.csv').check()
    await page.getByTestId('stats-repeat').fill('0')
    await expect.poll(() => page.getByTestId('stats-problem').textContent()).toMatch(/repeat must be an integer in 1…1000/i)
    expect(await page.getByTestId('stats-run').isDisabled()).toBe(true)
  })

  it('runs every backend on a generated file and shows the results and the three charts', async () => {
    await page.getByTestId('stats-file-acc.csv').check()
    await page.getByTestId('stats-backend-all').check()
    await page.getByTestId('stats-repeat').fill('2')
    await page.getByTestId('stats-batches').fill('3')
    await page.getByTestId('stats-run').click()
    await page.getByTestId('stats-results').waitFor({ timeout: 120_000 })

    const reference = await page.getByTestId('stats-table').innerText()
    for (const c of ['acc_x', 'acc_y', 'acc_z']) expect(reference).toContain(c)
    for (const b of BACKENDS) await expect.poll(() => page.getByTestId(`stats-result-backend-${b}`).count()).toBe(1)
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

  it('exports the results table as CSV and everything as JSON', async () => {
    const csv = await download('export-results-csv')
    expect(csv.name).toBe('stats-results.csv')
    const lines = csv.text.trim().split('\n')
    expect(lines[0]).toBe('file,prefix_rows,column,backend,precision,n,missing,mean,std,cv,median,mad,compute_ms,upload_ms,compile_ms')
    // Per column: the reference, 5 backends, and 5 backends at 3 prefixes.
    expect(lines).toHaveLength(1 + 3 * (1 + 5 + 5 * 3))

    const json = await download('export-results-json')
    expect(json.name).toBe('stats-results.json')
    const env = JSON.parse(json.text)
    const file = realpathSync(join(dir, 'data', 'acc.csv'))
    expect(env).toMatchObject({
      workload: 'stats',
      params: { files: [file], backends: BACKENDS, precision: 'f64', repeat: 2, batches: 3 },
      input: { files: [{ path: file, bytes: expect.any(Number), modified: expect.any(String) }] },
      host: { cores: expect.any(Number), node: expect.stringMatching(/^v\d+/) },
      // The GPU ran: the software adapter is named.
      device: { software: true, adapter: expect.stringMatching(/SwiftShader/i) },
    })
    expect(Object.keys(env.timings)).toEqual(BACKENDS)
    expect(env.results.files[0].rows).toBe(5000)
    expect(lines.filter((l) => l.includes(',reference,')).map((l) => l.split(',')[9])).toEqual(
      ['acc_x', 'acc_y', 'acc_z'].map((c) => String(env.results.files[0].columns[c].cv)),
    )
  })

  it('"Try the example" makes the example, runs the example\'s backends on it and draws its charts', async () => {
    const ticked = await page.getByTestId('stats-file-acc.csv').isChecked()
    const fields = async () => ({
      backends: await Promise.all(BACKENDS.map((b) => page.getByTestId(`stats-backend-${b}`).isChecked())),
      repeat: await page.getByTestId('stats-repeat').inputValue(),
      batches: await page.getByTestId('stats-batches').inputValue(),
    })
    const before = await fields()
    await page.getByTestId('stats-example').click()
    const results = page.getByTestId('stats-file-results-acc-example.csv')
    await results.waitFor({ timeout: 120_000 })
    // Its file is offered, not ticked, and acc.csv is as it was; the example's settings ended with its run.
    expect(await page.getByTestId('stats-file-acc-example.csv').isChecked()).toBe(false)
    expect(await page.getByTestId('stats-file-acc.csv').isChecked()).toBe(ticked)
    await expect.poll(fields).toEqual(before)

    expect(await results.locator('h3').innerText()).toMatch(/20,000 rows/)
    for (const b of BACKENDS) expect(await results.getByTestId(`stats-result-backend-${b}`).count(), b).toBe(b === 'gpu' ? 0 : 1)
    for (const chart of ['stats-chart-time', 'stats-chart-cv', 'stats-chart-mad']) expect(await canvasIsDrawn(chart), chart).toBe(true)
    // One set of results: the example's replaced the earlier run's.
    expect(await page.getByTestId('stats-file-results-acc.csv').count()).toBe(0)

    const env = JSON.parse((await download('export-results-json')).text)
    expect(env.params).toMatchObject({ backends: BACKENDS.slice(0, 4), repeat: 3, batches: 10 })
    expect(env.input.files).toEqual([expect.objectContaining({ path: realpathSync(join(examples, 'stats', 'acc-example.csv')) })])
    expect(env.device).toBeUndefined()
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
