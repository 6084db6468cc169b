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

/** A reference reader's column: its non-null values as doubles, in order, and its nulls. */
export interface ColumnReference {
  values: number[]
  nulls: number
}

/** A quoted SQL identifier. */
export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\))$/

/** The columns of a Parquet file DuckDB reads as numbers, in file order. */
export async function duckdbNumericColumns(path: string): Promise<string[]> {
  const types = (await (await duckdb()).runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${lit(path)})`)).getRowObjects()
  return types.filter((t) => NUMERIC.test(String(t.column_type))).map((t) => String(t.column_name))
}

/**
 * DuckDB's reading of a Parquet file's columns (read_parquet), in one pass: each one's non-null
 * values as doubles — floats as DuckDB's double, integers and decimals as the double their exact
 * text reads as — and its nulls.
 */
export async function duckdbColumns(path: string, columns: string[]): Promise<Record<string, ColumnReference>> {
  const c = await duckdb()
  const list = columns.map(ident).join(', ')
  const types = (await c.runAndReadAll(`DESCRIBE SELECT ${list} FROM read_parquet(${lit(path)})`)).getRowObjects()
  const floating = types.map((t) => ['FLOAT', 'DOUBLE'].includes(String(t.column_type)))
  const select = columns.map((col, k) => `${ident(col)}::${floating[k] ? 'DOUBLE' : 'VARCHAR'}`).join(', ')
  const rows = (await c.runAndReadAll(`SELECT ${select} FROM read_parquet(${lit(path)})`)).getRows()
  const out: Record<string, ColumnReference> = Object.fromEntries(columns.map((col) => [col, { values: [], nulls: 0 }]))
  for (const row of rows)
    columns.forEach((col, k) => {
      if (row[k] === null) out[col].nulls++
      else out[col].values.push(Number(row[k]))
    })
  return out
}
