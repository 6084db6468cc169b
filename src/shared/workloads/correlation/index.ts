// Homogeneity of measurement clusters: the Pearson matrix of M series of length N on every backend,
// timed stage by stage as the study ran it, and the series a low correlation marks as anomalies.
import { defineWorkload, GPU_COMPILE_PHASE } from '../definition'
import { FORCE_PARAM, type ParamValues } from '../schema'
import { correlationCharts } from './charts'
import { correlationCompared } from './compare'
import { correlationTables } from './tables'
import { CORRELATION_BACKENDS, GPU_VARIANTS, HEATMAP_AGGREGATES, HEATMAP_ORDERS, LAYOUTS, PRECISIONS, type CorrelationResult } from './types'

export const correlationWorkload = defineWorkload<CorrelationResult>()({
  id: 'correlation',
  title: 'Correlation',
  summary: 'Pearson correlation of every pair of series, on CPU and GPU backends, and the anomalous series it reveals.',
  params: {
    files: {
      type: 'files',
      label: 'File',
      extensions: ['csv', 'npy', 'parquet', 'arrow', 'feather', 'h5', 'hdf5', 'he5', 'nc', 'nc4', 'cdf'],
      help: 'one CSV file (a series per column under a header, or per row with --layout rows), a 2-D .npy file (<f4 or <f8), a Parquet or Arrow table (a series per numeric column), or an HDF5 or NetCDF file with --dataset',
    },
    layout: {
      type: 'choice',
      label: 'Layout',
      choices: LAYOUTS,
      default: 'columns',
      help: 'columns: a series per column (.npy, HDF5, NetCDF: shape N × M); rows: a series per row, its name first (.npy, HDF5, NetCDF: shape M × N)',
    },
    columns: {
      type: 'names',
      label: 'Columns',
      optional: true,
      help: 'the columns layout of a CSV: the series to correlate, by header name (default: every numeric column, judged from a sample of its rows; columns of text, such as a timestamp, are left out and named in the results, and a stray text cell in a numeric column is an error naming its line and column)',
    },
    dataset: {
      type: 'text',
      label: 'Dataset',
      optional: true,
      arg: '/GROUP/NAME',
      help: 'an HDF5 or NetCDF file: the 2-D dataset (NetCDF variable) holding the series, of integers or floats; without it the file\'s datasets are listed',
    },
    names: {
      type: 'text',
      label: 'Names',
      optional: true,
      arg: '/GROUP/NAME',
      help: 'an HDF5 or NetCDF file: the dataset (variable) of strings naming the series, one per series (1-D strings, or 2-D characters a name a row); without it the coordinate variable of the series\' dimension names them when it holds strings (as xarray does), else s0, s1, …',
    },
    backends: {
      type: 'choices',
      label: 'Backends',
      flag: 'backend',
      choices: CORRELATION_BACKENDS,
      default: ['workers-simd'],
      help: 'serial (one thread), simd (WebAssembly SIMD), workers (all cores), workers-simd (all cores, SIMD), gpu (WebGPU)',
    },
    variants: {
      type: 'choices',
      usedBy: ['gpu'],
      label: 'GPU kernels',
      flag: 'variant',
      choices: GPU_VARIANTS,
      default: ['means-unrolled', 'cross-register'],
      help: 'GPU kernels to run and time: means by naive, shared, unrolled or subgroup reduction; cross-products naive, tiled or register-blocked',
    },
    precision: {
      type: 'choice',
      label: 'Precision',
      choices: PRECISIONS,
      default: 'f64',
      help: 'f64: exact on the CPU, centred f32 with compensated sums on the GPU; f32: data and arithmetic in f32; every run reports max |Δr| against f64',
    },
    repeat: { type: 'int', label: 'Repeat', min: 1, max: 1000, default: 3, help: 'runs per backend; the median time of each stage is reported' },
    top: { type: 'int', label: 'Top', min: 1, max: 100_000, default: 10, help: 'series of the ranking printed, most anomalous first' },
    threshold: {
      type: 'number',
      label: 'Threshold',
      min: -100,
      max: 0,
      default: -3.5,
      help: 'robust z-score of mean r below which a series may be flagged as an anomaly (with --gap)',
    },
    gap: {
      type: 'number',
      label: 'Gap',
      min: 1,
      max: 100,
      default: 1.5,
      help: 'flag only the series that stand apart from the cluster\'s own tail: walking out from the centre, the first series below the threshold whose z is at least this many times the z of the one before it, and all beyond it (1: every series below the threshold)',
    },
    order: {
      type: 'choice',
      label: 'Heatmap order',
      choices: HEATMAP_ORDERS,
      default: 'given',
      help: 'series in the heatmap as given, or by ranking (most anomalous first)',
    },
    aggregate: {
      type: 'choice',
      label: 'Heatmap blocks',
      choices: HEATMAP_AGGREGATES,
      default: 'min',
      help: 'what a heatmap cell shows where it stands for a block of series (beyond 256 a side): the least r (min, the default: a few anomalous series among many show, where a mean would average them away), the mean of their r, or the greatest (max); the chart\'s title names it',
    },
    sweep: {
      type: 'int',
      label: 'Sweep',
      min: 1,
      max: 64,
      default: 1,
      help: 'also time every backend on N prefixes (1/N, 2/N, …, all) of the series or of their length',
    },
    sweepOver: {
      type: 'choice',
      label: 'Sweep over',
      choices: ['series', 'length'],
      default: 'series',
      help: 'what the sweep shortens: the number of series M, or their length N',
    },
    matrix: {
      type: 'text',
      label: 'Matrix file',
      optional: true,
      cliOnly: true,
      arg: 'FILE',
      help: 'write the full M × M matrix to this .npy (<f8 in f64, <f4 in f32) or .csv file (series names, r; written a piece at a time), atomically; not over an existing file unless --force',
    },
    force: FORCE_PARAM,
    pair: {
      type: 'names',
      label: 'Pair',
      optional: true,
      help: 'two series names: overlay them, downsampled, with their r, instead of computing the matrix',
    },
    zoom: {
      type: 'text',
      label: 'Zoom',
      optional: true,
      arg: 'FIRST:LAST[,FIRST:LAST]',
      help: 'series positions (from 0, as given) of the rows and of the columns (as many; default the rows): the heatmap of that block range at full resolution, at most 1024 a side, instead of computing the whole matrix',
    },
  },
  phases: [
    { id: 'loading', summary: 'reading the series from CSV, .npy, HDF5 or NetCDF' },
    { id: 'reference', summary: 'the f64 reference, when no backend computes it' },
    GPU_COMPILE_PHASE,
    { id: 'computing', summary: 'each backend, repeated: means, squares, cross-products, coefficients' },
    { id: 'ranking', summary: 'mean and median r of each series, robust z-scores, heatmap and histogram' },
    { id: 'keeping', summary: 'the dashboard keeps the full matrix on disk, for its downloads as .npy and .csv' },
  ],
  backends: [
    { id: 'serial', summary: 'one thread, TypeScript, f64 two-pass: the reference' },
    { id: 'simd', summary: 'one thread, WebAssembly SIMD, cache-blocked' },
    { id: 'workers', summary: 'all cores, TypeScript, cache-blocked' },
    { id: 'workers-simd', summary: 'all cores, WebAssembly SIMD, cache-blocked' },
    { id: 'gpu', summary: 'WebGPU compute shaders, upper-triangle tiles', variants: GPU_VARIANTS },
  ],
  example: {
    summary: 'A seeded cluster of 48 series of 1000 samples measuring one random walk, 3 of them disturbed, on every CPU backend.',
    files: ['walks-example.csv'],
    params: { backends: ['serial', 'simd', 'workers', 'workers-simd'], repeat: 3 },
  },
  tables: correlationTables,
  charts: correlationCharts,
  compared: correlationCompared,
})

export type CorrelationParams = ParamValues<typeof correlationWorkload.params>
