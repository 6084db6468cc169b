// Compare in Chromium against `paralab serve`, as it was seen: two statistics runs, one on a.csv and
// one on b.csv, made a table of dashes (every row one run's). Now the runs share rows, the two files
// named in the row's group, with a note that the inputs differ; runs named in the History carry
// their names into Compare.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-compare-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  writeFileSync(join(data, 'a.csv'), 'acc_x,acc_y\n1,2\n3,5\n4,4\n2,8\n')
  writeFileSync(join(data, 'b.csv'), 'acc_x,acc_y\n5,1\n3,2\n9,4\n7,7\n6,1\n')
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' })
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('Compare runs on different inputs', () => {
  it('lines the runs up in shared rows, naming both inputs, each run under its label', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(serve.url)
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-repeat').fill('2')
    for (const file of ['a.csv', 'b.csv']) {
      await page.getByTestId(`stats-file-${file}`).check()
      await page.getByTestId('stats-run').click()
      await page.getByTestId(`stats-file-results-${file}`).waitFor({ timeout: 60_000 })
      await page.getByTestId(`stats-file-${file}`).uncheck()
    }
    const runs = page.getByTestId('history').locator('[data-testid^="history-run-"]')
    await expect.poll(() => runs.count()).toBe(2)
    // Name the runs: the label shows in the History and heads the run's columns in Compare.
    const ids = await runs.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.replace('history-run-', '')))
    for (const [id, name] of [
      [ids[0], 'b, after the fix'],
      [ids[1], 'a, before'],
    ]) {
      await page.getByTestId(`history-name-${id}`).click()
      await page.getByTestId(`history-label-field-${id}`).fill(name)
      await page.getByTestId(`history-label-field-${id}`).press('Enter')
      await expect.poll(() => page.getByTestId(`history-label-${id}`).textContent()).toBe(name)
    }
    for (let i = 0; i < 2; i++) await runs.nth(i).locator('input[type="checkbox"]').check()
    await page.getByTestId('history-compare').click()
    expect(await page.getByTestId(`comparison-label-${ids[0]}`).innerText()).toBe('b, after the fix')
    expect(await page.getByTestId(`comparison-label-${ids[1]}`).innerText()).toBe('a, before')
    const timings = page.getByTestId('comparison-timings')
    await timings.waitFor()
    // One row, both runs' figures in it (the newest run, on b.csv, first).
    const rows = timings.locator('tbody tr:not(.input)')
    expect(await rows.count()).toBe(1)
    expect(await timings.locator('tbody tr.input').innerText()).toBe(`${join(dir, 'data', 'b.csv')} vs ${join(dir, 'data', 'a.csv')}`)
    const figures = await rows.first().locator('td.figure').allInnerTexts()
    expect(figures).toHaveLength(6)
    for (const f of figures) expect(f).toMatch(/^[\d.,]+$/)
    expect(await page.getByTestId('comparison-inputs-note').isVisible()).toBe(true)
    // Different data: the checks say so.
    expect(await rows.first().locator('.check.differs').count()).toBeGreaterThan(0)
    expect(errors).toEqual([])
    await page.close()
  })
})
