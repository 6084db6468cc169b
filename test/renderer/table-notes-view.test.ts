// @vitest-environment happy-dom
// The dashboard's result tables say what their numbers mean, and show a zero mean's CV (null once
// through JSON) as σ/μ gives it, ∞, as the command line does, with the note that explains it.
import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { timingOf } from '../../src/shared/workloads/envelope'
import { dashboardProvides } from '../../src/renderer/composables/api'
import { createErrorLog } from '../../src/renderer/composables/errors'
import StatsFileResults from '../../src/renderer/workloads/stats/StatsFileResults.vue'
import { FakeApi } from './fake-api'
import { statsFile } from './stats-fixture'

describe('result table notes in the dashboard', () => {
  it('a statistics file\'s table explains cv and, where the mean is 0, its ∞', () => {
    // acc_x has mean 0: cv = σ/0, sent over JSON as null.
    const file = JSON.parse(JSON.stringify(statsFile('/data/zero.csv', { acc_x: [-1, 1, -2, 2], acc_y: [1, 2, 3, 4] }, ['serial'], [2, 4])))
    const view = mount(StatsFileResults, {
      props: { file, timings: { serial: timingOf([1]) } },
      global: { provide: dashboardProvides(new FakeApi(), createErrorLog()) },
    })
    const note = view.get('[data-testid="stats-table-note"]').text()
    expect(note).toContain('cv = std / mean')
    expect(note).toContain('cv is NaN or ±∞')
    const cells = view.get('[data-testid="stats-table"]').findAll('tbody tr')[0].findAll('td').map((td) => td.text())
    expect(cells).toContain('∞ mean ≈ 0: undefined in practice')
    for (const table of view.findAll('table')) expect(table.text()).not.toContain('null')
  })
})
