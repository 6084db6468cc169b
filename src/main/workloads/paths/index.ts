// The shortest-paths workload's engine: graphs read and checked, then blocked Floyd–Warshall on
// every chosen backend (serial, blocked, SIMD, worker threads, the GPU's optimization steps), timed
// and checked against each other byte for byte.
import { join } from 'node:path'
import { pathsWorkload } from '../../../shared/workloads/paths'
import { OUTPUT_FORMATS, type OutputFormat } from '../../../shared/workloads/paths/types'
import type { WorkloadEngine } from '../../engine'
import { benchPathsCommand } from './bench-command'
import { describePaths, pathsFailures } from './describe'
import { DISTANCE_FILE, DISTANCE_FILES } from './distance-file-names'
import { generateGraphCommand } from './generate-command'
import { mergePaths } from './merge'
import { pathsQueryCommand } from './query-command'

/** The format an output file's extension names (.csv, .npy, .mtx); bin otherwise. */
function outputFormatOf(output: unknown): { format: OutputFormat } | undefined {
  const ext = typeof output === 'string' ? /\.([^./\\]+)$/.exec(output.toLowerCase())?.[1] : undefined
  return ext && ext !== 'bin' && (OUTPUT_FORMATS as readonly string[]).includes(ext) ? { format: ext as OutputFormat } : undefined
}

/** The example graph: big enough for the blocked backends to have several rounds. */
export const EXAMPLE_GRAPH = { vertices: 300, edges: 6000, seed: 1 }

export const pathsEngine: WorkloadEngine<'paths'> = {
  definition: pathsWorkload,
  // The gpu backend needs the device: paths jobs queue behind other GPU work.
  lane: 'gpu',
  // The job's code (readers, solvers, the GPU's) is loaded by the first job, not by every command.
  run: async (params, ctx) => (await import('./run-paths')).runPathsJob(params, ctx),
  exampleGenerator: { name: 'generate graph', parameters: { vertices: EXAMPLE_GRAPH.vertices, edges: EXAMPLE_GRAPH.edges }, seed: EXAMPLE_GRAPH.seed },
  async makeExample(dir, signal) {
    const [file] = pathsWorkload.example.files
    // Seeded and written atomically: a concurrent maker writes the same bytes.
    const { writeGeneratedGraph } = await import('./generate-graph')
    await writeGeneratedGraph(join(dir, file), { ...EXAMPLE_GRAPH, force: true, signal })
  },
  cli: {
    describe: describePaths,
    failures: pathsFailures,
    // A checkpointed run computes once: its repeats would start again from the checkpoint.
    // --output's extension names its format where --format does not.
    implied: (given) => ({ ...(given.checkpointEvery !== undefined && { repeat: 1 }), ...(given.format === undefined && outputFormatOf(given.output)) }),
    commands: [generateGraphCommand, pathsQueryCommand, benchPathsCommand],
  },
  cluster: { split: 'file', merge: mergePaths },
  // Its Slurm job asks for a warning before the time limit and requeues itself, to resume.
  checkpoints: (params) => params.checkpointEvery !== undefined,
  // The distance matrices of a run the dashboard kept, as .npy, CSV and Matrix Market (distance-files.ts).
  resultFiles: {
    names: DISTANCE_FILES,
    matches: DISTANCE_FILE,
    make: async (results, name, _input, signal, kept) => (await import('./distance-files')).keptDistanceFile(results, name, kept, signal),
  },
}
