// Progress of long work on stderr: a bar redrawn in place on a terminal; otherwise a line per phase
// and, within a long phase, a line at least every LOG_EVERY_MS (what it is doing, its rate, the time
// so far and left), so that a log or a batch job's output shows the work going on; or with
// `--progress json` every event as one JSON line (NDJSON).
import { phaseKey, progressPercent, type JobProgress } from '../../shared/jobs'
import { TimeLeft } from '../../shared/time-left'

/** Without a terminal, a line at least this often while the work goes on. */
export const LOG_EVERY_MS = 10_000

/** The interval of those lines: LOG_EVERY_MS, or PARALAB_PROGRESS_MS where set (a shorter one for tests, a longer for quiet logs). */
export function logEveryMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.PARALAB_PROGRESS_MS)
  return env.PARALAB_PROGRESS_MS !== undefined && Number.isFinite(v) && v >= 50 ? v : LOG_EVERY_MS
}

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
  if (!stream.isTTY) return progressLog(stream, started, logEveryMs())
  let drawn = false
  const timeLeft = new TimeLeft(started)
  return {
    update(p) {
      const now = performance.now()
      timeLeft.observe(p, now)
      const left = timeLeft.ms(now)
      const width = 30
      const fraction = Math.max(0, Math.min(1, p.fraction))
      const filled = Math.floor(fraction * width)
      const elapsed = (now - started) / 1000
      // The remaining time at the pace so far, once there is a pace to go by.
      const eta = left === null ? '' : `  ETA ${clock(Math.ceil(left / 1000))}`
      const rate = p.throughput ? `  ${p.throughput.value.toFixed(1)} ${p.throughput.unit}` : ''
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(progressPercent(fraction)).padStart(3)}%  ${clock(elapsed)}${eta}  ${p.phase}${rate}`
      stream.write(`\r${line.slice(0, (stream.columns || 100) - 1)}\x1b[K`)
      drawn = true
    },
    done() {
      if (drawn) stream.write('\r\x1b[K')
    },
  }
}

/** A line per phase, and one at least every `every` ms while a phase goes on (a timer's, when no event comes). */
function progressLog(stream: NodeJS.WriteStream, started: number, every: number): ProgressReporter {
  let lastKey = ''
  let printed = started
  let latest: JobProgress | undefined
  const timeLeft = new TimeLeft(started)
  const line = (p: JobProgress, now: number, periodic: boolean) => {
    printed = now
    let text = `paralab: ${String(progressPercent(p.fraction)).padStart(3)}%  ${p.phase}`
    if (periodic) {
      const left = timeLeft.ms(now)
      if (p.throughput) text += `  ${p.throughput.value.toPrecision(3)} ${p.throughput.unit}`
      text += `  ${clock((now - started) / 1000)} so far${left === null ? '' : `, about ${clock(Math.ceil(left / 1000))} left`}`
    }
    stream.write(text + '\n')
  }
  const timer = setInterval(() => {
    const now = performance.now()
    if (latest && now - printed >= every) line(latest, now, true)
  }, Math.min(every, 1000))
  // The timer keeps no process alive: its work does.
  timer.unref()
  return {
    update(p) {
      const now = performance.now()
      latest = p
      timeLeft.observe(p, now)
      // The job's end (its phase `done`) is said once, by the final line.
      if (p.fraction >= 1) return
      const key = phaseKey(p.phase)
      if (key !== lastKey) {
        lastKey = key
        line(p, now, false)
      } else if (now - printed >= every) line(p, now, true)
    },
    done(finished) {
      clearInterval(timer)
      if (finished) stream.write(`paralab: 100%  done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
    },
  }
}

/** Seconds as m:ss. */
function clock(s: number): string {
  const m = Math.floor(s / 60)
  return `${m}:${String(Math.floor(s % 60)).padStart(2, '0')}`
}
