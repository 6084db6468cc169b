// Choosing files in Chromium against `paralab serve`: "Try the example" runs the example alone and
// a real run afterwards reads exactly the files ticked, one of them chosen through the chooser over
// the data folders (a folder tree, other formats greyed out); the history of a server on other data
// lists the example's run but not the run on this data. A file's content decides what a workload can
// read: a Parquet file named .csv is greyed out for shortest paths, a Matrix Market file named .txt
// is not, and its run records the format it was read as. A file made while the dashboard is open
// appears on Refresh, which says when the files were listed; a CSV is a graph only where its first
// line names source, target and weight (a results table is not); an HDF5 file of one dataset has it
// chosen, and Run waits until a file of several has one chosen.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
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
  writeFileSync(join(data, 'graphs', 'paths-results.csv'), 'graph,format,vertices,edges,reachable pairs\nring.txt,mtx,3,3,9\n')
  mkdirSync(join(data, 'series'))
  execFileSync('/usr/bin/python3', ['-c', `
import sys, numpy as np, h5py
d = sys.argv[1]
x = np.cumsum(np.random.default_rng(5).standard_normal((60, 6)), axis=0)
with h5py.File(d + '/one.h5', 'w') as f: f['lab/series'] = x
with h5py.File(d + '/two.h5', 'w') as f:
    f['a'] = x
    f['b'] = x[:, :4]
    f['names'] = np.array([b's0', b's1'])
`, join(data, 'series')])
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

  it('lists a file made while the dashboard is open on Refresh, greys a results table out as a graph, and chooses an HDF5 file\'s only dataset', async () => {
    const serve = await startServe(['--data', data], env)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    try {
      await page.goto(serve.url)
      await page.getByTestId('nav-paths').click()
      await page.getByTestId('paths-file-graphs/edges.csv').waitFor()
      const listed = page.getByTestId('paths-listed-at')
      expect(await listed.innerText()).toMatch(/^listed \d/)
      // Paralab's own results table is a CSV, but not an edge list: greyed out, saying why.
      const results = page.getByTestId('paths-file-graphs/paths-results.csv')
      expect(await results.isDisabled()).toBe(true)
      expect(await results.locator('xpath=..').getAttribute('title')).toBe(
        `${join(data, 'graphs', 'paths-results.csv')}: its first line (graph, format, vertices, edges, … 1 more) names no source, target, weight columns: not a CSV edge list`,
      )
      expect(await page.getByTestId('paths-file-graphs/edges.csv').isDisabled()).toBe(false)

      // A graph written now (by a script, another run) is not listed until the files are listed again.
      writeFileSync(join(data, 'graphs', 'later.gr'), 'p sp 2 1\na 1 2 7\n')
      expect(await page.getByTestId('paths-file-graphs/later.gr').count()).toBe(0)
      const before = await listed.getAttribute('title')
      await page.waitForTimeout(1100)
      await page.getByTestId('paths-refresh').click()
      await page.getByTestId('paths-file-graphs/later.gr').waitFor()
      expect(await page.getByTestId('paths-file-graphs/later.gr').isDisabled()).toBe(false)
      expect(await listed.getAttribute('title')).not.toBe(before)

      // The chooser over the folders likewise: its tree listed again where it stands.
      await page.getByTestId('paths-open').click()
      await page.getByTestId('paths-chooser-folder-data/graphs').click()
      await page.getByTestId('paths-chooser-file-data/graphs/later.gr').waitFor()
      expect(await page.getByTestId('paths-chooser-file-data/graphs/paths-results.csv').isDisabled()).toBe(true)
      writeFileSync(join(data, 'graphs', 'newer.mtx'), '%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 3\n')
      expect(await page.getByTestId('paths-chooser-file-data/graphs/newer.mtx').count()).toBe(0)
      await page.getByTestId('paths-chooser-refresh').click()
      await page.getByTestId('paths-chooser-file-data/graphs/newer.mtx').check()
      expect(await page.getByTestId('paths-chooser-listed-at').innerText()).toMatch(/^listed \d/)
      await page.getByTestId('paths-chooser-add').click()
      expect(await page.getByTestId('paths-file-graphs/newer.mtx').isChecked()).toBe(true)

      // HDF5: a file of one 2-D dataset has it chosen and can run at once.
      await page.getByTestId('nav-correlation').click()
      await page.getByTestId('correlation-file-series/one.h5').check()
      const only = page.getByTestId('correlation-datasets-/lab/series')
      await only.waitFor()
      await expect.poll(() => only.isChecked()).toBe(true)
      expect(await page.getByTestId('correlation-run').isDisabled()).toBe(false)
      // A file of several: Run waits, saying why, until one is chosen.
      await page.getByTestId('correlation-file-series/one.h5').uncheck()
      await page.getByTestId('correlation-file-series/two.h5').check()
      await page.getByTestId('correlation-datasets-/a').waitFor()
      expect(await page.getByTestId('correlation-datasets-/a').isChecked()).toBe(false)
      // The names dataset is 1-D: not offered for series, so two can be read and neither is chosen for the user.
      expect(await page.getByTestId('correlation-datasets-/names').isDisabled()).toBe(true)
      expect(await page.getByTestId('correlation-run').isDisabled()).toBe(true)
      expect(await page.getByTestId('correlation-problem').innerText()).toBe('Choose a dataset of two.h5 to read')
      await page.getByTestId('correlation-datasets-/b').check()
      expect(await page.getByTestId('correlation-run').isDisabled()).toBe(false)
      await page.getByTestId('correlation-run').click()
      await page.getByTestId('correlation-results').waitFor({ timeout: 120_000 })
      const run = await envelopeShown(page)
      expect(run.params).toMatchObject({ files: [join(data, 'series', 'two.h5')], dataset: '/b' })
      expect(run.results.input).toMatchObject({ series: 4, length: 60 })
      expect(pageErrors).toEqual([])
    } finally {
      await page.close()
      await serve.stop()
    }
  })
})

