// Every file format Paralab reads or writes, in one table: `paralab workloads`, each workload's
// help, the dashboard's chooser and docs/formats.md all speak from it. A file's format is decided
// by its content (src/main/io/sniff.ts), its extension only where the content cannot tell
// (text formats).
import type { WorkloadId } from './workloads'

/** What the first bytes of a file say it is. `text` and `binary` are what no magic matched. */
export const CONTENT_KINDS = ['tiff', 'parquet', 'arrow', 'hdf5', 'netcdf', 'npy', 'mtx', 'text', 'binary', 'empty'] as const
export type ContentKind = (typeof CONTENT_KINDS)[number]

export interface FileFormat {
  id: string
  /** As people name it. */
  name: string
  /** Extensions without dots, lowercase: how the chooser lists files before their content is read. */
  extensions: readonly string[]
  /** The content this format's files have: a file whose content says otherwise is not this format. */
  content: ContentKind
  /** The workloads that read it, and the roles it can play (input, or output by a flag). */
  workloads: Partial<Record<WorkloadId, { reads?: string; writes?: string }>>
  /** The library or module that reads it. */
  reader: string
  /** Columns a text file's header must name (any case) to be this format: a CSV without them is another table. */
  header?: readonly string[]
}

// Rows are added as formats are supported; docs/formats.md tells what each refuses.
export const FILE_FORMATS: readonly FileFormat[] = [
  {
    id: 'csv',
    name: 'CSV',
    extensions: ['csv'],
    content: 'text',
    workloads: { stats: { reads: 'numeric columns under a header' }, correlation: { reads: 'a series per column (or per row)' } },
    reader: 'src/main/io/csv (streaming, on the loader threads)',
  },
  {
    id: 'parquet',
    name: 'Apache Parquet',
    extensions: ['parquet'],
    content: 'parquet',
    workloads: {
      stats: { reads: 'numeric columns by name (int, float, double, decimal), row group by row group', writes: 'paralab generate acc out.parquet' },
      correlation: { reads: 'a series per numeric column', writes: 'paralab generate walks out.parquet' },
    },
    reader: 'src/main/io/parquet (hyparquet for the footer and page headers; pages decoded on the loader threads)',
  },
  {
    id: 'arrow',
    name: 'Apache Arrow IPC (Feather v2)',
    extensions: ['arrow', 'feather'],
    content: 'arrow',
    workloads: {
      stats: { reads: 'numeric columns by name (int, float, decimal), record batch by record batch', writes: 'paralab generate acc out.arrow' },
      correlation: { reads: 'a series per numeric column', writes: 'paralab generate walks out.arrow' },
    },
    reader: 'src/main/io/arrow (apache-arrow, a record batch at a time on the loader threads)',
  },
  {
    id: 'npy',
    name: 'NumPy .npy',
    extensions: ['npy'],
    content: 'npy',
    workloads: { correlation: { reads: '2-D <f4 or <f8 array' }, landslide: { writes: '--npy' } },
    reader: 'src/main/workloads/correlation/read-npy.ts',
  },
  {
    id: 'hdf5',
    name: 'HDF5 (NetCDF-4 included)',
    extensions: ['h5', 'hdf5', 'he5', 'nc', 'nc4'],
    content: 'hdf5',
    workloads: {
      correlation: { reads: 'a 2-D numeric dataset named with --dataset', writes: 'paralab generate walks x.h5' },
      stats: { reads: '1-D numeric datasets named with --columns' },
    },
    reader: 'src/main/io/hdf5 (h5wasm, on a worker thread)',
  },
  {
    id: 'netcdf',
    name: 'classic NetCDF (CDF-1, CDF-2, CDF-5)',
    extensions: ['nc', 'cdf'],
    content: 'netcdf',
    workloads: { correlation: { reads: 'a 2-D numeric variable named with --dataset' }, stats: { reads: '1-D numeric variables named with --columns' } },
    reader: 'src/main/io/hdf5/netcdf-classic.ts',
  },
  {
    id: 'course',
    name: "the course's binary graph",
    extensions: ['1', 'bin'],
    content: 'binary',
    workloads: { paths: { reads: 'int32 V, int32 E, then E × (source, target, weight)', writes: '--output' } },
    reader: 'src/main/workloads/paths/read-course.ts',
  },
  {
    id: 'dimacs',
    name: 'DIMACS shortest-path graph',
    extensions: ['gr'],
    content: 'text',
    workloads: { paths: { reads: 'p sp V E, then a lines', writes: 'generate graph X.gr' } },
    reader: 'src/main/workloads/paths/read-dimacs.ts',
  },
  {
    id: 'csv-edges',
    name: 'CSV edge list',
    extensions: ['csv'],
    content: 'text',
    workloads: { paths: { reads: 'source,target,weight rows', writes: '--format csv' } },
    reader: 'src/main/workloads/paths/read-csv-edges.ts',
    header: ['source', 'target', 'weight'],
  },
  {
    id: 'asc',
    name: 'ESRI ASCII grid',
    extensions: ['asc', 'txt'],
    content: 'text',
    workloads: { landslide: { reads: 'DEM and source with headers, or the study’s header + two grids', writes: '--asc' } },
    reader: 'src/main/workloads/landslide/esri-grid.ts',
  },
  {
    id: 'geotiff',
    name: 'GeoTIFF',
    extensions: ['tif', 'tiff'],
    content: 'tiff',
    workloads: { landslide: { reads: 'single-band DEM and source on one grid (int8–64, uint8–64, NBITS, float16/32/64; none, deflate, LZW, ZSTD, PackBits; strips, tiles, COG)', writes: '--tif' } },
    reader: 'src/main/io/geotiff (the geotiff package for the IFD and GeoKeys, bounded block decoding)',
  },
  {
    id: 'mtx',
    name: 'Matrix Market',
    extensions: ['mtx'],
    content: 'mtx',
    workloads: { paths: { reads: 'coordinate or array; real, integer or pattern; general, symmetric, skew-symmetric or hermitian: entry (i, j) is the arc i → j, duplicates summed (as SciPy)', writes: '--format mtx' } },
    reader: 'src/main/workloads/paths/read-mtx.ts',
  },
]

/** The formats a workload reads, in table order. */
export function formatsRead(workload: WorkloadId): FileFormat[] {
  return FILE_FORMATS.filter((f) => f.workloads[workload]?.reads)
}

/** The extensions a workload's chooser lists (its formats' extensions, without repeats). */
export function extensionsRead(workload: WorkloadId): string[] {
  return [...new Set(formatsRead(workload).flatMap((f) => f.extensions))]
}

/** The formats a workload reads or writes, in table order. */
export function formatsOf(workload: WorkloadId): FileFormat[] {
  return FILE_FORMATS.filter((f) => f.workloads[workload])
}

/** One line a format is named by in lists: "Matrix Market (.mtx): reads …; writes --format mtx". */
export function formatLine(f: FileFormat, workload: WorkloadId): string {
  const role = f.workloads[workload] ?? {}
  const what = [role.reads && `reads ${role.reads}`, role.writes && `writes ${role.writes}`].filter(Boolean).join('; ')
  return `${f.name} (${f.extensions.map((e) => `.${e}`).join(', ')})${what ? `: ${what}` : ''}`
}

/** Content no magic bytes name: its format is told by the file's extension. */
const UNMARKED: readonly ContentKind[] = ['text', 'binary']

function hasExtensionOf(name: string, f: FileFormat): boolean {
  const lower = name.toLowerCase()
  return f.extensions.some((e) => lower.endsWith(`.${e}`))
}

/** The columns of `f.header` a file's first line (`header`, as CSV fields) does not name; none where either is unknown. */
export function headerMisses(f: FileFormat, header?: readonly string[]): string[] {
  if (!f.header || !header) return []
  const named = new Set(header.map((h) => h.trim().toLowerCase()))
  return f.header.filter((c) => !named.has(c))
}

/**
 * Whether `f` takes a file named `name` whose content is `content`: content with magic bytes by
 * the content alone, text and binary files by their extension too (and by the columns their first
 * line names, where `f` needs some and the line is known); an unknown content (a file not sniffed)
 * by the extension alone.
 */
export function formatTakes(f: FileFormat, name: string, content?: ContentKind, header?: readonly string[]): boolean {
  if (content === undefined) return hasExtensionOf(name, f)
  if (content !== f.content) return false
  return UNMARKED.includes(content) ? hasExtensionOf(name, f) && !headerMisses(f, header).length : true
}

/** The format `workload` reads a file as (the first in table order that takes it), or undefined. */
export function formatReadBy(workload: WorkloadId, name: string, content?: ContentKind): FileFormat | undefined {
  return formatsRead(workload).find((f) => formatTakes(f, name, content))
}

const CONTENT_NAMES: Record<ContentKind, string> = {
  tiff: 'TIFF',
  parquet: 'Parquet',
  arrow: 'Arrow',
  hdf5: 'HDF5',
  netcdf: 'NetCDF',
  npy: 'NumPy',
  mtx: 'Matrix Market',
  text: 'text',
  binary: 'binary',
  empty: 'empty',
}

/** What a content kind is, as people say it: "Parquet content", "binary content", "empty". */
export function contentText(content: ContentKind): string {
  return content === 'empty' ? 'empty' : `${CONTENT_NAMES[content]} content`
}
