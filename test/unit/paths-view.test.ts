// @vitest-environment happy-dom
// The Shortest paths view with a fake backend: the form made from the schema (the command line's
// file options left out), the parameters it sends, results with their table, checksum and charts,
// and the path query box, which runs a job of its own and shows the path it brings back.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import { pathsWorkload } from '../../src/shared/workloads/paths'
import type { PathsGraphResult, PathsResult } from '../../src/shared/workloads/paths/types'
import { defaultParams } from '../../src/shared/workloads/schema'
import PathsView from '../../src/renderer/workloads/paths/PathsView.vue'
import { FakeApi } from '../renderer/fake-api'
import { mountWith } from '../renderer/mount'
import { envelopeOf } from '../renderer/envelope'

const files = [
  { path: '/data/c05.1', name: 'c05.1', bytes: 31_424 },
  { path: '/data/roads.csv', name: 'roads.csv', bytes: 900 },
]

function graph(more: Partial<PathsGraphResult> = {}): PathsGraphResult {
  return {
    path: '/data/roads.csv',
    format: 'csv',
    bytes: 900,
    vertices: 3,
    edges: 4,
    duplicates: 1,
    selfLoops: 0,
    negativeWeights: false,
    read_ms: 0.4,
    reachablePairs: 5,
    checksum: '123456789012345678',
    minDistance: 1,
    maxDistance: 9,
    runs: [
      { name: 'serial', backend: 'serial', compute_ms: 2, compute_range_ms: [1.5, 3], relaxations_per_s: 1.35e10, matches: true },
      { name: 'gpu shared B=16', backend: 'gpu', variant: 'shared', block: 16, compute_ms: 5, compute_range_ms: [4, 6], upload_ms: 0.5, readback_ms: 0.7, relaxations_per_s: 5.4e9, bandwidth_GB_per_s: 12.5, matches: true },
      { name: 'gpu shared B=32', backend: 'gpu', variant: 'shared', block: 32, compute_ms: 4, compute_range_ms: [3, 5], upload_ms: 0.5, readback_ms: 0.7, relaxations_per_s: 6.7e9, bandwidth_GB_per_s: 13, matches: false },
    ],
    histogram: { start: 1, width: 3, counts: [2, 2, 1] },
    heatmap: { size: 3, cell: 1, min: [0, 1, 9, null, 0, 4, null, null, 0] },
    successors: true,
    query: { from: 'Rome', to: 'Turin', path: ['Rome', 'Milan', 'Turin'], length: 5 },
    ...more,
  }
}

const result = (g = graph()): PathsResult => ({ graphs: [g], skipped: [{ backend: 'gpu min B=128', reason: 'GPU blocks are at most 64' }] })
const envelope = (r: PathsResult) => envelopeOf('paths', defaultParams(pathsWorkload.params), r)
const box = (w: VueWrapper, id: string) => w.get<HTMLInputElement>(`[data-testid="${id}"]`)

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

function fakeApi(): FakeApi {
  const api = new FakeApi()
  api.files = files
  return api
}

describe('PathsView', () => {
  it('offers the schema\'s fields but the command line\'s output ones, and sends what they hold', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(PathsView, api)
    await flushPromises()
    for (const gone of ['from', 'to', 'output', 'format', 'force']) expect(wrapper.find(`[data-testid="paths-${gone}"]`).exists(), gone).toBe(false)
    expect(wrapper.get('[data-testid="paths-problem"]').text()).toBe('Choose the graphs to read')
    expect(box(wrapper, 'paths-backend-workers-simd').element.checked).toBe(true)
    expect(box(wrapper, 'paths-block-64').element.checked).toBe(true)

    await box(wrapper, 'paths-file-c05.1').setValue(true)
    await box(wrapper, 'paths-backend-gpu').setValue(true)
    await box(wrapper, 'paths-variant-shared').setValue(true)
    await box(wrapper, 'paths-block-16').setValue(true)
    await box(wrapper, 'paths-paths').setValue(true)
    await wrapper.get('[data-testid="paths-repeat"]').setValue('5')
    await wrapper.get('[data-testid="paths-run"]').trigger('click')
    await flushPromises()
    const sent = api.started[0].params as Record<string, unknown>
    expect(sent).toEqual({
      ...defaultParams(pathsWorkload.params),
      files: ['/data/c05.1'],
      backends: expect.arrayContaining(['workers-simd', 'gpu']),
      variants: expect.arrayContaining(['tuned', 'shared']),
      blocks: expect.arrayContaining(['16', '64']),
      paths: true,
      repeat: 5,
    })
    expect((sent.backends as string[]).length).toBe(2)
  })

  it('shows the results: runs against the first, the checksum, what was skipped, and every chart', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(PathsView, api)
    await flushPromises()
    await box(wrapper, 'paths-file-roads.csv').setValue(true)
    await wrapper.get('[data-testid="paths-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'done', jobId: 'job-1', workload: 'paths', envelope: envelope(result()) })
    await flushPromises()

    expect(wrapper.get('[data-testid="paths-checksum"]').text()).toBe('123456789012345678')
    expect(wrapper.get('[data-testid="paths-summary"]').text()).toContain('1 duplicate edges')
    const rows = wrapper.findAll('[data-testid="paths-runs-table"] tbody tr')
    expect(rows.map((r) => r.find('th').text())).toEqual(['serial', 'gpu shared B=16', 'gpu shared B=32'])
    expect(rows.map((r) => r.findAll('td').at(-1)!.text())).toEqual(['yes', 'yes', 'NO'])
    expect(rows[1].text()).toContain('12.5 GB/s')
    expect(wrapper.get('[data-testid="paths-skipped"]').text()).toBe('Skipped gpu min B=128: GPU blocks are at most 64')
    const kinds = wrapper.findAll('.canvas-box').map((c) => [c.attributes('data-testid'), c.attributes('data-chart-kind')])
    expect(kinds).toEqual([
      ['paths-chart-steps', 'bars'],
      ['paths-chart-blocks', 'series'],
      ['paths-chart-split', 'grouped-bars'],
      ['paths-chart-heatmap', 'heatmap'],
      ['paths-chart-histogram', 'grouped-bars'],
    ])
    expect(wrapper.findAllComponents(Chart)).toHaveLength(5)
    // The run's own query, shown at once.
    expect(wrapper.findAll('[data-testid="paths-query-path"] li').map((li) => li.text())).toEqual(['Rome', 'Milan', 'Turin'])
    expect(box(wrapper, 'paths-query-from').element.value).toBe('Rome')
  })

  it('queries a path as a job of its own and shows the answer, or that there is none', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(PathsView, api)
    await flushPromises()
    await box(wrapper, 'paths-file-roads.csv').setValue(true)
    await wrapper.get('[data-testid="paths-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'done', jobId: 'job-1', workload: 'paths', envelope: envelope(result(graph({ query: undefined }))) })
    await flushPromises()
    expect(wrapper.find('[data-testid="paths-query-result"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="paths-query-run"]').attributes('disabled')).toBeDefined()

    await box(wrapper, 'paths-query-from').setValue(' Turin ')
    await box(wrapper, 'paths-query-to').setValue('Rome')
    await wrapper.get('[data-testid="paths-query"]').trigger('submit')
    await flushPromises()
    expect(api.started[1]).toEqual({
      workload: 'paths',
      jobId: 'job-2',
      params: { files: ['/data/roads.csv'], backends: ['workers-simd'], paths: true, from: 'Turin', to: 'Rome', repeat: 1 },
    })
    expect(wrapper.find('[data-testid="paths-query-progress"]').exists()).toBe(true)
    api.emit({ type: 'done', jobId: 'job-2', workload: 'paths', envelope: envelope(result(graph({ query: { from: 'Turin', to: 'Rome', path: null, length: null } }))) })
    await flushPromises()
    expect(wrapper.get('[data-testid="paths-query-result"]').text()).toBe('No path: Rome is unreachable from Turin.')
    // The graph's results stay those of the first job.
    expect(wrapper.findAll('[data-testid="paths-runs-table"] tbody tr')).toHaveLength(3)
  })

  it('a query\'s error is shown beside its boxes, not in the banner; the old answer never stays under new vertices', async () => {
    const api = fakeApi()
    const { wrapper, errors } = mountWith(PathsView, api)
    await flushPromises()
    await box(wrapper, 'paths-file-roads.csv').setValue(true)
    await wrapper.get('[data-testid="paths-run"]').trigger('click')
    await flushPromises()
    api.emit({ type: 'done', jobId: 'job-1', workload: 'paths', envelope: envelope(result()) })
    await flushPromises()
    expect(wrapper.findAll('[data-testid="paths-query-path"] li').map((li) => li.text())).toEqual(['Rome', 'Milan', 'Turin'])
    // A new vertex in a box clears the answer at once: it was the path to Turin.
    await box(wrapper, 'paths-query-to').setValue('Naples')
    expect(wrapper.find('[data-testid="paths-query-result"]').exists()).toBe(false)
    await wrapper.get('[data-testid="paths-query"]').trigger('submit')
    await flushPromises()
    api.emit({ type: 'failed', jobId: 'job-2', workload: 'paths', error: { code: 'invalid-argument', message: '--to "Naples": /data/roads.csv has no vertex of that name' } })
    await flushPromises()
    expect(wrapper.get('[data-testid="paths-query-error"]').text()).toBe('to "Naples": /data/roads.csv has no vertex of that name')
    expect(box(wrapper, 'paths-query-to').attributes('aria-invalid')).toBe('true')
    expect(box(wrapper, 'paths-query-from').attributes('aria-invalid')).toBe('false')
    expect(wrapper.find('[data-testid="paths-query-result"]').exists()).toBe(false)
    expect(errors.notices.value).toEqual([])
    // Back to the vertices of the answer: the error goes, and the answer of those vertices shows again.
    await box(wrapper, 'paths-query-to').setValue('Turin')
    expect(wrapper.find('[data-testid="paths-query-error"]').exists()).toBe(false)
    expect(wrapper.find('[data-testid="paths-query-result"]').exists()).toBe(false)
  })

  it('"Try the example" sends the example\'s graph and path query once; the next Run reads the ticked graphs and asks for none', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(PathsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="paths-example"]').trigger('click')
    await flushPromises()
    expect(api.examples).toEqual(['paths'])
    expect(api.started[0].params).toMatchObject({ files: ['/cache/paralab/examples/paths/graph-example.bin'], paths: true, from: '0', to: '299' })
    expect(box(wrapper, 'paths-file-graph-example.bin').element.checked).toBe(false)
    api.emit({ type: 'done', jobId: 'job-1', workload: 'paths', envelope: envelope(result()) })
    await flushPromises()
    await box(wrapper, 'paths-file-c05.1').setValue(true)
    await wrapper.get('[data-testid="paths-run"]').trigger('click')
    await flushPromises()
    // The example's Successors ended with it.
    expect(api.started[1].params).toMatchObject({ files: ['/data/c05.1'], paths: defaultParams(pathsWorkload.params).paths })
    expect(api.started[1].params).not.toHaveProperty('from')
    expect(api.started[1].params).not.toHaveProperty('to')
  })
})
