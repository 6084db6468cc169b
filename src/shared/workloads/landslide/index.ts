// SciddicaT landslide: the debris-flow cellular automaton of the study over a DEM, on every backend,
// timed; the f64 CPU backends reproduce the reference program's output byte for byte.
import { defineWorkload, GPU_COMPILE_PHASE } from '../definition'
import type { ParamValues } from '../schema'
import { landslideCharts } from './charts'
import { landslideCompared } from './compare'
import { landslideTables } from './tables'
import { GPU_VARIANTS, LANDSLIDE_BACKENDS, LANDSLIDE_PRECISIONS, MAX_THICKNESS_MAPS, type LandslideResult } from './types'

export const landslideWorkload = defineWorkload<LandslideResult>()({
  id: 'landslide',
  title: 'Landslide',
  summary: 'SciddicaT debris flow over a DEM: md5-exact f64 on the CPU, the study\'s kernels on the GPU, row bands with halo exchange.',
  params: {
    grids: {
      type: 'files',
      label: 'Grids',
      extensions: ['asc', 'txt'],
      help: 'the DEM, then the initial debris thickness: two ESRI ASCII grids (.asc), or the study\'s header, DEM and source files (the header, the file without a grid, may come anywhere)',
      roles: [
        { flag: 'header', help: 'the study\'s header file (ncols, nrows, cellsize, …), for grids without one' },
        { flag: 'dem', help: 'the DEM: the study\'s grid file or an ESRI ASCII grid (.asc)' },
        { flag: 'source', help: 'the initial debris thickness, in the DEM\'s format' },
      ],
    },
    steps: { type: 'int', label: 'Steps', min: 0, max: 1_000_000, default: 4000, help: 'steps of the automaton (the study ran 4000)' },
    backends: {
      type: 'choices',
      label: 'Backends',
      flag: 'backend',
      choices: LANDSLIDE_BACKENDS,
      default: ['active'],
      help: 'serial (every cell), active (cells with debris and their neighbours), workers and workers-active (row bands on worker threads, halo rows exchanged every step), gpu (WebGPU, f32 or double-float: see precision)',
    },
    variants: {
      type: 'choices',
      usedBy: ['gpu'],
      label: 'GPU kernels',
      flag: 'variant',
      choices: GPU_VARIANTS,
      default: ['fused'],
      help: 'GPU kernels: monolithic, grid-stride, tiled-halo and tiled as in the study, fused (one pass per step), fused2 (two steps per pass, f32), active (the debris\' bounding box only)',
    },
    precision: {
      type: 'choice',
      usedBy: ['gpu'],
      label: 'GPU precision',
      choices: LANDSLIDE_PRECISIONS,
      default: 'f32',
      help: 'the gpu backend\'s arithmetic: f32 (the study\'s float, fastest), accurate (double-float: pairs of f32, ~48 bits, slower; fused, monolithic, grid-stride and active kernels), f64 (WebGPU has no f64: the gpu runs double-float, as with accurate); CPU backends always compute in f64',
    },
    ranks: {
      type: 'int',
      usedBy: ['workers', 'workers-active'],
      label: 'Ranks',
      min: 1,
      max: 256,
      optional: true,
      help: 'row bands (one worker thread each) of the workers backends (default: the number of cores)',
    },
    gpuBands: {
      type: 'int',
      usedBy: ['gpu'],
      label: 'GPU bands',
      min: 1,
      max: 64,
      optional: true,
      help: 'row bands of the gpu backend (default 1), in one process, which opens one GPU: the bands share it (ranks, one process each, get a GPU each), halo rows exchanged every few steps; results are the same bits as one band',
    },
    exchangeEvery: {
      type: 'int',
      label: 'Exchange every',
      unit: 'steps',
      min: 1,
      max: 100_000,
      optional: true,
      help: 'GPU bands and ranks: steps between halo exchanges; each band then carries 2 × that many halo rows on each side (default: a sixteenth of the thinnest band\'s rows, for GPU bands at most the steps per submit)',
    },
    checkpointEvery: {
      type: 'int',
      label: 'Checkpoint every',
      unit: 'steps',
      min: 1,
      max: 1_000_000,
      optional: true,
      cliOnly: true,
      help: 'write the automaton\'s state every N steps into the checkpoint folder, and resume from the newest checkpoint there when the run starts again (serial or active; in ranks each rank writes its band)',
    },
    checkpointDir: {
      type: 'text',
      label: 'Checkpoint folder',
      arg: 'DIR',
      optional: true,
      cliOnly: true,
      help: 'where --checkpoint-every writes (default: checkpoints/ in the job folder of a run in ranks)',
    },
    frames: {
      type: 'int',
      label: 'Frames every',
      unit: 'steps',
      min: 0,
      max: 1_000_000,
      default: 0,
      help: `record the thickness map and the mass, area and depth series every N steps, for the charts and the animation (0: 20 times over the run; the animation keeps at most ${MAX_THICKNESS_MAPS} maps, beyond that every k-th; grids as files: paralab landslide simulate)`,
    },
    stepsPerSubmit: {
      type: 'int',
      usedBy: ['gpu'],
      label: 'Steps per submit',
      min: 1,
      max: 100_000,
      optional: true,
      help: 'GPU steps recorded into one command buffer (default: up to 500, fewer on a software adapter)',
    },
    repeat: { type: 'int', label: 'Repeat', min: 1, max: 1000, default: 1, help: 'runs per backend; the median time is reported' },
    warmup: {
      type: 'int',
      usedBy: ['gpu'],
      label: 'GPU warm-up',
      unit: 'ms',
      min: 0,
      max: 60_000,
      optional: true,
      help: 'untimed GPU steps for this long before each GPU kernel\'s timed runs (default none): an idle GPU runs at a fraction of its clock and takes a few hundred ms of work to raise it (paralab bench landslide: 500)',
    },
  },
  phases: [
    { id: 'loading', summary: 'reading the header, the DEM and the source' },
    GPU_COMPILE_PHASE,
    { id: 'simulating', summary: 'each backend (and GPU kernel), repeated' },
  ],
  backends: [
    { id: 'serial', summary: 'one thread, f64, every interior cell (walls aside) every step' },
    { id: 'active', summary: 'one thread, f64, only cells holding debris or bordering one' },
    { id: 'workers', summary: 'row bands on worker threads, halo rows exchanged through shared memory every step' },
    { id: 'workers-active', summary: 'row bands on worker threads, active cells only' },
    { id: 'gpu', summary: 'WebGPU compute shaders in f32 or double-float, many steps per submit', variants: GPU_VARIANTS },
  ],
  example: {
    summary: 'A seeded synthetic slope of 120 × 160 cells with a debris source and a walled quarry, 600 steps on every CPU backend.',
    files: ['slope-dem.asc', 'slope-source.asc'],
    params: { steps: 600, backends: ['serial', 'active', 'workers', 'workers-active'], ranks: 2, frames: 50 },
  },
  tables: landslideTables,
  charts: landslideCharts,
  compared: landslideCompared,
})

export type LandslideParams = ParamValues<typeof landslideWorkload.params>
