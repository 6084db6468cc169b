// @vitest-environment happy-dom
// Choosing files in a workload view: the list grouped by folder with paths under the data folder,
// only the workload's formats; under `paralab serve`, Open… is a chooser over the data folders that
// ticks nothing the user did not tick; the count of chosen files beside Run; one page piece for
// every workload view, which shows a cancelled run's partial results as such.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { DataFile } from '../../src/shared/api'
import WorkloadPage from '../../src/renderer/components/WorkloadPage.vue'
import StatsView from '../../src/renderer/workloads/stats/StatsView.vue'
import PathsView from '../../src/renderer/workloads/paths/PathsView.vue'
import CorrelationView from '../../src/renderer/workloads/correlation/CorrelationView.vue'
import LandslideView from '../../src/renderer/workloads/landslide/LandslideView.vue'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'
import { statsEnvelope, statsFile, statsResult } from './stats-fixture'

const ROOT = '/srv/lab'
const inLab = (relative: string, bytes = 100): DataFile => ({ path: `${ROOT}/${relative}`, name: relative.split('/').pop()!, bytes, root: ROOT, relative })

function labApi(): FakeApi {
  const api = new FakeApi()
  api.files = [inLab('acc.csv'), inLab('2024/acc.csv'), inLab('2024/run/acc.csv'), inLab('2024/notes.txt'), inLab('graph.bin')]
  api.folders.set(null, { path: null, folders: [{ path: ROOT, name: 'lab' }], files: [], truncated: false })
  api.folders.set(ROOT, { path: ROOT, folders: [{ path: `${ROOT}/2024`, name: '2024' }], files: [inLab('acc.csv'), inLab('graph.bin')], truncated: false })
  api.folders.set(`${ROOT}/2024`, { path: `${ROOT}/2024`, folders: [], files: [inLab('2024/acc.csv'), inLab('2024/notes.txt'), inLab('2024/deep.csv')], truncated: false })
  return api
}

const get = (w: VueWrapper, id: string) => w.get<HTMLInputElement>(`[data-testid="${id}"]`)

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('the file list', () => {
  it('groups files by folder under the data folder, names them by their path there, and lists only the workload\'s formats', async () => {
    const { wrapper } = mountWith(StatsView, labApi())
    await flushPromises()
    const groups = wrapper.findAll('[data-testid^="stats-folder-"]')
    expect(groups.map((g) => [g.get('h4').text(), g.findAll('input').map((i) => i.attributes('data-testid'))])).toEqual([
      ['lab/', ['stats-file-acc.csv']],
      ['lab/2024/', ['stats-file-2024/acc.csv']],
      ['lab/2024/run/', ['stats-file-2024/run/acc.csv']],
    ])
    // Statistics reads CSV: the graph and the notes are not offered.
    expect(wrapper.get('[data-testid="stats-file-list"]').text()).not.toMatch(/graph\.bin|notes\.txt/)
    expect(get(wrapper, 'stats-file-2024/acc.csv').element.closest('label')!.getAttribute('title')).toBe(`${ROOT}/2024/acc.csv`)
  })

  it('counts the chosen files beside Run', async () => {
    const { wrapper } = mountWith(StatsView, labApi())
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-selection"]').text()).toBe('0 files selected')
    await get(wrapper, 'stats-file-acc.csv').setValue(true)
    expect(wrapper.get('[data-testid="stats-selection"]').text()).toBe('1 file selected')
    await get(wrapper, 'stats-file-2024/run/acc.csv').setValue(true)
    expect(wrapper.get('[data-testid="stats-selection"]').text()).toBe('2 files selected')
    expect(wrapper.get('[data-testid="stats-selection"]').attributes('title')).toBe(`${ROOT}/acc.csv\n${ROOT}/2024/run/acc.csv`)
  })
})

describe('Open… under paralab serve', () => {
  it('opens a chooser over the data folders: a folder tree, other formats greyed out, nothing ticked', async () => {
    const api = labApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    // The one data folder opens at once; its subfolder when asked.
    expect(api.browsed).toEqual([null, ROOT])
    expect(get(wrapper, 'stats-chooser-folder-lab').attributes('aria-expanded')).toBe('true')
    expect(get(wrapper, 'stats-chooser-file-lab/graph.bin').element.disabled).toBe(true)
    await wrapper.get('[data-testid="stats-chooser-folder-lab/2024"]').trigger('click')
    await flushPromises()
    expect(api.browsed).toEqual([null, ROOT, `${ROOT}/2024`])
    expect(get(wrapper, 'stats-chooser-file-lab/2024/notes.txt').element.disabled).toBe(true)
    const boxes = wrapper.findAll<HTMLInputElement>('[data-testid^="stats-chooser-file-"]')
    expect(boxes.map((b) => b.element.checked)).toEqual(boxes.map(() => false))
    // Nothing was chosen by opening it.
    expect(api.started).toEqual([])
    expect(wrapper.get('[data-testid="stats-selection"]').text()).toBe('0 files selected')
  })

  it('chooses exactly the files ticked in it, a file outside the list among them; Cancel chooses none', async () => {
    const api = labApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    await wrapper.get('[data-testid="stats-chooser-cancel"]').trigger('click')
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-chooser"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="stats-selection"]').text()).toBe('0 files selected')

    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    await wrapper.get('[data-testid="stats-chooser-folder-lab/2024"]').trigger('click')
    await flushPromises()
    await get(wrapper, 'stats-chooser-file-lab/2024/deep.csv').setValue(true)
    expect(wrapper.get('[data-testid="stats-chooser-count"]').text()).toBe('1 file ticked')
    await wrapper.get('[data-testid="stats-chooser-add"]').trigger('click')
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-chooser"]').exists()).toBe(false)
    expect(get(wrapper, 'stats-file-2024/deep.csv').element.checked).toBe(true)
    expect(get(wrapper, 'stats-file-2024/acc.csv').element.checked).toBe(false)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect((api.started[0].params as { files: string[] }).files).toEqual([`${ROOT}/2024/deep.csv`])
  })

  it('says why a folder cannot be listed', async () => {
    const api = labApi()
    api.folders.delete(`${ROOT}/2024`)
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-open"]').trigger('click')
    await flushPromises()
    await wrapper.get('[data-testid="stats-chooser-folder-lab/2024"]').trigger('click')
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-chooser"] .note.error').text()).toBe(`${ROOT}/2024 is outside the data folders`)
  })
})

describe('one page for every workload view', () => {
  it.each([
    ['stats', StatsView],
    ['paths', PathsView],
    ['correlation', CorrelationView],
    ['landslide', LandslideView],
  ])('%s is built on the page piece', async (_id, view) => {
    const { wrapper } = mountWith(view, labApi())
    await flushPromises()
    expect(wrapper.findComponent(WorkloadPage).exists()).toBe(true)
  })

  it('a cancelled run\'s partial results are shown marked as such; one that kept nothing says so', async () => {
    const api = labApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await get(wrapper, 'stats-file-acc.csv').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'failed', jobId: 'job-1', workload: 'stats', error: { code: 'cancelled', message: 'cancelled' }, partial: { ...statsEnvelope(statsResult()), partial: true } })
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-partial"]').text()).toBe('Cancelled: these are the results that had finished.')
    expect(wrapper.find('[data-testid="stats-cancelled"]').exists()).toBe(false)

    // What was not run is named, and every export says the run is partial: CSV and JSON by name, charts under their title too.
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'failed', jobId: 'job-2', workload: 'stats', error: { code: 'cancelled', message: 'cancelled' }, partial: { ...statsEnvelope(statsResult(statsFile('/data/small.csv', { acc_x: [1, 2, 3, 4] }, ['serial'], [2, 4]))), partial: true, missing: ['gpu', 'simd'] } })
    await flushPromises()
    expect(wrapper.get('[data-testid="stats-partial"]').text()).toBe('Cancelled: these are the results that had finished; missing gpu, simd. Every export of it says it is partial.')
    await wrapper.get('[data-testid="export-results-csv"]').trigger('click')
    await wrapper.get('[data-testid="export-results-json"]').trigger('click')
    await wrapper.get('[data-testid="export-png-time"]').trigger('click')
    await flushPromises()
    expect(api.resultExports.map((r) => r.fileName)).toEqual(['stats-results-partial.csv', 'stats-results-partial.json'])
    expect(api.chartExports).toHaveLength(1)
    expect(api.chartExports[0].fileName).toMatch(/-partial\.png$/)
    expect((api.chartExports[0].chart.data as { note?: string }).note).toMatch(/^Partial: missing gpu, simd/)

    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'failed', jobId: 'job-3', workload: 'stats', error: { code: 'cancelled', message: 'cancelled' } })
    await flushPromises()
    expect(wrapper.find('[data-testid="stats-results"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="stats-cancelled"]').text()).toBe('Run cancelled before any result had finished.')
  })
})
