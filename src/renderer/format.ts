// Numbers in tables: the charts' notation (shared), with units where the dashboard shows them.
import { formatNumber } from '../shared/charts/format'
import { progressPercent } from '../shared/jobs'

export { formatNumber }

export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : formatNumber(value, 3)} ${units[unit]}`
}

export function formatMs(ms: number | undefined): string {
  return ms === undefined ? '—' : `${formatNumber(ms, 3)} ms`
}

/** A job's or a phase's progress (rounded down: 100 % only when done). */
export function formatPercent(fraction: number): string {
  return `${progressPercent(fraction)}%`
}

/** A job's throughput as the backend reports it, e.g. "412 MB/s" or "8.2 M rows/s". */
export function formatThroughput(throughput: { value: number; unit: string } | undefined): string {
  return throughput ? `${formatNumber(throughput.value, 3)} ${throughput.unit}` : ''
}

export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path
}
