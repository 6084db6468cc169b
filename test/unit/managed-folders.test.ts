// Folders Paralab manages are never turned against it: a link planted at any component (the kept
// folder, a run's folder, a file) is never followed for a read, a download or a deletion, and a file
// of another user is neither believed nor deleted. Victim files behind each link must survive.
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { KeptFiles } from '../../src/main/backend/kept-files'
import { RunHistory } from '../../src/main/backend/history'
import { listManaged, makeManagedFolder, openManagedFile, readManagedFile, refuseSharedFolder, removeManaged } from '../../src/main/io/managed-folder'

const root = mkdtempSync(join(tmpdir(), 'paralab-managed-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const fresh = () => {
  const d = join(root, `case-${n++}`)
  mkdirSync(d)
  return d
}
const id = (k: number) => `2026010${k}T000000000Z-correlation-0000000${k}`
const OTHER_UID = 54321
const asRoot = process.getuid?.() === 0

/** A folder of someone else's files, named as Paralab's own would be. */
function victim(): string {
  const v = fresh()
  for (const f of ['matrix.npy', 'matrix-names.json', 'keep.txt']) writeFileSync(join(v, f), `victim ${f}`)
  mkdirSync(join(v, id(1)))
  writeFileSync(join(v, id(1), 'matrix.npy'), 'forged')
  return v
}
const survived = (v: string) => expect(readdirSync(v).sort()).toEqual(['20260101T000000000Z-correlation-00000001', 'keep.txt', 'matrix-names.json', 'matrix.npy'])

const envelope = (at: string) => ({ workload: 'correlation', paralabVersion: '0', createdAt: at, params: {}, input: { files: [] }, host: {}, timings: {}, results: {} }) as never

describe('kept files', () => {
  it('a link in place of a run\'s folder: the forged matrix.npy is not served, and dropping the run or making room deletes nothing through it', async () => {
    const history = fresh()
    const v = victim()
    const kept = new KeptFiles(join(history, 'kept'), 10)
    mkdirSync(join(history, 'kept'))
    symlinkSync(v, join(history, 'kept', id(1)))
    await expect(kept.open(id(1), 'matrix.npy')).rejects.toThrow(/kept\/20260101T000000000Z-correlation-00000001 is a symbolic link/)
    await kept.drop(id(1))
    // Keeping a newer run's file past the bound makes room by dropping the oldest run: the link.
    expect(await kept.write(id(2), 'matrix.npy', 8, '12345678')).toBe(true)
    survived(v)
    expect(lstatSync(join(history, 'kept', id(1))).isSymbolicLink()).toBe(true)
  })

  it('a link in place of kept/ itself (an intermediate component): nothing is read, written or deleted through it', async () => {
    const history = fresh()
    const v = victim()
    symlinkSync(v, join(history, 'kept'))
    const kept = new KeptFiles(join(history, 'kept'), 10)
    await expect(kept.open(id(1), 'matrix.npy')).rejects.toThrow(/kept is a symbolic link/)
    await kept.drop(id(1))
    await expect(kept.write(id(2), 'matrix.npy', 3, 'abc')).rejects.toThrow(/kept is a symbolic link/)
    survived(v)
  })

  it('the history dropping its oldest run drops its kept files, never through a link; a link under a run\'s name is removed itself', async () => {
    const history = fresh()
    const v = victim()
    const kept = new KeptFiles(join(history, 'kept'), 1000)
    const runs = new RunHistory(history, 1, undefined, undefined, (run) => kept.drop(run))
    mkdirSync(join(history, 'kept'))
    symlinkSync(v, join(history, 'kept', id(1)))
    symlinkSync(join(v, 'keep.txt'), join(history, `${id(1)}.json`))
    await expect(runs.open(id(1))).rejects.toThrow(/no run/)
    await runs.save(envelope('2026-02-01T00:00:00Z'))
    survived(v)
    expect(existsSync(join(history, `${id(1)}.json`))).toBe(false)
  })

  it.skipIf(!asRoot)('a file or a run folder of another user is neither served nor deleted', async () => {
    const history = fresh()
    const kept = new KeptFiles(join(history, 'kept'), 1000)
    await kept.write(id(1), 'matrix.npy', 3, 'abc')
    await kept.write(id(2), 'matrix.npy', 3, 'abc')
    chownSync(join(history, 'kept', id(1), 'matrix.npy'), OTHER_UID, OTHER_UID)
    chownSync(join(history, 'kept', id(2)), OTHER_UID, OTHER_UID)
    await expect(kept.open(id(1), 'matrix.npy')).rejects.toThrow(/belongs to user 54321, not to this user/)
    await expect(kept.open(id(2), 'matrix.npy')).rejects.toThrow(/belongs to user 54321/)
    await kept.drop(id(1))
    await kept.drop(id(2))
    expect(readdirSync(join(history, 'kept', id(1)))).toEqual(['matrix.npy'])
    expect(readdirSync(join(history, 'kept', id(2)))).toEqual(['matrix.npy'])
    // A run's envelope of another user is not believed.
    const runs = new RunHistory(history)
    const saved = await runs.save(envelope('2026-02-01T00:00:00Z'))
    expect((await runs.list()).map((r) => r.id)).toEqual([saved])
    chownSync(join(history, `${saved}.json`), OTHER_UID, OTHER_UID)
    await expect(new RunHistory(history).open(saved)).rejects.toThrow(/no run/)
  })
})

describe('io/managed-folder', () => {
  it('reads and lists only through folders of this user, never a link at any component', async () => {
    const m = fresh()
    const v = victim()
    mkdirSync(join(m, 'a'))
    writeFileSync(join(m, 'a', 'f'), 'mine')
    symlinkSync(v, join(m, 'a', 'b'))
    symlinkSync(join(v, 'keep.txt'), join(m, 'a', 'g'))
    expect((await readManagedFile(m, ['a', 'f'], { maxBytes: 10 })).toString()).toBe('mine')
    await expect(readManagedFile(m, ['a', 'b', 'keep.txt'], { maxBytes: 100 })).rejects.toThrow(/a\/b is a symbolic link, not a folder Paralab made/)
    await expect(readManagedFile(m, ['a', 'g'], { maxBytes: 100 })).rejects.toThrow(/a\/g is a symbolic link, not a file Paralab wrote/)
    await expect(listManaged(m, ['a', 'b'])).rejects.toThrow(/symbolic link/)
    await expect(openManagedFile(m, ['a', '..', 'x'], { maxBytes: 1 })).rejects.toThrow(/not a plain name/)
    await expect(makeManagedFolder(m, ['a', 'b', 'c'])).rejects.toThrow(/a\/b is a symbolic link/)
    expect(existsSync(join(v, 'c'))).toBe(false)
  })

  it('removes a tree without following a link inside it, at the top or below', async () => {
    const m = fresh()
    const v = victim()
    mkdirSync(join(m, 'job', 'tasks', '0'), { recursive: true })
    writeFileSync(join(m, 'job', 'tasks', '0', 'envelope.json'), '{}')
    symlinkSync(v, join(m, 'job', 'tasks', '1'))
    symlinkSync(v, join(m, 'job', 'runs'))
    expect(await removeManaged(m, ['job'])).toEqual([])
    expect(existsSync(join(m, 'job'))).toBe(false)
    // Through a link on the way, nothing is removed.
    symlinkSync(v, join(m, 'linked'))
    expect((await removeManaged(m, ['linked', id(1)]))[0]).toMatch(/linked is a symbolic link/)
    survived(v)
  })

  it.skipIf(!asRoot)('leaves files and folders of another user in a tree it removes', async () => {
    const m = fresh()
    mkdirSync(join(m, 'job', 'theirs'), { recursive: true })
    writeFileSync(join(m, 'job', 'mine'), 'x')
    writeFileSync(join(m, 'job', 'other'), 'x')
    chownSync(join(m, 'job', 'other'), OTHER_UID, OTHER_UID)
    chownSync(join(m, 'job', 'theirs'), OTHER_UID, OTHER_UID)
    const left = await removeManaged(m, ['job'])
    expect(left.sort()).toEqual([join(m, 'job', 'other'), join(m, 'job', 'theirs'), join(m, 'job')].sort())
    expect(readdirSync(join(m, 'job')).sort()).toEqual(['other', 'theirs'])
  })

  it('refuses a job folder writable by others without the sticky bit, or in such a folder, naming it and its mode', async () => {
    const m = fresh()
    mkdirSync(join(m, 'out'))
    chmodSync(join(m, 'out'), 0o777)
    await expect(refuseSharedFolder(join(m, 'out'), '--out')).rejects.toThrow(new RegExp(`${join(m, 'out')} is writable by every user \\(mode 777\\) without the sticky bit`))
    chmodSync(join(m, 'out'), 0o1777)
    await refuseSharedFolder(join(m, 'out'), '--out')
    chmodSync(join(m, 'out'), 0o755)
    chmodSync(m, 0o775)
    await expect(refuseSharedFolder(join(m, 'out', 'new'), '--out')).rejects.toThrow(new RegExp(`${m} is writable by its group \\(mode 775\\)`))
    chmodSync(m, 0o755)
    await refuseSharedFolder(join(m, 'out', 'new'), '--out')
  })
})
