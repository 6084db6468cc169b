// A single-band GeoTIFF raster as float64 cells, north row first: the DEMs and grids that QGIS,
// GDAL and national surveys write. The `geotiff` package parses the IFD and its GeoKeys once the
// file's skeleton has been checked (tiff-structure.ts); the strips or tiles are read here, one at a
// time, each decompressed into no more than the bytes the IFD announces for it (decode-block.ts),
// so a hostile file is refused — naming the file and the IFD, tag or strip — before memory beyond
// the raster's own is taken. Between blocks the event loop gets its turns (a server keeps answering)
// and a cancel is seen.
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { GeoTIFF } from 'geotiff'
import { ApiError } from '../../../shared/errors'
import { Turns } from '../../workers/in-turns'
import { notAFile } from '../file-kind'
import { BlockError, COMPRESSIONS, decompress, EXPANSION, unpredict } from './decode-block'
import { entryIntegers, tagName, tiffError, tiffStructure, type TiffStructure } from './tiff-structure'

/** At most this many cells a raster (2 GiB as float64). */
export const MAX_RASTER_CELLS = 2 ** 28

export type SampleType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64'

/** The georeferencing tags as the file holds them, to be written unchanged beside derived grids. */
export interface GeoTags {
  pixelScale?: number[]
  tiepoint?: number[]
  transformation?: number[]
  geoKeyDirectory?: number[]
  geoDoubleParams?: number[]
  geoAsciiParams?: string
}

/** Where the raster lies: its upper-left corner and its cells' sizes (positive), north up. */
export interface Placement {
  west: number
  north: number
  cellWidth: number
  cellHeight: number
}

export interface Raster {
  width: number
  height: number
  sampleType: SampleType
  compression: string
  tiled: boolean
  /** Row-major, north row first. */
  values: Float64Array
  /** The GDAL_NODATA value in the samples' precision (NaN possible), or null. */
  nodata: number | null
  placement: Placement | null
  geo: GeoTags
}

const SAMPLE_TYPES: Record<string, SampleType> = { '1:8': 'uint8', '2:8': 'int8', '1:16': 'uint16', '2:16': 'int16', '1:32': 'uint32', '2:32': 'int32', '3:32': 'float32', '3:64': 'float64' }
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

type Directory = Awaited<ReturnType<GeoTIFF['getImage']>>['fileDirectory']

async function numbers(fd: Directory, name: string): Promise<number[] | undefined> {
  const v = (await fd.loadValue(name as never)) as unknown
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number') return [v]
  if (typeof v === 'string') return undefined
  return Array.from(v as ArrayLike<number | bigint>, Number)
}

/** Reads the first image of the TIFF at `path` (named `shown` in messages) as one band of cells. */
export async function readRaster(shown: string, path: string, opts: { signal?: AbortSignal; maxCells?: number } = {}): Promise<Raster> {
  const { file, size } = await openRegular(shown, path)
  try {
    const structure = await tiffStructure(shown, file, size)
    return await readImage(shown, file, structure, opts)
  } finally {
    await file.close()
  }
}

async function readImage(shown: string, file: FileHandle, s: TiffStructure, opts: { signal?: AbortSignal; maxCells?: number }): Promise<Raster> {
  const ifd = `IFD at byte ${s.ifdOffset}`
  const at = (tag: number) => `${ifd}, ${tagName(tag)}`
  const countOf = (tag: number) => s.entries.find((e) => e.tag === tag)?.count
  let fd: Directory
  try {
    const tiff = await GeoTIFF.fromSource(fileSource(file, s.size) as unknown as Parameters<typeof GeoTIFF.fromSource>[0])
    fd = (await tiff.getImage(0)).fileDirectory
  } catch (e) {
    throw tiffError(shown, ifd, `cannot be parsed (${(e as Error).message})`)
  }
  const one = async (tag: number, name: string, fallback?: number): Promise<number> => {
    const v = await numbers(fd, name)
    if (v === undefined) {
      if (fallback !== undefined) return fallback
      throw tiffError(shown, ifd, `has no ${tagName(tag)}`)
    }
    return v[0]
  }

  const width = await one(256, 'ImageWidth')
  const height = await one(257, 'ImageLength')
  if (!(width > 0 && height > 0)) throw tiffError(shown, ifd, `announces ${width} × ${height} cells`)
  const bands = await one(277, 'SamplesPerPixel', 1)
  if (bands !== 1) throw tiffError(shown, at(277), `the raster has ${bands} bands; a grid is read from a single-band raster (gdal_translate -b 1 makes one)`)
  const bits = (await numbers(fd, 'BitsPerSample')) ?? [1]
  const format = ((await numbers(fd, 'SampleFormat')) ?? [1])[0]
  const sampleType = SAMPLE_TYPES[`${format}:${bits[0]}`]
  if (!sampleType) throw tiffError(shown, at(format === 1 ? 258 : 339), `${bits[0]}-bit ${SAMPLE_FORMATS[format] ?? `format ${format}`} samples are not read (8, 16 or 32-bit integers, 32 or 64-bit floats are)`)
  const bytes = bits[0] / 8
  const compression = await one(259, 'Compression', 1)
  if (EXPANSION[compression] === undefined)
    throw tiffError(shown, at(259), `compression ${COMPRESSIONS[compression] ?? 'unknown'} (${compression}) is not supported: uncompressed, deflate, LZW or PackBits are`)
  const predictor = await one(317, 'Predictor', 1)
  if (predictor !== 1 && predictor !== 2 && predictor !== 3) throw tiffError(shown, at(317), `predictor ${predictor} is not supported (1, 2 or 3 are)`)
  if (predictor === 3 && !sampleType.startsWith('float')) throw tiffError(shown, at(317), `the floating-point predictor on ${sampleType} samples`)
  if (predictor === 2 && sampleType.startsWith('float')) throw tiffError(shown, at(317), `the integer predictor on ${sampleType} samples`)
  const maxCells = opts.maxCells ?? MAX_RASTER_CELLS
  if (width * height > maxCells) throw tiffError(shown, ifd, `announces ${width} × ${height} cells, more than the ${maxCells} a raster may have here`)

  // The blocks: strips of rows, or tiles.
  const tiled = countOf(324) !== undefined
  const [offsetsTag, countsTag] = tiled ? [324, 325] : [273, 279]
  const blockWidth = tiled ? await one(322, 'TileWidth') : width
  const blockHeight = tiled ? await one(323, 'TileLength') : Math.min(height, await one(278, 'RowsPerStrip', height))
  if (!(blockWidth > 0 && blockHeight > 0)) throw tiffError(shown, at(tiled ? 322 : 278), `blocks of ${blockWidth} × ${blockHeight} cells`)
  if (blockWidth * blockHeight > maxCells) throw tiffError(shown, at(tiled ? 322 : 278), `blocks of ${blockWidth} × ${blockHeight} cells, more than the ${maxCells} a raster may have here`)
  const across = Math.ceil(width / blockWidth)
  const down = Math.ceil(height / blockHeight)
  const blocks = across * down
  const unit = tiled ? 'tile' : 'strip'
  for (const tag of [offsetsTag, countsTag]) {
    const n = countOf(tag)
    if (n === undefined) throw tiffError(shown, ifd, `has no ${tagName(tag)}`)
    if (n !== blocks) throw tiffError(shown, at(tag), `${n} values for the ${blocks} ${unit}s of ${width} × ${height} cells in ${blockWidth} × ${blockHeight} ${unit}s`)
  }
  let offsets: number[]
  let counts: number[]
  try {
    offsets = (await entryIntegers(file, s, offsetsTag))!
    counts = (await entryIntegers(file, s, countsTag))!
  } catch (e) {
    throw tiffError(shown, ifd, (e as Error).message)
  }
  const blockRows = (b: number) => (tiled ? blockHeight : Math.min(blockHeight, height - b * blockHeight))
  const name = COMPRESSIONS[compression]
  // Before anything is allocated: every block lies in the file and can expand to what it must.
  for (let b = 0; b < blocks; b++) {
    const place = `${ifd}, ${unit} ${b}`
    if (offsets[b] + counts[b] > s.size) throw tiffError(shown, place, `its ${counts[b]} bytes at byte ${offsets[b]} run past the end of the file (${s.size} bytes)`)
    const expected = blockWidth * blockRows(b) * bytes
    if (counts[b] * EXPANSION[compression] < expected)
      throw tiffError(shown, place, compression === 1 ? `holds ${counts[b]} bytes, ${expected} expected` : `holds ${counts[b]} bytes, which ${name} cannot expand to the ${expected} its IFD announces`)
  }

  const placement = await placementOf(shown, ifd, fd, width, height)
  const geo: GeoTags = {
    pixelScale: await numbers(fd, 'ModelPixelScale'),
    tiepoint: await numbers(fd, 'ModelTiepoint'),
    transformation: await numbers(fd, 'ModelTransformation'),
    geoKeyDirectory: await numbers(fd, 'GeoKeyDirectory'),
    geoDoubleParams: await numbers(fd, 'GeoDoubleParams'),
    geoAsciiParams: ((await fd.loadValue('GeoAsciiParams')) as string | undefined) ?? undefined,
  }
  const nodataText = (await fd.loadValue('GDAL_NODATA')) as string | undefined
  let nodata: number | null = null
  if (nodataText !== undefined) {
    const t = nodataText.replace(/\0+$/, '').trim()
    nodata = /^[+-]?nan$/i.test(t) ? NaN : Number(t)
    if (t === '' || Number.isNaN(nodata) && !/nan/i.test(t)) throw tiffError(shown, at(42113), `${JSON.stringify(t)} is not a number`)
    if (sampleType === 'float32') nodata = Math.fround(nodata)
  }

  const values = new Float64Array(width * height)
  const turns = new Turns(opts.signal)
  const littleEndian = s.littleEndian
  for (let b = 0; b < blocks; b++) {
    const rows = blockRows(b)
    const expected = blockWidth * rows * bytes
    const raw = Buffer.alloc(counts[b])
    let got = 0
    while (got < raw.length) {
      const { bytesRead } = await file.read(raw, got, raw.length - got, offsets[b] + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    let block: Uint8Array
    try {
      if (got < raw.length) throw new BlockError(`the file ended after ${got} of its ${raw.length} bytes`)
      block = decompress(compression, raw, expected)
      if (predictor !== 1) {
        if (compression === 1) block = block.slice()
        unpredict(block, predictor, blockWidth, rows, bytes, littleEndian)
      }
    } catch (e) {
      if (e instanceof BlockError) throw tiffError(shown, `${ifd}, ${unit} ${b} (${counts[b]} bytes at byte ${offsets[b]})`, e.message)
      throw e
    }
    const view = new DataView(block.buffer, block.byteOffset, block.byteLength)
    const read = sampleReader(view, sampleType, littleEndian)
    const row0 = Math.floor(b / across) * blockHeight
    const col0 = (b % across) * blockWidth
    const cols = Math.min(blockWidth, width - col0)
    const inRows = Math.min(rows, height - row0)
    for (let r = 0; r < inRows; r++) {
      const to = (row0 + r) * width + col0
      const from = r * blockWidth
      for (let c = 0; c < cols; c++) values[to + c] = read(from + c)
    }
    await turns.maybe()
  }
  return { width, height, sampleType, compression: name, tiled, values, nodata, placement, geo }
}

function sampleReader(v: DataView, type: SampleType, le: boolean): (i: number) => number {
  switch (type) {
    case 'uint8':
      return (i) => v.getUint8(i)
    case 'int8':
      return (i) => v.getInt8(i)
    case 'uint16':
      return (i) => v.getUint16(i * 2, le)
    case 'int16':
      return (i) => v.getInt16(i * 2, le)
    case 'uint32':
      return (i) => v.getUint32(i * 4, le)
    case 'int32':
      return (i) => v.getInt32(i * 4, le)
    case 'float32':
      return (i) => v.getFloat32(i * 4, le)
    case 'float64':
      return (i) => v.getFloat64(i * 8, le)
  }
}

/**
 * The upper-left corner and cell sizes from ModelPixelScale and one ModelTiepoint, or from a
 * ModelTransformation without rotation; north up. A raster of points (GTRasterTypeGeoKey 2) has its
 * tiepoint at a cell's centre, half a cell from the corner, as GDAL reads it.
 */
async function placementOf(shown: string, ifd: string, fd: Directory, width: number, height: number): Promise<Placement | null> {
  const scale = await numbers(fd, 'ModelPixelScale')
  const tie = await numbers(fd, 'ModelTiepoint')
  const matrix = await numbers(fd, 'ModelTransformation')
  const keys = await numbers(fd, 'GeoKeyDirectory')
  let pointShift = 0
  if (keys) for (let i = 4; i + 3 < keys.length; i += 4) if (keys[i] === 1025 && keys[i + 1] === 0 && keys[i + 3] === 2) pointShift = 0.5
  let p: Placement
  if (scale && tie) {
    if (tie.length !== 6) throw tiffError(shown, `${ifd}, ${tagName(33922)}`, `${tie.length / 6} tiepoints; a grid is placed by one`)
    if (scale.length < 2 || !(scale[0] > 0) || !(scale[1] > 0)) throw tiffError(shown, `${ifd}, ${tagName(33550)}`, `cell sizes ${scale.slice(0, 2).join(' × ')}; positive ones expected (north up)`)
    const [i, j, , x, y] = tie
    p = { west: x - i * scale[0], north: y + j * scale[1], cellWidth: scale[0], cellHeight: scale[1] }
  } else if (matrix) {
    if (matrix.length !== 16) throw tiffError(shown, `${ifd}, ${tagName(34264)}`, `${matrix.length} values, 16 expected`)
    const [a, b, , d, e, f, , h] = matrix
    if (b !== 0 || e !== 0) throw tiffError(shown, `${ifd}, ${tagName(34264)}`, 'the grid is rotated or sheared; a north-up grid is read')
    if (!(a > 0) || !(f < 0)) throw tiffError(shown, `${ifd}, ${tagName(34264)}`, `cell sizes ${a} × ${f}; a north-up grid (positive x, negative y) is read`)
    p = { west: d, north: h, cellWidth: a, cellHeight: -f }
  } else return null
  if (![p.west, p.north, p.cellWidth, p.cellHeight].every(Number.isFinite) || !Number.isFinite(p.north - height * p.cellHeight) || !Number.isFinite(p.west + width * p.cellWidth))
    throw tiffError(shown, ifd, 'its georeferencing is not finite')
  return { ...p, west: p.west - pointShift * p.cellWidth, north: p.north + pointShift * p.cellHeight }
}
