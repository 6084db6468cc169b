// The correlation workload's engine: series from CSV or .npy, the Pearson matrix on every chosen
// backend (serial, SIMD, worker threads, GPU kernels), timed stage by stage, and the anomaly ranking.
import { join } from 'node:path'
import { correlationWorkload } from '../../../shared/workloads/correlation'
import type { WorkloadEngine } from '../../engine'
import { benchCorrelationCommand } from './bench-command'
import { describeCorrelation } from './describe'
import { generateWalksCommand } from './generate-command'
import { MATRIX_FILES } from './matrix-download-names'

/** The example: a cluster of 48 walks of 1000 samples, 3 of them disturbed. */
export const EXAMPLE_WALKS = { series: 48, length: 1000, start: 100, eps: 0.01, seed: 1, anomalies: 3 }

export const correlationEngine: WorkloadEngine<'correlation'> = {
  definition: correlationWorkload,
  // The gpu backend needs the device: correlation jobs queue behind other GPU work.
  lane: 'gpu',
  // The job's code (readers, every backend's kernels) is loaded by the first job, not by every command.
  run: async (params, ctx) => (await import('./run-correlation')).runCorrelationJob(params, ctx),
  exampleGenerator: { name: 'generate walks', parameters: { series: EXAMPLE_WALKS.series, length: EXAMPLE_WALKS.length, start: EXAMPLE_WALKS.start, eps: EXAMPLE_WALKS.eps, anomalies: EXAMPLE_WALKS.anomalies }, seed: EXAMPLE_WALKS.seed },
  async makeExample(dir, signal) {
    const [file] = correlationWorkload.example.files
    const [{ generateWalks }, { writeSeries }] = await Promise.all([import('./walks'), import('./write-walks')])
    const walks = generateWalks(EXAMPLE_WALKS)
    // Seeded and written atomically: a concurrent maker writes the same bytes.
    await writeSeries(join(dir, file), walks.values, EXAMPLE_WALKS.series, EXAMPLE_WALKS.length, { layout: 'columns', force: true, signal })
  },
  cli: {
    describe: describeCorrelation,
    commands: [generateWalksCommand, benchCorrelationCommand],
  },
  // A run reads one file: on a cluster, several files are as many runs, each with its result set.
  cluster: { split: 'file' },
  // The full matrix of a run the dashboard kept, as .npy and .csv (kept-matrix.ts).
  resultFiles: {
    names: MATRIX_FILES,
    make: async (results, name, _input, signal, kept) => (await import('./kept-matrix')).keptMatrixFile(results, name, kept, signal),
  },
}
