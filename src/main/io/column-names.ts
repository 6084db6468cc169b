// One rule for column names in every table format (CSV, Parquet, Arrow): a table whose columns
// repeat a name is refused, naming both positions — a name picks one column, and which one would
// otherwise be a guess. The CSV header applies it as it reads (csv/header.ts); binary tables when
// their schema is read.
import { ApiError } from '../../shared/errors'
import { quoteText } from './quote'

/** The message for two columns (1-based) of one name. */
export const duplicateNameMessage = (first: number, second: number, name: string): string =>
  `columns ${first} and ${second} are both named ${quoteText(name)}; rename one of them`

/** Refuses `names` (a schema's columns, in file order) when one repeats; `where` follows the file's name. */
export function refuseDuplicateNames(path: string, names: readonly string[], where = ''): void {
  const seen = new Map<string, number>()
  names.forEach((name, i) => {
    const first = seen.get(name)
    if (first !== undefined) throw new ApiError('invalid-input', `${path}${where}: ${duplicateNameMessage(first + 1, i + 1, name)}`)
    seen.set(name, i)
  })
}
