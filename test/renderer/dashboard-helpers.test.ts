import { describe, expect, it } from 'vitest'
import type { ChartSpec } from '../../src/shared/charts/spec'
import { defaultLogY, shownConfig, shownSpec } from '../../src/renderer/charts/panel'
import { createErrorLog } from '../../src/renderer/composables/errors'
import { formatBytes, formatThroughput } from '../../src/renderer/format'
import { statsChartSpecs } from '../../src/shared/workloads/stats/charts'
import { formProblem, parseColumns, statsParams, type StatsForm } from '../../src/renderer/workloads/stats/params'
import { statsFile } from './stats-fixture'

const form: StatsForm = { files: ['/d/a.csv'], columns: 'acc_x, acc_y, acc_z', backends: ['gpu', 'serial'], precision: 'f64', repeat: 10, batches: 1 }

describe('stats form', () => {
  it('parses columns: trimmed, no empties, no repeats', () => {
    expect(parseColumns(' a ,b,,a , c ')).toEqual(['a', 'b', 'c'])
    expect(parseColumns(' , ')).toEqual([])
  })
  it('puts backends in their canonical order and leaves columns out when none are typed', () => {
    expect(statsParams(form).backends).toEqual(['serial', 'gpu'])
    expect('columns' in statsParams({ ...form, columns: ' ' })).toBe(false)
  })
  it('names what is missing or wrong', () => {
    expect(formProblem(form)).toBeNull()
    expect(formProblem({ ...form, files: [] })).toBe('Choose at least one file.')
    expect(formProblem({ ...form, backends: [] })).toBe('Choose at least one backend.')
    expect(formProblem({ ...form, batches: 2.5 })).toBe('Batches must be a whole number ≥ 1 (got 2.5).')
    expect(formProblem({ ...form, repeat: '' })).toBe('Repeat must be a whole number ≥ 1 (got "").')
    expect(() => statsParams({ ...form, files: [] })).toThrow('Choose at least one file.')
  })
})

describe('stats chart specs', () => {
  it('has one x per batch and a gap where a backend did not run at that size', () => {
    const file = statsFile('/d/ACC_001.csv', { acc_x: [1, 2, 3, 5] }, ['serial', 'gpu'], [2, 4])
    delete (file.batches[0].backends as Record<string, unknown>).gpu
    const { time, cv } = statsChartSpecs(file)
    if (time.kind === 'roofline' || cv.kind === 'roofline') throw new Error('series expected')
    expect(time.data.x).toEqual([2, 4])
    expect(time.data.series).toEqual([
      { label: 'serial', values: [file.batches[0].backends.serial.compute_ms, file.batches[1].backends.serial.compute_ms] },
      { label: 'gpu', values: [null, file.batches[1].backends.gpu.compute_ms] },
    ])
    expect(cv.data.series[1]).toEqual({ label: 'acc_x · gpu', values: [null, file.columns.acc_x.cv] })
    expect(cv.data.title).toBe('Coefficient of variation vs prefix size — ACC_001.csv')
  })
})

describe('chart panel view', () => {
  const spec: ChartSpec = { kind: 'stats-time', data: { x: [10, 20, 30], series: [{ label: 'serial', values: [1, 2, 3] }] } }
  it('logs time by default and applies the toggle and the x range to the spec', () => {
    expect(defaultLogY(spec)).toBe(true)
    expect(defaultLogY({ kind: 'stats-cv', data: spec.data })).toBe(false)
    const shown = shownSpec(spec, { logY: false, xMin: 15, xMax: null })
    expect(shown).toEqual({ kind: 'stats-time', data: { x: [20, 30], series: [{ label: 'serial', values: [2, 3] }], logY: false } })
    expect(shownSpec(spec, {})).toEqual(spec)
  })
  it('reports a spec the charts cannot draw instead of throwing', () => {
    const out = shownConfig({ kind: 'roofline', data: { adapter: 'A', peak_GFLOP_per_s: -1, bandwidth_GB_per_s: 10 } })
    expect(out).toEqual({ error: expect.stringContaining('peak compute must be a positive number') })
  })
})

describe('format and errors', () => {
  it('formats sizes and throughput', () => {
    expect(formatBytes(1_050_000_000)).toBe('1.05 GB')
    expect(formatBytes(640)).toBe('640 B')
    expect(formatThroughput({ value: 8_234_000, unit: 'rows/s' })).toBe('8,230,000 rows/s')
    expect(formatThroughput(undefined)).toBe('')
  })
  it('shows one cause once, with the context of its first report', () => {
    const log = createErrorLog()
    log.report({ code: 'io', message: 'socket closed' }, 'Could not list files')
    log.report(new Error('socket closed'), 'Could not query the adapter')
    log.report('other')
    expect(log.notices.value.map((n) => n.message)).toEqual(['Could not list files: socket closed', 'other'])
    log.dismiss(log.notices.value[0].id)
    expect(log.notices.value.map((n) => n.message)).toEqual(['other'])
  })
})
