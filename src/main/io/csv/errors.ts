// Errors about a CSV file's content name the file and, when there is one, the 1-based line (the
// header is line 1) and column, like a compiler: `ACC_001.csv:1234:3: column "acc_y": "abc" is not a number`.
import { ApiError } from '../../../shared/errors'

export function csvError(path: string, line: number | undefined, message: string, column?: number): ApiError {
  const where = line === undefined ? path : column === undefined ? `${path}:${line}` : `${path}:${line}:${column}`
  return new ApiError('invalid-input', `${where}: ${message}`)
}
