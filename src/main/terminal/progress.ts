// Progress of long work on stderr: a bar redrawn in place on a terminal; otherwise one line per
// phase (a log stays readable), or with `--progress json` every event as one JSON line (NDJSON).
import { phaseKey, type JobProgress } from '../../shared/jobs'

export type ProgressStyle = 'auto' | 'json'

export interface ProgressReporter {
  update(p: JobProgress): void
  /** The job ended; `finished`: it completed, which a log or a JSON stream gets as a last line. */
  done(finished: boolean): void
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr, style: ProgressStyle = 'auto'): ProgressReporter {
  const started = performance.now()
  if (style === 'json')
    return {
      update: (p) => stream.write(JSON.stringify({ ...p, elapsed_ms: Math.round(performance.now() - started) }) + '\n'),
      done(finished) {
        if (finished) stream.write(JSON.stringify({ type: 'done', elapsed_ms: Math.round(performance.now() - started) }) + '\n')
      },
    }
  if (!stream.isTTY) {
    let last = ''
    return {
      update(p) {
        const key = phaseKey(p.phase)
        if (key === last) return
        last = key
        stream.write(`paralab: ${(p.fraction * 100).toFixed(0).padStart(3)}%  ${p.phase}\n`)
      },
      done(finished) {
        if (finished) stream.write(`paralab: 100%  done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
      },
    }
  }
  let drawn = false
  return {
    update(p) {
      const width = 30
      const fraction = Math.max(0, Math.min(1, p.fraction))
      const filled = Math.round(fraction * width)
      const elapsed = (performance.now() - started) / 1000
      // The remaining time at the pace so far, once there is a pace to go by.
      const eta = fraction > 0.02 && fraction < 1 ? `  ETA ${clock((elapsed * (1 - fraction)) / fraction)}` : ''
      const rate = p.throughput ? `  ${p.throughput.value.toFixed(1)} ${p.throughput.unit}` : ''
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${clock(elapsed)}${eta}  ${p.phase}${rate}`
      stream.write(`\r${line.slice(0, (stream.columns || 100) - 1)}\x1b[K`)
      drawn = true
    },
    done() {
      if (drawn) stream.write('\r\x1b[K')
    },
  }
}

/** Seconds as m:ss. */
function clock(s: number): string {
  const m = Math.floor(s / 60)
  return `${m}:${String(Math.floor(s % 60)).padStart(2, '0')}`
}
