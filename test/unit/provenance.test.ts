// Each input's provenance in the envelope: the sha256 of its bytes (taken as the readers read them,
// the rest read once at the end), its format, and for an example's file the generator that makes
// the same bytes again.
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Backend } from '../../src/main/backend/backend'
import { provenanceOf } from '../../src/main/backend/history'
import { hashAlongside, InputDigest, sawRead, stopWatching, watchReads } from '../../src/main/io/input-digest'
import { loadCsv } from '../../src/main/io/csv-loader'
import { ENGINES } from '../../src/main/workloads'
import { generateAccCsv } from '../../src/main/workloads/stats/generate-acc'
import { writeGeneratedGraph } from '../../src/main/workloads/paths/generate-graph'
import { failure } from '../helpers/failure'
import { generateWalks } from '../../src/main/workloads/correlation/walks'
import { writeSeries } from '../../src/main/workloads/correlation/write-walks'
import { readGraph } from '../../src/main/workloads/paths/read-graph'
import { readLandslideInput } from '../../src/main/workloads/landslide/inputs'
import { syntheticSlope } from '../../src/main/workloads/landslide/example'

const dir = mkdtempSync(join(tmpdir(), 'paralab-provenance-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

describe('InputDigest', () => {
  const path = join(dir, 'digest.bin')
  const bytes = new Uint8Array(3_000_001).map((_, i) => (i * 7919) & 0xff)
  writeFileSync(path, bytes)

  it('hashes reads that continue the digest, skips the others, and reads only the rest at the end', async () => {
    const d = await watchReads(path)
    try {
      sawRead(path, 0, bytes.subarray(0, 1000))
      sawRead(path, 500, bytes.subarray(500, 2500)) // overlaps: only [1000, 2500) is new
      sawRead(path, 10_000, bytes.subarray(10_000, 20_000)) // ahead of the digest: not hashed
      sawRead(path, 0, bytes.subarray(0, 100)) // behind it: not hashed again
      expect(d.bytes.inOrder).toBe(2500)
      expect(await d.finish()).toBe(sha256(path))
      expect(d.bytes.again).toBe(bytes.length - 2500)
    } finally {
      stopWatching(d)
    }
  })

  it('hashes alongside a reader that goes on reading in order, each byte once, whichever gets there first', async () => {
    const d = await watchReads(path)
    try {
      hashAlongside(path)
      for (let at = 0; at < bytes.length; at += 65_536) {
        sawRead(path, at, bytes.subarray(at, at + 65_536))
        await new Promise((r) => setImmediate(r))
      }
      expect(await d.finish()).toBe(sha256(path))
      expect(d.bytes.inOrder + d.bytes.again).toBe(bytes.length)
    } finally {
      stopWatching(d)
    }
  })

  it('a pass alongside that was cancelled is finished by the end', async () => {
    const d = await watchReads(path)
    try {
      const stop = new AbortController()
      stop.abort()
      hashAlongside(path, stop.signal)
      expect(await d.finish()).toBe(sha256(path))
    } finally {
      stopWatching(d)
    }
  })

  it('a CSV parsed on the loader threads is hashed on this thread meanwhile', async () => {
    const csv = join(dir, 'threads.csv')
    await generateAccCsv(csv, { rows: 50_000, seed: 9, force: true })
    const d = await watchReads(csv)
    try {
      await loadCsv(csv, { columns: ['acc_x'], threads: 2, rangeBytes: 1 << 16 })
      const hashedWhileLoading = d.bytes.inOrder + d.bytes.again
      expect(hashedWhileLoading).toBeGreaterThan(0)
      expect(await d.finish()).toBe(sha256(csv))
    } finally {
      stopWatching(d)
    }
  })

  it('takes nothing once the job stopped watching', async () => {
    const d = await watchReads(path)
    stopWatching(d)
    sawRead(path, 0, bytes)
    expect(d.bytes.inOrder).toBe(0)
    expect(await d.finish()).toBe(sha256(path))
  })

  it('refuses a file that changed between the read and the end, naming it', async () => {
    const grown = join(dir, 'grown.bin')
    writeFileSync(grown, 'abc')
    const d = new InputDigest(grown, { size: 3, mtimeMs: 0 })
    appendFileSync(grown, 'def')
    expect((await failure(d.finish())).message).toBe(`${grown} changed while the job read it (3 bytes before, 6 now): its sha256 would not be of the bytes read`)
  })
})

describe('envelopes record each input', () => {
  it('a CSV: its sha256 (as sha256sum computes it) and its format', async () => {
    const csv = join(dir, 'acc.csv')
    await generateAccCsv(csv, { rows: 3000, seed: 7, force: true })
    const backend = new Backend({ engines: ENGINES })
    const env = await backend.jobs.result(backend.startJob('stats', { files: [csv], backends: ['serial'], repeat: 1 }))
    const [file] = env.input.files
    expect(file.sha256).toBe(execFileSync('sha256sum', [csv], { encoding: 'utf8' }).split(' ')[0])
    expect(file.format).toBe('csv')
    expect(file.generator).toBeUndefined()
    expect(provenanceOf(env)).toEqual([`acc.csv · csv · sha256 ${file.sha256}`])
  })

  it('a binary graph read in order: hashed by its reader', async () => {
    const graph = join(dir, 'g.bin')
    await writeGeneratedGraph(graph, { vertices: 40, edges: 200, seed: 3, force: true })
    const backend = new Backend({ engines: ENGINES })
    const env = await backend.jobs.result(backend.startJob('paths', { files: [graph], backends: ['serial'], repeat: 1 }))
    expect(env.input.files.map((f) => [f.format, f.sha256])).toEqual([['course', sha256(graph)]])
  })

  it('the readers that read a whole file in order hash it in that pass: nothing is read again', async () => {
    const graph = join(dir, 'h.mtx')
    await writeGeneratedGraph(graph, { vertices: 30, edges: 100, seed: 4, force: true })
    const slope = syntheticSlope(2, 20, 30)
    const [dem, source] = [join(dir, 'dem.asc'), join(dir, 'source.asc')]
    writeFileSync(dem, slope.dem)
    writeFileSync(source, slope.source)
    const digests = await Promise.all([graph, dem, source].map((p) => watchReads(p)))
    try {
      await readGraph(graph, 'h.mtx')
      await readLandslideInput(['dem.asc', 'source.asc'], [dem, source])
      for (const d of digests) {
        expect(await d.finish()).toBe(sha256(d.path))
        expect(d.bytes).toEqual({ inOrder: readFileSync(d.path).length, again: 0 })
      }
    } finally {
      digests.forEach(stopWatching)
    }
  })

  it('an HDF5 file: its format and the dataset read', async () => {
    const h5 = join(dir, 'walks.h5')
    const walks = generateWalks({ series: 4, length: 64, start: 100, eps: 0.01, seed: 3, anomalies: 0 })
    await writeSeries(h5, walks.values, 4, 64, { layout: 'columns', force: true })
    const backend = new Backend({ engines: ENGINES })
    const env = await backend.jobs.result(backend.startJob('correlation', { files: [h5], dataset: '/walks', backends: ['serial'], repeat: 1 }))
    expect(env.input.files).toEqual([expect.objectContaining({ format: 'hdf5', dataset: '/walks', sha256: sha256(h5) })])
    expect(provenanceOf(env)).toEqual([`walks.h5 · hdf5 · dataset /walks · sha256 ${sha256(h5)}`])
  })

  it("an example's file: its generator, whose command makes the same bytes", async () => {
    const backend = new Backend({ engines: ENGINES, exampleDir: join(dir, 'examples') })
    const example = await backend.example('stats')
    const env = await backend.jobs.result(backend.startJob('stats', { ...example.params, backends: ['serial'], repeat: 1, batches: 1 } as never))
    const [file] = env.input.files
    expect(file.generator).toEqual({ name: 'generate acc', parameters: { rows: 20_000 }, seed: 1 })
    const again = join(dir, 'again.csv')
    await generateAccCsv(again, { rows: file.generator!.parameters.rows as number, seed: file.generator!.seed, force: true })
    expect(file.sha256).toBe(sha256(again))
    expect(provenanceOf(env)[0]).toContain('made by paralab generate acc --seed 1')
  })
})
