// A TIFF band's samples as the numbers GDAL reads from them: whole bytes of 8 to 64 bits (signed,
// unsigned, IEEE floats of 16, 32 and 64 bits), or unsigned integers packed at any width of 1 to 32
// bits (GDAL's NBITS), most significant bit first, each row of a block starting on a byte (24-bit
// ones least significant byte first in a big-endian file, as GDAL reads them). A 64-bit
// integer is a double only within ±2^53; one beyond is refused by the caller unless it is NODATA.
import { half } from '../half-float'

export type SampleType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'uint64' | 'int64' | 'float16' | 'float32' | 'float64' | `uint${number}-packed`

export interface Sample {
  type: SampleType
  bits: number
  /** Bytes a sample takes, where it is whole bytes (predictors work on these); 0 when packed. */
  bytes: number
  /** GDAL's type for the band, which bounds its NODATA value (NBITS samples are read as Byte, UInt16 or UInt32). */
  gdal: 'Byte' | 'Int8' | 'UInt16' | 'Int16' | 'UInt32' | 'Int32' | 'UInt64' | 'Int64' | 'Float32' | 'Float64'
}

const WHOLE: Record<string, Omit<Sample, 'bits' | 'bytes'>> = {
  '1:8': { type: 'uint8', gdal: 'Byte' },
  '2:8': { type: 'int8', gdal: 'Int8' },
  '1:16': { type: 'uint16', gdal: 'UInt16' },
  '2:16': { type: 'int16', gdal: 'Int16' },
  '1:32': { type: 'uint32', gdal: 'UInt32' },
  '2:32': { type: 'int32', gdal: 'Int32' },
  '1:64': { type: 'uint64', gdal: 'UInt64' },
  '2:64': { type: 'int64', gdal: 'Int64' },
  '3:16': { type: 'float16', gdal: 'Float32' },
  '3:32': { type: 'float32', gdal: 'Float32' },
  '3:64': { type: 'float64', gdal: 'Float64' },
}

/** The sample of a SampleFormat (1 unsigned, 2 signed, 3 float) and BitsPerSample, or undefined when not read. */
export function sampleOf(format: number, bits: number): Sample | undefined {
  const whole = WHOLE[`${format}:${bits}`]
  if (whole) return { ...whole, bits, bytes: bits / 8 }
  if (format === 1 && Number.isInteger(bits) && bits >= 1 && bits <= 32)
    return { type: `uint${bits}-packed`, bits, bytes: 0, gdal: bits <= 8 ? 'Byte' : bits <= 16 ? 'UInt16' : 'UInt32' }
  return undefined
}

/** Bytes of a block row of `width` samples: packed rows are padded to a whole byte. */
export function rowBytes(s: Sample, width: number): number {
  return s.bytes ? width * s.bytes : Math.ceil((width * s.bits) / 8)
}

/** Beyond this magnitude a 64-bit integer may not be a double exactly (2^53 itself is, but 2^53 + 1 rounds to it). */
export const EXACT_LIMIT = 2n ** 53n

/**
 * Reads sample `c` of the row starting at byte `at` of `view` as a number; for 64-bit integers
 * `big` is set to the exact value when it lies beyond ±2^53 (the number returned is then rounded).
 */
export function sampleReader(view: DataView, s: Sample, le: boolean): { read: (at: number, c: number) => number; big: { value: bigint | null } } {
  const big: { value: bigint | null } = { value: null }
  const wide = (v: bigint) => {
    big.value = v >= EXACT_LIMIT || v <= -EXACT_LIMIT ? v : null
    return Number(v)
  }
  const read = ((): ((at: number, c: number) => number) => {
    switch (s.type) {
      case 'uint8':
        return (at, c) => view.getUint8(at + c)
      case 'int8':
        return (at, c) => view.getInt8(at + c)
      case 'uint16':
        return (at, c) => view.getUint16(at + 2 * c, le)
      case 'int16':
        return (at, c) => view.getInt16(at + 2 * c, le)
      case 'uint32':
        return (at, c) => view.getUint32(at + 4 * c, le)
      case 'int32':
        return (at, c) => view.getInt32(at + 4 * c, le)
      case 'uint64':
        return (at, c) => wide(view.getBigUint64(at + 8 * c, le))
      case 'int64':
        return (at, c) => wide(view.getBigInt64(at + 8 * c, le))
      case 'float16':
        return (at, c) => half(view.getUint16(at + 2 * c, le))
      case 'float32':
        return (at, c) => view.getFloat32(at + 4 * c, le)
      case 'float64':
        return (at, c) => view.getFloat64(at + 8 * c, le)
    }
    const bits = s.bits
    // 24-bit samples: libtiff swaps each triple of a big-endian file, around GDAL's packing.
    if (bits === 24 && !le) return (at, c) => view.getUint8(at + 3 * c) + 256 * view.getUint8(at + 3 * c + 1) + 65536 * view.getUint8(at + 3 * c + 2)
    return (at, c) => {
      // Most significant bit first, across byte boundaries.
      let bit = at * 8 + c * bits
      let v = 0
      for (let left = bits; left > 0; ) {
        const byte = view.getUint8(bit >> 3)
        const off = bit & 7
        const take = Math.min(left, 8 - off)
        v = v * 2 ** take + ((byte >> (8 - off - take)) & ((1 << take) - 1))
        left -= take
        bit += take
      }
      return v
    }
  })()
  return { read, big }
}
