// Result tables as CSV (RFC 4180: quoted where needed, CRLF-free rows ending in \n).
import type { ResultTable } from './definition'

export function tableCsv(table: ResultTable): string {
  return [table.columns, ...table.rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n'
}

function csvField(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}
