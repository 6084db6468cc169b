// @vitest-environment happy-dom
// The correlation heatmap offers the data's range of r or the full −1…1, and its chart says which.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import CorrelationResults from '../../src/renderer/workloads/correlation/CorrelationResults.vue'
import { FakeApi } from './fake-api'
import { drawn } from './mount'

const names = ['a', 'b', 'c']
const result: CorrelationResult = {
  input: { path: '/data/walks.csv', format: 'csv', layout: 'columns', series: 3, length: 100, bytes: 3000, load_ms: 2 },
  precision: 'f64',
  reference: 'serial',
  runs: [],
  constant: [],
  ranking: names.map((name, index) => ({ name, index, meanR: 0.9, medianR: 0.9, z: 0, flagged: false })),
  threshold: -3.5,
  top: 10,
  heatmap: { size: 3, block: 1, order: 'given', values: [1, 0.8, 0.75, 0.8, 1, 0.9, 0.75, 0.9, 1], labels: names, series: [[0], [1], [2]] },
  skipped: [],
}

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

describe('the correlation heatmap\'s colour range', () => {
  it('is the data\'s by default and −1…1 when chosen, the chart saying which', async () => {
    const view = mount(CorrelationResults, { props: { result }, global: { provide: dashboardProvides(new FakeApi(), createErrorLog()) }, attachTo: document.body })
    await flushPromises()
    const note = () => drawn(view.get('[data-testid="correlation-chart-heatmap"]').getComponent(Chart)).options.plugins.subtitle?.text
    expect(note()).toBe("colours: the data's range, r 0.750…1.000 (not −1…1)")
    await view.get('[data-testid="correlation-heatmap-range"]').setValue('full')
    await flushPromises()
    expect(note()).toBe('colours: the full range of r, −1…1 (r of the cells 0.750…1.000)')
  })
})
