// A single-band GeoTIFF raster as float64 cells, north row first: the DEMs and grids that QGIS,
// GDAL and national surveys write. The `geotiff` package parses the IFD and its GeoKeys once the
// file's skeleton has been checked (tiff-structure.ts); the strips or tiles are read here, one at a
// time, each decompressed into no more than the bytes the IFD announces for it (decode-block.ts),
// so a hostile file is refused — naming the file and the IFD, tag or strip — before memory beyond
// the raster's own is taken. Between blocks the event loop gets its turns (a server keeps answering)
// and a cancel is seen. One file: the layout's checks and the reading of blocks share the Layout
// and one bound, what the IFD announces.
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { GeoTIFF } from 'geotiff'
import { ApiError } from '../../../shared/errors'
import { Turns } from '../../workers/in-turns'
import { notAFile } from '../file-kind'
import { BlockError, COMPRESSIONS, decompress, EXPANSION, unpredict } from './decode-block'
import { type Directory, loadTag, numbers } from './directory'
import { entryIntegers, entryText, laterIfds, TAG_NAMES, tagName, tiffError, tiffStructure, type TiffStructure } from './tiff-structure'
import { type GeoTags, type Placement, placementOf } from './placement'
import { hashAlongside } from '../input-digest'
import { maskIfdRefusal, scaleOffsetRefusal, sideFileRefusal } from './gdal-extras'
import { nodataOf } from './nodata'
import { EXACT_LIMIT, rowBytes, type Sample, sampleOf, sampleReader, type SampleType } from './samples'

/** At most this many cells a raster (2 GiB as float64). */
export const MAX_RASTER_CELLS = 2 ** 28

export type { SampleType }

export type { GeoTags, Placement } from './placement'

export interface Raster {
  width: number
  height: number
  sampleType: SampleType
  compression: string
  tiled: boolean
  /** Row-major, north row first. */
  values: Float64Array
  /** The GDAL_NODATA value as GDAL's mask compares cells with it (NaN possible), or null when no cell is NODATA. */
  nodata: number | null
  placement: Placement | null
  geo: GeoTags
}

const SAMPLE_FORMATS: Record<number, string> = { 1: 'unsigned integer', 2: 'signed integer', 3: 'floating point', 4: 'undefined', 5: 'complex integer', 6: 'complex floating point' }

/** Opens `path` for reading if it is a regular file (a FIFO would hold the open forever). */
async function openRegular(shown: string, path: string): Promise<{ file: FileHandle; size: number }> {
  let file: FileHandle
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    throw new ApiError('io', `cannot read ${shown}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)
  }
  const s = await file.stat()
  if (!s.isFile()) {
    await file.close()
    throw new ApiError('io', `cannot read ${shown}: it is ${notAFile(s)}`)
  }
  return { file, size: s.size }
}

/** The file as the `geotiff` package reads it: ranges of bytes, zero past the end (as its own file source gives). */
function fileSource(file: FileHandle, size: number) {
  return {
    async fetch(slices: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
      return Promise.all(
        slices.map(async ({ offset, length }) => {
          // Every range it asks for was checked to lie in the file; its look-ahead reads may pass the end a little.
          const buf = new Uint8Array(Math.min(length, Math.max(0, size - offset) + 8192))
          let got = 0
          while (got < buf.length && offset + got < size) {
            const { bytesRead } = await file.read(buf, got, buf.length - got, offset + got)
            if (bytesRead === 0) break
            got += bytesRead
          }
          return buf.buffer
        }),
      )
    },
    get fileSize() {
      return size
    },
    async close() {},
  }
}

/** Field types a count or size may have: SHORT, LONG, LONG8. */
const INTEGER_TYPES = new Set([3, 4, 16])
const TYPE_NAMES: Record<number, string> = { 1: 'BYTE', 2: 'ASCII', 3: 'SHORT', 4: 'LONG', 5: 'RATIONAL', 6: 'SBYTE', 7: 'UNDEFINED', 8: 'SSHORT', 9: 'SLONG', 10: 'SRATIONAL', 11: 'FLOAT', 12: 'DOUBLE', 13: 'IFD', 16: 'LONG8', 17: 'SLONG8', 18: 'IFD8' }

/** Everything known of a raster before its blocks are read: what the listing's check and the reader share. */
interface Layout {
  ifd: string
  width: number
  height: number
  sample: Sample
  compression: number
  predictor: number
  tiled: boolean
  blockWidth: number
  blockHeight: number
  across: number
  offsets: Float64Array
  counts: Float64Array
  placement: Placement | null
  /** Rows stored south first (a positive y cell size): read flipped. */
  southUp: boolean
  littleEndian: boolean
  nodata: number | null
  /** A 64-bit integer NODATA, exactly. */
  exactNodata?: bigint
  /** What a sparse block's cells hold: NODATA as GDAL converts it to the band's type, or 0. */
  sparseFill: number
  geo: GeoTags
}

/** Reads the first image of the TIFF at `path` (named `shown` in messages) as one band of cells. */
export async function readRaster(shown: string, path: string, opts: { signal?: AbortSignal; maxCells?: number; memory?: number } = {}): Promise<Raster> {
  const { file, size } = await openRegular(shown, path)
  // Read by its strips or tiles: a job's sha256 of it is taken meanwhile (input-digest.ts).
  hashAlongside(path, opts.signal)
  try {
    const structure = await tiffStructure(shown, file, size)
    const layout = await rasterLayout(shown, path, file, structure, opts)
    return await readBlocks(shown, file, layout, opts.signal)
  } finally {
    await file.close()
  }
}

/**
 * Why the reader refuses the TIFF at `path`, from its header and IFD alone (no block is read), or
 * undefined if it would read it; for the dashboard's chooser. The reason leaves out the file's name.
 */
export async function tiffRefusal(path: string): Promise<string | undefined> {
  try {
    const { file, size } = await openRegular(path, path)
    try {
      await rasterLayout(path, path, file, await tiffStructure(path, file, size), {})
    } finally {
      await file.close()
    }
    return undefined
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 'invalid-input') return undefined
    return e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message
  }
}

/** A raster's bytes per block row, and the rows of block `b` that hold the raster's cells. */
function rowsIn(l: Pick<Layout, 'tiled' | 'blockHeight' | 'height' | 'across'>, b: number): { rows: number; inRows: number } {
  const row0 = Math.floor(b / l.across) * l.blockHeight
  const rows = l.tiled ? l.blockHeight : Math.min(l.blockHeight, l.height - row0)
  return { rows, inRows: Math.min(rows, l.height - row0) }
}

/**
 * The most a block's decoded rows may take beyond the raster's cells they hold: a tile far larger
 * than its raster (GDAL writes 256² or 512² tiles for rasters of a few cells) is read up to this.
 */
export const BLOCK_SLACK_BYTES = 16 * 2 ** 20

async function rasterLayout(shown: string, path: string, file: FileHandle, s: TiffStructure, opts: { signal?: AbortSignal; maxCells?: number; memory?: number }): Promise<Layout> {
  const ifd = `IFD at byte ${s.ifdOffset}`
  const at = (tag: number) => `${ifd}, ${tagName(tag)}`
  const entry = (tag: number) => s.entries.find((e) => e.tag === tag)
  let fd: Directory
  try {
    const tiff = await GeoTIFF.fromSource(fileSource(file, s.size) as unknown as Parameters<typeof GeoTIFF.fromSource>[0])
    fd = (await tiff.getImage(0)).fileDirectory
  } catch (e) {
    throw tiffError(shown, ifd, `cannot be parsed (${(e as Error).message})`)
  }
  /** A whole number of a count or size tag, checked for its field type and value. */
  const one = async (tag: number, fallback?: number): Promise<number> => {
    const e = entry(tag)
    const v = await numbers(shown, ifd, fd, TAG_NAMES[tag])
    if (e && (!INTEGER_TYPES.has(e.type) || !v || v.length < 1 || !Number.isSafeInteger(v[0]) || v[0] < 0))
      throw tiffError(shown, at(tag), `${v && v.length ? v[0] : 'no value'} (field type ${TYPE_NAMES[e.type] ?? e.type}) is not a count: a whole SHORT or LONG is`)
    if (v === undefined) {
      if (fallback !== undefined) return fallback
      throw tiffError(shown, ifd, `has no ${tagName(tag)}`)
    }
    return v[0]
  }

  const width = await one(256)
  const height = await one(257)
  if (!(width > 0 && height > 0)) throw tiffError(shown, ifd, `announces ${width} × ${height} cells`)
  const bands = await one(277, 1)
  if (bands !== 1) throw tiffError(shown, at(277), `the raster has ${bands} bands; a grid is read from a single-band raster (gdal_translate -b 1 makes one)`)
  const bitsEntry = entry(258)
  if (bitsEntry && !INTEGER_TYPES.has(bitsEntry.type)) throw tiffError(shown, at(258), `has field type ${TYPE_NAMES[bitsEntry.type] ?? bitsEntry.type}; a size is a SHORT or LONG`)
  const bits = (await numbers(shown, ifd, fd, 'BitsPerSample')) ?? [1]
  const format = ((await numbers(shown, ifd, fd, 'SampleFormat')) ?? [1])[0]
  const sample = sampleOf(format, bits[0])
  if (!sample)
    throw tiffError(shown, at(format === 1 ? 258 : 339), `${bits[0]}-bit ${SAMPLE_FORMATS[format] ?? `format ${format}`} samples are not read (8, 16, 32 or 64-bit integers, unsigned ones of 1 to 32 bits, 16, 32 or 64-bit floats are)`)
  if ((await one(266, 1)) === 2) throw tiffError(shown, at(266), 'FillOrder 2 (bits stored least significant first) is not read')
  const compression = await one(259, 1)
  if (EXPANSION[compression] === undefined)
    throw tiffError(shown, at(259), `compression ${COMPRESSIONS[compression] ?? 'unknown'} (${compression}) is not supported: uncompressed, deflate, LZW, ZSTD or PackBits are`)
  const predictor = await one(317, 1)
  if (predictor !== 1 && predictor !== 2 && predictor !== 3) throw tiffError(shown, at(317), `predictor ${predictor} is not supported (1, 2 or 3 are)`)
  if (predictor === 3 && !sample.type.startsWith('float')) throw tiffError(shown, at(317), `the floating-point predictor on ${sample.type} samples`)
  if (predictor === 3 && !s.littleEndian)
    throw tiffError(shown, at(317), 'the floating-point predictor in a big-endian file is not read: writers disagree on its byte order (GDAL 3.6 with libtiff 4.5 does not read back the files it writes so)')
  // Horizontal differencing (2) works on any whole-byte sample, floats' bit patterns included, as libtiff's does.
  if (predictor !== 1 && !sample.bytes) throw tiffError(shown, at(317), `predictor ${predictor} on ${sample.bits}-bit samples (libtiff applies predictors to 8 to 64-bit samples only)`)
  const maxCells = opts.maxCells ?? MAX_RASTER_CELLS
  checkCells(shown, ifd, width, height, maxCells, opts.memory)

  // The blocks: strips of rows, or tiles.
  const tiled = entry(324) !== undefined
  const [offsetsTag, countsTag] = tiled ? [324, 325] : [273, 279]
  const blockWidth = tiled ? await one(322) : width
  const blockHeight = tiled ? await one(323) : Math.min(height, await one(278, height) || height)
  if (!(blockWidth > 0 && blockHeight > 0)) throw tiffError(shown, at(tiled ? 322 : 278), `blocks of ${blockWidth} × ${blockHeight} cells`)
  const across = Math.ceil(width / blockWidth)
  const down = Math.ceil(height / blockHeight)
  const blocks = across * down
  const unit = tiled ? 'tile' : 'strip'
  for (const tag of [offsetsTag, countsTag]) {
    const n = entry(tag)?.count
    if (n === undefined) throw tiffError(shown, ifd, `has no ${tagName(tag)}`)
    if (n !== blocks) throw tiffError(shown, at(tag), `${n} values for the ${blocks} ${unit}s of ${width} × ${height} cells in ${blockWidth} × ${blockHeight} ${unit}s`)
  }
  let offsets: Float64Array
  let counts: Float64Array
  try {
    offsets = (await entryIntegers(file, s, offsetsTag))!
    counts = (await entryIntegers(file, s, countsTag))!
  } catch (e) {
    throw tiffError(shown, ifd, (e as Error).message)
  }
  const name = COMPRESSIONS[compression]
  const layout = { tiled, blockHeight, height, across }
  const blockRow = rowBytes(sample, blockWidth)
  // Before anything is allocated: every block lies in the file, can expand to what is read of it,
  // and what is read of it is bounded by the raster cells it holds.
  const turns = new Turns(opts.signal)
  for (let b = 0; b < blocks; b++) {
    if (b % 4096 === 4095) await turns.maybe()
    const place = `${ifd}, ${unit} ${b}`
    if (counts[b] === 0) continue // sparse: never written, read as NODATA (or 0), as GDAL does
    if (offsets[b] < 8) throw tiffError(shown, place, `its ${counts[b]} bytes at byte ${offsets[b]} lie in the file's header`)
    if (offsets[b] + counts[b] > s.size) throw tiffError(shown, place, `its ${counts[b]} bytes at byte ${offsets[b]} run past the end of the file (${s.size} bytes)`)
    const { rows, inRows } = rowsIn(layout, b)
    const want = blockRow * inRows
    const cols = Math.min(blockWidth, width - (b % across) * blockWidth)
    if (want > BLOCK_SLACK_BYTES + rowBytes(sample, cols) * inRows)
      throw tiffError(shown, place, `${blockWidth} × ${rows} cells of which ${cols} × ${inRows} lie in the raster: its rows there take ${want} bytes, more than ${BLOCK_SLACK_BYTES} beyond the raster's cells (gdal_translate -co TILED=YES rewrites it in 256 × 256 tiles)`)
    if (counts[b] * EXPANSION[compression] < want)
      throw tiffError(shown, place, compression === 1 ? `holds ${counts[b]} bytes, ${want} expected` : `holds ${counts[b]} bytes, which ${name} cannot expand to the ${want} its IFD announces`)
  }

  const { placement, southUp, geo } = await placementOf(shown, ifd, fd, width, height)
  const nodataText = (await loadTag(shown, ifd, fd, 'GDAL_NODATA')) as string | undefined
  let nodata: number | null = null
  let exactNodata: bigint | undefined
  let sparseFill = 0
  if (nodataText !== undefined) {
    const read = nodataOf(String(nodataText), sample)
    if (!read) throw tiffError(shown, at(42113), `${JSON.stringify(String(nodataText).replace(/\0+$/, '').trim())} is not a number`)
    ;({ value: nodata, exact: exactNodata, fill: sparseFill } = read)
  }
  // What GDAL would read beside the cells and NODATA, refused rather than left out.
  const extra = scaleOffsetRefusal(await entryText(file, s, 42112)) ?? maskIfdRefusal(await laterIfds(file, s), width, height)
  if (extra) throw tiffError(shown, ifd, extra)
  const side = await sideFileRefusal(path)
  if (side) throw tiffError(shown, undefined, side)
  return { ifd, width, height, sample, compression, predictor, tiled, blockWidth, blockHeight, across, offsets, counts, placement, southUp, littleEndian: s.littleEndian, nodata, exactNodata, sparseFill, geo }
}

/**
 * Refuses, from the announced size alone, a raster whose cells as float64 would pass the cell
 * limit, one array's length, or the memory available now; the size named.
 */
export function checkCells(shown: string, ifd: string, width: number, height: number, maxCells = MAX_RASTER_CELLS, memory = process.availableMemory()): void {
  const cells = width * height
  if (cells > maxCells) throw tiffError(shown, ifd, `announces ${width} × ${height} cells, more than the ${maxCells} a raster may have here`)
  if (cells * 8 > memory) throw tiffError(shown, ifd, `announces ${width} × ${height} cells, ${(cells * 8 / 1e9).toFixed(1)} GB as float64; ${(memory / 1e9).toFixed(1)} GB are available`)
}

/** The blocks of a raster laid out by `rasterLayout`, one at a time, north row first. */
async function readBlocks(shown: string, file: FileHandle, l: Layout, signal?: AbortSignal): Promise<Raster> {
  const { ifd, width, height, sample, blockWidth, across, offsets, counts, compression, predictor } = l
  const blockRow = rowBytes(sample, blockWidth)
  const unit = l.tiled ? 'tile' : 'strip'
  const values = new Float64Array(width * height)
  const turns = new Turns(signal)
  const littleEndian = l.littleEndian
  const fill = l.sparseFill
  for (let b = 0; b < offsets.length; b++) {
    const { rows, inRows } = rowsIn(l, b)
    const row0 = Math.floor(b / across) * l.blockHeight
    const col0 = (b % across) * blockWidth
    const cols = Math.min(blockWidth, width - col0)
    const target = (r: number) => (l.southUp ? height - 1 - (row0 + r) : row0 + r) * width + col0
    if (counts[b] === 0) {
      for (let r = 0; r < inRows; r++) values.fill(fill, target(r), target(r) + cols)
      await turns.maybe()
      continue
    }
    const raw = Buffer.alloc(counts[b])
    let got = 0
    while (got < raw.length) {
      const { bytesRead } = await file.read(raw, got, raw.length - got, offsets[b] + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    const want = blockRow * inRows
    let block: Uint8Array
    try {
      if (got < raw.length) throw new BlockError(`the file ended after ${got} of its ${raw.length} bytes`)
      block = await decompress(compression, raw, want, blockRow * rows, signal)
      if (predictor !== 1 && compression === 1) block = block.slice()
    } catch (e) {
      if (e instanceof BlockError) throw tiffError(shown, `${ifd}, ${unit} ${b} (${counts[b]} bytes at byte ${offsets[b]})`, e.message)
      throw e
    }
    const view = new DataView(block.buffer, block.byteOffset, block.byteLength)
    const { read, big } = sampleReader(view, sample, littleEndian)
    for (let r = 0; r < inRows; r++) {
      if (predictor !== 1) unpredict(block.subarray(r * blockRow, (r + 1) * blockRow), predictor, blockWidth, 1, sample.bytes, littleEndian)
      const to = target(r)
      const from = r * blockRow
      for (let c = 0; c < cols; c++) {
        values[to + c] = read(from, c)
        // A 64-bit integer beyond ±2^53 is no double exactly: read only where it is NODATA (which it then equals).
        if (big.value !== null && big.value !== l.exactNodata) {
          const row = l.southUp ? height - 1 - (row0 + r) : row0 + r
          throw tiffError(shown, `${ifd}, ${unit} ${b}`, `the cell at row ${row + 1}, column ${col0 + c + 1} holds ${big.value}, beyond ±${EXACT_LIMIT}: a 64-bit integer is read only where a double holds it exactly`)
        }
      }
      if (r % 64 === 63) await turns.maybe()
    }
    await turns.maybe()
  }
  return { width, height, sampleType: sample.type, compression: COMPRESSIONS[compression], tiled: l.tiled, values, nodata: l.nodata, placement: l.placement, geo: l.geo }
}
