// All-pairs shortest paths: blocked Floyd–Warshall of a weighted directed graph on every backend,
// the GPU through the study's seven optimization steps, byte for byte the course's expected outputs.
import { defineWorkload, GPU_COMPILE_PHASE } from '../definition'
import { FORCE_PARAM, type ParamValues } from '../schema'
import { pathsCharts } from './charts'
import { pathsCompared } from './compare'
import { pathsTables } from './tables'
import { BLOCK_SIZES, GPU_VARIANTS, OUTPUT_FORMATS, PATHS_BACKENDS, type PathsResult } from './types'

export const pathsWorkload = defineWorkload<PathsResult>()({
  id: 'paths',
  title: 'Shortest paths',
  summary: 'All-pairs shortest paths by blocked Floyd–Warshall, on CPU and GPU backends, with the study\'s GPU optimization steps.',
  params: {
    files: {
      type: 'files',
      label: 'Graphs',
      extensions: ['1', 'bin', 'gr', 'csv', 'mtx'],
      help: 'weighted directed graphs: the course binary format (int32 V, E, then E × src, dst, w), DIMACS .gr, a .csv edge list source,target,weight, or a Matrix Market .mtx matrix (coordinate or array; real, integer or pattern; general, symmetric, skew-symmetric or hermitian; duplicate entries summed, as SciPy reads the matrix); a Matrix Market file is known by its content, whatever its name. Weights that are all integers in ±(2^30 − 1) are computed exactly in int32; any other weight (0.37, 3e9) makes the graph real: serial computes it in f64 (SciPy\'s floyd_warshall bit for bit), the GPU in f32 within the bound each run reports (relative_error_bound); the other CPU backends are int32 only and are skipped',
    },
    backends: {
      type: 'choices',
      label: 'Backends',
      flag: 'backend',
      choices: PATHS_BACKENDS,
      default: ['workers-simd'],
      help: 'serial (the plain triple loop), blocked (one thread, cache-blocked), simd (WebAssembly SIMD), workers and workers-simd (all cores), gpu (WebGPU)',
    },
    variants: {
      type: 'choices',
      usedBy: ['gpu'],
      label: 'GPU variants',
      flag: 'variant',
      choices: GPU_VARIANTS,
      default: ['tuned'],
      help: 'the study\'s steps: baseline, coalesced, unrolled (one dispatch per k), shared (three phases in workgroup memory), min (branch-free), b64 (B = 64), tuned',
    },
    blocks: {
      type: 'choices',
      usedBy: ['blocked', 'simd', 'workers', 'workers-simd', 'gpu'],
      label: 'Block',
      flag: 'block',
      choices: BLOCK_SIZES,
      default: ['64'],
      help: 'blocking factor B of blocked, simd, workers* and the shared and min GPU variants (at most 64 there); several make a sweep',
    },
    gpus: {
      type: 'int',
      usedBy: ['gpu'],
      label: 'GPUs',
      min: 1,
      max: 16,
      optional: true,
      help: 'GPUs of the tuned variant (default 1): each holds a band of block rows in a process of its own, on a GPU of its own where the machine lets a process see one GPU alone (else the parts share the GPUs they are given, and the run says so), and each round\'s pivot block row goes from its owner to the others through shared memory; the run reports where the parts were seen computing (gpus_observed); the same distances and successors as one GPU',
    },
    paths: {
      type: 'boolean',
      label: 'Successors',
      default: false,
      help: 'also compute the successor (next-hop) matrix, so that paths can be followed; written beside --output as <name>.next.<ext>',
    },
    from: { type: 'text', label: 'From', optional: true, arg: 'VERTEX', help: 'a vertex (its name, or its number as the file numbers them): report the shortest path from it to --to' },
    to: { type: 'text', label: 'To', optional: true, arg: 'VERTEX', help: 'the vertex the queried path ends at' },
    zoom: {
      type: 'text',
      label: 'Zoom',
      optional: true,
      arg: 'FIRST:LAST[,FIRST:LAST]',
      help: 'vertex positions (from 0) of the rows and of the columns (as many; default the rows): the distance heatmap of that block range at full resolution, at most 1024 a side (the dashboard reads it from the matrix its run kept)',
    },
    format: {
      type: 'choice',
      label: 'Output format',
      choices: OUTPUT_FORMATS,
      default: 'bin',
      help: `of --output (default: its extension's, .csv, .npy or .mtx, else bin): bin (V × V int32, row-major, unreachable = 1073741823, as the course; integer weights only), npy (<f8, unreachable = inf, so numpy's mean and max see no sentinel; successors <i4, none = -1), csv (names, unreachable empty; written a piece at a time, about 7 bytes a pair: 11 GB at V = 40 000) or mtx (Matrix Market coordinate integer general, real for real weights, rows and columns from 1, unreachable pairs left out; streamed)`,
    },
    output: {
      type: 'text',
      label: 'Output file',
      optional: true,
      cliOnly: true,
      arg: 'FILE',
      help: 'write the distance matrix to this file, atomically; not over an existing file unless --force',
    },
    force: FORCE_PARAM,
    checkpointEvery: {
      type: 'int',
      usedBy: ['blocked', 'simd', 'workers', 'workers-simd', 'gpu'],
      label: 'Checkpoint every',
      unit: 'rounds',
      min: 1,
      max: 1_000_000,
      optional: true,
      cliOnly: true,
      arg: 'ROUNDS',
      help: 'write the matrix every N rounds into the checkpoint folder, and resume from the newest checkpoint there when the run starts again; a round is one pivot block of B vertices (V/B rounds in all); one run of blocked, simd, workers, workers-simd or gpu (tuned, one GPU), computed once',
    },
    checkpointDir: {
      type: 'text',
      usedBy: ['blocked', 'simd', 'workers', 'workers-simd', 'gpu'],
      label: 'Checkpoint folder',
      arg: 'DIR',
      optional: true,
      cliOnly: true,
      help: 'where --checkpoint-every writes (default: checkpoints/ in the task folder of a cluster task)',
    },
    repeat: { type: 'int', label: 'Repeat', min: 1, max: 1000, default: 3, help: 'runs per backend and variant; the median computation time is reported' },
  },
  phases: [
    { id: 'reading', summary: 'reading the graph, checking it (and, with negative weights, looking for a negative cycle)' },
    GPU_COMPILE_PHASE,
    { id: 'computing', summary: 'each backend, variant and blocking factor, repeated, checked against the first' },
    { id: 'writing', summary: 'the distance (and successor) matrix to --output' },
    { id: 'zoom', summary: 'a block range of the distances at full resolution, read from the matrix the run kept (or computed again)' },
    { id: 'keeping', summary: 'the dashboard keeps the distance matrix on disk, for zooms' },
  ],
  backends: [
    { id: 'serial', summary: 'one thread, TypeScript, the plain triple loop: the reference' },
    { id: 'blocked', summary: 'one thread, TypeScript, three-phase blocked' },
    { id: 'simd', summary: 'one thread, WebAssembly SIMD (i32x4 min/add) inside blocks' },
    { id: 'workers', summary: 'all cores: phase 2 and 3 blocks spread over worker threads' },
    { id: 'workers-simd', summary: 'all cores, WebAssembly SIMD' },
    { id: 'gpu', summary: 'WebGPU compute shaders, one variant per optimization step', variants: GPU_VARIANTS },
  ],
  example: {
    summary: 'A seeded graph of 300 vertices and 6000 edges on every CPU backend, with successors and the path from 0 to 299.',
    files: ['graph-example.bin'],
    params: { backends: ['serial', 'blocked', 'simd', 'workers', 'workers-simd'], paths: true, from: '0', to: '299', repeat: 3 },
  },
  tables: pathsTables,
  charts: pathsCharts,
  compared: pathsCompared,
})

export type PathsParams = ParamValues<typeof pathsWorkload.params>
