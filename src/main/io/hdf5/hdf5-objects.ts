// What Paralab reads of an HDF5 object through h5wasm beyond its values: an attribute's type and
// numbers, a dataset's element type by name, whether it is a NetCDF-4 dimension, whether a path is a
// link (which is not followed).
import type { AttrValue } from './datasets'

type H5 = typeof import('h5wasm/node').default
type Dataset = InstanceType<H5['Dataset']>
type Group = InstanceType<H5['Group']>

/** An attribute's element type and numbers, or its text; undefined when absent or unreadable. */
export function attrValue(d: Dataset, name: string): AttrValue | undefined {
  if (!(name in d.attrs)) return undefined
  try {
    const a = d.attrs[name]
    const v = a.value as unknown
    if (typeof v === 'string' || a.metadata.type === 3) return { dtype: 'text', values: [], text: [v].flat(4).join('') }
    const list = (ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number | bigint>) : Array.isArray(v) ? v.flat(4) : [v]) as unknown[]
    if (!list.every((x) => typeof x === 'number' || typeof x === 'bigint')) return undefined
    return { dtype: dtypeOf(a.metadata), values: list as (number | bigint)[] }
  } catch {
    return undefined
  }
}

/** NetCDF-4 keeps a dimension without a variable as an empty dataset so named: no data. */
export function netcdfDimension(d: Dataset): boolean {
  try {
    const name = 'NAME' in d.attrs ? d.get_attribute('NAME', true) : null
    return typeof name === 'string' && name.startsWith('This is a netCDF dimension but not a netCDF variable')
  } catch {
    return false
  }
}

/** A soft or external link (h5wasm's lookups follow both). */
export function isLink(group: Group, path: string): boolean {
  try {
    return group.get_link(path) != null || 'filename' in (group.get_external_link(path) ?? {})
  } catch {
    return true
  }
}

/** HDF5 type classes: 0 integer, 1 float, 3 string, 6 compound, 8 enum, 9 vlen, 10 array. */
export function dtypeOf(meta: { type: number; size: number; signed: boolean; vlen: boolean }): string {
  if (meta.type === 0) return `${meta.signed ? 'int' : 'uint'}${meta.size * 8}`
  if (meta.type === 1) return `float${meta.size * 8}`
  return ({ 2: 'time', 3: 'string', 4: 'bitfield', 5: 'opaque', 6: 'compound', 7: 'reference', 8: 'enum', 9: 'vlen', 10: 'array' } as Record<number, string>)[meta.type] ?? `class ${meta.type}`
}
