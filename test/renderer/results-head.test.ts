// @vitest-environment happy-dom
// The results heading every workload view shows: a CSV export per result table of the workload's
// definition, a JSON export of the whole envelope, and the run's report.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, describe, expect, it } from 'vitest'
import type { DeviceInfo } from '../../src/shared/device'
import { ApiError } from '../../src/shared/errors'
import { defineWorkload, type WorkloadDefinition } from '../../src/shared/workloads/definition'
import { deviceWorkload, type DeviceResult } from '../../src/shared/workloads/device'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import ResultsHead from '../../src/renderer/components/ResultsHead.vue'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import { envelopeOf } from './envelope'
import { FakeApi } from './fake-api'
import { landslide, run } from './landslide-runs'
import { landslideWorkload } from '../../src/shared/workloads/landslide'

afterEach(() => {
  document.body.innerHTML = ''
})

/** A workload of the test's own, whose results say how many tables it has. */
const counting = defineWorkload<{ tables: string[] }>()({
  id: 'counting',
  title: 'Counting',
  summary: 'test workload',
  params: {},
  phases: [{ id: 'counting', summary: 'counts' }],
  backends: [{ id: 'cpu', summary: 'the CPU' }],
  example: { summary: 'none', params: {}, files: [] },
  tables: (r) => r.tables.map((name) => ({ name, columns: ['n'], rows: [[1]] })),
  charts: () => [],
  compared: () => [],
})

function head(definition: WorkloadDefinition, envelope: ResultEnvelope, title?: string, api = new FakeApi()) {
  const errors = createErrorLog()
  const wrapper = mount(ResultsHead, { props: { definition, envelope, title }, global: { provide: dashboardProvides(api, errors) } })
  return { api, wrapper, errors }
}

describe('ResultsHead', () => {
  it('one table: an "Export CSV" button sending the envelope with that table; JSON sends the envelope alone', async () => {
    const envelope = envelopeOf('counting', {}, { tables: ['counts'] })
    const { api, wrapper } = head(counting, envelope)
    expect(wrapper.get('h2').text()).toBe('Results')
    const csv = wrapper.findAll('[data-testid^="export-results-csv"]')
    expect(csv.map((b) => [b.attributes('data-testid'), b.text()])).toEqual([['export-results-csv', 'Export CSV']])
    await csv[0].trigger('click')
    await wrapper.get('[data-testid="export-results-json"]').trigger('click')
    await wrapper.get('[data-testid="export-report"]').trigger('click')
    await flushPromises()
    expect(api.resultExports).toEqual([
      { envelope, format: 'csv', table: 'counts', fileName: 'counting-counts.csv' },
      { envelope, format: 'json', fileName: 'counting-results.json' },
      { envelope, format: 'html', fileName: 'counting-report.html' },
    ])
    expect('table' in api.resultExports[1]).toBe(false)
    // The envelope itself: a Vue proxy could not cross Electron's IPC.
    expect(api.resultExports[1].envelope).toBe(envelope)
  })

  it('several tables: one button per table, named, each sending its table', async () => {
    const envelope = envelopeOf('counting', {}, { tables: ['a', 'b', 'c'] })
    const { api, wrapper } = head(counting, envelope, 'Counted')
    expect(wrapper.get('h2').text()).toBe('Counted')
    const csv = wrapper.findAll('[data-testid^="export-results-csv"]')
    expect(csv.map((b) => [b.attributes('data-testid'), b.text()])).toEqual([
      ['export-results-csv', 'CSV: a'],
      ['export-results-csv-b', 'CSV: b'],
      ['export-results-csv-c', 'CSV: c'],
    ])
    for (const b of [...csv].reverse()) await b.trigger('click')
    await flushPromises()
    expect(api.resultExports.map((r) => [r.format, r.table, r.fileName])).toEqual([
      ['csv', 'c', 'counting-c.csv'],
      ['csv', 'b', 'counting-b.csv'],
      ['csv', 'a', 'counting-a.csv'],
    ])
    for (const r of api.resultExports) expect(r.envelope).toBe(envelope)
  })

  it('offers the tables of a real workload\'s definition', async () => {
    const info: DeviceInfo = { available: true, features: [], limits: { maxBindGroups: 4 } }
    const envelope = envelopeOf<DeviceResult, unknown>('device', { measure: false }, { info })
    const { api, wrapper } = head(deviceWorkload, envelope)
    const tables = deviceWorkload.tables(envelope.results).map((t) => t.name)
    expect(tables.length).toBeGreaterThan(0)
    for (const b of wrapper.findAll('[data-testid^="export-results-csv"]')) await b.trigger('click')
    await flushPromises()
    expect(api.resultExports.map((r) => [r.table, r.fileName])).toEqual(tables.map((t) => [t, `device-${t}.csv`]))
  })

  it('says where the desktop app saved the file, and reports a failed export', async () => {
    const api = new FakeApi()
    api.exportAnswer = { fileName: 'counting-counts.csv', mime: 'text/csv', savedPath: '/home/ana/counting-counts.csv' }
    const { wrapper, errors } = head(counting, envelopeOf('counting', {}, { tables: ['counts'] }), undefined, api)
    await wrapper.get('[data-testid="export-results-csv"]').trigger('click')
    await flushPromises()
    expect(wrapper.text()).toContain('Saved to /home/ana/counting-counts.csv')

    api.exportResults = async () => {
      throw new ApiError('io', 'disk full')
    }
    await wrapper.get('[data-testid="export-results-json"]').trigger('click')
    await flushPromises()
    expect(errors.notices.value.map((n) => n.message)).toEqual(['Export of counting-results.json failed: disk full'])
    expect(wrapper.text()).not.toContain('Saved to')
  })

  it('says how long GPU kernels took to compile, apart from the runs\' times; nothing where none compiled', () => {
    const env = landslide(100, { serial: run('serial', 40, 'aa'), 'gpu/fused': { ...run('gpu', 10, undefined, 'fused'), compile_ms: 27_800 } })
    const { wrapper } = head(landslideWorkload as unknown as WorkloadDefinition, env)
    expect(wrapper.get('[data-testid="results-compile"]').text()).toBe('Kernels compiled before the timed runs, not in their times: gpu fused 27,800 ms')
    const cpu = head(landslideWorkload as unknown as WorkloadDefinition, landslide(100, { serial: run('serial', 40, 'aa') }))
    expect(cpu.wrapper.find('[data-testid="results-compile"]').exists()).toBe(false)
  })
})
