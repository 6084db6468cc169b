// The GDAL_NODATA tag as GDAL's mask reads it (GDALNoDataMaskBand), checked against GDAL 3.6 on
// texts GDAL does not write itself: for a band of integers up to 32 bits the text is read as a
// double, and a value outside the band type's range (NaN included) masks no cell, while one inside
// is truncated toward zero ("1.5" on a Byte band masks the 1s); a Float32 band compares with the
// value rounded to float32 ("1e40" masks +∞); a 64-bit band reads the text as C's strtoll or
// strtoull do (the leading integer, "1e3" is 1, "nan" is 0, saturating at the type's limits,
// "-4" wrapping to 2^64 − 4 for UInt64). Signed bytes take Int8's range, as GDAL 3.7 and later
// read them. A sparse block (never written) holds the value converted as GDAL converts a double to
// the band's type: rounded half away from zero and clamped to the type's range, NaN as 0 ("300" on a
// Byte band fills it with 255, "1.5" with 2, while masking no cell and the 1s).
import type { Sample } from './samples'

export interface Nodata {
  /** The value cells are compared with (NaN: NaN cells); null when no cell is NODATA. */
  value: number | null
  /** For 64-bit integers: the exact value (a cell equal to it is NODATA, whatever its magnitude). */
  exact?: bigint
  /** What a sparse block's cells hold. */
  fill: number
}

const RANGES: Partial<Record<Sample['gdal'], [number, number]>> = {
  Byte: [0, 255],
  Int8: [-128, 127],
  UInt16: [0, 65535],
  Int16: [-32768, 32767],
  UInt32: [0, 4294967295],
  Int32: [-2147483648, 2147483647],
}

/** A double as GDAL parses NODATA: `nan`, `inf`, `-inf` and decimal or hexadecimal numbers; undefined when the text is none. */
function parseDouble(t: string): number | undefined {
  if (/^[+-]?nan$/i.test(t)) return NaN
  if (/^[+-]?inf(inity)?$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity
  const v = t === '' ? NaN : Number(t)
  return Number.isNaN(v) ? undefined : v
}

/** C's strtoll / strtoull of `t`. */
function parseInt64(t: string, signed: boolean): bigint {
  const m = /^\s*([+-]?)(\d+)/.exec(t)
  if (!m) return 0n
  const magnitude = BigInt(m[2])
  const negative = m[1] === '-'
  if (signed) {
    const v = negative ? -magnitude : magnitude
    return v > 2n ** 63n - 1n ? 2n ** 63n - 1n : v < -(2n ** 63n) ? -(2n ** 63n) : v
  }
  if (magnitude > 2n ** 64n - 1n) return 2n ** 64n - 1n
  return negative ? (2n ** 64n - magnitude) % 2n ** 64n : magnitude
}

/**
 * The NODATA of a band of `sample` from the tag's text, or undefined when the text is no number
 * (the caller refuses it, naming the tag).
 */
export function nodataOf(text: string, sample: Sample): Nodata | undefined {
  const t = text.replace(/\0+$/, '').trim()
  if (sample.gdal === 'Int64' || sample.gdal === 'UInt64') {
    const exact = parseInt64(t, sample.gdal === 'Int64')
    return { value: Number(exact), exact, fill: Number(exact) }
  }
  const v = parseDouble(t)
  if (v === undefined) return undefined
  const range = RANGES[sample.gdal]
  if (range) {
    const rounded = Number.isNaN(v) ? 0 : Math.min(range[1], Math.max(range[0], Math.sign(v) * Math.floor(Math.abs(v) + 0.5)))
    return { value: v >= range[0] && v <= range[1] ? Math.trunc(v) + 0 : null, fill: rounded + 0 }
  }
  const value = sample.gdal === 'Float32' ? Math.fround(v) : v
  return { value, fill: value }
}
