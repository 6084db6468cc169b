// A progress bar on stderr for long work, drawn only when stderr is a terminal.
import type { JobProgress } from '../../shared/jobs'

export function progressBar(stream: NodeJS.WriteStream = process.stderr): { update(p: JobProgress): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} }
  let drawn = false
  return {
    update(p) {
      const width = 30
      const filled = Math.round(Math.max(0, Math.min(1, p.fraction)) * width)
      const rate = p.throughput ? `  ${p.throughput.value.toFixed(1)} ${p.throughput.unit}` : ''
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(p.fraction * 100).toFixed(0).padStart(3)}%  ${p.phase}${rate}`
      stream.write(`\r${line.slice(0, (stream.columns || 100) - 1)}\x1b[K`)
      drawn = true
    },
    done() {
      if (drawn) stream.write('\r\x1b[K')
    },
  }
}
