// @vitest-environment happy-dom
// The datasets of a chosen HDF5 or NetCDF file, offered by the Correlation and Statistics views
// (from the backend's listDatasets, faked here; test/unit/hdf5-netcdf.test.ts lists real files):
// one 2-D dataset for correlation, 1-D datasets as statistics' columns; those that cannot be read
// greyed out with why; nothing for a CSV.
import { flushPromises } from '@vue/test-utils'
import { afterEach, describe, expect, it } from 'vitest'
import type { DatasetEntry } from '../../src/shared/api'
import CorrelationView from '../../src/renderer/workloads/correlation/CorrelationView.vue'
import StatsView from '../../src/renderer/workloads/stats/StatsView.vue'
import { FakeApi } from './fake-api'
import { mountWith } from './mount'

const LISTED: DatasetEntry[] = [
  { path: '/acc/x', shape: [1000], dtype: 'int16' },
  { path: '/acc/y', shape: [1000], dtype: 'float32' },
  { path: '/cluster/walks', shape: [1000, 48], dtype: 'float64' },
  { path: '/names', shape: [2], dtype: 'string', unreadable: 'not numeric' },
]

function fakeApi(): FakeApi {
  const api = new FakeApi()
  api.files = [
    { path: '/data/run.h5', name: 'run.h5', bytes: 90_000 },
    { path: '/data/plain.csv', name: 'plain.csv', bytes: 100 },
  ]
  api.datasets.set('/data/run.h5', LISTED)
  return api
}
afterEach(() => void (document.body.innerHTML = ''))

describe('the dataset chooser', () => {
  it('correlation: offers the file\'s 2-D datasets and runs with the one chosen', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(CorrelationView, api)
    await flushPromises()
    await wrapper.get('[data-testid="correlation-file-plain.csv"]').setValue(true)
    await flushPromises()
    expect(wrapper.find('[data-testid="correlation-datasets"]').exists()).toBe(false)
    await wrapper.get('[data-testid="correlation-file-plain.csv"]').setValue(false)
    await wrapper.get('[data-testid="correlation-file-run.h5"]').setValue(true)
    await flushPromises()
    const offered = (path: string) => wrapper.get(`[data-testid="correlation-datasets-${path}"]`)
    expect(offered('/cluster/walks').attributes('disabled')).toBeUndefined()
    expect(offered('/acc/x').attributes('disabled')).toBeDefined()
    expect(offered('/names').attributes('disabled')).toBeDefined()
    expect(wrapper.get('[data-testid="correlation-datasets"]').text()).toContain('/names string, 2 — not numeric')
    await offered('/cluster/walks').setValue(true)
    // The form's Dataset field shows the choice.
    expect(wrapper.get('[data-testid="correlation-dataset"]').element).toHaveProperty('value', '/cluster/walks')
    await wrapper.get('[data-testid="correlation-run"]').trigger('click')
    await flushPromises()
    expect(api.started[0].params).toMatchObject({ files: ['/data/run.h5'], dataset: '/cluster/walks' })
  })

  it('statistics: offers the 1-D datasets as columns, several at once', async () => {
    const api = fakeApi()
    const { wrapper } = mountWith(StatsView, api)
    await flushPromises()
    await wrapper.get('[data-testid="stats-file-run.h5"]').setValue(true)
    await flushPromises()
    const offered = (path: string) => wrapper.get(`[data-testid="stats-datasets-${path}"]`)
    expect(offered('/cluster/walks').attributes('disabled')).toBeDefined()
    await offered('/acc/x').setValue(true)
    await offered('/acc/y').setValue(true)
    await wrapper.get('[data-testid="stats-run"]').trigger('click')
    await flushPromises()
    expect(api.started[0].params).toMatchObject({ files: ['/data/run.h5'], columns: ['/acc/x', '/acc/y'] })
  })
})
