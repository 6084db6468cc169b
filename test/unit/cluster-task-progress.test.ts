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

/** A job folder `name` whose task 0 wrote `events` (and `error`); returns the job folder. */
function task(name: string, events: object[], error?: object): string {
  const t = join(dir, name, 'tasks', '0')
  mkdirSync(t, { recursive: true })
  writeFileSync(join(t, 'progress.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n')
  if (error) writeFileSync(join(t, 'error.json'), JSON.stringify(error))
  return join(dir, name)
}
const t0 = (job: string) => join(job, 'tasks', '0')

describe('a task\'s progress', () => {
  it('is done at 100% when the run completed', async () => {
    const t = task('ok', [{ phase: 'serial f64', fraction: 0.5 }, { type: 'done', exit_code: 0, elapsed_ms: 90 }])
    expect(await taskProgress(t, 0)).toEqual({ phase: 'done', fraction: 1, elapsed_ms: 90 })
    expect(await taskError(t, 0)).toBeUndefined()
  })

  it('is how far a failed run came, saying it ended with an error, and the error in its own words', async () => {
    const t = task('failed', [{ phase: 'loading b.csv', fraction: 0.3, elapsed_ms: 10 }, { type: 'done', exit_code: 1, elapsed_ms: 40 }], { code: 'invalid-input', message: 'b.csv:3:2: column "acc_y": "oops" is not a number' })
    expect(await taskProgress(t, 0)).toEqual({ phase: 'ended with exit 1 in loading b.csv', fraction: 0.3, elapsed_ms: 40 })
    expect(await taskError(t, 0)).toBe('b.csv:3:2: column "acc_y": "oops" is not a number')
  })

  it('is at 0 for a run that failed before its first progress event', async () => {
    const t = task('early', [{ type: 'done', exit_code: 1, elapsed_ms: 5 }], { message: 'no such file' })
    expect(await taskProgress(t, 0)).toEqual({ phase: 'ended with exit 1', fraction: 0, elapsed_ms: 5 })
  })

  it('reads no error through a FIFO or a symlink planted in the task folder, nor through a linked task folder or tasks/, nor a huge one', async () => {
    const fifo = task('fifo', [{ type: 'done', exit_code: 1 }])
    execFileSync('mkfifo', [join(t0(fifo), 'error.json')])
    expect(await taskError(fifo, 0)).toBeUndefined()
    const link = task('link', [{ type: 'done', exit_code: 1 }])
    writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ message: 'not the task\'s' }))
    symlinkSync(join(dir, 'elsewhere.json'), join(t0(link), 'error.json'))
    expect(await taskError(link, 0)).toBeUndefined()
    const huge = task('huge', [{ type: 'done', exit_code: 1 }], { message: 'x'.repeat(100_000) })
    expect(await taskError(huge, 0)).toBeUndefined()
    // A link in place of the task's folder, or of tasks/, to a folder of another job's records: not read.
    const other = task('other', [{ phase: 'elsewhere', fraction: 0.9 }], { message: 'not the task\'s' })
    mkdirSync(join(dir, 'linked', 'tasks'), { recursive: true })
    symlinkSync(t0(other), join(dir, 'linked', 'tasks', '0'))
    symlinkSync(join(other, 'tasks'), join(dir, 'linked-tasks'))
    mkdirSync(join(dir, 'outer'))
    symlinkSync(join(other, 'tasks'), join(dir, 'outer', 'tasks'))
    for (const job of [join(dir, 'linked'), join(dir, 'outer')]) {
      expect(await taskError(job, 0)).toBeUndefined()
      expect(await taskProgress(job, 0)).toBeNull()
    }
    expect(await taskProgress(other, 0)).toEqual({ phase: 'elsewhere', fraction: 0.9 })
  })
})
