// Chart files for people who edit and print them: SVG keeps its text as <text> elements, PNG takes
// a layout size and a scale (2 by default, for print), and the API checks the size it is given.
import { describe, expect, it } from 'vitest'
import { renderChart } from '../../src/main/charts/render'
import { validateRequest } from '../../src/shared/validate'
import type { ChartSpec } from '../../src/shared/charts/spec'

const spec: ChartSpec = {
  kind: 'series',
  data: { title: 'Time vs prefix size', xLabel: 'rows', yLabel: 'time (ms)', x: [10, 20, 40], series: [{ label: 'serial', values: [1, 2, 4] }], logY: true },
}

function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

describe('chart export', () => {
  it('writes SVG text as <text> elements, titles and axis labels included', async () => {
    const svg = new TextDecoder().decode(await renderChart(spec, 'svg'))
    const texts = [...svg.matchAll(/<text[^>]*>([^<]*)/g)].map((m) => m[1])
    expect(texts).toEqual(expect.arrayContaining(['Time vs prefix size', 'rows', 'time (ms)', 'serial']))
    expect(svg).toContain('viewBox="0 0 960 600"')
  })

  it('renders PNG at scale 2 by default, and at the size and scale asked for', async () => {
    expect(pngSize(await renderChart(spec, 'png'))).toEqual({ width: 1920, height: 1200 })
    expect(pngSize(await renderChart(spec, 'png', { width: 800, height: 500, pixelRatio: 1.5 }))).toEqual({ width: 1200, height: 750 })
  })

  it('the API accepts a size within bounds and names what is wrong otherwise', () => {
    const req = (size: unknown) => () => validateRequest('exportChart', [{ chart: spec, format: 'png', fileName: 'c.png', size }])
    expect(req({ width: 1200, height: 800, scale: 3 })).not.toThrow()
    expect(req({ width: 50 })).toThrow('size.width must be an integer in 100…8000; got 50')
    expect(req({ scale: 100 })).toThrow('size.scale must be a number in 0.5…8; got 100')
    expect(req({ depth: 3 })).toThrow('size has no "depth"')
  })
})
