// Category axes (one bar per backend) at a width too narrow for their labels side by side: Chart.js
// turns them so that no two overlap, rather than drawing "workers B=64workers-simd B=64".
import { describe, expect, it } from 'vitest'
import { barsConfig } from '../../src/shared/charts/bars'
import { loadCanvas } from '../../src/main/charts/render'

const LABELS = ['serial', 'blocked B=64', 'simd B=64', 'workers B=64', 'workers-simd B=64', 'gpu tuned B=64']

describe('category axis labels', () => {
  it.each([320, 640, 1600])('do not overlap at %i px', async (width) => {
    const canvasModule = await loadCanvas()
    const chartjs = await import('chart.js')
    chartjs.Chart.register(...chartjs.registerables)
    const errorBars = await import('chartjs-chart-error-bars')
    chartjs.Chart.register(errorBars.BarWithErrorBarsController, errorBars.BarWithErrorBar)
    const config = barsConfig({ title: 't', xLabel: 'run', yLabel: 'ms', bars: LABELS.map((label, i) => ({ label, value: i + 1 })) }, { animation: false, responsive: false })
    const canvas = canvasModule.createCanvas(width, 300)
    const chart = new chartjs.Chart(canvas as unknown as HTMLCanvasElement, { ...config, platform: chartjs.BasicPlatform })
    try {
      const x = chart.scales.x
      const ctx = chart.ctx
      const items = x.getLabelItems()
      expect(items.map((it) => it.label)).toEqual(LABELS)
      const rotation = Math.abs(items[0].options.rotation ?? 0)
      for (let i = 1; i < items.length; i++) {
        ctx.font = items[i].font.string
        const [a, b] = [items[i - 1], items[i]]
        const gap = b.options.translation![0] - a.options.translation![0]
        if (rotation === 0) {
          // Flat: half of each label on either side of its tick.
          const need = (ctx.measureText(String(a.label)).width + ctx.measureText(String(b.label)).width) / 2
          expect(gap, `${a.label} | ${b.label}`).toBeGreaterThanOrEqual(need)
        } else {
          // Turned: parallel lines of text, as far apart as the gap across them.
          expect(gap * Math.sin(rotation), `${a.label} | ${b.label}`).toBeGreaterThanOrEqual(Number(b.font.lineHeight) * 0.8)
        }
      }
    } finally {
      chart.destroy()
    }
  })
})
