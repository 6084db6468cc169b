// The real dashboard in Debian's Chromium against the real backend (`paralab serve`) on the
// software GPU adapter: the Device view, its benchmark of the GPU and the CPU, the roofline chart
// and its PNG export, the example (16 MB, 3 repeats) and the results' exports; which backend was
// fastest here for a workload run on the CPU and on the software adapter (the GPU said to be
// emulated, and how much slower); both roofs with that run's backends under them; the WebGPU
// limits folded away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

let serve: ServeProcess
let browser: Browser
let page: Page
let examples: string
const pageErrors: string[] = []
// The CPU's measurements first, then the GPU's.
const MEASUREMENTS = ['cpu read bandwidth', 'cpu fma serial', 'cpu fma simd', 'cpu fma workers', 'cpu fma workers-simd', 'upload', 'read bandwidth', 'readback', 'fma f32']

beforeAll(async () => {
  // The device example makes no files; a private folder all the same, never the user's cache.
  examples = mkdtempSync(join(tmpdir(), 'paralab-e2e-device-'))
  const data = join(examples, 'data')
  mkdirSync(data)
  // 64 series of 200 samples, one column each.
  writeFileSync(join(data, 'walks.csv'), Array.from({ length: 201 }, (_, i) => Array.from({ length: 64 }, (_, s) => (i ? String(Math.sin(i * (s + 1) * 0.01) + s) : `s${s}`)).join(',')).join('\n') + '\n')
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: examples, PARALAB_HISTORY: join(examples, 'history') })
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
})

/** Clicks `testId` and returns the downloaded file's name and text. */
async function download(testId: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()])
  return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') }
}

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (examples) rmSync(examples, { recursive: true, force: true })
})

describe('Device view in Chromium', () => {
  it('shows the adapter the backend uses', async () => {
    const name = page.getByTestId('adapter-name')
    await name.waitFor({ timeout: 30_000 })
    expect(await name.textContent()).toMatch(/SwiftShader/i)
    await expect.poll(() => page.getByTestId('software-badge').isVisible()).toBe(true)
  })

  it('runs the benchmark and draws the roofline chart', async () => {
    // The optional sizes start empty ("auto": the engine chooses); the form fills them in.
    expect(await page.getByTestId('device-read-mb').inputValue()).toBe('')
    expect(await page.getByTestId('device-repeat').inputValue()).toBe('')
    expect(await page.getByTestId('device-measure').count()).toBe(0)
    await page.getByTestId('device-read-mb').fill('0')
    await expect.poll(() => page.getByTestId('device-problem').textContent()).toMatch(/must be an integer in 1…16384; got 0/)
    expect(await page.getByTestId('run-bench').isDisabled()).toBe(true)
    await page.getByTestId('device-read-mb').fill('4')
    await page.getByTestId('device-repeat').fill('2')
    expect(await page.getByTestId('device-problem').count()).toBe(0)
    await page.getByTestId('run-bench').click()
    await page.getByTestId('bench-results').waitFor({ timeout: 120_000 })
    await page.getByText(/median of 2 repeats; 4 MB read/).waitFor()
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

  it('"Try the example" measures with the example\'s 16 MB and 3 repeats and shows the figures', async () => {
    await page.getByTestId('device-example').click()
    // The example's run replaces the earlier one.
    await page.getByText(/median of 3 repeats; 16 MB read/).waitFor({ timeout: 120_000 })
    expect(await page.getByTestId('device-read-mb').inputValue()).toBe('16')
    expect(await page.getByTestId('device-repeat').inputValue()).toBe('3')
    for (const [id, unit] of [['bench-read-bandwidth', 'GB/s'], ['bench-fma', 'GFLOP/s'], ['bench-upload', 'GB/s'], ['bench-readback', 'GB/s']]) {
      const text = (await page.getByTestId(id).innerText()).replace(/\s+/g, ' ').trim()
      expect(text, id).toMatch(new RegExp(`^[\\d,.]+(×10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)? ${unit}$`))
      expect(parseFloat(text.replace(/,/g, '')), id).toBeGreaterThan(0)
    }
    await page.getByTestId('roofline-chart').locator('canvas').waitFor()

    const json = await download('export-results-json')
    expect(json.name).toBe('device-results.json')
    const env = JSON.parse(json.text)
    expect(env).toMatchObject({
      workload: 'device',
      params: { measure: true, readMb: 16, repeat: 3 },
      input: { files: [] },
      device: { software: true, adapter: expect.stringMatching(/SwiftShader/i) },
      results: { bench: { read_bytes: 16e6, repeats: 3 }, info: { available: true } },
    })
    expect(Object.keys(env.timings)).toEqual(MEASUREMENTS)
    for (const m of MEASUREMENTS) expect(env.timings[m].runs, m).toBe(3)
    // The figures shown are the envelope's.
    const shown = parseFloat((await page.getByTestId('bench-fma').innerText()).replace(/,/g, ''))
    expect(shown / env.results.bench.fma_f32_GFLOP_per_s).toBeCloseTo(1, 2)

    const csv = await download('export-results-csv')
    expect(csv.name).toBe('device-device.csv')
    const rows = csv.text.trim().split('\n')
    expect(rows[0]).toBe('quantity,value,unit')
    expect(rows).toContain(`f32 FMA,${env.results.bench.fma_f32_GFLOP_per_s},GFLOP/s`)
    expect(rows).toContain(`cpu read bandwidth,${env.results.cpu.read_bandwidth_GB_per_s},GB/s`)
    const cpuShown = parseFloat((await page.getByTestId('cpu-fma-workers-simd').innerText()).replace(/,/g, ''))
    expect(cpuShown / env.results.cpu.workers_simd_GFLOP_per_s).toBeCloseTo(1, 2)
    const limits = await download('export-results-csv-limits')
    expect(limits.text.split('\n')[0]).toBe('limit,value')
  })

  it('folds the WebGPU limits away', async () => {
    const limits = page.getByTestId('limits')
    expect(await limits.locator('summary').innerText()).toMatch(/^WebGPU limits \(\d+\)$/)
    expect(await page.getByTestId('limits-table').isVisible()).toBe(false)
    await limits.locator('summary').click()
    expect(await page.getByTestId('limits-table').isVisible()).toBe(true)
  })

  it('says which backend was fastest for a workload run on simd and the software GPU, and that the GPU is emulated', { timeout: 240_000 }, async () => {
    await page.getByTestId('nav-correlation').click()
    await page.getByTestId('correlation-file-walks.csv').check()
    await page.getByTestId('correlation-backend-simd').check()
    await page.getByTestId('correlation-backend-gpu').check()
    await page.getByTestId('correlation-backend-workers-simd').uncheck()
    // f32 and one run: the software adapter compiles and runs the GPU's kernels soonest.
    await page.getByTestId('correlation-precision').selectOption('f32')
    await page.getByTestId('correlation-repeat').fill('1')
    await page.getByTestId('correlation-run').click()
    await page.getByTestId('correlation-results').waitFor({ timeout: 200_000 })
    await page.getByTestId('nav-device').click()
    const row = page.getByTestId('fastest-correlation')
    await row.waitFor()
    expect(await row.getByTestId('fastest-backend').innerText()).toBe('simd')
    expect(await row.innerText()).toMatch(/^Correlation on walks\.csv: simd was fastest \([\d.,]+ ms\); gpu [\w-]+ [\d.,]+× slower\./)
    const note = await row.getByTestId('software-gpu-note').innerText()
    const slower = Number(/: ([\d.,]+)× slower than simd/.exec(note)![1].replace(/,/g, ''))
    expect(note).toMatch(/^The GPU here is a software adapter \(the CPU emulating one\)/)
    expect(slower).toBeGreaterThan(1)
  })

  it("draws the CPU's roof beside the GPU's, with a point for each backend of the newest run under its own hardware's roof", { timeout: 120_000 }, async () => {
    // The correlation run above (simd and gpu) is the newest: measure again, and its backends join the roofs.
    await page.getByTestId('device-read-mb').fill('4')
    await page.getByTestId('device-repeat').fill('1')
    await page.getByTestId('run-bench').click()
    await page.getByTestId('cpu-results').waitFor({ timeout: 100_000 })
    const points = page.getByTestId('roofline-kernels')
    await points.waitFor()
    const [, gpu, cpu] = /^Points from the correlation run of .+: (\d+) under the GPU's roof, (\d+) under the CPU's\.$/.exec((await points.innerText()).trim())!
    expect(Number(gpu)).toBeGreaterThan(0)
    expect(Number(cpu)).toBe(1)
    // The chart's legend and note, as its SVG export writes them.
    const svg = (await download('export-svg')).text
    const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
    expect(texts).toContainEqual(expect.stringMatching(/^GPU roof: [\d.,]+ GB\/s, [\d.,]+ GFLOP\/s$/))
    expect(texts).toContainEqual(expect.stringMatching(/^CPU roof: [\d.,]+ GB\/s, [\d.,]+ GFLOP\/s$/))
    expect(texts).toContainEqual(expect.stringMatching(/^correlation simd \([\d.,]+% of CPU roof\)$/))
    expect(texts.filter((t) => /^correlation gpu .+ \([\d.,]+% of GPU roof\)$/.test(t))).toHaveLength(Number(gpu))
    expect(texts.join(' ')).toMatch(/Points: the correlation run of/)
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
