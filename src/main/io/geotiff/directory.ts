// A TIFF directory's tags through the `geotiff` package, once the file's skeleton has been checked
// (tiff-structure.ts): whatever the package throws becomes a refusal naming the tag.
import type { GeoTIFF } from 'geotiff'
import { TAG_NAMES, tagName, tiffError } from './tiff-structure'

export type Directory = Awaited<ReturnType<GeoTIFF['getImage']>>['fileDirectory']

const TAG_OF: Record<string, number> = Object.fromEntries(Object.entries(TAG_NAMES).map(([tag, name]) => [name, Number(tag)]))

/** A tag's values through the `geotiff` package; whatever it throws becomes a refusal naming the tag. */
export async function loadTag(shown: string, ifd: string, fd: Directory, name: string): Promise<unknown> {
  try {
    return await fd.loadValue(name as never)
  } catch (e) {
    throw tiffError(shown, `${ifd}, ${tagName(TAG_OF[name])}`, `cannot be read (${(e as Error).message})`)
  }
}

export async function numbers(shown: string, ifd: string, fd: Directory, name: string): Promise<number[] | undefined> {
  const v = await loadTag(shown, ifd, fd, name)
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number') return [v]
  if (typeof v === 'string') return undefined
  return Array.from(v as ArrayLike<number | bigint>, Number)
}
