// `paralab paths --checkpoint-every` as a user runs it: a run killed (SIGKILL) once a checkpoint is
// complete and started again with the same folder resumes there and writes the same distances and
// successors as an uninterrupted run; a cancelled run leaves no half-written checkpoint; a
// checkpoint of another graph or block, and a corrupted one, are refused naming it (the previous one
// kept); a checkpoint that lies (an edited or re-sealed manifest, a name outside its folder, a FIFO)
// is refused naming the file and what differs, and a folder that cannot hold checkpoints is refused
// at start; what one checkpointed run cannot be is refused naming the flags; a cluster task
// checkpoints into its task folder and its job script requeues on the warning. Runs the built CLI
// (npm run build). The gpu tuned variant's checkpoints: test/gpu/paths-checkpoints-gpu.test.ts.
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CLI } from '../helpers/serve'
import { errorLines, jsonOf, paralab } from './paralab'

vi.setConfig({ testTimeout: 120_000 })

let dir: string
// 1002 vertices: the SIMD backends' rows have a stride of 1004 words, the checkpoint's 1002.
let big: string
let small: string
let other: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paralab-paths-checkpoints-'))
  big = join(dir, 'big.bin')
  small = join(dir, 'small.bin')
  other = join(dir, 'other.bin')
  for (const [path, vertices, edges, seed] of [[big, 1002, 30000, 7], [small, 203, 3000, 8], [other, 203, 3000, 9]] as const)
    expect(paralab(['generate', 'graph', path, '--vertices', String(vertices), '--edges', String(edges), '--seed', String(seed)]).code).toBe(0)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Writes `text` as the checkpoint's manifest with its seal, as one who knows the format would. */
function reseal(checkpoint: string, text: string): void {
  writeFileSync(join(checkpoint, 'manifest.json'), text)
  writeFileSync(join(checkpoint, 'manifest.sha256'), `${createHash('sha256').update(text).digest('hex')}  manifest.json\n`)
}

const complete = (ck: string) => (existsSync(ck) ? readdirSync(ck).filter((n) => /^round-\d+$/.test(n)).sort() : [])
const pending = (ck: string) => (existsSync(ck) ? readdirSync(ck).filter((n) => n.startsWith('.')) : [])

/** Starts `paralab paths …` and stops it with `signal` once the folder holds a complete checkpoint; resolves with its exit. */
async function stopAtCheckpoint(args: string[], ck: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; reached: string[] }> {
  const child = spawn(process.execPath, [CLI, 'paths', ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })))
  let done = false
  void exited.then(() => (done = true))
  while (!done && complete(ck).length === 0) await new Promise((r) => setTimeout(r, 10))
  expect(done, `the run ended before its first checkpoint: ${stderr}`).toBe(false)
  const reached = complete(ck)
  child.kill(signal)
  return { ...(await exited), reached }
}

describe('paralab paths --checkpoint-every', () => {
  it('killed once a checkpoint is complete and started again, resumes there and writes the same distances and successors as an uninterrupted run', async () => {
    const ref = join(dir, 'ref.bin')
    const whole = jsonOf(paralab(['paths', big, '--backend', 'workers-simd', '--block', '32', '--paths', '--repeat', '1', '--output', ref, '--json']))
    expect(whole.results.graphs[0].checkpoints).toBeUndefined()

    const ck = join(dir, 'ck-killed')
    const out = join(dir, 'resumed.bin')
    const args = [big, '--backend', 'workers-simd', '--block', '32', '--paths', '--checkpoint-every', '2', '--checkpoint-dir', ck, '--output', out, '--json']
    const killed = await stopAtCheckpoint(args, ck, 'SIGKILL')
    expect(killed.signal).toBe('SIGKILL')
    expect(existsSync(out)).toBe(false)
    // Only complete checkpoints (a hidden pending folder is none), each with its manifest and files.
    const left = complete(ck)
    expect(left.length).toBeGreaterThan(0)
    for (const n of left) expect(readdirSync(join(ck, n)).sort()).toEqual(['d.i32', 'key.u32', 'manifest.json', 'manifest.sha256'])

    const env = jsonOf(paralab(['paths', ...args]))
    const g = env.results.graphs[0]
    expect(g.checkpoints.resumed_from).toBeGreaterThan(0)
    expect(g.checkpoints.resumed_from).toBeGreaterThanOrEqual(Number(left.at(-1)!.slice('round-'.length)))
    expect(g.checkpoints).toMatchObject({ every: 2, folder: ck, last: 30 })
    expect(g.runs.map((r: { name: string; matches: boolean }) => [r.name, r.matches])).toEqual([['workers-simd B=32 with successors', true]])
    expect(readFileSync(out).equals(readFileSync(ref))).toBe(true)
    expect(readFileSync(join(dir, 'resumed.next.bin')).equals(readFileSync(join(dir, 'ref.next.bin')))).toBe(true)
    expect(g.checksum).toBe(whole.results.graphs[0].checksum)
    // 32 rounds of 32 vertices: the last checkpoint is at round 30 and the one before is kept.
    expect(complete(ck)).toEqual(['round-0000028', 'round-0000030'])
    expect(pending(ck)).toEqual([])
  })

  it('cancelled (SIGINT) while checkpointing, leaves complete checkpoints only', async () => {
    const ck = join(dir, 'ck-cancelled')
    const stopped = await stopAtCheckpoint([big, '--backend', 'simd', '--block', '32', '--checkpoint-every', '1', '--checkpoint-dir', ck], ck, 'SIGINT')
    expect(stopped.code).toBe(130)
    expect(pending(ck)).toEqual([])
    for (const n of complete(ck)) expect(readdirSync(join(ck, n)).sort()).toEqual(['d.i32', 'manifest.json', 'manifest.sha256'])
  })

  it('refuses a checkpoint of another graph or another block, naming it and what differs', () => {
    const ck = join(dir, 'ck-other')
    const run = (graph: string, block: string, backend = 'blocked') => paralab(['paths', graph, '--backend', backend, '--block', block, '--checkpoint-every', '2', '--checkpoint-dir', ck, '--json'])
    const first = jsonOf(run(small, '32'))
    // 7 rounds: checkpoints at rounds 2, 4 and 6; the two newest are kept.
    expect(first.results.graphs[0].checkpoints).toMatchObject({ resumed_from: 0, last: 6, written: 3 })
    expect(complete(ck)).toEqual(['round-0000004', 'round-0000006'])

    const graph = run(other, '32')
    expect(graph.code).toBe(1)
    expect(errorLines(graph.stderr)[0]).toMatch(
      new RegExp(`^paralab: checkpoint ${ck}/round-0000006 is of another graph: .*small\\.bin, 203 vertices \\(sha256 [0-9a-f]{12}…\\); this run's is .*other\\.bin, 203 vertices \\(sha256 [0-9a-f]{12}…\\): use another checkpoint folder, or remove this one$`),
    )
    const block = run(small, '64')
    expect(block.code).toBe(1)
    expect(errorLines(block.stderr)[0]).toBe(`paralab: checkpoint ${ck}/round-0000006 was computed with --block 32; this run's is --block 64: use another checkpoint folder, or remove this one`)
    const successors = paralab(['paths', small, '--backend', 'blocked', '--block', '32', '--paths', '--checkpoint-every', '2', '--checkpoint-dir', ck])
    expect(successors.code).toBe(1)
    expect(errorLines(successors.stderr)[0]).toContain(`checkpoint ${ck}/round-0000006 does not keep successors`)

    // The same graph and block, on another blocked backend: the same matrix after a round.
    const again = jsonOf(run(small, '32', 'simd'))
    expect(again.results.graphs[0].checkpoints).toMatchObject({ resumed_from: 6, last: 6, written: 0 })
    expect(again.results.graphs[0].checksum).toBe(first.results.graphs[0].checksum)
  })

  it('refuses a corrupted checkpoint, naming it, and keeps the previous one, which a run then resumes from', () => {
    const ck = join(dir, 'ck-corrupted')
    const run = () => paralab(['paths', small, '--backend', 'workers', '--block', '32', '--checkpoint-every', '2', '--checkpoint-dir', ck, '--json'])
    const first = jsonOf(run())
    const newest = join(ck, 'round-0000006')
    const previous = join(ck, 'round-0000004')
    const kept = `(the previous checkpoint, ${previous}, is kept: remove this one to resume from it)`
    const manifest = readFileSync(join(newest, 'manifest.json'))

    writeFileSync(join(newest, 'manifest.json'), '{"format": "paralab-paths-checkpoint", "version"')
    const bad = run()
    expect(bad.code).toBe(1)
    expect(errorLines(bad.stderr)[0]).toBe(`paralab: checkpoint ${newest} is corrupted: its manifest.json does not match the sha256 in manifest.sha256: it was changed after it was written ${kept}`)
    expect(existsSync(join(previous, 'manifest.json'))).toBe(true)

    reseal(newest, JSON.stringify({ format: 'paralab-landslide-checkpoint', version: 2 }))
    expect(errorLines(run().stderr)[0]).toBe(`paralab: checkpoint ${newest} is corrupted: its manifest.json is not a shortest-paths checkpoint of this version ${kept}`)

    // A flipped byte in the distances, then a file cut short.
    reseal(newest, manifest.toString())
    const d = join(newest, 'd.i32')
    const bytes = readFileSync(d)
    bytes[1234] ^= 0xff
    writeFileSync(d, bytes)
    const flipped = run()
    expect(flipped.code).toBe(1)
    expect(errorLines(flipped.stderr)[0]).toBe(`paralab: checkpoint ${newest} is corrupted: d.i32 does not match its sha256 ${kept}`)
    writeFileSync(d, bytes.subarray(0, 1000))
    expect(errorLines(run().stderr)[0]).toBe(`paralab: checkpoint ${newest} is corrupted: d.i32 holds 1000 bytes, not the ${203 * 203 * 4} its manifest.json gives it ${kept}`)
    expect(existsSync(join(previous, 'manifest.json'))).toBe(true)

    // Removed as the message says, the run resumes from the previous one and ends with the same distances.
    rmSync(newest, { recursive: true })
    const resumed = jsonOf(run()).results.graphs[0]
    expect(resumed.checkpoints).toMatchObject({ resumed_from: 4, last: 6, written: 1 })
    expect(resumed.checksum).toBe(first.results.graphs[0].checksum)
  })

  describe('a checkpoint that lies', () => {
    // One real run leaves round-0000004 and round-0000006 (of 7); each case edits a copy.
    let written: string
    let checksum: string
    const run = (ck: string, timeout?: number) => paralab(['paths', small, '--backend', 'workers', '--block', '32', '--checkpoint-every', '2', '--checkpoint-dir', ck, '--json'], {}, timeout)
    const copy = () => {
      const ck = join(mkdtempSync(join(dir, 'lies-')), 'ck')
      execFileSync('cp', ['-a', written, ck])
      const newest = join(ck, 'round-0000006')
      return { ck, newest, manifest: JSON.parse(readFileSync(join(newest, 'manifest.json'), 'utf8')), kept: `(the previous checkpoint, ${join(ck, 'round-0000004')}, is kept: remove this one to resume from it)` }
    }
    const refused = (r: ReturnType<typeof run>) => {
      expect(r.code, r.stderr).toBe(1)
      return errorLines(r.stderr)[0]
    }

    beforeAll(() => {
      written = join(dir, 'ck-lies')
      checksum = jsonOf(run(written)).results.graphs[0].checksum
      expect(complete(written)).toEqual(['round-0000004', 'round-0000006'])
      const { ck } = copy()
      expect(jsonOf(run(ck)).results.graphs[0]).toMatchObject({ checksum, checkpoints: { resumed_from: 6 } })
    })

    it('an edited round (6 → 7) is refused by the seal; sealed again, by its folder\'s name', () => {
      const edited = copy()
      writeFileSync(join(edited.newest, 'manifest.json'), JSON.stringify({ ...edited.manifest, round: 7 }))
      expect(refused(run(edited.ck))).toBe(`paralab: checkpoint ${edited.newest} is corrupted: its manifest.json does not match the sha256 in manifest.sha256: it was changed after it was written ${edited.kept}`)
      const resealed = copy()
      reseal(resealed.newest, JSON.stringify({ ...resealed.manifest, round: 7 }))
      expect(refused(run(resealed.ck))).toBe(`paralab: checkpoint ${resealed.newest} is corrupted: its manifest.json says round 7, its folder's name round 6 ${resealed.kept}`)
    })

    it('a file named outside its folder is refused', () => {
      const c = copy()
      reseal(c.newest, JSON.stringify({ ...c.manifest, files: [{ ...c.manifest.files[0], file: '../round-0000004/d.i32' }] }))
      expect(refused(run(c.ck))).toBe(`paralab: checkpoint ${c.newest} is corrupted: its manifest.json names "../round-0000004/d.i32", which is not a plain file name inside its folder ${c.kept}`)
    })

    it.each(['manifest.json', 'd.i32'])('a FIFO as %s is refused at once, naming it', (file) => {
      const c = copy()
      rmSync(join(c.newest, file))
      execFileSync('mkfifo', [join(c.newest, file)])
      const r = run(c.ck, 20_000)
      expect(refused(r)).toBe(`paralab: checkpoint ${c.newest} is corrupted: ${file} is a named pipe (FIFO), not a file Paralab wrote ${c.kept}`)
      expect(r.ended - r.started).toBeLessThan(15_000)
    })

    it('a checkpoint folder that is a file or /proc/self is refused before any work', () => {
      const file = join(dir, 'a-file')
      writeFileSync(file, 'x')
      expect(refused(run(file))).toBe(`paralab: cannot keep checkpoints in ${file}: it is a file, not a folder`)
      const r = run('/proc/self', 20_000)
      expect(refused(r)).toBe('paralab: cannot keep checkpoints in /proc/self: no folder can be made in it (ENOENT)')
      expect(r.ended - r.started).toBeLessThan(15_000)
    })
  })

  it.each([
    [['--backend', 'simd,workers'], '--checkpoint-every checkpoints one run: one --backend, --variant and --block; got --backend simd,workers'],
    [['--backend', 'simd', '--block', '32,64'], '--checkpoint-every checkpoints one run: one --backend, --variant and --block; got --backend simd --block 32,64'],
    [['--backend', 'simd', '--repeat', '3'], '--checkpoint-every computes once; got --repeat 3'],
    [['--backend', 'serial'], '--checkpoint-every with --backend serial: the plain triple loop has no rounds of pivot blocks to resume at; checkpoint with --backend blocked, simd, workers, workers-simd, or gpu with --variant tuned'],
    [['--backend', 'gpu', '--variant', 'shared'], '--checkpoint-every with --variant shared: only the tuned variant computes whole rounds of pivot blocks, one step each; checkpoint with --backend blocked, simd, workers, workers-simd, or gpu with --variant tuned'],
    [['--backend', 'gpu', '--gpus', '2'], '--checkpoint-every with --gpus 2: the GPUs\' bands exchange pivot rows within each round and are not read back between rounds; checkpoint on one GPU or with --backend blocked, simd, workers, workers-simd'],
  ])('refuses %j with --checkpoint-every, naming the flags', (flags, message) => {
    const ck = join(dir, 'ck-refused')
    const r = paralab(['paths', small, ...flags, '--checkpoint-every', '2', '--checkpoint-dir', ck])
    expect(r.code).toBe(1)
    expect(errorLines(r.stderr)[0]).toContain(`paralab: ${message}`)
    expect(existsSync(ck)).toBe(false)
  })

  it('refuses several graphs, and a run without a folder', () => {
    const two = paralab(['paths', small, other, '--checkpoint-every', '2', '--checkpoint-dir', join(dir, 'ck-two')])
    expect(errorLines(two.stderr)[0]).toBe('paralab: --checkpoint-every takes one graph; got 2')
    const none = paralab(['paths', small, '--checkpoint-every', '2'])
    expect(none.code).toBe(1)
    expect(errorLines(none.stderr)[0]).toBe('paralab: --checkpoint-every needs a folder for the checkpoints: --checkpoint-dir DIR (a cluster task defaults to checkpoints/ in its task folder)')
  })

  it('as a cluster task, checkpoints into its task folder, and its job script requeues on the warning before the time limit', () => {
    const out = join(dir, 'job')
    const env = jsonOf(paralab(['paths', small, '--backend', 'workers-simd', '--block', '32', '--checkpoint-every', '3', '--executor', 'local', '--out', out, '--json']))
    const script = readFileSync(join(out, 'job.sbatch'), 'utf8')
    expect(script).toContain('#SBATCH --signal=B:USR1@60')
    expect(script).toContain('#SBATCH --requeue')
    expect(script).toContain('trap \'scontrol requeue "$SLURM_JOB_ID"\' USR1')
    expect(script).toContain('--checkpoint-every=3 --repeat=1')
    const ck = join(out, 'tasks', '0', 'checkpoints')
    expect(env.results.graphs[0].checkpoints).toMatchObject({ every: 3, folder: ck, resumed_from: 0, last: 6 })
    expect(complete(ck)).toEqual(['round-0000003', 'round-0000006'])
  })
})
