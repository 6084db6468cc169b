// Charts drawn for export on a thread of their own (chart-worker.ts), one at a time, kept between
// exports: a request that asks for a chart leaves the backend free to answer the others meanwhile.
// A chart of many elements (a heatmap of 256 × 256 cells is 65 536 Chart.js elements, some
// 150 MB of heap while drawn) gets a thread of its own that ends with it, so that the memory it
// took goes back to the system rather than staying with a thread kept for the next export.
import type { ChartSize } from '../../shared/api'
import type { ChartSpec } from '../../shared/charts/spec'
import { WorkerPool, withPool } from '../workers/pool'
import type { ChartImageFormat } from './render'

let pool: WorkerPool | undefined

/** Elements beyond which a chart is drawn on a thread of its own. */
export const LARGE_CHART_ELEMENTS = 4096

function elements(chart: ChartSpec): number {
  return chart.kind === 'heatmap' ? chart.data.size * chart.data.size : 0
}

/** `size` as the export request gives it; the thread alone loads the renderer (this module does not, so a run that exports nothing never loads it). */
export async function renderChartInWorker(chart: ChartSpec, format: ChartImageFormat, size?: ChartSize): Promise<Uint8Array> {
  const task = { chart, format, size }
  const bytes =
    elements(chart) > LARGE_CHART_ELEMENTS
      ? await withPool('chart-worker', 1, undefined, (own) => own.run<Uint8Array>('render', task))
      : // Idle, the thread keeps no process alive (WorkerPool unrefs it between tasks).
        await (pool ??= new WorkerPool('chart-worker', 1)).run<Uint8Array>('render', task)
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
