// A task's logs under the local executor are opened to append only when they are regular files:
// a FIFO planted in a task folder must not block the run, nor a symlink redirect its writes.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openTaskLog } from '../../src/main/cluster/local-executor'

describe('local executor task logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-logs-'))

  it('appends to a regular file', async () => {
    writeFileSync(join(dir, 'stdout.log'), 'a\n')
    const f = await openTaskLog(join(dir, 'stdout.log'))
    await f.write('b\n')
    await f.close()
    expect(readFileSync(join(dir, 'stdout.log'), 'utf8')).toBe('a\nb\n')
  })

  it('refuses a FIFO at once and a symlink without writing through it', async () => {
    execFileSync('mkfifo', [join(dir, 'fifo.log')])
    const t0 = Date.now()
    await expect(openTaskLog(join(dir, 'fifo.log'))).rejects.toThrow(/not a regular file|cannot open/)
    expect(Date.now() - t0).toBeLessThan(2000)
    writeFileSync(join(dir, 'victim'), 'keep')
    symlinkSync(join(dir, 'victim'), join(dir, 'link.log'))
    await expect(openTaskLog(join(dir, 'link.log'))).rejects.toThrow(/symbolic link/)
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('keep')
  })
})
