// Files runs keep beside the history: bounded in bytes (the oldest runs' go first), read back only as
// regular files of plain names, deleted only as such, and dropped with their run from the history.
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KeptFiles, keptMaxBytes } from '../../src/main/backend/kept-files'
import { RunHistory } from '../../src/main/backend/history'

const root = mkdtempSync(join(tmpdir(), 'paralab-kept-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const fresh = () => join(root, String(n++))
const id = (k: number) => `2026010${k}T000000000Z-correlation-0000000${k}`

describe('kept files', () => {
  it('keep at most their bound: the oldest runs\' files make room, one over the bound alone is not kept', async () => {
    const dir = fresh()
    const kept = new KeptFiles(dir, 100)
    expect(await kept.write(id(1), 'matrix.npy', 60, new Uint8Array(60))).toBe(true)
    expect(await kept.write(id(2), 'matrix.npy', 30, new Uint8Array(30))).toBe(true)
    expect(await kept.write(id(3), 'matrix.npy', 60, new Uint8Array(60))).toBe(true)
    expect(readdirSync(dir).sort()).toEqual([id(2), id(3)])
    expect(await kept.write(id(4), 'matrix.npy', 101, new Uint8Array(101))).toBe(false)
    expect(readdirSync(dir).sort()).toEqual([id(2), id(3)])
    expect((await kept.open(id(3), 'matrix.npy')).size).toBe(60)
  })

  it('refuse names that are paths, run ids that are not, links and missing files', async () => {
    const dir = fresh()
    const kept = new KeptFiles(dir, 1000)
    await kept.write(id(1), 'matrix.npy', 3, 'abc')
    await expect(kept.open(id(1), '../x')).rejects.toThrow(/plain name/)
    await expect(kept.open('../../etc', 'passwd')).rejects.toThrow(/run must be a run id/)
    await expect(kept.write(id(1), '.hidden', 1, 'a')).rejects.toThrow(/plain name/)
    symlinkSync('/etc/passwd', join(dir, id(1), 'link.npy'))
    await expect(kept.open(id(1), 'link.npy')).rejects.toThrow(/symbolic link/)
    await expect(kept.open(id(2), 'matrix.npy')).rejects.toThrow(/keeps no matrix.npy/)
  })

  it('delete only regular files of kept names, and the folder when nothing else is in it', async () => {
    const dir = fresh()
    const kept = new KeptFiles(dir, 1000)
    await kept.write(id(1), 'matrix.npy', 3, 'abc')
    const other = join(root, 'not-ours')
    mkdirSync(other)
    writeFileSync(join(other, 'keep.txt'), 'x')
    symlinkSync(other, join(dir, id(1), 'link'))
    writeFileSync(join(dir, id(1), 'Not Ours.txt'), 'x')
    await kept.drop(id(1))
    expect(readdirSync(join(dir, id(1))).sort()).toEqual(['Not Ours.txt', 'link'])
    expect(existsSync(join(other, 'keep.txt'))).toBe(true)
  })

  it('go with their run when the history drops it', async () => {
    const dir = fresh()
    const kept = new KeptFiles(join(dir, 'kept'), 1000)
    const history = new RunHistory(dir, 1, undefined, undefined, (run) => kept.drop(run))
    const envelope = (at: string) => ({ workload: 'stats', paralabVersion: '0', createdAt: at, params: {}, input: { files: [] }, host: {}, timings: {}, results: {} }) as never
    const first = RunHistory.newId('stats', '2026-01-01T00:00:00Z')
    await kept.write(first, 'matrix.npy', 3, 'abc')
    await history.save(envelope('2026-01-01T00:00:00Z'), first)
    await history.save(envelope('2026-01-02T00:00:00Z'))
    expect(existsSync(join(dir, 'kept', first))).toBe(false)
  })

  it('take their bound from PARALAB_KEPT_BYTES, 8 GiB by default', () => {
    expect(keptMaxBytes({})).toBe(8 * 2 ** 30)
    expect(keptMaxBytes({ PARALAB_KEPT_BYTES: '1000' })).toBe(1000)
    expect(() => keptMaxBytes({ PARALAB_KEPT_BYTES: 'lots' })).toThrow(/PARALAB_KEPT_BYTES must be a number of bytes/)
  })
})
