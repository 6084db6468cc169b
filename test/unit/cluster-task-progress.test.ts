// A task's progress as the Cluster page shows it, read from the events its folder holds: a run that
// ended with an error shows how far it came and why, never a full "done" bar.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { taskError, taskProgress } from '../../src/main/cluster/follow'

const dir = mkdtempSync(join(tmpdir(), 'paralab-task-progress-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function task(name: string, events: object[], error?: object): string {
  const t = join(dir, name)
  mkdirSync(t)
  writeFileSync(join(t, 'progress.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n')
  if (error) writeFileSync(join(t, 'error.json'), JSON.stringify(error))
  return t
}

describe('a task\'s progress', () => {
  it('is done at 100% when the run completed', async () => {
    const t = task('ok', [{ phase: 'serial f64', fraction: 0.5 }, { type: 'done', exit_code: 0, elapsed_ms: 90 }])
    expect(await taskProgress(t)).toEqual({ phase: 'done', fraction: 1, elapsed_ms: 90 })
    expect(await taskError(t)).toBeUndefined()
  })

  it('is how far a failed run came, saying it ended with an error, and the error in its own words', async () => {
    const t = task('failed', [{ phase: 'loading b.csv', fraction: 0.3, elapsed_ms: 10 }, { type: 'done', exit_code: 1, elapsed_ms: 40 }], { code: 'invalid-input', message: 'b.csv:3:2: column "acc_y": "oops" is not a number' })
    expect(await taskProgress(t)).toEqual({ phase: 'ended with exit 1 in loading b.csv', fraction: 0.3, elapsed_ms: 40 })
    expect(await taskError(t)).toBe('b.csv:3:2: column "acc_y": "oops" is not a number')
  })

  it('is at 0 for a run that failed before its first progress event', async () => {
    const t = task('early', [{ type: 'done', exit_code: 1, elapsed_ms: 5 }], { message: 'no such file' })
    expect(await taskProgress(t)).toEqual({ phase: 'ended with exit 1', fraction: 0, elapsed_ms: 5 })
  })

  it('reads no error through a FIFO or a symlink planted in the task folder, nor a huge one', async () => {
    const fifo = task('fifo', [{ type: 'done', exit_code: 1 }])
    execFileSync('mkfifo', [join(fifo, 'error.json')])
    expect(await taskError(fifo)).toBeUndefined()
    const link = task('link', [{ type: 'done', exit_code: 1 }])
    writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ message: 'not the task\'s' }))
    symlinkSync(join(dir, 'elsewhere.json'), join(link, 'error.json'))
    expect(await taskError(link)).toBeUndefined()
    const huge = task('huge', [{ type: 'done', exit_code: 1 }], { message: 'x'.repeat(100_000) })
    expect(await taskError(huge)).toBeUndefined()
  })
})
