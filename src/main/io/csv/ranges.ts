// Splits a file's data into byte ranges of whole lines, so threads can parse them independently.
import type { FileHandle } from 'node:fs/promises'
import { ioError, openForReading } from '../open-for-reading'

export interface ByteRange {
  start: number
  end: number
}

const PROBE = 64 * 1024

/**
 * Cuts [start, end) about every `rangeBytes` bytes, each cut just after a line feed. Cutting
 * ignores quotes: a quoted line break, which the parser rejects anyway, is the only way a cut
 * can fall inside a record, and the range before the cut reports it.
 */
export async function splitRanges(path: string, start: number, end: number, rangeBytes: number): Promise<ByteRange[]> {
  const ranges: ByteRange[] = []
  if (start >= end) return ranges
  const file = await openForReading(path)
  try {
    const probe = Buffer.alloc(PROBE)
    let from = start
    while (end - from > rangeBytes) {
      const cut = await lineStartAfter(file, probe, from + rangeBytes, end)
      if (cut >= end) break
      ranges.push({ start: from, end: cut })
      from = cut
    }
    ranges.push({ start: from, end })
    return ranges
  } catch (e) {
    throw ioError(path, e)
  } finally {
    await file.close()
  }
}

/** Offset just after the first line feed at or after `at`, or `end` when there is none. */
async function lineStartAfter(file: FileHandle, probe: Buffer, at: number, end: number): Promise<number> {
  for (let pos = at; pos < end; ) {
    const { bytesRead } = await file.read(probe, 0, Math.min(probe.length, end - pos), pos)
    if (bytesRead === 0) break
    const nl = probe.subarray(0, bytesRead).indexOf(10)
    if (nl >= 0) return pos + nl + 1
    pos += bytesRead
  }
  return end
}
