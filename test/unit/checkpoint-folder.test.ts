// The checkpoint folder every workload's checkpoints go through (src/main/checkpoints/folder.ts):
// files written with their sha256 into a pending folder, committed by rename keeping the previous
// complete checkpoint only, other attempts' leftovers removed; the newest manifest read and checked;
// files read back in whole pieces and refused when cut short or changed.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import * as folder from '../../src/main/checkpoints/folder'

const KIND: folder.CheckpointKind = { format: 'paralab-test-checkpoint', version: 1, unit: 'round', what: 'test' }
const dirs: string[] = []
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'paralab-checkpoint-folder-'))
  dirs.push(d)
  return d
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

async function write(dir: string, at: number, attempt = 'job-1'): Promise<folder.CheckpointFile> {
  const pending = folder.pendingFolder(dir, KIND, at, attempt)
  // Two chunks, the second larger than a write's piece would be in a big matrix: hashed as one file.
  const file = await folder.writeCheckpointFile(pending, 'data.bin', [Uint8Array.of(at, 1, 2), new Uint8Array(5).fill(at)])
  await folder.commitCheckpoint(dir, pending, KIND, at, { at, files: [file] })
  return file
}

it('commits by rename, keeps the previous complete checkpoint only, and removes other attempts\' pending folders', async () => {
  const dir = fresh()
  mkdirSync(join(dir, '.round-0000001.job-0.tmp'))
  const file = await write(dir, 2)
  expect(file.sha256).toBe(createHash('sha256').update(Uint8Array.of(2, 1, 2, 2, 2, 2, 2, 2)).digest('hex'))
  await write(dir, 4)
  await write(dir, 6)
  expect(readdirSync(dir).sort()).toEqual(['round-0000004', 'round-0000006'])
  expect(await folder.completeCheckpoints(dir, KIND)).toEqual([4, 6])

  const found = await folder.latestManifest<{ at: number; files: folder.CheckpointFile[] }>(dir, KIND, (m) => Number.isInteger(m.at))
  expect(found).toMatchObject({ path: join(dir, 'round-0000006'), previous: join(dir, 'round-0000004'), manifest: { format: KIND.format, version: 1, at: 6 } })
  const pieces: [number[], number][] = []
  await folder.readCheckpointFile(found!, found!.manifest.files[0], 8, (piece, at) => pieces.push([[...piece], at]), 4)
  expect(pieces).toEqual([[[6, 1, 2, 6, 6, 6, 6, 6], 0]])

  // Cut short, then changed: refused as corrupted, naming the previous one.
  const data = join(found!.path, 'data.bin')
  writeFileSync(data, Uint8Array.of(6, 1, 2))
  const kept = `(the previous checkpoint, ${join(dir, 'round-0000004')}, is kept: remove this one to resume from it)`
  await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow(`checkpoint ${found!.path} is corrupted: data.bin does not match its sha256 ${kept}`)
  writeFileSync(data, Uint8Array.of(6, 1, 2, 6, 6, 6, 6, 7))
  await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow('data.bin does not match its sha256')
  rmSync(data)
  await expect(folder.readCheckpointFile(found!, found!.manifest.files[0], 8, () => {})).rejects.toThrow('data.bin is missing')
})

it('refuses a newest manifest that is missing, not JSON or of another kind, and finds none in an empty or missing folder', async () => {
  const dir = fresh()
  expect(await folder.latestManifest(join(dir, 'none'), KIND, () => true)).toBeUndefined()
  await write(dir, 3)
  mkdirSync(join(dir, 'round-0000005'))
  const newest = join(dir, 'round-0000005')
  await expect(folder.latestManifest(dir, KIND, () => true)).rejects.toThrow(`checkpoint ${newest} is corrupted: its manifest.json is missing`)
  writeFileSync(join(newest, 'manifest.json'), '{')
  await expect(folder.latestManifest(dir, KIND, () => true)).rejects.toThrow('its manifest.json is not valid JSON')
  writeFileSync(join(newest, 'manifest.json'), JSON.stringify({ format: 'other', version: 1 }))
  await expect(folder.latestManifest(dir, KIND, () => true)).rejects.toThrow('its manifest.json is not a test checkpoint of this version')
  expect(existsSync(join(dir, 'round-0000003', 'manifest.json'))).toBe(true)
})

it('discards an attempt\'s pending folders only', async () => {
  const dir = fresh()
  await write(dir, 1)
  await folder.writeCheckpointFile(folder.pendingFolder(dir, KIND, 2, 'job-1'), 'data.bin', [Uint8Array.of(1)])
  await folder.writeCheckpointFile(folder.pendingFolder(dir, KIND, 2, 'job-2'), 'data.bin', [Uint8Array.of(1)])
  await folder.discardAttempt(dir, KIND, 'job-1')
  expect(readdirSync(dir).sort()).toEqual(['.round-0000002.job-2.tmp', 'round-0000001'])
})
