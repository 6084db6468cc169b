// GeoTIFFs as GDAL writes them, option by option, each read by Paralab's reader and by GDAL itself:
// every sample type (-ot Byte … Float64, signed bytes, 64-bit integers), every lossless compression
// with its predictors, strips and tiles of odd sizes with partial edge blocks, either byte order,
// BigTIFF, COG and gdaladdo's overviews, NBITS packing and half floats, NODATA values GDAL writes
// and ones it only reads; and what is refused by name: lossy and other compressions, complex
// samples, several bands, a scale and offset, masks and side files. The files are written at set-up
// from raw rasters (gdal_translate of a VRT, two at a time); GDAL's reading of them all is one
// `gdal_translate -of ENVI` of a VRT holding, for each file, its band 1 and that band's mask
// (`mask,1`) as Float64: the cells (exact in f64, 64-bit integers being read within ±2^53) and the mask.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { open } from 'node:fs/promises'
import { readRaster, tiffRefusal } from '../../src/main/io/geotiff/read-raster'
import { entryText, tiffStructure } from '../../src/main/io/geotiff/tiff-structure'
import { cellsDiffering, type GdalReading, maskDiffering } from '../helpers/gdal-raster'

const dir = mkdtempSync(join(tmpdir(), 'paralab-geotiff-sweep-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const at = (name: string) => join(dir, name)

const W = 37
const H = 23

/** GDAL's types, how their cells are written, and their range. */
const TYPES = {
  Byte: { bytes: 1, kind: 'u', min: 0n, max: 255n },
  Int8: { bytes: 1, kind: 'i', min: -128n, max: 127n },
  UInt16: { bytes: 2, kind: 'u', min: 0n, max: 65535n },
  Int16: { bytes: 2, kind: 'i', min: -32768n, max: 32767n },
  UInt32: { bytes: 4, kind: 'u', min: 0n, max: 2n ** 32n - 1n },
  Int32: { bytes: 4, kind: 'i', min: -(2n ** 31n), max: 2n ** 31n - 1n },
  // Within ±2^53, where a double holds every integer (the wide sources pass it).
  UInt64: { bytes: 8, kind: 'u', min: 0n, max: 2n ** 53n - 1n },
  Int64: { bytes: 8, kind: 'i', min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n },
  Float32: { bytes: 4, kind: 'f', min: 0n, max: 0n },
  Float64: { bytes: 8, kind: 'f', min: 0n, max: 0n },
} as const
type TypeName = keyof typeof TYPES

/** A deterministic sequence in [0, 1). */
function* uniform(seed: number): Generator<number> {
  let s = seed
  for (;;) {
    s = (s * 1103515245 + 12345) % 2 ** 31
    yield s / 2 ** 31
  }
}

/** The cells of a source raster of `type`, little-endian: both ends of the type's range, zero, and values across it. */
function rawCells(type: TypeName, wide = false): Buffer {
  const t = TYPES[type]
  const b = Buffer.alloc(W * H * t.bytes)
  const rnd = uniform(7 + t.bytes)
  for (let k = 0; k < W * H; k++) {
    const u = rnd.next().value as number
    if (t.kind === 'f') {
      const specials = type === 'Float32' ? [3.4028234663852886e38, -3.4028234663852886e38, 1.1754943508222875e-38, NaN, -0, Infinity, -Infinity, 1.401298464324817e-45] : [Number.MAX_VALUE, -Number.MAX_VALUE, 2.2250738585072014e-308, NaN, -0, Infinity, -Infinity, 5e-324]
      const v = k < specials.length ? specials[k] : (u - 0.5) * 2000 + (k % 5) / 7
      if (type === 'Float32') b.writeFloatLE(v, 4 * k)
      else b.writeDoubleLE(v, 8 * k)
      continue
    }
    const [min, max] = wide && t.bytes === 8 ? (t.kind === 'u' ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n]) : [t.min, t.max]
    const v = k === 0 ? min : k === 1 ? max : k === 2 ? 0n : min + ((max - min) * BigInt(Math.floor(u * 1e6))) / 1_000_000n
    if (t.bytes === 1) b.writeUInt8(Number(BigInt.asUintN(8, v)), k)
    else if (t.bytes === 2) b.writeUInt16LE(Number(BigInt.asUintN(16, v)), 2 * k)
    else if (t.bytes === 4) b.writeUInt32LE(Number(BigInt.asUintN(32, v)), 4 * k)
    else b.writeBigUInt64LE(BigInt.asUintN(64, v), 8 * k)
  }
  return b
}

/** A VRT of raw cells, placed at (500000, 4000000) with 10 m cells in UTM zone 33N; signed bytes as GDAL 3.6 has them, Byte. */
function vrt(name: string, type: TypeName, raw: string, bands = 1): void {
  const gdalType = type === 'Int8' ? 'Byte' : type
  const bytes = TYPES[type].bytes
  const band = (k: number) =>
    `<VRTRasterBand dataType="${gdalType}" band="${k + 1}" subClass="VRTRawRasterBand"><SourceFilename relativetoVRT="1">${raw}</SourceFilename><ImageOffset>${k * 7 * bytes}</ImageOffset><PixelOffset>${bytes}</PixelOffset><LineOffset>${bytes * W}</LineOffset><ByteOrder>LSB</ByteOrder></VRTRasterBand>`
  writeFileSync(
    at(name),
    `<VRTDataset rasterXSize="${W}" rasterYSize="${H}"><SRS>EPSG:32633</SRS><GeoTransform>500000, 10, 0, 4000000, 0, -10</GeoTransform>${Array.from({ length: bands }, (_, k) => band(k)).join('')}</VRTDataset>`,
  )
}

interface Fixture {
  name: string
  source: string
  /** gdal_translate's options. */
  options: string[]
  /** Run after writing it (`$F` the file). */
  then?: string
  /** A GDAL_NODATA text written into the file afterwards, as other writers may. */
  nodataText?: string
  /** 'read', or what the refusal names. */
  expect: string
  signedBytes?: boolean
}

const fixtures: Fixture[] = []
const add = (f: Omit<Fixture, 'expect'> & { expect?: string }) => fixtures.push({ expect: 'read', ...f })
const co = (...kv: string[]) => kv.flatMap((x) => ['-co', x])
const src = (type: TypeName) => `${type}.vrt`
const typeOptions = (type: TypeName) => (type === 'Int8' ? co('PIXELTYPE=SIGNEDBYTE') : [])
const isFloat = (type: TypeName) => TYPES[type].kind === 'f'
const TYPE_NAMES = Object.keys(TYPES) as TypeName[]

/** A value the source holds, as NODATA text (cell 17). */
function heldValue(type: TypeName): string {
  const b = rawCells(type)
  const t = TYPES[type]
  const k = 17
  if (type === 'Float32') return String(b.readFloatLE(4 * k))
  if (type === 'Float64') return String(b.readDoubleLE(8 * k))
  if (type === 'Int8') return String(b.readInt8(k))
  if (t.bytes === 1) return String(b.readUInt8(k))
  if (t.bytes === 2) return String(t.kind === 'u' ? b.readUInt16LE(2 * k) : b.readInt16LE(2 * k))
  if (t.bytes === 4) return String(t.kind === 'u' ? b.readUInt32LE(4 * k) : b.readInt32LE(4 * k))
  return String(t.kind === 'u' ? b.readBigUInt64LE(8 * k) : b.readBigInt64LE(8 * k))
}

// Every type with every lossless compression; layouts, predictors, byte orders, BigTIFF and NODATA
// rotate through them, so that each type meets each layout and each compression each layout.
const COMPRESSIONS = ['NONE', 'LZW', 'DEFLATE', 'ZSTD', 'PACKBITS']
const LAYOUTS: [string, string[]][] = [
  ['strips', []],
  ['strips of 5 rows', co('BLOCKYSIZE=5')],
  ['16 × 16 tiles', co('TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16')],
  ['a 48 × 32 tile, larger than the raster', co('TILED=YES', 'BLOCKXSIZE=48', 'BLOCKYSIZE=32')],
  ['32 × 16 tiles, band-interleaved', co('TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=16', 'INTERLEAVE=BAND')],
  ['COG: one 128 × 128 tile and two overviews', ['-of', 'COG', ...co('BLOCKSIZE=128', 'OVERVIEW_COUNT=2')]],
]
TYPE_NAMES.forEach((type, i) =>
  COMPRESSIONS.forEach((compress, j) => {
    // COG takes neither PackBits nor signed bytes: strips for those.
    const [layout, layoutOptions] = LAYOUTS[(i + j) % LAYOUTS.length][1][0] === '-of' && (compress === 'PACKBITS' || type === 'Int8') ? LAYOUTS[1] : LAYOUTS[(i + j) % LAYOUTS.length]
    const cog = layoutOptions[0] === '-of'
    const predictors = ['LZW', 'DEFLATE', 'ZSTD'].includes(compress) ? (isFloat(type) ? [1, 2, 3] : [1, 2]) : [1]
    const big = !cog && (i + j) % 2 === 1
    // The floating-point predictor in a big-endian file is refused (below).
    const predictor = predictors[(i + 2 * j) % predictors.length] === 3 && big ? 2 : predictors[(i + 2 * j) % predictors.length]
    const bigTiff = (i * j) % 3 === 1
    const nodata = (i + j) % 3 === 0 ? (isFloat(type) && j % 2 ? 'nan' : heldValue(type)) : undefined
    const options = [
      ...typeOptions(type),
      ...layoutOptions,
      ...co(`COMPRESS=${compress}`),
      ...(predictor > 1 ? co(`PREDICTOR=${cog ? (predictor === 2 ? 'STANDARD' : 'FLOATING_POINT') : predictor}`) : []),
      ...(big ? co('ENDIANNESS=BIG') : []),
      ...(bigTiff ? co('BIGTIFF=YES') : []),
      ...(nodata !== undefined ? ['-a_nodata', nodata] : []),
    ]
    add({ name: `${type}, ${compress}${predictor > 1 ? ` predictor ${predictor}` : ''}, ${layout}${big ? ', big-endian' : ''}${bigTiff ? ', BigTIFF' : ''}${nodata !== undefined ? `, NODATA ${nodata}` : ''}`, source: src(type), options, signedBytes: type === 'Int8' })
  }),
)

// Each predictor with each compression that takes one, in both byte orders.
for (const type of ['Int32', 'UInt64', 'Float32'] as TypeName[])
  for (const compress of ['LZW', 'DEFLATE', 'ZSTD'])
    for (const predictor of isFloat(type) ? [2, 3] : [2])
      for (const endian of ['LITTLE', 'BIG'])
        add({
          name: `${type}, ${compress} predictor ${predictor}, ${endian.toLowerCase()}-endian, 16 × 16 tiles`,
          source: src(type),
          options: co(`COMPRESS=${compress}`, `PREDICTOR=${predictor}`, `ENDIANNESS=${endian}`, 'TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16'),
          // GDAL 3.6 does not read back what it writes so: its reading differs from the source in every cell.
          ...(predictor === 3 && endian === 'BIG' && { expect: 'the floating-point predictor in a big-endian file is not read' }),
        })

// NBITS: unsigned samples packed at any width (GDAL clips the source's values to it), and half floats.
const PACKINGS: [string, string[]][] = [
  ['strips', co('COMPRESS=NONE')],
  ['deflate, strips of 3 rows, big-endian', co('COMPRESS=DEFLATE', 'BLOCKYSIZE=3', 'ENDIANNESS=BIG')],
  ['LZW, 16 × 16 tiles', co('COMPRESS=LZW', 'TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16')],
]
for (const [k, [type, bits]] of ([['Byte', 1], ['Byte', 2], ['Byte', 4], ['Byte', 7], ['UInt16', 9], ['UInt16', 12], ['UInt16', 15], ['UInt32', 17], ['UInt32', 24], ['UInt32', 31]] as [TypeName, number][]).entries())
  for (const [how, options] of bits === 12 || bits === 24 ? PACKINGS : [PACKINGS[k % PACKINGS.length]])
    add({ name: `${type} NBITS=${bits}, ${how}`, source: src(type), options: [...co(`NBITS=${bits}`), ...options] })
for (const [how, options] of [
  ['uncompressed', []],
  ['LZW, floating-point predictor', co('COMPRESS=LZW', 'PREDICTOR=3')],
  ['deflate, horizontal predictor, big-endian', co('COMPRESS=DEFLATE', 'PREDICTOR=2', 'ENDIANNESS=BIG')],
  ['ZSTD, 16 × 16 tiles, NODATA -0.5', [...co('COMPRESS=ZSTD', 'TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16'), '-a_nodata', '-0.5']],
] as [string, string[]][])
  add({ name: `Float32 NBITS=16 (half floats), ${how}`, source: src('Float32'), options: [...co('NBITS=16'), ...options] })

// NODATA as GDAL writes it, at the types' ends and beyond them.
for (const [type, nodata] of [
  ['Byte', '0'], ['Byte', '255'], ['Byte', '1.5'], ['Int8', '-128'], ['Int8', '-1'], ['UInt16', '65535'], ['Int16', '-32768'], ['UInt32', '4294967295'],
  ['Int32', '-2147483648'], ['Float32', '-3.4028234663852886e+38'], ['Float32', 'inf'], ['Float32', '1e40'], ['Float32', '0.1'], ['Float64', '-1.7976931348623157e+308'], ['Float64', '-inf'], ['Float64', '5e-324'],
] as [TypeName, string][])
  add({ name: `${type}, NODATA ${nodata}`, source: src(type), options: [...typeOptions(type), '-a_nodata', nodata], signedBytes: type === 'Int8' })
// NODATA texts other writers may leave, which GDAL reads by its own rules.
for (const [type, text] of [
  ['Byte', '1.5'], ['Byte', '-1'], ['Byte', '300'], ['Byte', 'nan'], ['UInt32', '4294967295.5'], ['Int16', '-0.5'], ['Int16', '1e3'], ['Float32', '1e40'], ['Float32', '3.4028235e38'],
  ['Float64', '1e400'], ['Int64', '1e3'], ['Int64', 'nan'], ['Int64', '9223372036854775808'], ['UInt64', '-4.5'], ['UInt64', ' 17'],
] as [TypeName, string][])
  add({ name: `${type}, GDAL_NODATA text ${JSON.stringify(text)}`, source: src(type), options: ['-a_nodata', '0'], nodataText: text })

// Sparse tiles (never written, as SPARSE_OK leaves blocks all NODATA): NODATA as GDAL converts it to the
// band's type (rounded and clamped), whichever cells it masks.
for (const [type, text] of [['Byte', '300'], ['Byte', '1.5'], ['Byte', '-1'], ['Byte', 'nan'], ['Int16', '1e6'], ['Int16', '-2.5'], ['Float32', '1e40'], ['UInt64', '17']] as [TypeName, string][])
  add({ name: `${type}, sparse tiles, GDAL_NODATA text ${JSON.stringify(text)}`, source: `${type}-sparse.vrt`, options: ['-a_nodata', '0', ...co('SPARSE_OK=TRUE', 'TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16')], nodataText: text })

// 64-bit integers beyond ±2^53: refused where a cell holds one, read where every such cell is NODATA.
add({ name: 'Int64 beyond ±2^53', source: 'Int64-wide.vrt', options: [], expect: 'holds -9223372036854775808, beyond ±9007199254740992' })
add({ name: 'UInt64 beyond 2^53', source: 'UInt64-wide.vrt', options: co('COMPRESS=DEFLATE', 'PREDICTOR=2'), expect: 'beyond ±9007199254740992: a 64-bit integer is read only where a double holds it exactly' })
add({ name: 'Int64, its one cell beyond ±2^53 NODATA (-9223372036854775808)', source: 'Int64-edge.vrt', options: ['-a_nodata', '-9223372036854775808'] })
add({ name: 'UInt64, its one cell beyond 2^53 NODATA (18446744073709551615)', source: 'UInt64-edge.vrt', options: ['-a_nodata', '18446744073709551615'] })

// Overviews: the full-resolution image is read, whatever follows it.
add({ name: 'gdaladdo overviews on strips', source: src('Int16'), options: co('COMPRESS=DEFLATE'), then: 'gdaladdo -q -r average "$F" 2 4' })
add({ name: 'gdaladdo overviews on tiles, big-endian BigTIFF', source: src('Float32'), options: co('TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16', 'ENDIANNESS=BIG', 'BIGTIFF=YES'), then: 'gdaladdo -q -r nearest "$F" 2 4 8' })
add({ name: 'COG with overviews, ZSTD, floating-point predictor, NODATA nan', source: src('Float64'), options: ['-of', 'COG', ...co('BLOCKSIZE=128', 'COMPRESS=ZSTD', 'PREDICTOR=FLOATING_POINT', 'OVERVIEW_COUNT=3'), '-a_nodata', 'nan'] })
add({ name: 'COG with a mask', source: src('Byte'), options: ['-of', 'COG', '-mask', '1'], expect: 'NewSubfileType 4), which GDAL reads as the band\'s mask instead of NODATA' })
add({ name: 'statistics in a side file (gdalinfo -stats): read', source: src('Int16'), options: [], then: 'gdalinfo -stats "$F" > /dev/null' })
add({ name: 'scale 1 and offset 0: read', source: src('Int16'), options: ['-a_scale', '1', '-a_offset', '0'] })

// Refused by name.
add({ name: 'a scale and an offset', source: src('Int16'), options: ['-a_scale', '0.1', '-a_offset', '5'], expect: 'its band is scaled (scale 0.1, offset 5 in GDAL_METADATA)' })
add({ name: 'an offset alone', source: src('Float32'), options: ['-a_offset', '-100'], expect: 'its band is scaled (scale 1, offset -100 in GDAL_METADATA)' })
add({ name: 'an internal mask', source: src('Byte'), options: ['-mask', '1', '--config', 'GDAL_TIFF_INTERNAL_MASK', 'YES'], expect: 'NewSubfileType 4), which GDAL reads as the band\'s mask instead of NODATA' })
add({ name: 'a mask in a side file (.msk)', source: src('Byte'), options: ['-mask', '1', '--config', 'GDAL_TIFF_INTERNAL_MASK', 'NO'], expect: '.msk, which this reader does not' })
add({ name: 'PROFILE=BASELINE: NODATA and georeferencing in .aux.xml', source: src('Int16'), options: [...co('PROFILE=BASELINE'), '-a_nodata', '0'], expect: 'GDAL reads NODATA, its georeferencing, its CRS from its side file' })
for (const [compress, type, expect] of [
  ['LZMA', 'Int16', 'compression LZMA (34925) is not supported'],
  ['LERC', 'Float32', 'compression LERC (34887) is not supported'],
  ['LERC_DEFLATE', 'Float32', 'compression LERC (34887) is not supported'],
  ['LERC_ZSTD', 'UInt16', 'compression LERC (34887) is not supported'],
  ['JPEG', 'Byte', 'compression JPEG (7) is not supported'],
] as [string, TypeName, string][])
  add({ name: `${compress} compression`, source: src(type), options: co(`COMPRESS=${compress}`), expect })
add({ name: 'WEBP compression (three bands)', source: 'Byte-3.vrt', options: co('COMPRESS=WEBP'), expect: 'the raster has 3 bands' })
for (const [type, expect] of [['CInt16', '32-bit complex integer samples'], ['CInt32', '64-bit complex integer samples'], ['CFloat32', '64-bit complex floating point samples'], ['CFloat64', '128-bit complex floating point samples']])
  add({ name: `-ot ${type}`, source: src('Float32'), options: ['-ot', type], expect: `${expect} are not read` })
for (const interleave of ['PIXEL', 'BAND'])
  for (const bands of [2, 3]) add({ name: `${bands} bands, INTERLEAVE=${interleave}`, source: `Int16-${bands}.vrt`, options: co(`INTERLEAVE=${interleave}`, 'COMPRESS=DEFLATE'), expect: `the raster has ${bands} bands` })

const read = () => fixtures.filter((f) => f.expect === 'read')
/** Every file's band 1 and its mask, as GDAL reads them: band 2k + 1 and 2k + 2 of one VRT. */
function referenceVrt(): string {
  const band = (k: number, file: string, source: string) =>
    `<VRTRasterBand dataType="Float64" band="${k}"><SimpleSource><SourceFilename relativeToVRT="1">${file}</SourceFilename><SourceBand>${source}</SourceBand></SimpleSource></VRTRasterBand>`
  const bands = read().flatMap((f, k) => [band(2 * k + 1, `${fixtures.indexOf(f)}.tif`, '1'), band(2 * k + 2, `${fixtures.indexOf(f)}.tif`, 'mask,1')])
  return `<VRTDataset rasterXSize="${W}" rasterYSize="${H}">${bands.join('')}</VRTDataset>`
}

let reference: Float64Array
/** GDAL's reading of fixture `f`: its cells and its mask (0 where GDAL sees no data), placed as its source. */
function gdalReading(f: Fixture): GdalReading {
  const k = read().indexOf(f)
  const cells = reference.slice(2 * k * W * H, (2 * k + 1) * W * H)
  const mask = Uint8Array.from(reference.subarray((2 * k + 1) * W * H, (2 * k + 2) * W * H), (v) => (v ? 255 : 0))
  return { w: W, h: H, cells, mask, gt: [500000, 10, 0, 4000000, 0, -10] }
}

/** Replaces the GDAL_NODATA text of a little-endian classic TIFF (its first IFD) with `text`, appended at the end. */
function setNodataText(file: string, text: string): void {
  const b = readFileSync(file)
  const ifd = b.readUInt32LE(4)
  const n = b.readUInt16LE(ifd)
  const value = Buffer.from(`${text}\0`, 'latin1')
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + 12 * i
    if (b.readUInt16LE(e) !== 42113) continue
    b.writeUInt32LE(value.length, e + 4)
    if (value.length <= 4) value.copy(b.fill(0, e + 8, e + 12), e + 8)
    else b.writeUInt32LE(b.length, e + 8)
    writeFileSync(file, value.length <= 4 ? b : Buffer.concat([b, value]))
    return
  }
  throw new Error(`${file}: no GDAL_NODATA`)
}

/** The GDAL_NODATA text the file holds. */
async function nodataText(file: string): Promise<string | undefined> {
  const h = await open(file)
  try {
    return await entryText(h, await tiffStructure(file, h, (await h.stat()).size), 42113)
  } finally {
    await h.close()
  }
}

const fileOf = (f: Fixture) => at(`${fixtures.indexOf(f)}.tif`)

/** Runs the commands two at a time (the machine's cores); a failed one leaves its file missing, which the tests name. */
function inParallel(commands: string[]): void {
  writeFileSync(at('commands'), commands.map((c) => `${c}; true`).join('\n') + '\n')
  execFileSync('bash', ['-c', `cd "${dir}" && xargs -P 2 -d '\\n' -n 1 bash -c < commands`], { stdio: 'pipe' })
}

beforeAll(() => {
  for (const type of TYPE_NAMES) {
    writeFileSync(at(`${type}.raw`), rawCells(type))
    vrt(`${type}.vrt`, type, `${type}.raw`)
  }
  for (const type of ['Int64', 'UInt64'] as TypeName[]) {
    const wide = rawCells(type, true)
    writeFileSync(at(`${type}-wide.raw`), wide)
    vrt(`${type}-wide.vrt`, type, `${type}-wide.raw`)
    // One cell at the type's end, the rest within ±2^53.
    const edge = rawCells(type)
    edge.writeBigUInt64LE(type === 'Int64' ? 2n ** 63n : 2n ** 64n - 1n, 8 * 30)
    writeFileSync(at(`${type}-edge.raw`), edge)
    vrt(`${type}-edge.vrt`, type, `${type}-edge.raw`)
  }
  for (const type of ['Byte', 'Int16', 'Float32', 'UInt64'] as TypeName[]) {
    // Zeros but the lower-right cells: three of the six 16 × 16 tiles hold nothing but NODATA 0.
    const b = Buffer.alloc(W * H * TYPES[type].bytes)
    for (let r = 16; r < H; r++) for (let c = 16; c < W; c++) b.writeUInt8(9, (r * W + c) * TYPES[type].bytes + (type === 'Float32' ? 3 : 0))
    writeFileSync(at(`${type}-sparse.raw`), b)
    vrt(`${type}-sparse.vrt`, type, `${type}-sparse.raw`)
  }
  vrt('Byte-3.vrt', 'Byte', 'Byte.raw', 3)
  vrt('Int16-2.vrt', 'Int16', 'Int16.raw', 2)
  vrt('Int16-3.vrt', 'Int16', 'Int16.raw', 3)
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  inParallel(fixtures.map((f) => {
    const file = fileOf(f)
    return `gdal_translate -q ${f.options.map(q).join(' ')} ${q(f.source)} ${q(file)} > /dev/null 2>&1${f.then ? `; F=${q(file)}; ${f.then}` : ''}`
  }))
  for (const f of fixtures) if (f.nodataText !== undefined) setNodataText(fileOf(f), f.nodataText)
  writeFileSync(at('reference.vrt'), referenceVrt())
  execFileSync('gdal_translate', ['-q', '-of', 'ENVI', at('reference.vrt'), at('reference.env')], { stdio: 'pipe' })
  const raw = readFileSync(at('reference.env'))
  reference = new Float64Array(raw.buffer, raw.byteOffset, raw.length / 8)
}, 120_000)

describe('GeoTIFFs as GDAL writes them: read as GDAL reads them, or refused by name', () => {
  it('wrote every file', () => {
    expect(fixtures.filter((f) => !existsSync(fileOf(f))).map((f) => f.name)).toEqual([])
    expect(fixtures.length).toBe(160)
  })

  it.each(fixtures.map((f) => [f.name, f]))('%s', async (_name, f) => {
    const file = fileOf(f)
    const shown = `sweep-${fixtures.indexOf(f)}.tif`
    if (f.expect !== 'read') {
      const e = await readRaster(shown, file).then(() => undefined, (err: unknown) => err)
      expect(e, 'refused').toBeInstanceOf(ApiError)
      expect((e as ApiError).code).toBe('invalid-input')
      expect((e as ApiError).message.startsWith(`${shown}: `)).toBe(true)
      expect((e as ApiError).message).toContain(f.expect)
      return
    }
    const r = await readRaster(shown, file)
    expect(await tiffRefusal(file)).toBeUndefined()
    const g = gdalReading(f)
    expect(r.sampleType === 'int8').toBe(!!f.signedBytes && !f.options.includes('COG'))
    if (r.sampleType === 'int8') for (let k = 0; k < g.cells.length; k++) if (g.cells[k] > 127) g.cells[k] -= 256
    expect([r.width, r.height]).toEqual([g.w, g.h])
    expect(cellsDiffering(r.values, g), 'cells that differ from GDAL').toBe(0)
    if (r.sampleType === 'int8') {
      // GDAL 3.6 masks signed bytes as unsigned ones; GDAL 3.7 and later, as Int8: a NODATA in -128…127, truncated.
      const text = await nodataText(file)
      const v = text === undefined ? NaN : Math.trunc(Number(text))
      expect(r.nodata).toBe(v >= -128 && v <= 127 ? v : null)
    } else expect(maskDiffering(r.values, r.nodata, g), 'cells whose NODATA differs from GDAL\'s mask').toBe(0)
    expect(r.placement).toEqual({ west: 500000, north: 4000000, cellWidth: 10, cellHeight: 10 })
  })

  it('reads NODATA texts as GDAL does', async () => {
    const nodataOf = async (name: string) => (await readRaster(name, fileOf(fixtures.find((f) => f.name === name)!))).nodata
    expect(await nodataOf('Byte, GDAL_NODATA text "1.5"')).toBe(1)
    expect(await nodataOf('Byte, GDAL_NODATA text "300"')).toBeNull()
    expect(await nodataOf('Float32, GDAL_NODATA text "1e40"')).toBe(Infinity)
    expect(await nodataOf('Int64, GDAL_NODATA text "1e3"')).toBe(1)
    expect(await nodataOf('UInt64, GDAL_NODATA text "-4.5"')).toBe(2 ** 64)
    // Sparse tiles hold NODATA converted to the type: 255 for "300", 2 for "1.5".
    const cell = async (name: string) => (await readRaster(name, fileOf(fixtures.find((f) => f.name === name)!))).values[0]
    expect(await cell('Byte, sparse tiles, GDAL_NODATA text "300"')).toBe(255)
    expect(await cell('Byte, sparse tiles, GDAL_NODATA text "1.5"')).toBe(2)
  })
})
