// IEEE 754 half-precision floats (GeoTIFF's NBITS=16 floats, HDF5's float16), as the numbers they
// stand for: every one is a double exactly, as GDAL's Float32 and numpy's float16 read them.

/** The number a half float's 16 bits stand for. */
export function half(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const exponent = (h >> 10) & 0x1f
  const mantissa = h & 0x3ff
  if (exponent === 0) return sign * mantissa * 2 ** -24
  if (exponent === 31) return mantissa ? NaN : sign * Infinity
  return sign * (1024 + mantissa) * 2 ** (exponent - 25)
}
