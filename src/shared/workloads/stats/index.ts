// Accelerometer statistics: coefficient of variation and median absolute deviation per CSV column,
// on every backend, timed, as the accelerometer study computed them.
import { defineWorkload, GPU_COMPILE_PHASE } from '../definition'
import type { ParamValues } from '../schema'
import { statsCharts } from './charts'
import { statsCompared } from './compare'
import { statsTables } from './tables'
import { DEFAULT_STATS_COLUMNS, PRECISIONS, STATS_BACKENDS, type StatsResult } from './types'

export const statsWorkload = defineWorkload<StatsResult>()({
  id: 'stats',
  title: 'Statistics',
  summary: 'Coefficient of variation and median absolute deviation of CSV columns, on CPU and GPU backends.',
  params: {
    files: {
      type: 'files',
      label: 'Files',
      extensions: ['csv', 'parquet', 'arrow', 'feather', 'h5', 'hdf5', 'he5', 'nc', 'nc4', 'cdf'],
      help: 'CSV files with a header row, Parquet or Arrow (.arrow, .feather) tables, or HDF5 and NetCDF files with --columns naming their 1-D datasets; a folder stands for every such file in it',
    },
    columns: {
      type: 'names',
      label: 'Columns',
      optional: true,
      help: `columns to analyse (default: ${DEFAULT_STATS_COLUMNS.join(', ')}, those the file has); in an HDF5 or NetCDF file, 1-D datasets (variables) by path, e.g. /acc/x,/acc/y (none named: the file's datasets are listed)`,
    },
    backends: {
      type: 'choices',
      label: 'Backends',
      flag: 'backend',
      choices: STATS_BACKENDS,
      default: ['workers-simd'],
      help: 'serial (one thread), simd (WebAssembly SIMD), workers (all cores), workers-simd (all cores, SIMD), gpu (WebGPU)',
    },
    precision: {
      type: 'choice',
      label: 'Precision',
      choices: PRECISIONS,
      default: 'f64',
      help: 'f64 is exact on every backend; f32 rounds the data to f32 and computes in f32, its deviation from f64 reported',
    },
    repeat: { type: 'int', label: 'Repeat', min: 1, max: 1000, default: 10, help: 'runs per backend; the median computation time is reported' },
    batches: {
      type: 'int',
      label: 'Batches',
      min: 1,
      max: 10_000,
      default: 1,
      help: 'also compute on the prefixes n/K, 2n/K, …, n of each column, for the convergence charts',
    },
    failFast: {
      type: 'boolean',
      label: 'Stop at the first bad file',
      default: false,
      help: 'stop at the first file that cannot be analysed, instead of reporting it and going on',
    },
  },
  phases: [
    { id: 'loading', summary: 'parsing the CSV columns on worker threads' },
    { id: 'computing', summary: 'each backend, repeated, on each prefix of each column' },
    GPU_COMPILE_PHASE,
  ],
  backends: [
    { id: 'serial', summary: 'one thread, TypeScript' },
    { id: 'simd', summary: 'one thread, WebAssembly SIMD' },
    { id: 'workers', summary: 'all cores, TypeScript' },
    { id: 'workers-simd', summary: 'all cores, WebAssembly SIMD' },
    { id: 'gpu', summary: 'WebGPU compute shaders: exact integer sums and radix selection' },
  ],
  example: {
    summary: 'A seeded 20 000-row accelerometer recording (10 minutes at 32 Hz), on every CPU backend, in 10 prefixes.',
    files: ['acc-example.csv'],
    params: { backends: ['serial', 'simd', 'workers', 'workers-simd'], repeat: 3, batches: 10 },
  },
  tables: statsTables,
  charts: statsCharts,
  compared: statsCompared,
})

export type StatsParams = ParamValues<typeof statsWorkload.params>
