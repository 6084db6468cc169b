import { describe, expect, it } from 'vitest'
import type { ChartSpec } from '../../src/shared/charts/spec'
import { defaultLogY, shownConfig, shownSpec } from '../../src/renderer/charts/panel'
import { createErrorLog } from '../../src/renderer/composables/errors'
import { formatBytes, formatThroughput } from '../../src/renderer/format'
import { statsChartSpecs } from '../../src/shared/workloads/stats/charts'
import { fieldValue, formParams, useWorkloadForm } from '../../src/renderer/composables/useWorkloadForm'
import { deviceWorkload } from '../../src/shared/workloads/device'
import { defaultParams } from '../../src/shared/workloads/schema'
import { statsWorkload } from '../../src/shared/workloads/stats'
import { statsFile } from './stats-fixture'

const schema = statsWorkload.params

describe('workload form values', () => {
  it('parses a names field: trimmed, no empties, no repeats; an empty one is left out', () => {
    expect(formParams(schema, { columns: ' a ,b,,a , c ', backends: ['serial'] }).columns).toEqual(['a', 'b', 'c'])
    expect('columns' in formParams(schema, { columns: ' , ', backends: ['serial'] })).toBe(false)
  })
  it('leaves out an empty optional number, keeps a typed one as a number', () => {
    expect(formParams(deviceWorkload.params, { measure: true, readMb: '', repeat: '' })).toEqual({ measure: true })
    expect(formParams(deviceWorkload.params, { measure: false, readMb: '64', repeat: 3 })).toEqual({ measure: false, readMb: 64, repeat: 3 })
  })
  it('shows parameters as fields: names as a comma list, lists copied, numbers or empty', () => {
    expect(fieldValue(schema.columns, ['acc_x', 'acc_y'])).toBe('acc_x, acc_y')
    expect(fieldValue(schema.columns, undefined)).toBe('')
    const backends = ['serial', 'gpu']
    const shown = fieldValue(schema.backends, backends)
    expect(shown).toEqual(backends)
    expect(shown).not.toBe(backends) // editing the form must not edit the example's parameters
    expect(fieldValue(schema.repeat, 3)).toBe(3)
    expect(fieldValue(deviceWorkload.params.readMb, undefined)).toBe('')
  })
  it('names what is missing or wrong in the validation\'s words, without the workload prefix', () => {
    const form = useWorkloadForm(statsWorkload)
    expect(form.problem.value).toBe('Choose the files to read')
    form.values.files = ['/d/a.csv']
    expect(form.problem.value).toBeNull()
    form.values.backends = []
    expect(form.problem.value).toBe('Backends must be a non-empty list of serial, simd, workers, workers-simd, gpu; got []')
    form.values.backends = ['serial']
    form.values.batches = 2.5
    expect(form.problem.value).toBe('Batches must be an integer in 1…10000; got 2.5')
    // A cleared required number is a problem, not a silent default; a cleared optional one is left out.
    form.values.batches = 1
    form.values.repeat = ''
    expect(form.problem.value).toBe('Repeat must be an integer in 1…1000; got ""')
    const device = useWorkloadForm(deviceWorkload)
    device.values.readMb = ''
    expect(device.problem.value).toBeNull()
    expect(device.params.value).not.toHaveProperty('readMb')
  })
  it('set() fills the fields from parameters and puts the others back to their defaults', () => {
    const form = useWorkloadForm(statsWorkload)
    form.values.precision = 'f32'
    form.values.columns = 'acc_z'
    form.set({ files: ['/e/acc-example.csv'], backends: ['serial', 'simd'], repeat: 3, batches: 10 })
    expect(form.params.value).toEqual({ ...defaultParams(schema), files: ['/e/acc-example.csv'], backends: ['serial', 'simd'], repeat: 3, batches: 10 })
    expect(form.params.value.precision).toBe('f64')
    expect('columns' in form.params.value).toBe(false)
    expect(form.problem.value).toBeNull()
  })
})

describe('stats chart specs', () => {
  it('has one x per batch and a gap where a backend did not run at that size', () => {
    const file = statsFile('/d/ACC_001.csv', { acc_x: [1, 2, 3, 5] }, ['serial', 'gpu'], [2, 4])
    delete (file.batches[0].backends as Record<string, unknown>).gpu
    const { time, cv } = statsChartSpecs(file)
    if (time.kind !== 'series' || cv.kind !== 'series') throw new Error('series expected')
    expect(time.data.x).toEqual([2, 4])
    expect(time.data.series).toEqual([
      { label: 'serial', values: [file.batches[0].backends.serial.compute_ms, file.batches[1].backends.serial.compute_ms] },
      { label: 'gpu', values: [null, file.batches[1].backends.gpu.compute_ms] },
    ])
    // The GPU's gap sets it apart from serial: a line of its own, the column's colour, its own dash.
    expect(cv.data.series[1]).toEqual({ label: 'acc_x · gpu', values: [null, file.columns.acc_x.cv], color: 0, dash: 1 })
    expect(cv.data.title).toBe('Coefficient of variation vs prefix size — ACC_001.csv')
    // Times span orders of magnitude between backends: a log axis; CV is compared on a linear one.
    expect([time.data.logY, cv.data.logY]).toEqual([true, false])
    expect([time.data.xLabel, time.data.yLabel]).toEqual(['prefix size (rows)', 'time (ms)'])
  })
})

describe('chart panel view', () => {
  const spec: ChartSpec = {
    kind: 'series',
    data: { title: 'Time', xLabel: 'rows', yLabel: 'time (ms)', x: [10, 20, 30], series: [{ label: 'serial', values: [1, 2, 3] }], logY: true },
  }
  it('starts from the spec\'s own log choice and applies the toggle and the x range to the spec', () => {
    expect(defaultLogY(spec)).toBe(true)
    expect(defaultLogY({ kind: 'series', data: { ...spec.data, logY: undefined } })).toBe(false)
    expect(defaultLogY({ kind: 'roofline', data: { adapter: 'A', peak_GFLOP_per_s: 1, bandwidth_GB_per_s: 1 } })).toBe(false)
    const shown = shownSpec(spec, { logY: false, xMin: 15, xMax: null })
    expect(shown).toEqual({ kind: 'series', data: { ...spec.data, x: [20, 30], series: [{ label: 'serial', values: [2, 3] }], logY: false } })
    expect(shownSpec(spec, { xMax: 20 })).toEqual({ kind: 'series', data: { ...spec.data, x: [10, 20], series: [{ label: 'serial', values: [1, 2] }] } })
    expect(shownSpec(spec, {})).toEqual(spec)
  })
  it('applies the log toggle to grouped bars too (the correlation kernels, the per-column bars)', () => {
    const bars: ChartSpec = { kind: 'grouped-bars', data: { title: 'GPU kernels', xLabel: 'kernel', yLabel: 'time (ms)', categories: ['a', 'b'], series: [{ label: 'ms', values: [1, 1000] }] } }
    expect(defaultLogY(bars)).toBe(false)
    expect(defaultLogY({ ...bars, data: { ...bars.data, logY: true } })).toBe(true)
    const shown = shownSpec(bars, { logY: true })
    expect(shown).toEqual({ ...bars, data: { ...bars.data, logY: true } })
    const config = shownConfig(shown)
    expect('config' in config && (config.config.options?.scales?.y as { type?: string }).type).toBe('logarithmic')
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
