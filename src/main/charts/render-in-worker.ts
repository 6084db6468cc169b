// Charts drawn for export on a thread of their own (chart-worker.ts), one at a time, kept between
// exports: a request that asks for a chart leaves the backend free to answer the others meanwhile.
import type { ChartSize } from '../../shared/api'
import type { ChartSpec } from '../../shared/charts/spec'
import { WorkerPool } from '../workers/pool'
import type { ChartImageFormat } from './render'

let pool: WorkerPool | undefined

/** `size` as the export request gives it; the thread alone loads the renderer (this module does not, so a run that exports nothing never loads it). */
export async function renderChartInWorker(chart: ChartSpec, format: ChartImageFormat, size?: ChartSize): Promise<Uint8Array> {
  // Idle, the thread keeps no process alive (WorkerPool unrefs it between tasks).
  pool ??= new WorkerPool('chart-worker', 1)
  const bytes = await pool.run<Uint8Array>('render', { chart, format, size })
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
