// Titles and notes of every kind of chart are drawn at their font's width: Chart.js squeezes a text
// wider than its block (canvas text's maxWidth), so a long one is wrapped to the canvas instead.
import { createCanvas } from '@napi-rs/canvas'
import * as chartjs from 'chart.js'
import { toFont } from 'chart.js/helpers'
import { BarWithErrorBar, BarWithErrorBarsController } from 'chartjs-chart-error-bars'
import { describe, expect, it } from 'vitest'
import { chartConfig } from '../../src/shared/charts'
import type { ChartSpec } from '../../src/shared/charts/spec'

chartjs.Chart.register(...chartjs.registerables, BarWithErrorBarsController, BarWithErrorBar)

function drawn(spec: ChartSpec, width: number, height: number): chartjs.Chart {
  const config = chartConfig(spec, { animation: false, responsive: false })
  return new chartjs.Chart(createCanvas(width, height) as unknown as HTMLCanvasElement, { ...config, platform: chartjs.BasicPlatform } as never)
}

function titleLines(chart: chartjs.Chart) {
  const blocks = chart.boxes.filter((b) => 'text' in ((b as { options?: object }).options ?? {})) as unknown as { left: number; right: number; options: { text: string | string[]; font: object } }[]
  const ctx = chart.ctx
  return blocks.flatMap((b) => {
    ctx.font = toFont(b.options.font).string
    return ([] as string[]).concat(b.options.text).map((line) => ({ line, width: ctx.measureText(line).width, room: b.right - b.left }))
  })
}

// The correlation's time-per-stage chart, whose note is a sentence.
const NOTE = 'each stage is its own median over the repeats; the total is the median of whole runs, so the stack and the total differ a little'
const SPECS: ChartSpec[] = [
  {
    kind: 'grouped-bars',
    data: { title: 'Time per stage, median of the repeats — 4096 × 4, f64', xLabel: 'backend', yLabel: 'time (ms)', categories: ['workers-simd', 'gpu'], series: [{ label: 'means', values: [1, 2] }], stacked: true, note: NOTE },
  },
  { kind: 'series', data: { title: 'Time of steps 2–5 vs number of series M', xLabel: 'series', yLabel: 'time (ms)', x: [1, 2], series: [{ label: 'a', values: [1, 2] }], note: NOTE } },
  { kind: 'bars', data: { title: 'Coefficient of variation per column', xLabel: 'column', yLabel: 'CV', bars: [{ label: 'a', value: 1 }, { label: 'b', value: 2 }], note: NOTE } },
  { kind: 'roofline', data: { adapter: 'SwiftShader Device (Subzero)', kernels: [{ name: 'cross', intensity: 1, performance: 1 }], note: NOTE } },
]

describe('chart titles and notes', () => {
  it.each(SPECS.map((s) => [s.kind, s] as const))('%s: wrapped to the canvas where it is narrow, never squeezed, and all there', (_kind, spec) => {
    for (const [w, h] of [[960, 600], [480, 300]]) {
      const chart = drawn(spec, w, h)
      const lines = titleLines(chart)
      for (const l of lines) expect(l.width, `${w} × ${h}: "${l.line}" (${Math.round(l.width)} px) in ${Math.round(l.room)} px`).toBeLessThanOrEqual(l.room + 0.5)
      expect(lines.map((l) => l.line).join(' ')).toContain(NOTE)
      chart.destroy()
    }
  })
})
