// What else GDAL reads of a band beyond its cells and its NODATA tag, which would make GDAL's
// reading differ from the cells alone, and so is refused by name rather than ignored: a scale and
// offset (GDAL_METADATA's SCALE and OFFSET, which GDAL reports but does not apply by default, so
// neither the stored nor the scaled values would be sure to be the ones meant), a mask image inside
// the file (GDAL's internal mask, NewSubfileType 4, which replaces NODATA as the band's mask), and
// the side files GDAL reads beside it: `<file>.msk` (a mask) and a `<file>.aux.xml` giving NODATA,
// scale, offset, georeferencing or a CRS (PROFILE=BASELINE keeps them there).
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { basename } from 'node:path'

/** The band 1 SCALE and OFFSET items of a GDAL_METADATA text, where they are not 1 and 0. */
export function scaleOffsetRefusal(metadata: string | undefined): string | undefined {
  if (!metadata) return undefined
  const item = (role: string) => {
    for (const m of metadata.matchAll(/<Item\b([^>]*)>([^<]*)<\/Item>/g)) {
      const attrs = m[1]
      if (new RegExp(`role="${role}"`).test(attrs) && /sample="0"/.test(attrs)) return Number(m[2].trim())
    }
    return undefined
  }
  const scale = item('scale')
  const offset = item('offset')
  if ((scale === undefined || scale === 1) && (offset === undefined || offset === 0)) return undefined
  return `its band is scaled (scale ${scale ?? 1}, offset ${offset ?? 0} in GDAL_METADATA): GDAL reads the stored values and leaves the scaling to its caller, so neither is sure to be the grid meant; gdal_translate -unscale -ot Float32 writes the scaled values as a grid`
}

/** The mask image of the full-resolution raster among the later IFDs, if any. */
export function maskIfdRefusal(later: { at: number; subfileType: number; width: number; height: number }[], width: number, height: number): string | undefined {
  const mask = later.find((i) => (i.subfileType & 4) !== 0 && (i.subfileType & 1) === 0 && i.width === width && i.height === height)
  if (!mask) return undefined
  return `it holds a mask image (IFD at byte ${mask.at}, NewSubfileType 4), which GDAL reads as the band's mask instead of NODATA, and which is not read here: gdalwarp -dstnodata <value> writes the masked cells as NODATA`
}

/** The most of an .aux.xml read: GDAL's own hold a few kilobytes. */
const AUX_BYTES = 1 << 20

/** Elements of an .aux.xml that change what GDAL reads of the raster. */
const AUX_ELEMENTS: [RegExp, string][] = [
  [/<NoDataValue\b/, 'NODATA'],
  [/<Scale\b/, 'a scale'],
  [/<Offset\b/, 'an offset'],
  [/<GeoTransform\b/, 'its georeferencing'],
  [/<SRS\b/, 'its CRS'],
]

/** A side file beside `path` that GDAL would read with it and this reader does not, or undefined. */
export async function sideFileRefusal(path: string): Promise<string | undefined> {
  const name = basename(path)
  if (await isFile(`${path}.msk`)) return `GDAL reads a mask from its side file ${name}.msk, which this reader does not: gdalwarp -dstnodata <value> writes the masked cells as NODATA`
  const aux = await head(`${path}.aux.xml`)
  if (aux === undefined) return undefined
  const found = AUX_ELEMENTS.filter(([re]) => re.test(aux)).map(([, what]) => what)
  if (!found.length) return undefined
  return `GDAL reads ${found.join(', ')} from its side file ${name}.aux.xml, which this reader does not: gdal_translate ${name} <copy>.tif writes one GeoTIFF that holds them`
}

async function isFile(path: string): Promise<boolean> {
  try {
    const f = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      return (await f.stat()).isFile()
    } finally {
      await f.close()
    }
  } catch {
    return false
  }
}

/** The first AUX_BYTES of a regular file, or undefined when there is none (a FIFO is not waited on). */
async function head(path: string): Promise<string | undefined> {
  let f
  try {
    f = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    if (!(await f.stat()).isFile()) return undefined
    const b = Buffer.alloc(AUX_BYTES)
    const { bytesRead } = await f.read(b, 0, AUX_BYTES, 0)
    return b.toString('utf8', 0, bytesRead)
  } finally {
    await f.close()
  }
}
