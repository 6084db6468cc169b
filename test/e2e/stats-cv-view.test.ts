// The Statistics view in Chromium on a column centred on zero, as it was seen with acc_z: its CV is
// marked undefined in practice beside the value in the tables, and the CV chart leaves its bar out
// (naming it and its value in the note) so the other columns' bars set the scale.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

vi.setConfig({ testTimeout: 120_000 })

let serve: ServeProcess
let browser: Browser
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-stats-cv-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  // acc_z swings around 0: mean −0.001, σ ≈ 1, so CV ≈ −1000.
  const rows = ['acc_x,acc_y,acc_z']
  for (let i = 0; i < 400; i++) rows.push(`${10 + (i % 7)},${-20 - (i % 5)},${i % 2 ? 1 : -1.002}`)
  writeFileSync(join(data, 'axes.csv'), rows.join('\n') + '\n')
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' })
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('a CV of a column with its mean ≈ 0', () => {
  it('is marked beside its value and kept off the chart\'s scale', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(serve.url)
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-file-axes.csv').check()
    await page.getByTestId('stats-run').click()
    await page.getByTestId('stats-results').waitFor({ timeout: 60_000 })

    const row = page.getByTestId('stats-table').locator('tr', { hasText: 'acc_z' })
    expect(await row.innerText()).toMatch(/−1,00\d\s+mean ≈ 0: undefined in practice/)
    expect(await page.getByTestId('stats-cv-undefined-acc_z').count()).toBe(1)
    expect(await page.getByTestId('stats-cv-undefined-acc_x').count()).toBe(0)
    // Every backend's row of acc_z carries the mark too.
    expect(await page.getByTestId('stats-backend-table').innerText()).toContain('mean ≈ 0: undefined in practice')

    // The chart as exported: acc_z's bar is named, not drawn; the axis goes no further than the others' CVs.
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg-cv').click()])
    const svg = readFileSync((await file.path())!, 'utf8')
    expect(svg).toContain('acc_z (mean ≈ 0)')
    expect(svg).toContain('undefined in practice: acc_z (CV −1')
    // Axis ticks of the others' scale (CVs about 0.2 and −0.07), none in the hundreds.
    const numbers = [...svg.matchAll(/>\s*([−-]?[\d,]*\.?\d+)\s*</g)].map((m) => Math.abs(Number(m[1].replace('−', '-').replace(/,/g, ''))))
    expect(numbers.length).toBeGreaterThan(3)
    expect(Math.max(...numbers)).toBeLessThan(1)
    expect(errors).toEqual([])
    await page.close()
  })
})
