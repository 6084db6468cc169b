// The statistics workload's engine: CSV columns loaded in parallel, then CV and MAD on every
// chosen backend (serial, SIMD, worker threads, GPU), timed.
import { join } from 'node:path'
import { statsWorkload } from '../../../shared/workloads/stats'
import type { WorkloadEngine } from '../../engine'
import { benchStatsCommand } from './bench-command'
import { describeStats, failureText } from './describe'
import { generateAccCsv } from './generate-acc'
import { generateAccCommand } from './generate-command'
import { mergeStats } from './merge'

/** Rows of the example recording: 10 minutes at 32 Hz. */
const EXAMPLE_ROWS = 20_000

export const statsEngine: WorkloadEngine<'stats'> = {
  definition: statsWorkload,
  // The gpu backend needs the device: stats jobs queue behind other GPU work.
  lane: 'gpu',
  // The job's code (loader, engines) is loaded by the first job, not by every command.
  run: async (params, ctx) => (await import('./run-stats')).runStatsJob(params, ctx),
  exampleGenerator: { name: 'generate acc', parameters: { rows: EXAMPLE_ROWS }, seed: 1 },
  async makeExample(dir, signal) {
    const [file] = statsWorkload.example.files
    // Seeded and written atomically: a concurrent maker writes the same bytes.
    await generateAccCsv(join(dir, file), { rows: EXAMPLE_ROWS, seed: 1, signal, force: true })
  },
  cli: {
    describe: describeStats,
    failures: (r) => r.failed.map(failureText),
    commands: [generateAccCommand, benchStatsCommand],
  },
  cluster: { split: 'file', merge: mergeStats },
}
