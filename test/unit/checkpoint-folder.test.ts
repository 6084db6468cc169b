// The checkpoint folder every workload's checkpoints go through (src/main/checkpoints/folder.ts):
// files written with their sha256 into a fresh pending folder, committed with a sealed manifest by
// rename keeping the previous complete checkpoint only, other attempts' leftovers removed; the
// newest manifest read and checked against its seal and its folder's name; files read back in
// whole pieces and refused when cut short, changed, named outside the folder, a FIFO or a symlink;
// a symlink planted in a pending folder written through by nothing; a folder that cannot hold
// checkpoints refused before any work.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as folder from '../../src/main/checkpoints/folder'

const KIND: folder.CheckpointKind = { format: 'paralab-test-checkpoint', version: 1, unit: 'round', what: 'test' }
const dirs: string[] = []
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-checkpoint-folder-'))
  dirs.push(d)
  return d
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

type Manifest = { round: number; files: folder.CheckpointFile[] }

async function write(dir: string, at: number, attempt = 'job-1'): Promise<folder.CheckpointFile> {
  const pending = await folder.makePendingFolder(dir, KIND, at, attempt)
  // Two chunks, the second larger than a write's piece would be in a big matrix: hashed as one file.
  const file = await folder.writeCheckpointFile(pending, 'data.bin', [Uint8Array.of(at, 1, 2), new Uint8Array(5).fill(at)])
  await folder.commitCheckpoint(dir, pending, KIND, at, { round: at, files: [file] })
  return file
}

/** Writes `text` as the manifest of `checkpoint` with a matching seal, as one who knows the format would. */
function reseal(checkpoint: string, text: string): void {
  writeFileSync(join(checkpoint, 'manifest.json'), text)
  writeFileSync(join(checkpoint, 'manifest.sha256'), `${createHash('sha256').update(text).digest('hex')}  manifest.json\n`)
}

const latest = (dir: string) => folder.latestManifest<Manifest>(dir, KIND, (m) => Array.isArray(m.files))

it('commits by rename with a sealed manifest, keeps the previous complete checkpoint only, and removes other attempts\' pending folders', async () => {
  const dir = fresh()
  mkdirSync(join(dir, '.round-0000001.job-0.tmp'))
  const file = await write(dir, 2)
  expect(file.sha256).toBe(createHash('sha256').update(Uint8Array.of(2, 1, 2, 2, 2, 2, 2, 2)).digest('hex'))
  await write(dir, 4)
  await write(dir, 6)
  expect(readdirSync(dir).sort()).toEqual(['round-0000004', 'round-0000006'])
  expect(await folder.completeCheckpoints(dir, KIND)).toEqual([4, 6])
  expect(readdirSync(join(dir, 'round-0000006')).sort()).toEqual(['data.bin', 'manifest.json', 'manifest.sha256'])
  expect(execFileSync('sha256sum', ['-c', 'manifest.sha256'], { cwd: join(dir, 'round-0000006'), encoding: 'utf8' })).toBe('manifest.json: OK\n')

  const found = await latest(dir)
  expect(found).toMatchObject({ path: join(dir, 'round-0000006'), previous: join(dir, 'round-0000004'), manifest: { format: KIND.format, version: 1, round: 6 } })
  const pieces: [number[], number][] = []
  await folder.readCheckpointFile(found!, found!.manifest.files[0], 8, (piece, at) => pieces.push([[...piece], at]), 4)
  expect(pieces).toEqual([[[6, 1, 2, 6, 6, 6, 6, 6], 0]])

  // Cut short, then changed: refused as corrupted, naming the previous one.
  const data = join(found!.path, 'data.bin')
  writeFileSync(data, Uint8Array.of(6, 1, 2))
  const kept = `(the previous checkpoint, ${join(dir, 'round-0000004')}, is kept: remove this one to resume from it)`
  await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow(`checkpoint ${found!.path} is corrupted: data.bin holds 3 bytes, not the 8 its manifest.json gives it ${kept}`)
  writeFileSync(data, Uint8Array.of(6, 1, 2, 6, 6, 6, 6, 7))
  await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow('data.bin does not match its sha256')
  rmSync(data)
  await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow(`is corrupted: data.bin does not exist ${kept}`)
})

describe('a manifest that lies', () => {
  const newestOf = async () => {
    const dir = fresh()
    await write(dir, 3)
    await write(dir, 5)
    const newest = join(dir, 'round-0000005')
    const kept = `(the previous checkpoint, ${join(dir, 'round-0000003')}, is kept: remove this one to resume from it)`
    return { dir, newest, text: readFileSync(join(newest, 'manifest.json'), 'utf8'), refused: (why: string) => `checkpoint ${newest} is corrupted: ${why} ${kept}` }
  }

  it('is refused when it is missing, not sealed, does not match its seal, is not JSON or of another kind, or says another round than its folder', async () => {
    const { dir, newest, text, refused } = await newestOf()
    expect(await latest(join(dir, 'none'))).toBeUndefined()

    // Edited: one byte of the round, a file's sha256.
    writeFileSync(join(newest, 'manifest.json'), text.replace('"round":5', '"round":4'))
    await expect(latest(dir)).rejects.toThrow(refused('its manifest.json does not match the sha256 in manifest.sha256: it was changed after it was written'))
    writeFileSync(join(newest, 'manifest.json'), text.replace(/"sha256":"./, '"sha256":"0'))
    await expect(latest(dir)).rejects.toThrow('does not match the sha256 in manifest.sha256')
    // Sealed again by one who knows the format: the folder's name still says round 5.
    reseal(newest, text.replace('"round":5', '"round":4'))
    await expect(latest(dir)).rejects.toThrow(refused('its manifest.json says round 4, its folder\'s name round 5'))
    reseal(newest, text.replace('"round":5', '"round":"5"'))
    await expect(latest(dir)).rejects.toThrow(refused('its manifest.json says round "5", its folder\'s name round 5'))
    reseal(newest, '{')
    await expect(latest(dir)).rejects.toThrow(refused('its manifest.json is not valid JSON'))
    reseal(newest, JSON.stringify({ format: 'other', version: 1, round: 5 }))
    await expect(latest(dir)).rejects.toThrow(refused('its manifest.json is not a test checkpoint of this version'))

    writeFileSync(join(newest, 'manifest.sha256'), 'not a sha256\n')
    await expect(latest(dir)).rejects.toThrow(refused('its manifest.sha256 is not a sha256 of manifest.json'))
    rmSync(join(newest, 'manifest.sha256'))
    await expect(latest(dir)).rejects.toThrow(refused('manifest.sha256 does not exist'))
    // Unsealed, as an earlier Paralab wrote them: refused saying so.
    writeFileSync(join(newest, 'manifest.json'), JSON.stringify({ ...JSON.parse(text), version: 0 }))
    await expect(latest(dir)).rejects.toThrow(
      `checkpoint ${newest} was written by an earlier Paralab (version 0 of its format, without a sealed manifest); this one resumes from version 1 only: remove it, or use another checkpoint folder`,
    )
    rmSync(join(newest, 'manifest.json'))
    await expect(latest(dir)).rejects.toThrow(refused('manifest.json does not exist'))
    expect(existsSync(join(dir, 'round-0000003', 'manifest.json'))).toBe(true)
  })

  it('is refused when its folder is a symlink, or its manifest or seal a FIFO (at once) or a symlink', async () => {
    const { dir, newest, refused } = await newestOf()
    const elsewhere = join(dir, 'elsewhere')
    execFileSync('cp', ['-a', newest, elsewhere])
    rmSync(newest, { recursive: true })
    symlinkSync(elsewhere, newest)
    await expect(latest(dir)).rejects.toThrow(refused('it is a symbolic link, not a folder Paralab wrote'))
    rmSync(newest)
    execFileSync('cp', ['-a', elsewhere, newest])
    for (const file of ['manifest.json', 'manifest.sha256']) {
      const saved = readFileSync(join(newest, file))
      rmSync(join(newest, file))
      execFileSync('mkfifo', [join(newest, file)])
      const t0 = Date.now()
      await expect(latest(dir)).rejects.toThrow(refused(`${file} is a named pipe (FIFO), not a file Paralab wrote`))
      expect(Date.now() - t0).toBeLessThan(5000)
      rmSync(join(newest, file))
      writeFileSync(join(elsewhere, file), saved)
      symlinkSync(join(elsewhere, file), join(newest, file))
      await expect(latest(dir)).rejects.toThrow(refused(`${file} is a symbolic link, not a file Paralab wrote`))
      rmSync(join(newest, file))
      writeFileSync(join(newest, file), saved)
    }
    expect((await latest(dir))?.manifest.round).toBe(5)
  })

  it('names no file outside its folder: refused before any file is opened', async () => {
    const { dir, newest, text, refused } = await newestOf()
    const outside = join(dir, 'outside.bin')
    writeFileSync(outside, Uint8Array.of(5, 1, 2, 5, 5, 5, 5, 5))
    const sha256 = createHash('sha256').update(readFileSync(outside)).digest('hex')
    for (const name of ['../outside.bin', outside, '/etc/passwd', '..', 'manifest.json', '']) {
      reseal(newest, JSON.stringify({ ...JSON.parse(text), files: [{ file: name, sha256 }] }))
      const found = await latest(dir)
      const why = refused(`its manifest.json names ${JSON.stringify(name)}, which is not a plain file name inside its folder`)
      expect(() => folder.checkFileNames(found!, found!.manifest.files)).toThrow(why)
      await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow(why)
    }
    reseal(newest, JSON.stringify({ ...JSON.parse(text), files: [{ file: 'data.bin', sha256 }, { file: 'data.bin', sha256 }] }))
    const twice = await latest(dir)
    expect(() => folder.checkFileNames(twice!, twice!.manifest.files)).toThrow(refused('its manifest.json names data.bin twice'))
  })
})

describe('a data file', () => {
  it('that is a FIFO or a symlink is refused at once; reading stops when cancelled', async () => {
    const dir = fresh()
    await write(dir, 1)
    const found = (await latest(dir))!
    const entry = found.manifest.files[0]
    const data = join(found.path, 'data.bin')
    const saved = readFileSync(data)

    rmSync(data)
    execFileSync('mkfifo', [data])
    const t0 = Date.now()
    await expect(folder.readCheckpointFile(found, entry, 8, () => {})).rejects.toThrow(`checkpoint ${found.path} is corrupted: data.bin is a named pipe (FIFO), not a file Paralab wrote`)
    expect(Date.now() - t0).toBeLessThan(5000)
    rmSync(data)
    writeFileSync(join(dir, 'elsewhere'), saved)
    symlinkSync(join(dir, 'elsewhere'), data)
    await expect(folder.readCheckpointFile(found, entry, 8, () => {})).rejects.toThrow('data.bin is a symbolic link, not a file Paralab wrote')
    rmSync(data)
    writeFileSync(data, saved)

    // Cancelled after the first piece: the next is not read.
    const stop = new AbortController()
    const seen: number[] = []
    const big = await folder.makePendingFolder(dir, KIND, 2, 'job-1')
    const piece = 16 * 2 ** 20
    const entryBig = await folder.writeCheckpointFile(big, 'data.bin', [new Uint8Array(3 * piece)])
    await folder.commitCheckpoint(dir, big, KIND, 2, { round: 2, files: [entryBig] })
    const foundBig = (await latest(dir))!
    const reading = folder.readCheckpointFile(
      foundBig,
      entryBig,
      3 * piece,
      (_, at) => {
        seen.push(at)
        stop.abort()
      },
      piece,
      stop.signal,
    )
    await expect(reading).rejects.toThrow('cancelled')
    expect(seen).toEqual([0])
  })
})

describe('pending folders', () => {
  it('are fresh each time (mode 0700, a name no one can guess) and write nothing through a symlink planted in them', async () => {
    const dir = fresh()
    const a = await folder.makePendingFolder(dir, KIND, 2, 'job-1')
    const b = await folder.makePendingFolder(dir, KIND, 2, 'job-1')
    expect(a).not.toBe(b)
    expect(basename(a)).toMatch(/^\.round-0000002\.job-1\.[A-Za-z0-9]{6}$/)
    expect(statSync(a).mode & 0o777).toBe(0o700)

    // Someone who could write there anyway: the file is created exclusively, never through the link.
    const victim = join(dir, 'victim')
    writeFileSync(victim, 'precious')
    symlinkSync(victim, join(a, 'data.bin'))
    await expect(folder.writeCheckpointFile(a, 'data.bin', [Uint8Array.of(1)])).rejects.toThrow(/EEXIST/)
    expect(readFileSync(victim, 'utf8')).toBe('precious')
    await expect(folder.writeCheckpointFile(a, '../escape.bin', [Uint8Array.of(1)])).rejects.toThrow('"../escape.bin" cannot be a checkpoint\'s file')
  })

  it('of another rank are taken only by a plain name of this checkpoint\'s', () => {
    const dir = '/ck'
    expect(folder.pendingFolderNamed(dir, KIND, 2, '.round-0000002.job-1.Ab12Cd')).toBe('/ck/.round-0000002.job-1.Ab12Cd')
    for (const bad of ['../.round-0000002.x', '.round-0000003.job-1.Ab12Cd', 'round-0000002', '.round-0000002./x', ''])
      expect(() => folder.pendingFolderNamed(dir, KIND, 2, bad)).toThrow('is not the name of a pending folder of the checkpoint at round 2')
  })

  it('of one attempt only are discarded', async () => {
    const dir = fresh()
    await write(dir, 1)
    await folder.writeCheckpointFile(await folder.makePendingFolder(dir, KIND, 2, 'job-1'), 'data.bin', [Uint8Array.of(1)])
    const other = await folder.makePendingFolder(dir, KIND, 2, 'job-10')
    await folder.discardAttempt(dir, KIND, 'job-1')
    expect(readdirSync(dir).sort()).toEqual([basename(other), 'round-0000001'])
  })
})

describe('the checkpoint folder', () => {
  it('is made with its parents, and refused before any work when it is a file, a device, or where no folder can be made (/proc)', async () => {
    const dir = fresh()
    await folder.prepareCheckpointFolder(join(dir, 'a', 'b', 'ck'))
    expect(readdirSync(join(dir, 'a', 'b', 'ck'))).toEqual([])
    await folder.prepareCheckpointFolder(join(dir, 'a', 'b', 'ck'))
    const file = join(dir, 'file')
    writeFileSync(file, 'x')
    await expect(folder.prepareCheckpointFolder(file)).rejects.toThrow(`cannot keep checkpoints in ${file}: it is a file, not a folder`)
    await expect(folder.prepareCheckpointFolder(join(file, 'ck'))).rejects.toThrow(`cannot keep checkpoints in ${join(file, 'ck')}: ${file} is not a folder`)
    await expect(folder.prepareCheckpointFolder('/dev/null')).rejects.toThrow('cannot keep checkpoints in /dev/null: it is a device, not a folder')
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    await expect(folder.prepareCheckpointFolder(fifo)).rejects.toThrow(`cannot keep checkpoints in ${fifo}: it is a named pipe (FIFO), not a folder`)
    // Node's recursive mkdir spins forever under /proc: answered at once.
    const t0 = Date.now()
    await expect(folder.prepareCheckpointFolder('/proc/self')).rejects.toThrow('cannot keep checkpoints in /proc/self: no folder can be made in it (ENOENT)')
    await expect(folder.prepareCheckpointFolder('/proc/self/a/b')).rejects.toThrow('cannot keep checkpoints in /proc/self/a/b: cannot make /proc/self/a (ENOENT)')
    expect(Date.now() - t0).toBeLessThan(5000)
  })
})
