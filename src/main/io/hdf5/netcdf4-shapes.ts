// A NetCDF-4 variable's shape as netcdf-c gives it: each dimension's length, which for an unlimited
// dimension is that of the longest variable over it (HDF5 extends each dataset only as far as it is
// written: a record variable written to record 9 while another reached record 10 spans 11 records).
// The rows past a dataset's own end hold netcdf-c's fill value for them: its `_FillValue`, else its
// type's default, masked or not as the variable's other fill values are.
import { type AttrValue, type DatasetInfo, fillOf, isNumeric } from './datasets'

interface Scaled {
  path: string
  metadata: { shape: number[] | null }
  get_attached_scales(index: number): string[] | null
}

/** Widens each listed variable's `info.shape` to its dimensions' lengths (`dimensions`: the datasets of dimensions without a variable). */
export function netcdf4Shapes(vars: { d: Scaled; info: DatasetInfo; attr: (name: string) => AttrValue | undefined }[], dimensions: Scaled[]): void {
  const scalesOf = (d: Scaled) =>
    Array.from({ length: d.metadata.shape?.length ?? 0 }, (_, i) => {
      try {
        return d.get_attached_scales(i)?.[0] ?? null
      } catch {
        return null
      }
    })
  const length = new Map<string, number>()
  const note = (scale: string | null, n: number) => scale !== null && length.set(scale, Math.max(length.get(scale) ?? 0, n))
  for (const dim of dimensions) note(dim.path, dim.metadata.shape?.[0] ?? 0)
  const scales = vars.map(({ d }) => scalesOf(d))
  vars.forEach(({ d }, k) => {
    // A coordinate variable is its dimension's scale.
    note(d.path, d.metadata.shape?.[0] ?? 0)
    scales[k].forEach((s, i) => note(s, d.metadata.shape?.[i] ?? 0))
  })
  vars.forEach(({ info, attr }, k) => {
    if (info.unreadable || !isNumeric(info.dtype)) return
    scales[k].forEach((s, i) => {
      const n = s === null ? undefined : length.get(s)
      if (n === undefined || n <= info.shape[i]) return
      if (i > 0) {
        info.unreadable = `its dimension ${i + 1} (${s}) is ${n} long, past the ${info.shape[i]} its storage holds (an unlimited dimension other than the first)`
        return
      }
      info.storedRows = info.shape[0]
      info.pad = fillOf(info.dtype as never, attr)
      info.shape = [n, ...info.shape.slice(1)]
    })
  })
}
