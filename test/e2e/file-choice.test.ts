// Choosing files in Chromium against `paralab serve`: "Try the example" runs the example alone and
// a real run afterwards reads exactly the files ticked, one of them chosen through the chooser over
// the data folders (a folder tree, other formats greyed out); the history of a server on other data
// lists the example's run but not the run on this data. A file's content decides what a workload can
// read: a Parquet file named .csv is greyed out for shortest paths, a Matrix Market file named .txt
// is not, and its run records the format it was read as.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/serve'
import { launchChromium } from '../helpers/browser'

vi.setConfig({ testTimeout: 180_000 })

let dir: string
let data: string
let env: Record<string, string>
let browser: Browser
const pageErrors: string[] = []

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'paralab-e2e-files-')))
  data = join(dir, 'data')
  mkdirSync(join(data, 'sub'), { recursive: true })
  mkdirSync(join(dir, 'other'))
  writeFileSync(join(data, 'acc.csv'), 'acc_x,acc_y\n1,2\n3,5\n4,4\n2,8\n')
  writeFileSync(join(data, 'sub', 'b.csv'), 'acc_x,acc_y\n5,1\n3,2\n9,4\n')
  writeFileSync(join(data, 'sub', 'notes.txt'), 'not a table\n')
  mkdirSync(join(data, 'graphs'))
  writeFileSync(join(data, 'graphs', 'table.csv'), Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(300), Buffer.from('PAR1')]))
  writeFileSync(join(data, 'graphs', 'ring.txt'), '%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 4\n2 3 5\n3 1 6\n')
  writeFileSync(join(data, 'graphs', 'edges.csv'), 'source,target,weight\na,b,1\n')
  env = { PARALAB_EXAMPLES: join(dir, 'examples'), PARALAB_HISTORY: join(dir, 'history'), PARALAB_GPU: 'off' }
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function envelopeShown(page: Page): Promise<any> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-results-json').click()])
  return JSON.parse(readFileSync((await file.path())!, 'utf8'))
}

describe('file choice in the dashboard', () => {
  it('after "Try the example", Run reads exactly the files ticked, one chosen in the data folders\' chooser', async () => {
    const serve = await startServe(['--data', data], env)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    try {
      await page.goto(serve.url)
      await page.getByTestId('nav-stats').click()
      await page.getByTestId('stats-file-acc.csv').check()

      await page.getByTestId('stats-example').click()
      await page.getByTestId('stats-file-results-acc-example.csv').waitFor({ timeout: 120_000 })
      const example = await envelopeShown(page)
      expect(example.input.files.map((f: any) => f.path)).toEqual([join(dir, 'examples', 'stats', 'acc-example.csv')])
      // The example's file is offered, not chosen; the user's tick stands.
      expect(await page.getByTestId('stats-file-acc-example.csv').isChecked()).toBe(false)
      expect(await page.getByTestId('stats-file-acc.csv').isChecked()).toBe(true)
      expect(await page.getByTestId('stats-selection').innerText()).toBe('1 file selected')

      // Open…: the data folder's tree, a subfolder opened, a text file greyed out.
      await page.getByTestId('stats-open').click()
      await page.getByTestId('stats-chooser-folder-data/sub').click()
      expect(await page.getByTestId('stats-chooser-file-data/sub/notes.txt').isDisabled()).toBe(true)
      expect(await page.getByTestId('stats-chooser-file-data/acc.csv').isChecked()).toBe(false)
      await page.getByTestId('stats-chooser-file-data/sub/b.csv').check()
      await page.getByTestId('stats-chooser-add').click()
      await page.getByTestId('stats-chooser').waitFor({ state: 'detached' })
      expect(await page.getByTestId('stats-file-sub/b.csv').isChecked()).toBe(true)
      expect(await page.getByTestId('stats-folder-data/sub').innerText()).toContain('b.csv')
      expect(await page.getByTestId('stats-selection').innerText()).toBe('2 files selected')

      await page.getByTestId('stats-run').click()
      await page.getByTestId('stats-file-results-b.csv').waitFor({ timeout: 120_000 })
      const real = await envelopeShown(page)
      const ticked = [join(data, 'acc.csv'), join(data, 'sub', 'b.csv')]
      expect(real.params.files).toEqual(ticked)
      expect(real.input.files.map((f: any) => f.path)).toEqual(ticked)
      // The example's parameters ended with the example, as its file did: the run has the form's own.
      expect(real.params.batches).not.toBe(10)
      expect(real.params.repeat).not.toBe(3)
      expect(pageErrors).toEqual([])
    } finally {
      await page.close()
      await serve.stop()
    }
  })

  it('a server on other data lists the example\'s run from the same history, not the run on this data', async () => {
    const serve = await startServe(['--data', join(dir, 'other')], env)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    try {
      await page.goto(serve.url)
      const runs = page.getByTestId('history').locator('[data-testid^="history-run-"]')
      await expect.poll(() => runs.count()).toBe(1)
      expect(await runs.first().innerText()).toContain('acc-example.csv')
      expect(pageErrors).toEqual([])
    } finally {
      await page.close()
      await serve.stop()
    }
  })

  it('greys a file out by its content: for shortest paths a Parquet file named .csv, not a Matrix Market file named .txt, which then runs', async () => {
    const serve = await startServe(['--data', data], env)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    try {
      await page.goto(serve.url)
      await page.getByTestId('nav-paths').click()
      await page.getByTestId('paths-open').click()
      await page.getByTestId('paths-chooser-folder-data/graphs').click()
      const table = page.getByTestId('paths-chooser-file-data/graphs/table.csv')
      await table.waitFor()
      expect(await table.isDisabled()).toBe(true)
      expect(await table.locator('xpath=..').getAttribute('title')).toBe(`${join(data, 'graphs', 'table.csv')}: Parquet content, not a .1, .bin, .gr, .csv or .mtx file`)
      expect(await page.getByTestId('paths-chooser-file-data/graphs/edges.csv').isDisabled()).toBe(false)
      expect(await page.getByTestId('paths-chooser-file-data/graphs/ring.txt').isDisabled()).toBe(false)
      await page.getByTestId('paths-chooser-file-data/graphs/ring.txt').check()
      await page.getByTestId('paths-chooser-add').click()
      await page.getByTestId('paths-chooser').waitFor({ state: 'detached' })
      expect(await page.getByTestId('paths-file-graphs/ring.txt').isChecked()).toBe(true)
      // In the list of files too, the Parquet file named .csv is offered greyed out, never chosen.
      expect(await page.getByTestId('paths-file-graphs/table.csv').isDisabled()).toBe(true)

      await page.getByTestId('paths-run').click()
      await page.getByTestId('paths-results').waitFor({ timeout: 120_000 })
      const run = await envelopeShown(page)
      expect(run.input.files).toMatchObject([{ path: join(data, 'graphs', 'ring.txt'), format: 'mtx' }])
      expect(run.results.graphs[0]).toMatchObject({ format: 'mtx', vertices: 3, minDistance: 4, maxDistance: 11 })
      expect(pageErrors).toEqual([])
    } finally {
      await page.close()
      await serve.stop()
    }
  })
})
