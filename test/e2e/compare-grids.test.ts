// Compare of two landslide runs in Chromium against `paralab serve`: a walled valley from a --data
// folder run twice (a deeper source, more steps), both named in the History, chosen and compared.
// Compare draws their final grids' difference B − A in diverging colours beside Δvolume, Δ mass,
// max |Δh| and the cells that differ, the figures the backend computed over the full grids; the
// read-out gives Δh under the pointer; Swap A and B turns the signs round; a run on another grid
// is said to be so, with no map.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { GridComparison } from '../../src/shared/grid-difference'
import type { LandslideResult } from '../../src/shared/workloads/landslide/types'
import { connectApi, type ApiClient } from '../helpers/api-client'
import { launchChromium } from '../helpers/browser'
import { writeValley } from '../helpers/landslide-valley'
import { startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 90_000 })

let dir: string
let serve: ServeProcess
let api: ApiClient
let browser: Browser
let page: Page
const pageErrors: string[] = []
const runs: { id: string; results: LandslideResult }[] = []

async function run(grids: string[], steps: number): Promise<{ id: string; results: LandslideResult }> {
  const jobId = await api.call<string>('startJob', 'landslide', { grids, steps, backends: ['active'], repeat: 1 })
  const done = await api.event((e) => e.jobId === jobId && e.type !== 'progress', 60_000)
  expect(done.type, JSON.stringify(done.error)).toBe('done')
  return { id: done.envelope.kept.run, results: done.envelope.results }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-compare-grids-'))
  const data = join(dir, 'data')
  mkdirSync(join(data, 'other'), { recursive: true })
  const [dem, source] = writeValley(data, 40, 32, 7)
  // The same source half as deep again, on the same grid.
  const deeper = join(data, 'valley-source-deeper.asc')
  const lines = readFileSync(source, 'utf8').split('\n')
  writeFileSync(deeper, [...lines.slice(0, 6), ...lines.slice(6).map((l) => l.split(' ').map((v) => (v === '' ? v : String(Number(v) * 1.5))).join(' '))].join('\n'))
  const other = writeValley(join(data, 'other'), 48, 32, 7)
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' })
  api = await connectApi(serve)
  runs.push(await run([dem, source], 150), await run([dem, deeper], 300), await run(other, 50))
  await api.call('labelRun', runs[0].id, 'first source')
  await api.call('labelRun', runs[1].id, 'deeper source')
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(serve.url)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  api?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Chooses these runs in the History and opens Compare. */
async function compare(ids: string[]): Promise<void> {
  const toggle = page.getByTestId('side-toggle')
  await page.locator(`[data-testid="history-pick-${ids[0]}"]:visible, [data-testid="side-toggle"]:visible`).first().waitFor()
  if (!(await page.getByTestId(`history-pick-${ids[0]}`).isVisible())) await toggle.click()
  for (const r of runs) {
    const box = page.getByTestId(`history-pick-${r.id}`)
    if (ids.includes(r.id)) await box.check()
    else if (await box.isChecked()) await box.uncheck()
  }
  await page.getByTestId('history-compare').click()
  await page.getByTestId('run-comparison').waitFor()
}

const number = (text: string) => Number(text.replace(/,/g, '').replace('−', '-'))
const frame = () => page.getByTestId('difference-frame')

describe('Compare of two landslide runs\' final grids in Chromium', () => {
  let answer: Extract<GridComparison, { outcome: 'compared' }>

  it('draws B − A beside Δvolume, Δ mass, max |Δh| and the cells that differ, as the backend computed them', async () => {
    await compare([runs[0].id, runs[1].id])
    await page.getByTestId('grid-difference-stats').waitFor()
    // A is the earlier run, B the later, each under its name.
    expect(await page.getByTestId('grid-difference-a').innerText()).toBe('first source')
    expect(await page.getByTestId('grid-difference-b').innerText()).toBe('deeper source')
    answer = (await api.call<GridComparison>('compareGrids', runs[0].id, runs[1].id)) as typeof answer
    expect(answer.outcome).toBe('compared')
    const [a, b] = [runs[0].results.reference, runs[1].results.reference]
    const volume = await page.getByTestId('grid-difference-volume').innerText()
    const shown = number(/Δvolume\s+([+−\d.,]+) m³/.exec(volume)![1])
    expect(shown).toBeCloseTo(b.volume_end! - a.volume_end!, 2)
    expect(volume).toContain(`A ${volumeText(a.volume_end!)} m³ · B ${volumeText(b.volume_end!)} m³`)
    expect(number(/([+−\d.,]+) m/.exec(await page.getByTestId('grid-difference-mass').innerText())![1])).toBeCloseTo(b.mass_end - a.mass_end, 4)
    expect(number(/max \|Δh\|\s+([\d.,]+) m/.exec(await page.getByTestId('grid-difference-max').innerText())![1])).toBeCloseTo(answer.stats.maxAbs, 5)
    expect(await page.getByTestId('grid-difference-cells').innerText()).toContain(`${answer.stats.differing.toLocaleString('en-US')} of ${answer.stats.compared.toLocaleString('en-US')}`)
    expect(answer.stats.differing).toBeGreaterThan(0)
    // The map: more debris in B in red, less in blue, on the light colour of no difference.
    await frame().waitFor()
    const { red, blue } = await frame().evaluate((c: HTMLCanvasElement) => {
      const map = { x: Number(c.dataset.mapX), y: Number(c.dataset.mapY), side: Number(c.dataset.mapSide) }
      const ratio = c.width / c.clientWidth
      const { data } = c.getContext('2d')!.getImageData(Math.round(map.x * ratio), Math.round(map.y * ratio), Math.round(map.side * ratio), Math.round(map.side * ratio))
      let [red, blue] = [0, 0]
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] - data[i + 2] > 60) red++
        if (data[i + 2] - data[i] > 60) blue++
      }
      return { red, blue }
    })
    expect(red).toBeGreaterThan(0)
    expect(blue).toBeGreaterThan(0)
    expect(pageErrors).toEqual([])
  })

  it('reads out Δh under the pointer: the greatest difference where the backend found it', async () => {
    const { map, stats } = answer
    const box = (await frame().boundingBox())!
    const [x, y, side] = await Promise.all(['data-map-x', 'data-map-y', 'data-map-side'].map(async (a) => Number(await frame().getAttribute(a))))
    const per = side / map.size
    const [r, c] = [(stats.at!.row - map.row0) / map.block, (stats.at!.col - map.col0) / map.block].map(Math.floor)
    await page.mouse.move(box.x + x + (c + 0.5) * per, box.y + y + (r + 0.5) * per)
    const readout = page.getByTestId('difference-readout')
    await expect.poll(() => readout.getAttribute('data-delta')).not.toBeNull()
    expect(Number(await readout.getAttribute('data-delta'))).toBe(Number(stats.at!.delta.toPrecision(6)))
    expect(await page.getByTestId('difference-readout-delta').innerText()).toMatch(/^Δh [+−][\d.]+ m$/)
  })

  it('turns the signs round when A and B are swapped', async () => {
    await page.getByTestId('grid-difference-swap').click()
    await expect.poll(() => page.getByTestId('grid-difference-a').innerText()).toBe('deeper source')
    const volume = await page.getByTestId('grid-difference-volume').innerText()
    const [a, b] = [runs[0].results.reference, runs[1].results.reference]
    expect(number(/Δvolume\s+([+−\d.,]+) m³/.exec(volume)![1])).toBeCloseTo(a.volume_end! - b.volume_end!, 2)
  })

  it('says plainly that a run on another grid is not compared, and draws nothing', async () => {
    await page.getByTestId('comparison-close').click()
    await compare([runs[0].id, runs[2].id])
    const refusal = page.getByTestId('grid-difference-incomparable')
    await refusal.waitFor()
    expect(await refusal.innerText()).toContain('The grids differ in shape: A is 40 × 32 cells, B 48 × 32.')
    expect(await frame().count()).toBe(0)
    expect(pageErrors).toEqual([])
  })
})

/** A volume as the stats table shows it: six significant digits, thousands grouped. */
function volumeText(v: number): string {
  const [int, frac] = String(Number(v.toPrecision(6))).split('.')
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac === undefined ? '' : `.${frac}`}`
}
