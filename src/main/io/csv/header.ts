// The header line of a CSV file: column names and where the data starts.
import { csvError, ioError, openForReading } from './errors'
import { splitLine } from './fields'

export interface CsvHeader {
  /** Column names, trimmed (files often put a space after each comma). */
  names: string[]
  /** Byte offset of the first data line. */
  dataStart: number
  /** File size in bytes. */
  bytes: number
}

const BOM = [0xef, 0xbb, 0xbf]
const PROBE = 64 * 1024

export async function readHeader(path: string): Promise<CsvHeader> {
  const file = await openForReading(path)
  try {
    const size = (await file.stat()).size
    // Read until the first line feed; a header is rarely longer than one probe.
    let head = Buffer.alloc(0)
    let nl = -1
    while (nl < 0 && head.length < size) {
      const chunk = Buffer.alloc(Math.min(PROBE, size - head.length))
      const { bytesRead } = await file.read(chunk, 0, chunk.length, head.length)
      if (bytesRead === 0) break
      const at = chunk.subarray(0, bytesRead).indexOf(10)
      if (at >= 0) nl = head.length + at
      head = Buffer.concat([head, chunk.subarray(0, bytesRead)])
    }
    const from = BOM.every((x, i) => head[i] === x) ? BOM.length : 0
    if (head.length <= from) throw csvError(path, undefined, 'empty file')
    const lineEnd = nl < 0 ? head.length : nl
    const line = head.toString('utf8', from, lineEnd > from && head[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd)
    if (line.trim() === '') throw csvError(path, 1, 'the header line is empty')
    const names: string[] = []
    for (const f of splitLine(line)) {
      if ('error' in f) throw csvError(path, 1, `header: ${f.error}`)
      names.push(f.text.trim())
    }
    return { names, dataStart: nl < 0 ? head.length : nl + 1, bytes: size }
  } catch (e) {
    if (e instanceof Error && 'code' in e && typeof (e as NodeJS.ErrnoException).errno === 'number') throw ioError(path, e)
    throw e
  } finally {
    await file.close()
  }
}
