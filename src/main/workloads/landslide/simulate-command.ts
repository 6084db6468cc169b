// `paralab landslide simulate`: one simulation whose grids are written out, as the study's program
// did: the final thickness in the reference format (--output, md5-comparable), as an ESRI grid with
// the DEM's header (--asc), a GeoTIFF placed like the DEM (--tif) or a NumPy array (--npy), and frames every K steps (--frames K into
// --frames-dir, or drawn over the hillshaded DEM as an animated GIF with --gif); --png draws the final
// thickness over the relief. Every file is written whole or not at all; the targets are checked before the run.
import { availableParallelism } from 'node:os'
import { crsText, GPU_VARIANTS, LANDSLIDE_BACKENDS, LANDSLIDE_PRECISIONS } from '../../../shared/workloads/landslide/types'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { onInterrupt } from '../../terminal/interrupt'
import { progressBar } from '../../terminal/progress'
import { ApiError } from '../../../shared/errors'
import { describePlacement, type GpuPlacement } from '../../../shared/gpu-placement'

function choice<C extends string>(value: unknown, flag: string, choices: readonly C[], fallback: C): C {
  if (value === undefined) return fallback
  if (!(choices as readonly string[]).includes(String(value))) throw new UsageError(`--${flag} must be one of ${choices.join(', ')}, got "${value}"`)
  return value as C
}

export const simulateCommand: Command = {
  name: 'landslide simulate',
  summary: 'Run one landslide simulation and write its grids (reference format, ESRI .asc, .npy, frames) and pictures (PNG, animated GIF).',
  usage:
    'paralab landslide simulate --dem FILE [--header FILE] --source FILE [--tile RxC] [--steps N] [--backend B] [--variant V] [--precision P] [--ranks N] [--gpu-bands N [--exchange-every S]] [--output FILE] [--asc FILE] [--npy FILE] [--tif FILE] [--png FILE] [--frames K [--frames-dir DIR [--frames-as npy|tif]] [--gif FILE]] [--force] [--json]',
  help: [
    '  --dem FILE          the DEM: an ESRI ASCII grid, a single-band GeoTIFF, or the study\'s grid without header (then --header)',
    '  --header FILE       the study\'s header file, for a DEM and source without headers',
    '  --source FILE       the initial debris thickness, in the DEM\'s form (a GeoTIFF on the DEM\'s grid)',
    '  --tile RxC          repeat the DEM and the source R times down and C across into one grid (as the landslide command\'s --tile)',
    '  --steps N           steps (default 4000)',
    `  --backend B         ${LANDSLIDE_BACKENDS.join(', ')} (default active)`,
    `  --variant V         GPU kernel: ${GPU_VARIANTS.join(', ')} (default fused)`,
    '  --precision P       the gpu backend\'s arithmetic: f32 (default), accurate (double-float pairs of f32,',
    '                      ~48 bits) or f64 (WebGPU has none: double-float too); CPU backends run f64',
    '  --ranks N           row bands of the workers backends (default: the number of cores)',
    '  --steps-per-submit N  GPU steps per command buffer',
    '  --gpu-bands N       row bands of the gpu backend, each a process on a GPU of its own where one can be fenced onto it (default 1; not with --frames)',
    '  --exchange-every S  GPU bands: steps between halo exchanges (2 × S halo rows a side)',
    '  --output FILE       the final thickness in the reference program\'s format (its md5 is the check)',
    '  --asc FILE          the final thickness as an ESRI ASCII grid with the DEM\'s header (QGIS, GDAL), and its CRS as a .prj beside it where the DEM names one Paralab can write (UTM zones)',
    '  --npy FILE          the final thickness as a NumPy float64 array, rows × columns (walls NaN)',
    '  --tif FILE          the final thickness as a float64 GeoTIFF with the DEM\'s georeferencing (walls NODATA -9999)',
    '  --png FILE          the final thickness over the hillshaded DEM, with its scale in metres, as PNG',
    '  --frames K          also record the thickness every K steps (and at step 0), for --frames-dir and --gif',
    '  --frames-dir DIR    the existing folder the frames go to, as h-<step>.npy',
    '  --frames-as F       npy (default) or tif: the frames as GeoTIFFs placed like the DEM, h-<step>.tif',
    '  --gif FILE          the frames drawn over the hillshaded DEM as an animated GIF',
    '  --force             overwrite existing files',
    '  --json              print the summary (md5, mass at start and end, time, files) as JSON',
  ].join('\n'),
  options: {
    dem: { type: 'string' },
    header: { type: 'string' },
    source: { type: 'string' },
    tile: { type: 'string' },
    steps: { type: 'string' },
    backend: { type: 'string' },
    variant: { type: 'string' },
    precision: { type: 'string' },
    ranks: { type: 'string' },
    'steps-per-submit': { type: 'string' },
    'gpu-bands': { type: 'string' },
    'exchange-every': { type: 'string' },
    output: { type: 'string' },
    asc: { type: 'string' },
    npy: { type: 'string' },
    tif: { type: 'string' },
    frames: { type: 'string' },
    'frames-as': { type: 'string' },
    'frames-dir': { type: 'string' },
    png: { type: 'string' },
    gif: { type: 'string' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(values) {
    if (!values.dem || !values.source) throw new UsageError('landslide simulate needs --dem and --source')
    const every = intOption(values.frames, 'frames', 1, 1_000_000)
    const framesTo = values['frames-dir'] !== undefined || values.gif !== undefined
    if (every !== undefined && !framesTo) throw new UsageError('--frames needs --frames-dir, --gif or both')
    if (every === undefined && framesTo) throw new UsageError(`--${values['frames-dir'] !== undefined ? 'frames-dir' : 'gif'} needs --frames K`)
    const framesAs = choice(values['frames-as'], 'frames-as', ['npy', 'tif'] as const, 'npy')
    if (values['frames-as'] !== undefined && values['frames-dir'] === undefined) throw new UsageError('--frames-as needs --frames-dir')
    // The simulation, its writers and the GPU load only when it runs.
    const [{ simulate }, { parseTiling, TILE_EXPECTED }] = await Promise.all([import('./simulate'), import('./tiled-grid')])
    const tile = values.tile === undefined ? undefined : parseTiling(values.tile)
    if (values.tile !== undefined && !tile) throw new UsageError(`--tile must be ${TILE_EXPECTED}, got "${values.tile}"`)
    // Progress on stderr (a line at least every 10 s without a terminal); Ctrl-C, SIGTERM or the launcher's end cancels.
    const bar = progressBar()
    const controller = new AbortController()
    const stopListening = onInterrupt(() => controller.abort())
    const summary = await simulate({
      progress: (p) => bar.update(p),
      signal: controller.signal,
      header: values.header,
      dem: values.dem,
      source: values.source,
      tile,
      steps: intOption(values.steps, 'steps', 0, 1_000_000) ?? 4000,
      backend: choice(values.backend, 'backend', LANDSLIDE_BACKENDS, 'active'),
      variant: choice(values.variant, 'variant', GPU_VARIANTS, 'fused'),
      precision: choice(values.precision, 'precision', LANDSLIDE_PRECISIONS, 'f32'),
      ranks: intOption(values.ranks, 'ranks', 1, 256) ?? availableParallelism(),
      stepsPerSubmit: intOption(values['steps-per-submit'], 'steps-per-submit', 1, 100_000),
      gpuBands: intOption(values['gpu-bands'], 'gpu-bands', 1, 64),
      exchangeEvery: intOption(values['exchange-every'], 'exchange-every', 1, 100_000),
      frames: every === undefined ? undefined : { every, dir: values['frames-dir'], as: framesAs, gif: values.gif },
      png: values.png,
      output: values.output,
      asc: values.asc,
      npy: values.npy,
      tif: values.tif,
      force: !!values.force,
    })
      .then(
        (done) => {
          bar.done(true)
          return done
        },
        (e: unknown) => {
          bar.done(false)
          throw controller.signal.aborted ? new ApiError('cancelled', 'cancelled before the final grids were written') : e
        },
      )
      .finally(stopListening)
    if (values.json) writeJson(summary)
    else
      process.stdout.write(
        `${summary.backend} (${summary.precision}): ${summary.steps} steps on ${summary.rows} × ${summary.cols} cells in ${summary.ms.toFixed(0)} ms\n` +
          `md5 ${summary.md5}\nmass Σh, m ${summary.mass_start.toPrecision(10)} → ${summary.mass_end.toPrecision(10)}; volume, m³ ${summary.volume_start.toPrecision(10)} → ${summary.volume_end.toPrecision(10)} (CRS ${crsText(summary.crs)})\n` +
          (summary.bands?.gpus_requested ? `${describePlacement(summary.bands as GpuPlacement)}\n` : '') +
          (summary.bands?.gpus_note ? `note: ${summary.bands.gpus_note}\n` : '') +
          summary.written.map((p) => `wrote ${p}\n`).join(''),
      )
    return 0
  },
}
