// The landslide workload's engine: SciddicaT on the CPU (f64, md5-exact: serial, active, row bands
// on worker threads) and on the GPU (the study's kernels in WGSL, f32), timed and compared.
import { landslideWorkload } from '../../../shared/workloads/landslide'
import type { WorkloadEngine } from '../../engine'
import { benchLandslideCommand } from './bench-command'
import { describeLandslide, landslideFailures } from './describe'
import { writeExample } from './example'
import { finalGridFlags } from './final-grid-files'
import { landslideResultFiles } from './result-files'
import { runLandslideJob } from './run-landslide'
import { runLandslideRanks, runsInRanks } from './run-ranks'
import { simulateCommand } from './simulate-command'
import { thicknessFiles } from './thickness-files'

export const landslideEngine: WorkloadEngine<'landslide'> = {
  definition: landslideWorkload,
  // The gpu backend needs the device: landslide jobs queue behind other GPU work.
  lane: 'gpu',
  // In ranks (ctx.ranks of several) or with checkpoints: bands of rows, one per rank, exchanging halos.
  run: (params, ctx) => (runsInRanks(params, ctx) ? runLandslideRanks(params, ctx) : runLandslideJob(params, ctx)),
  async makeExample(dir) {
    await writeExample(dir, landslideWorkload.example.files)
  },
  cli: {
    describe: describeLandslide,
    failures: landslideFailures,
    commands: [simulateCommand, benchLandslideCommand],
    // The thickness over the relief: the last frame as PNG and SVG, the animation as GIF.
    outputFiles: thicknessFiles,
    fileFlags: finalGridFlags,
  },
  // The final grid as .asc and .npy and the final frame at full resolution, for the dashboard.
  resultFiles: landslideResultFiles,
  checkpoints: (params) => params.checkpointEvery !== undefined,
}
