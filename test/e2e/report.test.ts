// `paralab … --report` and `paralab report`, as a user runs them, and the files they write opened
// in Chromium from disk with the network off: every chart drawn, the landslide's final map shown,
// no request made, nothing from a hostile file name run, and the page printed on A4 with nothing
// cut. A tampered envelope is refused naming the field, leaving the earlier report untouched.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { workload } from '../../src/shared/workloads'
import { launchChromium } from '../helpers/browser'
import { errorLines, paralab } from './paralab'

const root = mkdtempSync(join(tmpdir(), 'paralab-e2e-report-'))
/** A folder whose name would end a script block and start another, were it pasted into the page. */
const hostile = join(root, 'x</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">')
const csv = join(hostile, `it's "acc".csv`)
/** A column name: table cells, check names and the charts' legends. */
const column = 'acc<img src=x onerror=window.pwned=3>'
const set = join(root, 'set')
const statsReport = join(root, 'stats.html')
const landslideReport = join(root, 'landslide.html')
let browser: Browser

const envelopeIn = (html: string) => JSON.parse(/<script type="application\/json" id="paralab-envelope">([\s\S]*?)<\/script>/.exec(html)![1])
const siblings = (name: string) => readdirSync(root).filter((n) => n === name || n.startsWith(`.${name}.`))

beforeAll(async () => {
  mkdirSync(hostile, { recursive: true })
  writeFileSync(csv, `${column},acc_y\n1,2\n3,5\n4,4\n2,8\n7,1\n`)
  const stats = paralab(['stats', csv, '--columns', `${column},acc_y`, '--backend', 'serial,simd', '--repeat', '2', '--batches', '2', '--out', set, '--report', statsReport])
  expect(stats.code, stats.stderr).toBe(0)
  const landslide = paralab(['landslide', '--example', '--steps', '60', '--backend', 'serial,active', '--report', landslideReport])
  expect(landslide.code, landslide.stderr).toBe(0)
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  rmSync(root, { recursive: true, force: true })
})

/** The file opened from disk in a fresh context with the network off, every request it makes recorded. */
async function openOffline(file: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } })
  const page = await context.newPage()
  const requests: string[] = []
  const errors: string[] = []
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('dialog', (d) => (errors.push(`dialog: ${d.message()}`), void d.dismiss()))
  await page.goto(pathToFileURL(file).href)
  return { page, requests, errors }
}

describe('paralab report', () => {
  it('writes the report of a --out folder: the run\'s envelope embedded as it was written', () => {
    const out = join(root, 'again.html')
    const r = paralab(['report', set, '-o', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`${out}\n`)
    expect(envelopeIn(readFileSync(out, 'utf8'))).toEqual(JSON.parse(readFileSync(join(set, 'results.json'), 'utf8')))
    // The report --report wrote holds the same run.
    const { tableNotes: _, ...written } = JSON.parse(readFileSync(join(set, 'results.json'), 'utf8'))
    expect(envelopeIn(readFileSync(statsReport, 'utf8'))).toEqual(written)
  })

  it('refuses a tampered envelope naming the field, exits 1 and leaves the earlier report as it was', () => {
    const tampered = join(root, 'tampered')
    cpSync(set, tampered, { recursive: true })
    const env = JSON.parse(readFileSync(join(tampered, 'results.json'), 'utf8'))
    env.timings.serial.max = env.timings.serial.median / 2
    writeFileSync(join(tampered, 'results.json'), JSON.stringify(env))
    const out = join(root, 'kept.html')
    writeFileSync(out, 'the earlier report')
    const r = paralab(['report', tampered, '-o', out, '--force'])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^paralab: .*tampered\/results\.json: timings\["serial"\]\.max \(.* ms\) is below its median \(.* ms\): the numbers contradict each other$/)])
    expect(readFileSync(out, 'utf8')).toBe('the earlier report')
    expect(siblings('kept.html')).toEqual(['kept.html'])
  })

  it('refuses a results.json that leads out of its folder, and a folder without one', () => {
    const linked = join(root, 'linked')
    mkdirSync(linked)
    symlinkSync(join(set, 'results.json'), join(linked, 'results.json'))
    const r = paralab(['report', linked, '-o', join(root, 'linked.html')])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: ${join(linked, 'results.json')} is a symbolic link, not a file Paralab wrote`])
    const empty = join(root, 'empty')
    mkdirSync(empty)
    const e = paralab(['report', empty])
    expect(e.code).toBe(1)
    expect(errorLines(e.stderr)[0]).toContain('this folder holds no results.json')
    expect(existsSync(join(root, 'linked.html')) || existsSync(join(root, 'empty.html'))).toBe(false)
  })

  it('--report refuses an existing file before any work', () => {
    const r = paralab(['stats', csv, '--columns', 'acc_y', '--report', statsReport])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)).toEqual([`paralab: --report ${statsReport} exists (use --force to replace it)`])
    // Refused before the run: no progress, no results.
    expect(r.stdout).toBe('')
    expect(r.stderr).not.toMatch(/loading|repeat/)
  })
})

describe('a report in Chromium, from disk, offline', () => {
  it('draws every chart, runs nothing from the hostile name and makes no request', async () => {
    const { page, requests, errors } = await openOffline(statsReport)
    const env = envelopeIn(readFileSync(statsReport, 'utf8'))
    const charts = workload('stats').charts(env.results, env)
    const figures = page.locator('figure.chart')
    expect(await figures.evaluateAll((fs) => fs.map((f) => f.getAttribute('data-chart')))).toEqual(charts.map((c) => c.name))
    for (const box of await figures.locator('svg').evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect()))) {
      expect(box.width).toBeGreaterThan(300)
      expect(box.height).toBeGreaterThan(150)
    }
    // The hostile folder is shown as text, and nothing of it ran.
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await page.locator('#inputs').innerText()).toContain(csv)
    expect(await page.locator('#checks').innerText()).toContain(`${column} CV`)
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('#again pre').innerText()).toContain("paralab stats '--columns=" + column + ",acc_y' --backend=serial,simd")
    expect(await page.evaluate(() => JSON.parse(document.getElementById('paralab-envelope')!.textContent!))).toEqual(env)
    expect(requests).toEqual([pathToFileURL(statsReport).href])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('shows the landslide\'s final map as an embedded PNG beside its charts', async () => {
    const { page, requests, errors } = await openOffline(landslideReport)
    const image = page.locator('figure.image img')
    expect(await image.count()).toBe(1)
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
    expect(await image.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 100)).toBe(true)
    const env = envelopeIn(readFileSync(landslideReport, 'utf8'))
    expect(await page.locator('figure.chart svg').count()).toBe(workload('landslide').charts(env.results, env).length)
    // Every CPU backend gives the reference's md5.
    expect(await page.locator('#checks').innerText()).toMatch(/md5\s+agree: all 2 runs give [0-9a-f]{32}/)
    expect(requests).toEqual([pathToFileURL(landslideReport).href])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('prints on A4 with nothing wider than the page', async () => {
    for (const file of [statsReport, landslideReport]) {
      const { page } = await openOffline(file)
      // A4 less the report's 12 mm side margins: 186 mm, some 703 CSS pixels.
      await page.setViewportSize({ width: 703, height: 1000 })
      await page.emulateMedia({ media: 'print' })
      const wider = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName))
      expect(wider).toEqual([])
      const pdf = await page.pdf({ format: 'A4', printBackground: true })
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
      await page.context().close()
    }
  })
})
