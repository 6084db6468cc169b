// Bytes between processes of one host through shared memory: a private folder (/dev/shm where it
// exists and has room, else the temporary folder) holding files of fixed-size slots. The owner
// makes the folder and its files; peers open a file by path. Writers and readers use positional
// reads and writes, so a row goes straight from a mapped GPU readback range into the file and
// from the file into a mapped staging range. Which slot holds what is said in notices
// ({ slot, sequence, length }) that travel over the caller's own control channel; a reader checks
// each notice against the file's geometry before reading, and a file against its size and owner
// before opening it. Nothing here blocks: the caller says when a slot may be reused.
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdtempSync, openSync, read, readdirSync, readlinkSync, readSync, rmSync, statfsSync, write, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A file of `slots` slots of `slotBytes` bytes each. */
export interface SlotGeometry {
  slots: number
  slotBytes: number
}

/** What a writer tells its readers: `length` bytes of item `sequence` wait in `slot`. */
export interface SlotNotice {
  slot: number
  sequence: number
  length: number
}

/** The largest positional read or write at once (fs reads and writes take at most 2 GiB − 1). */
const CHUNK = 2 ** 30

/** Pieces of an async read or write, copied at once by the thread pool's threads (one copy ran at ~4 GB/s). */
const PIECES = 4
/** Bytes below which an async copy is not split. */
const SPLIT_BYTES = 1 << 20

/** `bytes` in up to PIECES pieces at once, each by `step` (a positional read or write), to the end of each piece. */
async function inPieces(bytes: Uint8Array, at: number, file: string, step: (from: number, length: number, position: number, done: (e: Error | null, n: number) => void) => void): Promise<void> {
  const pieces = bytes.byteLength < SPLIT_BYTES ? 1 : PIECES
  const size = Math.ceil(bytes.byteLength / pieces / 4096) * 4096
  const one = (from: number, end: number) =>
    new Promise<void>((resolve, reject) => {
      const next = (done: number) => {
        if (done >= end) return resolve()
        step(done, Math.min(CHUNK, end - done), at + done, (e, n) => {
          if (e) reject(e)
          else if (n <= 0) reject(new Error(`${file}: nothing moved at byte ${at + done} (truncated by someone else?)`))
          else next(done + n)
        })
      }
      next(from)
    })
  const all: Promise<void>[] = []
  for (let from = 0; from < bytes.byteLength; from += size) all.push(one(from, Math.min(bytes.byteLength, from + size)))
  await Promise.all(all)
}

const SHM = '/dev/shm'

/** Folders made by this process and not yet removed: removed when it exits, however it exits. */
const live = new Set<string>()
let hooked = false
function removeAtExit(path: string): void {
  live.add(path)
  if (hooked) return
  hooked = true
  process.once('exit', () => {
    for (const p of live) rmSync(p, { recursive: true, force: true })
  })
}

function geometryBytes(g: SlotGeometry): number {
  if (!Number.isSafeInteger(g.slots) || g.slots < 1 || !Number.isSafeInteger(g.slotBytes) || g.slotBytes < 1 || !Number.isSafeInteger(g.slots * g.slotBytes))
    throw new RangeError(`slot geometry ${g.slots} × ${g.slotBytes} bytes is not a positive whole size`)
  return g.slots * g.slotBytes
}

function uid(): number | undefined {
  return process.getuid?.()
}

/** Every folder's name starts so, whatever its caller's prefix: the sweep looks at nothing else. */
const FAMILY = 'paralab-'

/** This process's pid namespace (Linux), so that a folder's pid is only judged within its own namespace. */
function pidNamespace(): string | undefined {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1]
  } catch {
    return undefined
  }
}

/** The owner's mark in a folder's name: its pid, and its pid namespace where there is one. */
function ownerMark(pid = process.pid, ns = pidNamespace()): string {
  return `p${pid}${ns ? `n${ns}` : ''}`
}

/** A folder name this module makes: prefix, owner's mark, mkdtemp's six characters. */
const FOLDER_NAME = /^paralab-(?:[a-z]+-)*p(\d+)(?:n(\d+))?-[A-Za-z0-9]{6}$/

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: a process of another user holds the pid.
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/**
 * Removes, from `base`, the folders this module made for owners that are gone: a run killed before
 * it could remove its own (SIGKILL, the memory killer) would otherwise leave its matrix, gigabytes,
 * in /dev/shm until the host restarts. Only a real folder (never a link) of this user, mode 0700,
 * named as create() names them, whose owner was of this pid namespace and no longer runs; a pid
 * that runs again, or any doubt, keeps it. Returns the folders removed.
 */
export function sweepStaleFolders(base: string, user = { uid: uid(), ns: pidNamespace() }): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(base).filter((n) => n.startsWith(FAMILY))
  } catch {
    return removed
  }
  for (const name of names) {
    const m = FOLDER_NAME.exec(name)
    if (!m || m[2] !== user.ns) continue
    const pid = Number(m[1])
    if (!Number.isSafeInteger(pid) || pid <= 0 || alive(pid)) continue
    const path = join(base, name)
    try {
      const st = lstatSync(path)
      if (!st.isDirectory() || (st.mode & 0o777) !== 0o700 || (user.uid !== undefined && st.uid !== user.uid)) continue
      rmSync(path, { recursive: true, force: true })
      removed.push(path)
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed
}

/** The owner's private folder; its files are made with `slots()`. */
export class ShmFolder {
  private removed = false

  private constructor(readonly path: string) {}

  /**
   * A fresh folder (mode 0700) under /dev/shm, or under the temporary folder where /dev/shm is
   * missing or has less than `needBytes` free (a file larger than its room would fail mid-run),
   * its name marked with this process's pid; folders there of owners gone are swept first.
   */
  static create(prefix = FAMILY, needBytes = 0, root?: string): ShmFolder {
    if (!FOLDER_NAME.test(`${prefix}${ownerMark()}-XXXXXX`)) throw new RangeError(`${JSON.stringify(prefix)} is not a folder prefix: ${FAMILY} and lower-case words, each ending in -`)
    const base = root ?? (shmRoom() >= needBytes ? SHM : tmpdir())
    sweepStaleFolders(base)
    const path = mkdtempSync(join(base, `${prefix}${ownerMark()}-`))
    removeAtExit(path)
    return new ShmFolder(path)
  }

  /** A new file of zeroed slots (mode 0600), opened for reading and writing. */
  slots(name: string, geometry: SlotGeometry): ShmSlots {
    if (this.removed) throw new Error(`${this.path} was removed`)
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new RangeError(`${JSON.stringify(name)} is not a plain file name`)
    const bytes = geometryBytes(geometry)
    const file = join(this.path, name)
    const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    try {
      // Sparse: the pages come into being as they are written.
      writeSync(fd, new Uint8Array(1), 0, 1, bytes - 1)
    } catch (e) {
      closeSync(fd)
      throw e
    }
    return new ShmSlots(file, fd, geometry)
  }

  /** Removes the folder and everything in it (idempotent). */
  remove(): void {
    this.removed = true
    rmSync(this.path, { recursive: true, force: true })
    live.delete(this.path)
  }
}

/** Free bytes under /dev/shm, 0 where it is missing. */
function shmRoom(): number {
  try {
    if (!existsSync(SHM)) return 0
    const s = statfsSync(SHM)
    return s.bavail * s.bsize
  } catch {
    return 0
  }
}

/**
 * A peer's view of an owner's file: opened only when its folder is a real folder of this user
 * that no one else may enter, and the file a regular file of this user (never through a symlink)
 * of exactly the geometry's size.
 */
export function openSlots(file: string, geometry: SlotGeometry): ShmSlots {
  const bytes = geometryBytes(geometry)
  const folder = file.slice(0, file.lastIndexOf('/')) || '/'
  const dir = lstatSync(folder)
  if (!dir.isDirectory()) throw new Error(`${folder} is not a folder`)
  const me = uid()
  if (me !== undefined && dir.uid !== me) throw new Error(`${folder} belongs to uid ${dir.uid}, not to this user (${me})`)
  if ((dir.mode & 0o077) !== 0) throw new Error(`${folder} may be entered by others (mode ${(dir.mode & 0o777).toString(8)}); a slot folder is private (0700)`)
  let fd: number
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`${file} is a symbolic link; slots are opened only from a regular file`)
    throw e
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new Error(`${file} is not a regular file`)
    if (me !== undefined && st.uid !== me) throw new Error(`${file} belongs to uid ${st.uid}, not to this user (${me})`)
    if (st.size !== bytes) throw new Error(`${file} holds ${st.size} bytes; ${geometry.slots} slots of ${geometry.slotBytes} bytes are ${bytes}`)
  } catch (e) {
    closeSync(fd)
    throw e
  }
  return new ShmSlots(file, fd, geometry)
}

export class ShmSlots {
  private fd: number | undefined

  /** Made by ShmFolder.slots (the owner) or openSlots (a peer). */
  constructor(
    readonly file: string,
    fd: number,
    readonly geometry: SlotGeometry,
  ) {
    this.fd = fd
  }

  private handle(): number {
    if (this.fd === undefined) throw new Error(`${this.file} is closed`)
    return this.fd
  }

  /** Where `bytes` bytes from slot `slot` lie, checked: they may run over the following slots, never past the file. */
  private span(slot: number, bytes: number): number {
    const { slots, slotBytes } = this.geometry
    if (!Number.isSafeInteger(slot) || slot < 0 || slot >= slots) throw new RangeError(`slot ${slot} is outside 0…${slots - 1}`)
    if (bytes > (slots - slot) * slotBytes) throw new RangeError(`${bytes} bytes from slot ${slot} run past the file's ${slots} slots of ${slotBytes} bytes`)
    return slot * slotBytes
  }

  /** Where `view` goes to or comes from in the file (checked), as bytes, and the file's descriptor. */
  private place(slot: number, view: ArrayBufferView): { at: number; bytes: Uint8Array; fd: number } {
    return { at: this.span(slot, view.byteLength), bytes: new Uint8Array(view.buffer, view.byteOffset, view.byteLength), fd: this.handle() }
  }

  /** Copies `view` into the file (write) or from it (read) from the start of slot `slot` on, a chunk at a time. */
  private copy(direction: 'write' | 'read', slot: number, view: ArrayBufferView): void {
    const { at, bytes, fd } = this.place(slot, view)
    const op: (fd: number, bytes: Uint8Array, from: number, length: number, position: number) => number = direction === 'write' ? writeSync : readSync
    for (let done = 0; done < bytes.byteLength; ) {
      const n = op(fd, bytes, done, Math.min(CHUNK, bytes.byteLength - done), at + done)
      if (n <= 0) throw new Error(direction === 'write' ? `${this.file}: a write at byte ${at + done} wrote nothing` : `${this.file} ended at byte ${at + done}, inside its own slots (truncated by someone else?)`)
      done += n
    }
  }

  /** Writes `data` at the start of slot `slot` (on into the next slots when longer than one); returns its length. */
  write(slot: number, data: ArrayBufferView): number {
    this.copy('write', slot, data)
    return data.byteLength
  }

  /** Fills `target` from the start of slot `slot` (on from the next slots when longer than one). */
  readInto(slot: number, target: ArrayBufferView): void {
    this.copy('read', slot, target)
  }

  /** As write, in pieces copied at once by the thread pool (for large rows: several times one copy's speed). */
  async writeAsync(slot: number, data: ArrayBufferView): Promise<number> {
    const { at, bytes, fd } = this.place(slot, data)
    await inPieces(bytes, at, this.file, (from, length, position, done) => write(fd, bytes, from, length, position, done))
    return bytes.byteLength
  }

  /** As readInto, in pieces copied at once by the thread pool. */
  async readIntoAsync(slot: number, target: ArrayBufferView): Promise<void> {
    const { at, bytes, fd } = this.place(slot, target)
    await inPieces(bytes, at, this.file, (from, length, position, done) => read(fd, bytes, from, length, position, done))
  }

  /** A notice as received (any value from a peer), checked against this file: one slot's worth at most. */
  check(notice: unknown): SlotNotice {
    const n = notice as Partial<SlotNotice> | null
    const { slots, slotBytes } = this.geometry
    const whole = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0
    if (!n || typeof n !== 'object' || !whole(n.slot) || !whole(n.sequence) || !whole(n.length)) throw new RangeError('a slot notice needs whole, non-negative slot, sequence and length')
    if (n.slot >= slots) throw new RangeError(`notice of slot ${n.slot}: the file has ${slots} slots`)
    if (n.length > slotBytes) throw new RangeError(`notice of ${n.length} bytes in slot ${n.slot}: a slot holds ${slotBytes}`)
    return { slot: n.slot, sequence: n.sequence, length: n.length }
  }

  /** The bytes a notice announces, read into the start of `target` after checking the notice; returns the checked notice. */
  receive(notice: unknown, target: ArrayBufferView): SlotNotice {
    const n = this.noticeFor(notice, target)
    this.readInto(n.slot, new Uint8Array(target.buffer, target.byteOffset, n.length))
    return n
  }

  /** As receive, read in pieces at once by the thread pool. */
  async receiveAsync(notice: unknown, target: ArrayBufferView): Promise<SlotNotice> {
    const n = this.noticeFor(notice, target)
    await this.readIntoAsync(n.slot, new Uint8Array(target.buffer, target.byteOffset, n.length))
    return n
  }

  private noticeFor(notice: unknown, target: ArrayBufferView): SlotNotice {
    const n = this.check(notice)
    if (n.length > target.byteLength) throw new RangeError(`notice of ${n.length} bytes; the reader expects at most ${target.byteLength}`)
    return n
  }

  close(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
  }
}
