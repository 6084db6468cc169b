// Slots in shared memory between processes of one host (src/main/ranks/shm-slots.ts): real files
// under /dev/shm, a real second process reading what the first wrote, and a peer's hostile
// notices, files and folders refused before a byte is read.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { openSlots, ShmFolder, sweepStaleFolders } from '../../src/main/ranks/shm-slots'

const folders: ShmFolder[] = []
const folder = (need = 0) => {
  const f = ShmFolder.create('paralab-test-', need)
  folders.push(f)
  return f
}
afterEach(() => {
  for (const f of folders.splice(0)) f.remove()
})

// A second process: a TypeScript script run by jiti, importing the module from the source tree.
const scripts = mkdtempSync(join(tmpdir(), 'paralab-shm-test-'))
afterAll(() => rmSync(scripts, { recursive: true, force: true }))
const MODULE = join(__dirname, '../../src/main/ranks/shm-slots.ts')
function child(name: string, body: string, args: string[] = []) {
  const file = join(scripts, `${name}.ts`)
  writeFileSync(file, `import { ShmFolder, openSlots } from ${JSON.stringify(MODULE)}\n${body}\n`)
  return spawnSync(process.execPath, [join(__dirname, '../../node_modules/jiti/lib/jiti-cli.mjs'), file, ...args], { encoding: 'utf8', timeout: 60_000 })
}

describe('shm slots', () => {
  it('a private folder under /dev/shm, falling back to the temporary folder when /dev/shm lacks room', () => {
    const f = folder()
    expect(f.path.startsWith('/dev/shm/paralab-test-')).toBe(true)
    expect(statSync(f.path).mode & 0o777).toBe(0o700)
    const big = folder(Number.MAX_SAFE_INTEGER)
    expect(big.path.startsWith(join(tmpdir(), 'paralab-test-'))).toBe(true)
    const s = f.slots('rows', { slots: 3, slotBytes: 8 })
    expect(statSync(s.file).mode & 0o777).toBe(0o600)
    expect(statSync(s.file).size).toBe(24)
    s.close()
    f.remove()
    expect(existsSync(f.path)).toBe(false)
    f.remove()
  })

  it('an owner writes, a peer reads by path: within a slot, across slots, and what a notice announces', () => {
    const f = folder()
    const owner = f.slots('pivot', { slots: 4, slotBytes: 16 })
    const peer = openSlots(owner.file, owner.geometry)
    owner.write(1, Int32Array.from([1, -2, 3, -4]))
    const got = new Int32Array(4)
    peer.readInto(1, got)
    expect([...got]).toEqual([1, -2, 3, -4])
    // Two slots' worth from slot 2: the file's last 32 bytes.
    peer.write(2, Uint8Array.from({ length: 32 }, (_, i) => i))
    const tail = new Uint8Array(32)
    owner.readInto(2, tail)
    expect(tail[31]).toBe(31)
    // A notice's bytes land at the start of the target, the rest of it untouched.
    const into = new Uint8Array(16).fill(0xee)
    expect(peer.receive({ slot: 2, sequence: 7, length: 5 }, into)).toEqual({ slot: 2, sequence: 7, length: 5 })
    expect([...into.subarray(0, 6)]).toEqual([0, 1, 2, 3, 4, 0xee])
    owner.close()
    peer.close()
    expect(() => peer.readInto(0, into)).toThrow('closed')
  })

  it('async copies in pieces: a row of several MiB written and read whole, bounded as the others', async () => {
    const f = folder()
    const row = 5 * 2 ** 20 + 12
    const owner = f.slots('pivot', { slots: 3, slotBytes: row })
    const peer = openSlots(owner.file, owner.geometry)
    const data = Uint8Array.from({ length: row }, (_, i) => (i * 7 + (i >> 12)) & 0xff)
    expect(await owner.writeAsync(1, data)).toBe(row)
    const back = new Uint8Array(row)
    await peer.readIntoAsync(1, back)
    expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true)
    const into = new Uint8Array(row + 8).fill(0xee)
    expect(await peer.receiveAsync({ slot: 1, sequence: 4, length: row }, into)).toEqual({ slot: 1, sequence: 4, length: row })
    expect(Buffer.from(into.subarray(0, row)).equals(Buffer.from(data))).toBe(true)
    expect(into[row]).toBe(0xee)
    await expect(peer.receiveAsync({ slot: 3, sequence: 0, length: 1 }, into)).rejects.toThrow('the file has 3 slots')
    await expect(owner.writeAsync(2, new Uint8Array(row + 1))).rejects.toThrow('run past')
    // A file truncated under the reader: the read says so rather than returning zeros.
    truncateSync(owner.file, row)
    await expect(peer.readIntoAsync(1, back)).rejects.toThrow('truncated')
  })

  it('a second process reads what the first wrote (the path is all it is given)', () => {
    const f = folder()
    const s = f.slots('rows', { slots: 2, slotBytes: 1024 })
    s.write(1, new TextEncoder().encode('from the owner'))
    const r = child(
      'peer',
      `const s = openSlots(process.argv[process.argv.length - 1], { slots: 2, slotBytes: 1024 })
      const b = new Uint8Array(14); s.readInto(1, b); process.stdout.write(new TextDecoder().decode(b))
      s.write(0, new TextEncoder().encode('and back'))`,
      [s.file],
    )
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('from the owner')
    const back = new Uint8Array(8)
    s.readInto(0, back)
    expect(new TextDecoder().decode(back)).toBe('and back')
  })

  it('refuses notices outside the file: slot, length, negative or fractional values, junk', () => {
    const s = folder().slots('pivot', { slots: 2, slotBytes: 64 })
    const target = new Uint8Array(64)
    expect(() => s.receive({ slot: 2, sequence: 0, length: 8 }, target)).toThrow('the file has 2 slots')
    expect(() => s.receive({ slot: 0, sequence: 0, length: 65 }, target)).toThrow('a slot holds 64')
    expect(() => s.receive({ slot: 0, sequence: 0, length: 64 }, new Uint8Array(32))).toThrow('expects at most 32')
    for (const bad of [{ slot: -1, sequence: 0, length: 1 }, { slot: 0.5, sequence: 0, length: 1 }, { slot: 0, sequence: 0, length: '8' }, { slot: 0, length: 1 }, null, 'x', [0, 0, 1]])
      expect(() => s.receive(bad, target), JSON.stringify(bad)).toThrow('whole, non-negative')
    // Direct reads and writes are bounded by the file too.
    expect(() => s.write(1, new Uint8Array(65))).toThrow('run past')
    expect(() => s.readInto(2, new Uint8Array(1))).toThrow('outside')
    expect(() => s.write(Number.NaN, new Uint8Array(1))).toThrow('outside')
  })

  it('a peer refuses a file swapped for a symlink, of the wrong size, not a regular file, or in a folder others may enter', () => {
    const f = folder()
    const s = f.slots('pivot', { slots: 2, slotBytes: 64 })
    const geometry = s.geometry
    // Swapped for a symlink to a file of the right size elsewhere.
    const elsewhere = mkdtempSync(join(tmpdir(), 'paralab-elsewhere-'))
    try {
      writeFileSync(join(elsewhere, 'decoy'), new Uint8Array(128))
      renameSync(s.file, join(f.path, 'moved'))
      symlinkSync(join(elsewhere, 'decoy'), s.file)
      expect(() => openSlots(s.file, geometry)).toThrow('symbolic link')
      rmSync(s.file)
      renameSync(join(f.path, 'moved'), s.file)
      // The wrong size: truncated, or a peer expecting another geometry.
      expect(() => openSlots(s.file, { slots: 3, slotBytes: 64 })).toThrow('holds 128 bytes')
      truncateSync(s.file, 100)
      expect(() => openSlots(s.file, geometry)).toThrow('holds 100 bytes')
      // A folder in the file's place.
      expect(() => openSlots(join(f.path), geometry)).toThrow()
      // A folder others may enter.
      truncateSync(s.file, 128)
      chmodSync(f.path, 0o755)
      expect(() => openSlots(s.file, geometry)).toThrow('may be entered by others (mode 755)')
      chmodSync(f.path, 0o700)
      expect(openSlots(s.file, geometry).geometry).toEqual(geometry)
      // Missing: the owner removed it.
      f.remove()
      expect(() => openSlots(s.file, geometry)).toThrow()
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('an owner\'s folders go when it exits, however it exits', () => {
    for (const [i, how] of ['process.exit(3)', 'throw new Error("boom")'].entries()) {
      const r = child(
        `owner${i}`,
        `const f = ShmFolder.create('paralab-test-exit-'); f.slots('rows', { slots: 1, slotBytes: 8 })
        process.stdout.write(f.path); ${how}`,
      )
      expect(r.status, r.stderr).not.toBe(0)
      expect(r.stdout.startsWith('/dev/shm/paralab-test-exit-')).toBe(true)
      expect(existsSync(r.stdout)).toBe(false)
    }
  })

  it('refuses geometries that are no whole size and names that are not plain', () => {
    const f = folder()
    expect(() => f.slots('x', { slots: 0, slotBytes: 8 })).toThrow('positive whole size')
    expect(() => f.slots('x', { slots: 2, slotBytes: 1.5 })).toThrow('positive whole size')
    expect(() => f.slots('../x', { slots: 1, slotBytes: 8 })).toThrow('plain file name')
    f.slots('x', { slots: 1, slotBytes: 8 })
    expect(() => f.slots('x', { slots: 1, slotBytes: 8 })).toThrow(/EEXIST/)
  })

  it('an owner killed before it could remove its folder: the next folder made there sweeps it, and nothing else', () => {
    const base = mkdtempSync(join(tmpdir(), 'paralab-sweep-test-'))
    try {
      const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1]
      // A pid that ran and is gone: a process that has exited.
      const dead = spawnSync(process.execPath, ['-e', '']).pid
      const make = (name: string, mode = 0o700) => {
        mkdirSync(join(base, name), { mode })
        chmodSync(join(base, name), mode)
        writeFileSync(join(base, name, 'rows'), 'x')
        return name
      }
      const stale = [make(`paralab-paths-p${dead}n${ns}-aB3dE9`), make(`paralab-p${dead}n${ns}-000000`)]
      const kept = [
        make(`paralab-paths-p${process.pid}n${ns}-aB3dE9`), // its owner runs
        make(`paralab-paths-p${process.ppid}n${ns}-aB3dE9`), // its owner runs
        make(`paralab-paths-p${dead}n1-aB3dE9`), // of another pid namespace: its pid says nothing here
        make(`paralab-paths-p${dead}-aB3dE9`), // no namespace named where this host has them
        make(`paralab-paths-p${dead}n${ns}-aB3dE9x`), // not a name made here
        make(`other-paths-p${dead}n${ns}-aB3dE9`),
        make(`paralab-paths-p${dead}n${ns}-zzzzzz`, 0o755), // not private
      ]
      // A file, and a link to a private folder of a dead owner's name: neither followed nor removed.
      writeFileSync(join(base, `paralab-paths-p${dead}n${ns}-file00`), 'x')
      const target = make('target')
      symlinkSync(join(base, target), join(base, `paralab-paths-p${dead}n${ns}-link00`))
      kept.push(`paralab-paths-p${dead}n${ns}-file00`, `paralab-paths-p${dead}n${ns}-link00`, target)
      // Another user's folders are never this user's to remove.
      expect(sweepStaleFolders(base, { uid: (process.getuid?.() ?? 0) + 1, ns })).toEqual([])
      const fresh = ShmFolder.create('paralab-paths-', 0, base)
      folders.push(fresh)
      expect(fresh.path).toMatch(new RegExp(`/paralab-paths-p${process.pid}n${ns}-[A-Za-z0-9]{6}$`))
      const left = readdirSync(base)
      for (const name of stale) expect(left, name).not.toContain(name)
      for (const name of kept) expect(left, name).toContain(name)
      expect(existsSync(join(base, target, 'rows'))).toBe(true)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })

  it('a folder prefix is paralab- and lower-case words, so that the sweep knows every folder made', () => {
    for (const bad of ['paths-', 'paralab-Paths-', 'paralab-paths', 'paralab-../', 'paralab-p1-']) expect(() => ShmFolder.create(bad), bad).toThrow('is not a folder prefix')
  })
})
