// SciddicaT landslide: a debris flow over a DEM, simulated on CPU backends (f64, exact) and GPU
// kernels (f32 or double-float), timed, the GPU's deviation from the f64 run reported.
import type { GpuPlacement } from '../../gpu-placement'

export const LANDSLIDE_BACKENDS = ['serial', 'active', 'workers', 'workers-active', 'gpu'] as const
export type LandslideBackend = (typeof LANDSLIDE_BACKENDS)[number]
export type CpuBackend = Exclude<LandslideBackend, 'gpu'>

/** The study's CUDA kernels as WebGPU variants, plus fused ones (one step, or two, a dispatch) and an active-area one. */
export const GPU_VARIANTS = ['monolithic', 'grid-stride', 'tiled-halo', 'tiled', 'fused', 'fused2', 'active'] as const
export type GpuVariant = (typeof GPU_VARIANTS)[number]

/**
 * The `precision` parameter: the gpu backend's arithmetic (CPU backends always compute in f64).
 * f32: the study's float; accurate: double-float (pairs of f32, ~48 bits); f64: WebGPU has none,
 * so the gpu backend runs double-float as with accurate.
 */
export const LANDSLIDE_PRECISIONS = ['f64', 'f32', 'accurate'] as const
export type LandslidePrecision = (typeof LANDSLIDE_PRECISIONS)[number]
/** The arithmetic a run used. */
export type RunArithmetic = 'f64' | 'f32' | 'double-float'

/** The gpu backend's arithmetic under `precision`. */
export function gpuArithmetic(precision: LandslidePrecision): Exclude<RunArithmetic, 'f64'> {
  return precision === 'accurate' || precision === 'f64' ? 'double-float' : 'f32'
}

/** Maps (the animation's frames) a run keeps at most: every sample up to this many, then every k-th. */
export const MAX_THICKNESS_MAPS = 201
/** Bytes of debris snapshots (the thickness in the debris' box, f32) a run keeps for its frames: beyond, every other frame goes. */
export const MAX_FRAME_BYTES = 64 * 2 ** 20

/** Samples of the series a run takes at most: `frames` finer than steps / MAX_SAMPLES is raised to it (memory and time stay bounded). */
export const MAX_SAMPLES = 4000

/** The model's parameters, as the reference program fixes them. */
export const P_EPSILON = 0.001
export const P_R = 0.5

/**
 * The grid's coordinate reference system as its file states it: a GeoTIFF's GeoKeys (a projected
 * system in metres: geographic ones are refused), `{ epsg: null, name: 'unknown' }` for ESRI ASCII
 * grids and GeoTIFFs without GeoKeys, whose cells are taken to be metres.
 */
export interface GridCrs {
  epsg: number | null
  name: string
}

/** "EPSG:32633 (WGS 84 / UTM zone 33N)", "EPSG:3035", or the name alone ('unknown' included). */
export function crsText(crs: GridCrs | undefined): string {
  if (!crs) return 'unknown'
  if (crs.epsg === null) return crs.name
  const code = `EPSG:${crs.epsg}`
  return crs.name === code ? code : `${code} (${crs.name})`
}

/** Debris volume in m³: Σh (m) times a cell's area (cellsize², m²). */
export function debrisVolume(mass: number, cellsize: number): number {
  return mass * cellsize * cellsize
}

/** The grid the run read. */
export interface LandslideGrid {
  rows: number
  cols: number
  cellsize: number
  xllcorner: number
  yllcorner: number
  /** The DEM's NODATA value, when its header has one. */
  nodata: number | null
  /** DEM cells holding NODATA: walls that never give or receive flow. */
  walls: number
  /** The input files by role. */
  files: { dem: string; source: string; header?: string }
  /** The CRS of the DEM (absent in runs recorded before it was read). */
  crs?: GridCrs
  /** The files' grids repeated R × C times (`--tile RxC`): rows and cols above are the tiled grid's. */
  tile?: { rows: number; cols: number }
}

/** How far a GPU grid (f32 or double-float) lies from the f64 CPU grid after the same steps. */
export interface GridDeviation {
  /** max |Δh| over the cells, in metres. */
  max_abs: number
  /** Cells with |Δh| > 1e-3 m. */
  cells_over_1mm: number
  /** Σh(GPU) − Σh(f64), in metres of thickness summed over the cells. */
  mass_error: number
}

/** One backend's (or GPU variant's) run. */
export interface LandslideRun extends Partial<GpuPlacement> {
  backend: LandslideBackend
  variant?: GpuVariant
  precision: RunArithmetic
  /** Row bands: worker threads of the workers backends, devices of a gpu run in bands. */
  ranks?: number
  /** GPU in bands or ranks: why they share one device though several were asked for. (gpus_requested, gpus_observed: GpuPlacement.) */
  gpus_note?: string
  /** GPU in bands: steps between halo exchanges. */
  exchange_every?: number
  /** Median milliseconds for all the steps, over the repeats; input already loaded (and on the GPU). */
  ms: number
  ms_min: number
  ms_max: number
  ms_per_step: number
  /** GPU: milliseconds the kernels took to compile, before the timed runs. */
  compile_ms?: number
  /** GPU: steps recorded into each submitted command buffer. */
  steps_per_submit?: number
  /** GPU: dispatches per step. */
  passes_per_step?: number
  /** md5 of the final grid in the reference output format (f64 and double-float runs). */
  md5?: string
  /** Σh at the end, in m summed over the cells. */
  mass_end: number
  /** The debris volume at the end, m³: mass_end × the cell's area (absent in runs recorded before it was). */
  volume_end?: number
  /** GPU runs: against the f64 reference. */
  deviation?: GridDeviation
  /** GPU runs: the kernel's measured point on a roofline (src/main/workloads/landslide/gpu/kernel-costs.ts counts its work). */
  roofline?: RooflinePoint
}

/** A GPU run's work per step, from its kernel's counted FLOPs and bytes per cell, and the rates achieved. */
export interface RooflinePoint {
  /** Cells computed per step: the interior, or (active kernels) the cells holding debris or bordering it. */
  cells_per_step: number
  flop_per_step: number
  bytes_per_step: number
  /** FLOP per byte. */
  intensity: number
  GFLOP_per_s: number
  GB_per_s: number
}

/** The state every K steps of the reference run (the first f64 backend). */
export interface LandslideSeries {
  step: number[]
  /** Σh, in metres summed over the cells. */
  mass: number[]
  /** Cells with h > p_ε. */
  flooded: number[]
  max_thickness: number[]
  /** Cells holding debris or bordering one: what the active backends update. */
  active: number[]
}

/**
 * The thickness over a square window of the grid around the flow, reduced for drawing: `size` ×
 * `size` map cells, each the maximum over its `block` × `block` grid cells.
 */
export interface ThicknessMap {
  step: number
  /** The grid cell at the window's top-left corner. */
  row0: number
  col0: number
  size: number
  block: number
  /** Row-major, metres rounded to 0.1 mm; null where no debris lies (or beyond the grid). */
  values: (number | null)[]
}

/**
 * The DEM's hillshade (Horn's method) over the maps' window at their resolution: 0 (in shadow) …
 * 255 (facing the sun) per map cell; null where the cell holds only NODATA walls or lies beyond the grid.
 */
export interface LandslideHillshade {
  row0: number
  col0: number
  size: number
  block: number
  /** The sun: compass degrees it shines from, and degrees above the horizon. */
  azimuth: number
  altitude: number
  values: (number | null)[]
  /**
   * The ground's elevation per map cell, m: the mean over its block's grid cells that are not walls
   * of the DEM with the source carved out (what the debris runs over), rounded to 1 cm; null as in
   * `values`. Absent in runs recorded before it was, and in the full-resolution frame.
   */
  elevation?: (number | null)[]
}

export interface LandslideResult {
  grid: LandslideGrid
  steps: number
  /** The f64 run everything is compared with. */
  /** Σh (mass, m summed over the cells) and the debris volume (m³, Σh × cellsize²; absent in runs recorded before it was) at the start and the end. */
  reference: { backend: CpuBackend; md5: string; mass_start: number; mass_end: number; volume_start?: number; volume_end?: number }
  /** By `serial`, `active`, `workers`, `workers-active`, `gpu/<variant>`. */
  runs: Record<string, LandslideRun>
  series: LandslideSeries
  /** The thickness at the sampled steps, reduced (the last one is the final state). */
  maps: ThicknessMap[]
  /**
   * Steps between the series' samples (`frames`, or about 20 over the run), and between the maps:
   * the same, or a multiple of it where more than MAX_THICKNESS_MAPS samples were taken (the last
   * step is always kept). `asked`: the `frames` asked for, where it was finer than MAX_SAMPLES
   * samples allow. `frame_bytes`: the bytes of debris snapshots a run keeps for its frames, where
   * that budget (not the count) thinned them. Absent in runs recorded before it was.
   */
  sampling?: { every: number; maps_every: number; asked?: number; frame_bytes?: number }
  /** The relief under the maps (absent in runs recorded before it was computed). */
  hillshade?: LandslideHillshade
  /** Backends not run, and why (the GPU when no adapter exists and others were asked for). */
  skipped: { backend: string; reason: string }[]
  /** A run in ranks (processes started together, e.g. by srun): how the grid was split among them. */
  ranks?: LandslideRanks
  /** A run with checkpoints: how often, where, and the step it resumed from (0: from the start). */
  checkpoints?: { every: number; folder: string; resumed_from: number; last: number | null }
}

/** A run in ranks: each rank a band of rows, with 2 × exchange_every halo rows from its neighbours. */
export interface LandslideRanks {
  size: number
  exchange_every: number
  /** Each rank's own rows r0 … r1−1, and the milliseconds it spent in halo exchanges (sending and waiting). */
  bands: {
    rank: number
    r0: number
    r1: number
    exchange_ms: number
    ms?: number
    phases?: RankPhases
    /** How its halos travelled: through shared memory with neighbours of its host, else over TCP. */
    halos?: 'shared memory' | 'tcp' | 'shared memory and tcp'
  }[]
}

/**
 * Where a rank's time went, summed over its blocks of steps (ms, host clock): queueing a block;
 * from queued to its edge rows on the host (readback, overlapped); handing them to the sockets;
 * waiting for its own sends' rows, then for the neighbours' rows; writing them to the device; and
 * waiting for the device to finish blocks' steps.
 */
export interface RankPhases {
  blocks: number
  queue_ms: number
  readback_ms: number
  send_ms: number
  edges_wait_ms: number
  wait_ms: number
  upload_ms: number
  compute_wait_ms: number
}

/** The key of a run in `runs` and in the timings. */
export function runKey(backend: LandslideBackend, variant?: GpuVariant): string {
  return variant ? `${backend}/${variant}` : backend
}
