// @vitest-environment happy-dom
// The correlation results at the study's size (16 384 series): the heatmap's blocks show the mean,
// least or greatest r of each, chosen in the view and named in the chart's title; the ranking
// table shows a page of `top` series at a time, paged through.
import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Chart } from 'vue-chartjs'
import type { CorrelationResult } from '../../src/shared/workloads/correlation/types'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import CorrelationResults from '../../src/renderer/workloads/correlation/CorrelationResults.vue'
import { FakeApi } from './fake-api'
import { drawn } from './mount'

const M = 16_384
const size = 256
const block = M / size
const cells = size * size
const names = Array.from({ length: M }, (_, i) => `s${i}`)
const result: CorrelationResult = {
  input: { path: '/data/walks16k.npy', format: 'npy', layout: 'rows', series: M, length: 4096, bytes: M * 4096 * 8, load_ms: 2 },
  precision: 'f64',
  reference: 'workers',
  runs: [],
  constant: [],
  ranking: names.map((name, index) => ({ name, index, meanR: 0.9, medianR: 0.9, z: -index / 1000, flagged: index < 3 })),
  threshold: -3.5,
  top: 25,
  heatmap: {
    size,
    block,
    order: 'given',
    values: Array.from({ length: cells }, (_, c) => 0.5 + (c % 7) / 100),
    min: Array.from({ length: cells }, () => -0.25),
    max: Array.from({ length: cells }, () => 0.99),
    labels: Array.from({ length: size }, (_, i) => `s${i * block} … s${i * block + block - 1} (${block})`),
    series: Array.from({ length: size }, (_, i) => Array.from({ length: block }, (_, k) => i * block + k)),
  },
  skipped: [],
}

beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}))
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

const mountResults = () => mount(CorrelationResults, { props: { result }, global: { provide: dashboardProvides(new FakeApi(), createErrorLog()) }, attachTo: document.body })

describe('correlation results of 16 384 series', () => {
  it('draw blocks as their minimum r by default, or the mean or maximum chosen, the title naming it, never more cells than the chart has pixels', async () => {
    const view = mountResults()
    await flushPromises()
    const chart = () => drawn(view.get('[data-testid="correlation-chart-heatmap"]').getComponent(Chart))
    const title = () => chart().options.plugins.title?.text
    expect(title()).toContain('(minimum of 64 × 64 blocks)')
    expect(chart().options.plugins.subtitle?.text).toContain('−0.250')
    expect(chart().data.datasets[0].data.length).toBe(cells)
    await view.get('[data-testid="correlation-heatmap-aggregate"]').setValue('mean')
    await flushPromises()
    expect(title()).toContain('(mean of 64 × 64 blocks)')
    await view.get('[data-testid="correlation-heatmap-aggregate"]').setValue('max')
    await flushPromises()
    expect(title()).toContain('(maximum of 64 × 64 blocks)')
  })

  it('asks for a block range at full resolution: rows, and columns as many', async () => {
    const view = mountResults()
    await flushPromises()
    await view.get('[data-testid="correlation-zoom-rows"]').setValue('1024:1279')
    await view.get('[data-testid="correlation-zoom"]').trigger('click')
    await view.get('[data-testid="correlation-zoom-cols"]').setValue('8192:8447')
    await view.get('[data-testid="correlation-zoom"]').trigger('click')
    expect(view.emitted('zoom')).toEqual([['1024:1279'], ['1024:1279,8192:8447']])
  })

  it('pages the ranking table, `top` series a page', async () => {
    const view = mountResults()
    await flushPromises()
    const rows = () => view.findAll('[data-testid="correlation-ranking-table"] tbody tr')
    const caption = () => view.get('[data-testid="correlation-ranking-table"] caption').text()
    expect(rows()).toHaveLength(25)
    expect(caption()).toContain('Series 1–25 of 16384')
    expect(caption()).toContain('page 1 of 656')
    expect(view.get<HTMLButtonElement>('[data-testid="correlation-ranking-prev"]').element.disabled).toBe(true)
    await view.get('[data-testid="correlation-ranking-next"]').trigger('click')
    expect(caption()).toContain('Series 26–50 of 16384')
    expect(rows()[0].find('td').text()).toBe('26')
    expect(rows()[0].find('th').text()).toBe('s25')
    await view.get('[data-testid="correlation-ranking-last"]').trigger('click')
    expect(caption()).toContain('Series 16376–16384 of 16384')
    expect(rows()).toHaveLength(9)
    expect(view.get<HTMLButtonElement>('[data-testid="correlation-ranking-next"]').element.disabled).toBe(true)
    await view.get('[data-testid="correlation-ranking-first"]').trigger('click')
    expect(caption()).toContain('Series 1–25 of 16384')
  })
})
