// DuckDB (a development dependency) as the reference writer of Parquet files for tests: a query's
// rows written both as CSV and as Parquet, so a reader's result on each can be compared.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'

let connection: Promise<DuckDBConnection> | undefined

export function duckdb(): Promise<DuckDBConnection> {
  connection ??= DuckDBInstance.create(':memory:').then((db) => db.connect())
  return connection
}

/** Runs SQL statements in order. */
export async function sql(...statements: string[]): Promise<void> {
  const c = await duckdb()
  for (const s of statements) await c.run(s)
}

/** A quoted SQL string literal. */
export const lit = (s: string) => `'${s.replace(/'/g, "''")}'`

/** Writes `query`'s rows to `csv` (header, comma-separated) and to `parquet` with the given options. */
export async function writeBoth(query: string, csv: string, parquet: string, options = 'COMPRESSION zstd'): Promise<void> {
  await sql(`COPY (${query}) TO ${lit(csv)} (FORMAT csv, HEADER)`, `COPY (${query}) TO ${lit(parquet)} (FORMAT parquet, ${options})`)
}
