// The landslide workload's engine: SciddicaT on the CPU (f64, md5-exact: serial, active, row bands
// on worker threads) and on the GPU (the study's kernels in WGSL, f32), timed and compared.
import { landslideWorkload } from '../../../shared/workloads/landslide'
import type { WorkloadEngine } from '../../engine'
import { benchLandslideCommand } from './bench-command'
import { describeLandslide, landslideFailures } from './describe'
import { finalGridFlags } from './final-grid-files'
import { generateSlopeCommand } from './generate-command'
import { landslideResultFiles } from './result-files'
import { simulateCommand } from './simulate-command'
import { EXAMPLE_COLS, EXAMPLE_ROWS } from './example'

export const landslideEngine: WorkloadEngine<'landslide'> = {
  definition: landslideWorkload,
  // The gpu backend needs the device: landslide jobs queue behind other GPU work.
  lane: 'gpu',
  // In ranks (ctx.ranks of several) or with checkpoints: bands of rows, one per rank, exchanging halos.
  // The job's code (the simulations, the GPU's kernels, the ranks) is loaded by the first job, not by every command.
  run: async (params, ctx) => {
    const { runsInRanks } = await import('./rank-plan')
    return runsInRanks(params, ctx) ? (await import('./run-ranks')).runLandslideRanks(params, ctx) : (await import('./run-landslide')).runLandslideJob(params, ctx)
  },
  exampleGenerator: { name: 'generate slope', parameters: { rows: EXAMPLE_ROWS, cols: EXAMPLE_COLS }, seed: 1 },
  async makeExample(dir) {
    await (await import('./example')).writeExample(dir, landslideWorkload.example.files)
  },
  cli: {
    describe: describeLandslide,
    failures: landslideFailures,
    commands: [simulateCommand, benchLandslideCommand, generateSlopeCommand],
    // The thickness over the relief: the last frame as PNG and SVG, the animation as GIF.
    outputFiles: async (results) => (await import('./thickness-files')).thicknessFiles(results),
    fileFlags: finalGridFlags,
  },
  // The final grid as .asc and .npy and the final frame at full resolution, for the dashboard.
  resultFiles: landslideResultFiles,
  // Two runs' final grids, B − A, from the files each kept (loaded when asked).
  compareGrids: async (a, b, signal) => (await import('./kept-difference')).compareKeptGrids(a, b, signal),
  checkpoints: (params) => params.checkpointEvery !== undefined,
}
