// Small measuring helpers for benchmarks: medians of repeated timings, and the peak resident
// memory of a child process.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { median } from '../../../shared/median'

export { median }

/** Runs `fn` `times` times and returns the median wall time in ms. */
export async function medianMs(times: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < times; i++) {
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
  }
  return median(samples)
}

export interface ChildRun {
  ms: number
  code: number | null
  stdout: string
  stderr: string
  /** Peak resident set (VmHWM) in MB, read from /proc while the child runs (Linux). */
  peakRssMb?: number
}

/** Runs a command, timing it and sampling its peak resident memory. */
export function runChild(cmd: string, args: string[]): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const t = performance.now()
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let peak: number | undefined
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const sample = async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '')
      const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1]
      if (kb) peak = Math.max(peak ?? 0, Number(kb) / 1024)
    }
    const timer = setInterval(sample, 20)
    child.once('error', reject)
    child.once('exit', (code) => {
      clearInterval(timer)
      resolve({ ms: performance.now() - t, code, stdout, stderr, peakRssMb: peak })
    })
  })
}
