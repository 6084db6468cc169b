// What a path is when it is not a regular file, for messages that refuse it before reading:
// opening a FIFO would wait for a writer forever, and a folder or a device is no data file.
import type { Stats } from 'node:fs'

export function notAFile(s: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): string {
  if (s.isDirectory()) return 'a folder'
  if (s.isFIFO()) return 'a named pipe (FIFO)'
  if (s.isSocket()) return 'a socket'
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device'
  return 'not a regular file'
}
