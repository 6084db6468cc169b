// What an HDF5 or NetCDF file holds, as Paralab lists it: each dataset (variable) with its shape
// and element type, and whether its elements are numbers Paralab reads.
import type { DatasetEntry } from '../../../shared/api'

/** Element types read as numbers, converted to f64 exactly (64-bit integers within ±2^53; one beyond is refused unless it is a fill value). */
export const NUMERIC_DTYPES = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float16', 'float32', 'float64'] as const
export type NumericDtype = (typeof NUMERIC_DTYPES)[number]

/** `path`: `/group/name` (HDF5) or `/name` (a NetCDF variable); `shape` [] for a scalar. */
export interface DatasetInfo extends DatasetEntry {
  /** HDF5, chunked: the chunks' extent along the first dimension (pieces aligned to it decompress each chunk once). */
  chunkRows?: number
  /** Cells that hold no value (NetCDF's fill and valid range). */
  missing?: MissingRule
  /** HDF5: why the file's bytes cannot hold the values it announces (they were never written). */
  unstored?: string
  /** NetCDF-4: the rows the dataset stores, where its dimension is longer; the rows past them hold `pad`. */
  storedRows?: number
  /** NetCDF-4: the value of the rows past `storedRows` (netcdf-c's fill value), as text. */
  pad?: string
  /**
   * Each dimension's coordinate variable, as xarray finds it (null where none): in a NetCDF file
   * the variable named as the dimension over it; in HDF5 (NetCDF-4 included) the dimension scale
   * attached to it.
   */
  coordinates?: (string | null)[]
}

/** Strings a list of names holds at most, and bytes a name: a name is a label, not a document. */
export const MAX_STRINGS = 2 ** 24
export const MAX_STRING_BYTES = 256

export function isNumeric(dtype: string): dtype is NumericDtype {
  return (NUMERIC_DTYPES as readonly string[]).includes(dtype)
}

/** Whether a rule changes anything of a read: a mask, an unsigned view or an unpacking. */
export function ruleMatters(rule: MissingRule | string | undefined): rule is MissingRule {
  return typeof rule === 'object' && !!(rule.values.length || rule.nan || rule.unsigned || rule.min !== undefined || rule.max !== undefined || rule.unpack)
}

/** The value netcdf-c gives the cells of a variable that no storage holds: its `_FillValue`, else its type's default. */
export function fillOf(dtype: NumericDtype, attr: (name: string) => AttrValue | undefined): string | undefined {
  const own = castExactly(attr('_FillValue'), dtype)?.[0]
  const v = own ?? DEFAULT_FILL[dtype]
  return v === undefined ? undefined : String(v)
}

export function bytesOf(dtype: NumericDtype): number {
  return dtype.endsWith('8') && !dtype.endsWith('64') ? 1 : dtype.endsWith('16') ? 2 : dtype.endsWith('32') ? 4 : 8
}

/** `/a` and `a` name the same dataset. */
export function datasetKey(name: string): string {
  return '/' + name.replace(/^\/+/, '')
}

export function shapeText(shape: readonly number[]): string {
  return shape.length === 0 ? 'scalar' : shape.join(' × ')
}

/** Datasets listed in a message at most. */
const LISTED = 50

/** `/a float64 100 × 3; /s string 2 (not numeric)`: one line, so a message carries it whole. */
export function listingText(datasets: readonly DatasetInfo[]): string {
  if (datasets.length === 0) return 'it holds no datasets'
  const shown = datasets.slice(0, LISTED).map((d) => `${d.path} ${d.dtype} ${shapeText(d.shape)}${d.unreadable ? ` (${d.unreadable})` : ''}`)
  return shown.join('; ') + (datasets.length > LISTED ? `; … (${datasets.length - LISTED} more)` : '')
}

/**
 * NetCDF's cells that hold no value and its packing, as netCDF4-python (1.6) reads a variable by
 * default, masked and scaled (`_toma`, then `scale_factor` and `add_offset`): see `netcdfRule`.
 * Applied to HDF5 datasets of NetCDF-4 files and to any carrying `_FillValue`.
 */
export interface MissingRule {
  /** Cells equal to one of these are missing (after `_Unsigned`'s view). */
  values: number[]
  /** Those of `values` that are 64-bit integers beyond ±2^53, exactly: a cell beyond is missing only if it is one. */
  exact?: string[]
  /** A NaN fill or missing value: NaN cells are missing. */
  nan?: boolean
  min?: number
  max?: number
  /** `_Unsigned = "true"` on an integer variable: its bits are read as unsigned. */
  unsigned?: boolean
  /** The unpacking of the cells not missing, in netCDF4's arithmetic (numpy's types). */
  unpack?: UnpackStep[]
}

/** One operation of the unpacking, in float32 (rounded as numpy's float32 arithmetic) or float64. */
export type UnpackStep = { op: 'mul' | 'add'; by: number; f32: boolean } | { op: 'cast'; f32: boolean }

/** An attribute as the rule reads it: its element type and numbers, or its text. */
export interface AttrValue {
  dtype: string
  values: (number | bigint)[]
  text?: string
}

/** netcdf-c's default fill values (netcdf.h), by element type. */
const DEFAULT_FILL: Partial<Record<NumericDtype, bigint | number>> = {
  int8: -127n,
  uint8: 255n,
  int16: -32767n,
  uint16: 65535n,
  int32: -2147483647n,
  uint32: 4294967295n,
  int64: -9223372036854775806n,
  uint64: 18446744073709551614n,
  float32: Math.fround(9.969209968386869e36),
  float64: 9.969209968386869e36,
}

const INT_RANGE: Partial<Record<NumericDtype, [bigint, bigint]>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
}

/** Integers beyond this magnitude may not be doubles exactly. */
const EXACT = 2n ** 53n

/**
 * An attribute's values as the variable's type holds them, or undefined when one does not cast to
 * it exactly (netCDF4's `_check_safecast`: it then leaves the attribute out, as here): a fraction or
 * an out-of-range number for an integer variable, 2.1 (float64) for a float32 one. NaN casts to floats.
 */
function castExactly(a: AttrValue | undefined, dtype: NumericDtype): (number | bigint)[] | undefined {
  if (!a || a.text !== undefined || a.values.length === 0) return undefined
  const range = INT_RANGE[dtype]
  const out: (number | bigint)[] = []
  for (const v of a.values) {
    if (range) {
      if (typeof v === 'number' && !Number.isInteger(v)) return undefined
      const b = BigInt(v)
      if (b < range[0] || b > range[1]) return undefined
      out.push(b)
    } else {
      const x = Number(v)
      if (dtype === 'float32' && !Number.isNaN(x) && Math.fround(x) !== x) return undefined
      out.push(x)
    }
  }
  return out
}

/**
 * numpy 1.x's type for an array of `data` times or plus a scalar attribute (value-based: a scalar of
 * a kind no higher than the array's counts by the smallest type holding its value), where it is a
 * float; undefined for integer arithmetic (an integer array and an integer scalar, which wraps).
 */
function resultType(data: string, attr: string, value: number): 'float32' | 'float64' | undefined {
  const small = (t: string) => /^u?int(8|16)$/.test(t)
  if (data === 'float64') return 'float64'
  if (data === 'float32') {
    if (attr.startsWith('float')) return Math.abs(value) > 3.4028234663852886e38 && Number.isFinite(value) ? 'float64' : 'float32'
    // The smallest integer type holding the value: up to 16 bits keeps float32.
    return Number.isInteger(value) && value >= -32768 && value <= 65535 ? 'float32' : 'float64'
  }
  if (!attr.startsWith('float')) return undefined
  return attr === 'float32' && small(data) ? 'float32' : 'float64'
}

/**
 * The rule of a variable of `dtype` from its attributes (`attr(name)`), or the reason it is not read,
 * as netCDF4-python 1.6 masks and scales by default:
 * - `_Unsigned = "true"` on an integer variable views its bits as unsigned (and the attributes' with them);
 * - cells equal to `missing_value` or `_FillValue` are missing; without `_FillValue`, the type's
 *   default fill is, as `defaultFill` says: every type's in classic files and NetCDF-4 ones with fill
 *   on, all but bytes' where fill is off, none in other HDF5 files (and none under `_Unsigned`, whose
 *   unsigned cells never equal the signed default);
 * - cells outside `valid_range` (two values), else `valid_min` … `valid_max`, are missing;
 * - an attribute that does not cast exactly to the variable's type is left out (netCDF4 warns);
 * - `scale_factor` and `add_offset` (float32 or float64) unpack the other cells: `x * scale +
 *   offset`, each step in numpy's type for it (an int16 times a float32 scale is float32, an int32's
 *   float64; a float32 variable stays float32 unless the attribute is beyond float32's range); when
 *   both are present and change nothing, the cells are cast to the scale's type; alone, a scale of 1
 *   or an offset of 0 does nothing.
 * Refused: integer or multi-valued scale_factor and add_offset, and `_Unsigned` other than "true"
 * (netcdf-c reads such a variable as signed, netCDF4-python 1.6 as unsigned).
 */
export function netcdfRule(dtype: NumericDtype, attr: (name: string) => AttrValue | undefined, defaultFill: 'all' | 'not bytes' | 'none'): MissingRule | string {
  const integer = dtype in INT_RANGE
  const flag = attr('_Unsigned')
  if (integer && flag && (flag.text ?? '').toLowerCase() !== 'true') return `_Unsigned is not "true" (${JSON.stringify(flag.text ?? String(flag.values[0]))}: netcdf-c reads such a variable as signed, netCDF4-python as unsigned)`
  const unsigned = integer && flag !== undefined && /^int/.test(dtype)
  const bits = BigInt(bytesOf(dtype) * 8)
  const view = (v: number | bigint) => (typeof v === 'bigint' ? (unsigned ? BigInt.asUintN(Number(bits), v) : v) : v)
  const rule: MissingRule = { values: [], ...(unsigned && { unsigned }) }
  const mask = (v: number | bigint) => {
    const x = view(v)
    if (typeof x === 'number' && Number.isNaN(x)) rule.nan = true
    else {
      rule.values.push(Number(x))
      if (typeof x === 'bigint' && (x >= EXACT || x <= -EXACT)) (rule.exact ??= []).push(String(x))
    }
  }
  for (const v of castExactly(attr('missing_value'), dtype) ?? []) mask(v)
  const fill = castExactly(attr('_FillValue'), dtype)
  const byDefault = defaultFill === 'all' || (defaultFill === 'not bytes' && !/int8$/.test(dtype))
  if (fill) mask(fill[0])
  else if (byDefault && !unsigned && DEFAULT_FILL[dtype] !== undefined) mask(DEFAULT_FILL[dtype]!)
  const range = castExactly(attr('valid_range'), dtype)
  const [min, max] = range?.length === 2 ? range : [castExactly(attr('valid_min'), dtype)?.[0], castExactly(attr('valid_max'), dtype)?.[0]]
  if (min !== undefined && !Number.isNaN(Number(min))) rule.min = Number(view(min))
  if (max !== undefined && !Number.isNaN(Number(max))) rule.max = Number(view(max))
  const unpack = unpackSteps(unsigned ? (('u' + dtype) as NumericDtype) : dtype, attr('scale_factor'), attr('add_offset'))
  if (typeof unpack === 'string') return unpack
  if (unpack.length) rule.unpack = unpack
  return rule
}

/** netCDF4's unpacking of a `data` array by its scale_factor and add_offset, or why it is not done here. */
function unpackSteps(data: NumericDtype, scale: AttrValue | undefined, offset: AttrValue | undefined): UnpackStep[] | string {
  for (const [name, a] of [['scale_factor', scale], ['add_offset', offset]] as const) {
    if (!a) continue
    if (a.text !== undefined || a.values.length !== 1) return `packed values whose ${name} is ${a.text !== undefined ? 'text' : `${a.values.length} numbers`}, which netCDF4 does not apply as a scale`
  }
  const s = scale && { value: Number(scale.values[0]), type: scale.dtype }
  const o = offset && { value: Number(offset.values[0]), type: offset.dtype }
  const integer = (what: string, type: string) => `packed values whose ${what} is ${type} on ${data} cells (netCDF4 unpacks them in integer arithmetic, which wraps; it is not done here)`
  if (s && o) {
    if (!(o.value !== 0 || s.value !== 1)) return s.type.startsWith('float') ? [{ op: 'cast', f32: s.type === 'float32' }] : integer('scale_factor', s.type)
    const r1 = resultType(data, s.type, s.value)
    if (!r1) return integer('scale_factor', s.type)
    const r2 = resultType(r1, o.type, o.value)!
    return [{ op: 'mul', by: s.value, f32: r1 === 'float32' }, { op: 'add', by: o.value, f32: r2 === 'float32' }]
  }
  const [step, a, name] = s && s.value !== 1 ? (['mul', s, 'scale_factor'] as const) : o && o.value !== 0 ? (['add', o, 'add_offset'] as const) : [undefined]
  if (!step) return []
  const r = resultType(data, a.type, a.value)
  return r ? [{ op: step, by: a.value, f32: r === 'float32' }] : integer(name, a.type)
}

/** 64-bit integers a read found beyond ±2^53, exactly: each distinct value with its first element. */
export type Beyond = { at: number; value: string }[]

/**
 * Applies `rule` to `values` in place: `_Unsigned`'s view, the mask of missing cells, the unpacking
 * of the others. A 64-bit integer beyond ±2^53 (listed in `beyond`, or made one by the unsigned
 * view) is read only where it is missing; otherwise `inexact` names the first such element.
 */
export function applyRule(values: Float64Array, dtype: string, rule: MissingRule | undefined, beyond: Beyond = []): { mask?: Uint8Array; inexact?: { at: number; value: string } } {
  const wide = dtype === 'int64' || dtype === 'uint64'
  const exact = new Set(rule?.exact)
  const offenders = beyond.map((b) => ({ at: b.at, value: rule?.unsigned ? String(BigInt.asUintN(64, BigInt(b.value))) : b.value }))
  if (rule?.unsigned) {
    const span = 2 ** (8 * bytesOf(dtype as NumericDtype))
    for (let i = 0; i < values.length; i++) {
      if (!(values[i] < 0)) continue
      if (wide && !offenders.some((o) => o.at === i)) offenders.push({ at: i, value: String(2n ** 64n + BigInt(values[i])) })
      values[i] += span
    }
  }
  const inexact = offenders.filter((o) => !exact.has(o.value)).sort((a, b) => a.at - b.at)[0]
  if (inexact) return { inexact }
  if (!rule) return {}
  let mask: Uint8Array | undefined
  const fills = new Set(rule.values)
  const { nan, min, max, unpack } = rule
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (fills.has(v) || (nan && Number.isNaN(v)) || (min !== undefined && v < min) || (max !== undefined && v > max)) (mask ??= new Uint8Array(values.length))[i] = 1
    else if (unpack) values[i] = unpacked(v, unpack)
  }
  return { mask }
}

function unpacked(x: number, steps: UnpackStep[]): number {
  for (const s of steps) {
    if (s.op === 'cast') x = s.f32 ? Math.fround(x) : x
    else if (s.f32) x = Math.fround(s.op === 'mul' ? Math.fround(x) * Math.fround(s.by) : Math.fround(x) + Math.fround(s.by))
    else x = s.op === 'mul' ? x * s.by : x + s.by
  }
  return x
}

/** Deflate expands at most about 1032 : 1; a dataset's filters never make more bytes than that from the file's. */
export const MAX_EXPANSION = 1032
/** A chunk is decompressed whole; one larger than this is refused rather than inflated. */
export const MAX_CHUNK_BYTES = 256 * 2 ** 20

/**
 * What the file's bytes can hold of a dataset: its elements' bytes are at most the file's (stored
 * as they are), or MAX_EXPANSION times them (through filters). More is announced than was ever
 * written (the rest would be fill values), and is refused before anything is allocated for it.
 */
export function storageBound(elements: number, itemBytes: number, fileBytes: number, filtered: boolean): string | undefined {
  const announced = elements * itemBytes
  const most = fileBytes * (filtered ? MAX_EXPANSION : 1)
  if (announced <= most) return undefined
  return `announces ${elements.toExponential(3)} elements (${sizeText(announced)}) but the file has ${sizeText(fileBytes)}, which hold at most ${sizeText(most)} of them${filtered ? ' compressed' : ''}: most of it was never written and holds no values`
}

export function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${bytes} bytes`
}
