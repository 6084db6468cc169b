// A job's progress in Chromium against `paralab serve`, as it was seen on a correlation of many
// series: the phase under way is named while it runs (not the one before it), with its own fraction;
// the bar moves through the cross products and stops short of 100 % while ranking and keeping the
// matrix; the time left never reads 0:00 while work is ahead.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { CLI, startServe, type ServeProcess } from '../helpers/serve'

vi.setConfig({ testTimeout: 180_000 })

let serve: ServeProcess
let browser: Browser
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-e2e-progress-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  const gen = spawnSync(process.execPath, [CLI, 'generate', 'walks', join(data, 'many.npy'), '--series', '2500', '--length', '256', '--anomalies', '3'], { encoding: 'utf8' })
  expect(gen.status, gen.stderr).toBe(0)
  serve = await startServe(['--data', data], { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' })
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

interface Seen {
  phase: string
  own: string | null
  all: string
  eta: string | null
}

describe('job progress in Chromium', () => {
  it('names the phase under way with its own fraction, weighs the bar by cost and never says 0:00 with work ahead', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(serve.url)
    await page.getByTestId('nav-correlation').click()
    await page.getByTestId('correlation-file-many.npy').check()
    await page.getByTestId('correlation-backend-serial').check()
    await page.getByTestId('correlation-backend-workers-simd').uncheck()
    await page.getByTestId('correlation-repeat').fill('2')
    // What the progress line says, read every 50 ms until the results show.
    await page.evaluate(() => {
      const seen: Seen[] = []
      ;(window as unknown as { seen: Seen[] }).seen = seen
      const timer = setInterval(() => {
        const box = document.querySelector('[data-testid="correlation-progress"]')
        if (document.querySelector('[data-testid="correlation-results"]')) return clearInterval(timer)
        if (!box) return
        const text = (id: string) => box.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? null
        seen.push({ phase: box.querySelector('.phase')!.textContent!.trim(), own: text('job-phase-fraction'), all: text('job-fraction')!, eta: text('job-eta') })
      }, 50)
    })
    await page.getByTestId('correlation-run').click()
    await page.getByTestId('correlation-results').waitFor({ timeout: 150_000 })
    const seen = await page.evaluate(() => (window as unknown as { seen: Seen[] }).seen)
    const pct = (s: string | null) => Number(/(\d+)%/.exec(s ?? '')?.[1])

    const phases = [...new Set(seen.map((s) => s.phase))]
    expect(phases).toEqual(expect.arrayContaining(['serial f64, run 1 of 2', 'serial f64, run 2 of 2', 'ranking']))
    // Inside a run its own fraction moves: the cross products are not one tick.
    const run = seen.filter((s) => s.phase === 'serial f64, run 1 of 2').map((s) => pct(s.own))
    expect(run.some((p) => p > 0 && p < 100)).toBe(true)
    // The bar only goes forward, and was short of 100 % while ranking and keeping the matrix.
    const all = seen.map((s) => pct(s.all))
    expect(all).toEqual([...all].sort((a, b) => a - b))
    for (const s of seen.filter((x) => x.phase === 'ranking' || x.phase === 'keeping the matrix')) expect(pct(s.all)).toBeLessThan(100)
    // Loading an .npy is a small part of this job's cost.
    expect(Math.max(...seen.filter((s) => s.phase.startsWith('loading')).map((s) => pct(s.all)), 0)).toBeLessThan(10)
    // With work ahead, the time left is never 0:00.
    const etas = seen.filter((s) => s.eta && pct(s.all) < 100).map((s) => s.eta!)
    expect(etas.length).toBeGreaterThan(0)
    for (const e of etas) expect(e).not.toMatch(/^about 0:00 left/)
    expect(errors).toEqual([])
    await page.close()
  })
})
