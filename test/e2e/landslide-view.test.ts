// The Landslide view in Chromium against the real backend: the Tessina grids from a --data folder
// (../shared/data, read in place), the active and workers-active backends and the GPU's active-area
// kernels on the software adapter; the runs table with the reference md5 and the GPU's deviation; the
// thickness over the hillshaded DEM changing as the slider moves and as it plays; SVG and PNG exports of
// a frame and a GIF of them all (its frames counted); "Try the example".
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'
import { readGif } from '../helpers/gif'
import { referenceMd5 } from '../../src/main/workloads/landslide/reference-format'
import { frameLayout } from '../../src/shared/workloads/landslide/map-frame'

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

const frame = () => page.getByTestId('landslide-frame')

/** The frame's pixels as a data URL: two different frames draw different pixels. */
async function framePixels(): Promise<string> {
  await frame().waitFor()
  return frame().evaluate((c: HTMLCanvasElement) => c.toDataURL())
}

/** Map pixels in the thickness colours (yellow to dark red), not the grey relief nor the blue walls. */
async function debrisPixels(): Promise<number> {
  return frame().evaluate((c: HTMLCanvasElement) => {
    // The legend takes the rightmost 154 pixels (frameLayout at 1 pixel per CSS pixel).
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width - 154, c.height)
    let debris = 0
    for (let i = 0; i < data.length; i += 4) if (data[i] - data[i + 2] > 60) debris++
    return debris
  })
}

/** The exports' layout of the shown frame (the page draws the map as wide as its panel). */
async function exportLayout(): Promise<{ width: number; height: number }> {
  return frameLayout(Number(await frame().getAttribute('data-map-cells')))
}

/** A download started by clicking `testid`: its suggested name and bytes. */
async function download(testid: string): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()])
  return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) }
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

  it('downloads the final grid as .asc and .npy and the final frame at full resolution, made by the backend', async () => {
    const npy = await download('landslide-download-final.npy')
    expect(npy.name).toBe('landslide-final-100.npy')
    const headerLength = npy.bytes.readUInt16LE(8)
    expect(npy.bytes.subarray(10, 10 + headerLength).toString('latin1')).toContain("'shape': (610, 496)")
    const values = new Float64Array(npy.bytes.buffer.slice(npy.bytes.byteOffset + 10 + headerLength, npy.bytes.byteOffset + npy.bytes.byteLength))
    // Walls NaN; with them 0 the grid prints as the reference does.
    expect(values.some(Number.isNaN)).toBe(true)
    expect(referenceMd5(values.map((v) => (Number.isNaN(v) ? 0 : v)), 610, 496)).toBe(TESSINA_MD5_100)
    const asc = await download('landslide-download-final.asc')
    expect(asc.bytes.toString('utf8').split('\n')[0]).toMatch(/^ncols\s+496$/)
    const png = await download('landslide-download-thickness-full.png')
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
  })

  it('draws the thickness over the relief and moves it through the recorded steps with the slider', async () => {
    expect(await page.getByTestId('landslide-step-label').innerText()).toBe('step 100 of 100')
    expect(await frame().getAttribute('aria-label')).toBe('Debris thickness after 100 steps (of 100)')
    const last = await framePixels()
    const lastDebris = await debrisPixels()
    await page.getByTestId('landslide-step').fill('0')
    await expect.poll(() => page.getByTestId('landslide-step-label').innerText()).toBe('step 0 of 100')
    await expect.poll(() => frame().getAttribute('data-step')).toBe('0')
    expect(await framePixels()).not.toBe(last)
    // The debris covers more of the map after 100 steps than at the start.
    expect(lastDebris).toBeGreaterThan(await debrisPixels())
    expect(await debrisPixels()).toBeGreaterThan(100)
  })

  it('plays the frames as an animation, the picture changing as the steps go by', async () => {
    const first = await framePixels()
    await page.getByTestId('landslide-play').click()
    expect(await page.getByTestId('landslide-play').innerText()).toBe('Pause')
    await expect.poll(() => page.getByTestId('landslide-step-label').innerText()).toBe('step 25 of 100')
    const second = await framePixels()
    expect(second).not.toBe(first)
    // It stops on the last frame.
    await expect.poll(() => page.getByTestId('landslide-play').innerText(), { timeout: 10_000 }).toBe('Play')
    expect(await page.getByTestId('landslide-step-label').innerText()).toBe('step 100 of 100')
    expect(await framePixels()).not.toBe(second)
    await page.getByTestId('landslide-step').fill('2')
    await expect.poll(() => page.getByTestId('landslide-step-label').innerText()).toBe('step 50 of 100')
  })

  it('exports the shown frame as a true SVG and as PNG', async () => {
    const svg = await download('landslide-export-svg')
    expect(svg.name).toBe('landslide-thickness-50.svg')
    const text = svg.bytes.toString('utf8')
    expect(text).toContain('Debris thickness after 50 steps (of 100)')
    expect(text).toContain('>NODATA</text>')
    expect((text.match(/<rect/g) ?? []).length).toBeGreaterThan(50)
    expect(text).not.toContain('<image')

    const png = await download('landslide-export-png')
    expect(png.name).toBe('landslide-thickness-50.png')
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
    // Twice the frame's layout in pixels, for print.
    const { width, height } = await exportLayout()
    expect(png.bytes.readUInt32BE(16)).toBe(2 * width)
    expect(Math.abs(png.bytes.readUInt32BE(20) - 2 * height)).toBeLessThanOrEqual(1)
  })

  it('exports the animation as a GIF with one frame per recorded map', async () => {
    const gif = await download('landslide-export-gif')
    expect(gif.name).toBe('landslide-thickness.gif')
    const read = readGif(new Uint8Array(gif.bytes))
    const { width, height } = await exportLayout()
    expect(read).toMatchObject({ width, height, loops: 0 })
    // Steps 0, 25, 50, 75 and 100; the last frame rests longer.
    expect(read.frames.map((f) => f.delay)).toEqual([40, 40, 40, 40, 200])
    expect(read.frames[0].rgb).not.toEqual(read.frames[4].rgb)
  })

  it('"Try the example" makes the example\'s grids, runs every CPU backend on them and leaves the chosen grids as they were', async () => {
    const chosen = await Promise.all(['landslide-header', 'landslide-dem', 'landslide-source'].map((id) => page.getByTestId(id).inputValue()))
    await page.getByTestId('landslide-example').click()
    await expect.poll(() => page.getByTestId('landslide-summary').innerText(), { timeout: 120_000 }).toContain('slope-dem.asc')
    // ESRI grids carry no CRS: said so, with the debris volume beside Σh.
    expect(await page.getByTestId('landslide-crs').innerText()).toBe('unknown')
    expect(await page.getByTestId('landslide-summary').innerText()).toMatch(/Σh, m [\d.,]+ → [\d.,]+ ?, volume, m³ [\d.,]+ → [\d.,]+/)
    expect(await Promise.all(['landslide-header', 'landslide-dem', 'landslide-source'].map((id) => page.getByTestId(id).inputValue()))).toEqual(chosen)
    // The example's grids are offered, in a group of their own.
    expect(await page.getByTestId('landslide-dem').locator('optgroup[label="example/"] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toContain(
      realpathSync(join(dir, 'examples', 'landslide', 'slope-dem.asc')),
    )
    for (const run of ['serial', 'active', 'workers', 'workers-active']) expect(await page.getByTestId(`landslide-run-${run}`).getByTestId('md5-same').count(), run).toBe(1)
    expect(await page.getByTestId('landslide-step-label').innerText()).toBe('step 600 of 600')
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
