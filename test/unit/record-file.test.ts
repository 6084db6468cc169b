import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { entryOf, isPlainName, readJsonRecord, readRecordFile, readRecordTail } from '../../src/main/io/record-file'

describe('reading a record back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralab-record-'))
  writeFileSync(join(dir, 'ok.json'), '{"a":1}')

  it('reads a regular file within its bound', async () => {
    expect(await readJsonRecord(join(dir, 'ok.json'), { maxBytes: 100 })).toEqual({ a: 1 })
  })

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'fifo.json')])
    const t0 = Date.now()
    await expect(readRecordFile(join(dir, 'fifo.json'), { maxBytes: 100 })).rejects.toThrow(/named pipe/)
    expect(Date.now() - t0).toBeLessThan(2000)
  })

  it('refuses a symlink, a folder, a file past its bound and text that is not JSON', async () => {
    symlinkSync('/etc/passwd', join(dir, 'link.json'))
    await expect(readRecordFile(join(dir, 'link.json'), { maxBytes: 1e6 })).rejects.toThrow(/symbolic link/)
    mkdirSync(join(dir, 'sub'))
    await expect(readRecordFile(join(dir, 'sub'), { maxBytes: 1e6 })).rejects.toThrow(/a folder/)
    await expect(readRecordFile(join(dir, 'ok.json'), { maxBytes: 3 })).rejects.toThrow(/more than the 3/)
    writeFileSync(join(dir, 'cut.json'), '{"a":')
    await expect(readJsonRecord(join(dir, 'cut.json'), { maxBytes: 100 })).rejects.toThrow(/cut\.json is not valid JSON/)
  })

  it('reads the bounded tail of a growing log, with the same refusals', async () => {
    writeFileSync(join(dir, 'events.ndjson'), 'x'.repeat(100_000) + '\n{"last":1}\n')
    expect((await readRecordTail(join(dir, 'events.ndjson'), { maxBytes: 20 })).toString()).toBe('x'.repeat(8) + '\n{"last":1}\n')
    expect((await readRecordTail(join(dir, 'ok.json'), { maxBytes: 1000 })).toString()).toBe('{"a":1}')
    execFileSync('mkfifo', [join(dir, 'fifo.log')])
    await expect(readRecordTail(join(dir, 'fifo.log'), { maxBytes: 100 })).rejects.toThrow(/fifo\.log is a named pipe \(FIFO\)/)
    symlinkSync('/etc/passwd', join(dir, 'link.log'))
    await expect(readRecordTail(join(dir, 'link.log'), { maxBytes: 100 })).rejects.toThrow(/symbolic link/)
  })

  it('takes only plain names from a record', () => {
    for (const bad of ['', '.', '..', '../x', 'a/b', '/etc/passwd', 'a\0b', 'a\\b', 3, null]) expect(isPlainName(bad)).toBe(false)
    expect(isPlainName('band-0.f64')).toBe(true)
    expect(() => entryOf(dir, '../../outside/band.f64', 'manifest.json')).toThrow(/manifest\.json names "\.\.\/\.\.\/outside\/band\.f64"/)
  })
})
