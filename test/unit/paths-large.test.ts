// What V = 40 000 (6.4 GB of distances) needs, checked at small scale: matrices written to disk in
// pieces straight from memory (bin and npy, successors too), no 4 GiB output limit, the memory
// check before starting, the GPU side padded to whole tiles and split into bands, successors made
// in the keys' memory, and the generator past a Set's 2^24 entries; the tuned shapes' names and
// the bench's --shapes and --vertices flags.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/main/terminal/command'
import { benchPathsCommand } from '../../src/main/workloads/paths/bench-command'
import { generateGraph } from '../../src/main/workloads/paths/generate-graph'
import { SUBMIT_MS, bandsOf, nextSubmitSteps } from '../../src/main/workloads/paths/gpu/gpu-solver'
import { DEFAULT_TUNED_SHAPE, TUNED_SWEEP_SHAPES, parseTunedShape, shapeConstants, shapeUnavailable, shapeWorkgroupBytes, tunedShapeName } from '../../src/main/workloads/paths/gpu/tuned-shapes'
import type { Gpu } from '../../src/main/gpu/runtime'
import { paddedSide } from '../../src/main/workloads/paths/gpu/variants'
import { KEY_NONE, KEY_SELF, successors } from '../../src/main/workloads/paths/matrix'
import { checkMemory, checkVertexCount, MAX_UNNAMED_VERTICES } from '../../src/main/workloads/paths/matrix-bounds'
import { checkOutput, matrixFile, matrixPieces, writeMatrices } from '../../src/main/workloads/paths/write-matrix'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paths-large-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const name = (v: number) => `v${v}`

describe('matrices written in pieces', () => {
  const V = 7
  const d = Int32Array.from({ length: V * V }, (_, i) => (i * 7919) % 1000)
  const next = Int32Array.from({ length: V * V }, (_, i) => (i % 3 === 0 ? -1 : i % V))

  it('pieces are views of the matrix, none larger than asked', () => {
    const pieces = [...matrixPieces(d, 16)]
    expect(pieces).toHaveLength(Math.ceil((V * V * 4) / 16))
    for (const p of pieces) {
      expect(p.buffer).toBe(d.buffer)
      expect(p.byteLength).toBeLessThanOrEqual(16)
    }
    expect(Buffer.concat(pieces).equals(Buffer.from(d.buffer))).toBe(true)
  })

  it('bin: the matrix byte for byte, successors beside it, from 12-byte pieces', async () => {
    const out = join(dir, 'm.bin')
    const written = await writeMatrices(out, 'bin', V, name, d, next, false, 12)
    expect(written).toEqual({ bytes: V * V * 4, next: join(dir, 'm.next.bin') })
    expect((await readFile(out)).equals(Buffer.from(d.buffer))).toBe(true)
    expect((await readFile(join(dir, 'm.next.bin'))).equals(Buffer.from(next.buffer))).toBe(true)
  })

  it('npy: the header, then the matrix, in pieces', async () => {
    const out = join(dir, 'm.npy')
    const { bytes } = await writeMatrices(out, 'npy', V, name, d, undefined, false, 8)
    const file = await readFile(out)
    expect(file.length).toBe(bytes)
    expect(file.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY')
    const offset = 10 + file.readUInt16LE(8)
    expect(offset % 64).toBe(0)
    expect(file.subarray(10, offset).toString('latin1')).toContain(`'descr': '<f8', 'fortran_order': False, 'shape': (${V}, ${V})`)
    // f64 distances, converted a piece (here one cell) at a time, inf for no path.
    expect(file.subarray(offset).equals(Buffer.from(Float64Array.from(d, (x) => (x === 1073741823 ? Infinity : x)).buffer))).toBe(true)
  })

  it('csv: names and numbers, unreachable empty, successors as names, in pieces', () => {
    const file = matrixFile(Int32Array.from([0, 5, 1073741823, 0]), 2, 'csv', name)
    const text = Buffer.concat([...(file.data as Iterable<Uint8Array>)]).toString()
    expect(text).toBe('distance from \\ to,v0,v1\nv0,0,5\nv1,,0\n')
    expect(file.bytes()).toBe(text.length)
    const next = matrixFile(Int32Array.from([0, 1, -1, 1]), 2, 'csv', (v) => ['a,b', '=x'][v], true)
    expect(Buffer.concat([...(next.data as Iterable<Uint8Array>)]).toString()).toBe(`next hop from \\ to,"a,b",'=x\n"a,b","a,b",'=x\n'=x,,'=x\n`)
  })

  it('accepts outputs beyond 4 GiB (V = 40 000) in every format, csv too (it streams)', async () => {
    await expect(checkOutput(join(dir, 'big.bin'), 'bin', 40_000, true, false)).resolves.toBeUndefined()
    await expect(checkOutput(join(dir, 'big.npy'), 'npy', 40_000, false, false)).resolves.toBeUndefined()
    await expect(checkOutput(join(dir, 'big.csv'), 'csv', 40_000, false, false)).resolves.toBeUndefined()
  })

  // V = 3 000 (refused before at 2 000): ~40 MB of text, written holding a piece of it at a time.
  it('csv of V = 3 000 through writeFileAtomic (what it holds at a time: csv-matrix.test.ts)', async () => {
    const V = 3000
    const d = new Int32Array(V * V).map((_, k) => (k % 7 === 3 ? 1073741823 : (k * 2654435761) % 100000))
    const out = join(dir, 'big.csv')
    const { bytes } = await writeMatrices(out, 'csv', V, name, d, undefined, false)
    expect(bytes).toBeGreaterThan(30e6)
    const text = await readFile(out, 'latin1')
    expect(text.length).toBe(bytes)
    const lines = text.split('\n')
    expect(lines.length).toBe(V + 2)
    expect(lines[1].split(',').length).toBe(V + 1)
    expect(lines[1].split(',')[4]).toBe('')
    expect(lines[1].split(',')[2]).toBe(String(d[1]))
  })
})

describe('memory', () => {
  it('refuses before starting a graph whose matrices exceed the memory available, naming the sizes', () => {
    const GiB = 2 ** 30
    // V = 40 000: 6.4 GB per matrix; the reference, the run and a copy in flight, twice with successors.
    expect(() => checkMemory('g.bin', 40_000, false, 3, 100 * GiB)).not.toThrow()
    expect(() => checkMemory('g.bin', 40_000, true, 3, 100 * GiB)).not.toThrow()
    expect(() => checkMemory('g.bin', 40_000, true, 3, 20 * GiB)).toThrow(
      'g.bin: 40000 vertices need about 35.8 GiB for 6 40000 × 40000 matrices; 20.0 GiB of memory are available',
    )
    expect(() => checkMemory('g.bin', 40_000, false, 1, 6 * GiB)).toThrow('need about 11.9 GiB')
  })

  it('takes vertices no edge names up to 4096, or as many as the edges name, before any matrix is made', () => {
    /** V vertices, edges i → i + 1 naming the first `named` of them. */
    const graph = (V: number, named: number) => {
      const src = Int32Array.from({ length: named - 1 }, (_, i) => i)
      return { format: 'course' as const, V, src, dst: src.map((i) => i + 1), w: new Int32Array(named - 1) }
    }
    expect(MAX_UNNAMED_VERTICES).toBe(4096)
    expect(() => checkVertexCount({ ...graph(4096, 1), src: new Int32Array(0), dst: new Int32Array(0), w: new Int32Array(0) }, 'g.bin')).not.toThrow()
    expect(() => checkVertexCount(graph(4097 + 10, 10), 'g.bin')).toThrow('g.bin: the header announces 4107 vertices, but its 9 edges name 10 of them')
    expect(() => checkVertexCount(graph(4097 + 3000, 10), 'g.bin')).toThrow('but its 9 edges name at most 18 of them')
    expect(() => checkVertexCount(graph(10_000, 5000), 'g.bin')).not.toThrow()
    expect(() => checkVertexCount(graph(10_001, 5000), 'g.bin')).toThrow('g.bin: the header announces 10001 vertices, but its 4999 edges name 5000 of them: a 10001 × 10001 matrix (0.4 GiB)')
    expect(() => checkVertexCount(graph(6000, 1904), 'g.bin')).not.toThrow()
    expect(() => checkVertexCount(graph(6000, 1903), 'g.bin')).toThrow('its 1902 edges name 1903 of them')
  })

  it('successors take the keys\' memory', () => {
    const key = Uint32Array.from([KEY_SELF, 0x10001, KEY_NONE, KEY_SELF])
    const next = successors(key, 2)
    expect(next.buffer).toBe(key.buffer)
    expect([...next]).toEqual([0, 1, -1, 1])
  })
})

describe('the GPU side of a large graph', () => {
  it('pads to whole 64-blocks', () => {
    expect(paddedSide(40_000)).toBe(40_000)
    expect(paddedSide(130)).toBe(192)
    expect(paddedSide(1)).toBe(64)
  })

  it('splits 40 000 (padded to 40 064) into three bindings of 2 GiB, and refuses what needs more than four', () => {
    const split = bandsOf(40_064, 2 ** 31)!
    expect(split).toEqual({ rows: 13_376, bands: 3 })
    expect(split.rows * 40_064 * 4).toBeLessThanOrEqual(2 ** 31)
    expect(split.rows % 64).toBe(0)
    // The largest generated graph, V = 46 340, would need five bands of 11 520 rows.
    expect(bandsOf(46_464, 2 ** 31)).toBeNull()
  })
})

describe('rounds per submit of the tuned variant', () => {
  it('one round first, then as many as take SUBMIT_MS at the pace so far, never more than are left', () => {
    expect(nextSubmitSteps(0, 0, 79)).toBe(1)
    // V = 5000 on a fast GPU: the first round and its submit took 0.4 ms, the 78 others go at once.
    expect(nextSubmitSteps(1, 0.4, 78)).toBe(78)
    // V = 40 000: ~10 ms a round.
    expect(nextSubmitSteps(1, 10, 624)).toBe(SUBMIT_MS / 10)
    expect(nextSubmitSteps(21, 210, 604)).toBe(SUBMIT_MS / 10)
    // A software adapter: seconds a round, still one at a time.
    expect(nextSubmitSteps(3, 9000, 2)).toBe(1)
  })
})

describe('the generator', () => {
  it('draws more distinct edges than a Set holds (2^24) among 2^29 pairs and more', () => {
    // 23 200 vertices: 538 M pairs, beyond the bitset-only range of old; 17 M edges, beyond a Set.
    const V = 23_200
    const E = 2 ** 24 + 1000
    const { src, dst, w } = generateGraph({ vertices: V, edges: E, maxWeight: 9, seed: 3 })
    expect(src.length).toBe(E)
    const seen = new Uint8Array(Math.ceil((V * V) / 8))
    let bad = 0
    let repeated = 0
    for (let e = 0; e < E; e++) {
      if (src[e] === dst[e] || src[e] < 0 || src[e] >= V || dst[e] < 0 || dst[e] >= V || w[e] < 0 || w[e] > 9) bad++
      const p = src[e] * V + dst[e]
      if (seen[p >>> 3] & (1 << (p & 7))) repeated++
      seen[p >>> 3] |= 1 << (p & 7)
    }
    expect({ bad, repeated }).toEqual({ bad: 0, repeated: 0 })
  }, 120_000)
})

describe('tuned shapes', () => {
  it('names round-trip, square tiles written once', () => {
    for (const s of TUNED_SWEEP_SHAPES) expect(tunedShapeName(parseTunedShape(s))).toBe(s)
    expect(parseTunedShape('b32x64-k8')).toEqual({ rows: 32, cols: 64, kc: 8 })
    expect(shapeConstants(parseTunedShape('b32x64-k8'))).toEqual({ TX: 16, TY: 8, KC: 8 })
    expect(shapeConstants(parseTunedShape(DEFAULT_TUNED_SHAPE))).toEqual({ TX: 16, TY: 16, KC: 16 })
    expect(shapeWorkgroupBytes(parseTunedShape('b64-k64'))).toBe(32 * 1024)
  })

  it.each([
    ['b64', 'is not of the form b<rows>[x<cols>]-k<k>'],
    ['b64-t4x4-k16', 'is not of the form b<rows>[x<cols>]-k<k>'],
    ['b48-k16', 'tile sides must be 32 or 64'],
    ['b128x64-k16', 'tile sides must be 32 or 64'],
    ['b64-k24', 'values of k per stage must be a multiple of 4 dividing 64'],
    ['b64-k128', 'values of k per stage must be a multiple of 4 dividing 64'],
  ])('refuses %s', (shape, message) => {
    expect(() => parseTunedShape(shape)).toThrow(message)
  })

  it('says what a shape needs beyond an adapter', () => {
    const limits = { maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupSizeX: 256, maxComputeWorkgroupSizeY: 256, maxComputeWorkgroupStorageSize: 16384 }
    const adapter = (more: Partial<typeof limits>) => ({ limits: { ...limits, ...more } }) as unknown as Gpu
    expect(shapeUnavailable(adapter({}), parseTunedShape(DEFAULT_TUNED_SHAPE))).toBeNull()
    expect(shapeUnavailable(adapter({}), parseTunedShape('b64-k64'))).toBe('b64-k64 needs 32 KiB of workgroup memory; the device allows 16 KiB')
    expect(shapeUnavailable(adapter({ maxComputeInvocationsPerWorkgroup: 128 }), parseTunedShape('b64-k8'))).toBe(
      "b64-k8 has 16 × 16 invocations, beyond this adapter's workgroups (128 invocations, 256 × 256)",
    )
  })
})

describe('bench paths flags', () => {
  const run = (values: Record<string, unknown>) => benchPathsCommand.run(values, [])

  it('refuses a malformed shape and shapes without the tuned variant, as usage errors', async () => {
    await expect(run({ shapes: 'b96-k16', variant: 'tuned' })).rejects.toThrow(UsageError)
    await expect(run({ shapes: 'b96-k16', variant: 'tuned' })).rejects.toThrow('--shapes: tuned shape b96-k16: tile sides must be 32 or 64')
    await expect(run({ shapes: 'all', variant: 'b64' })).rejects.toThrow('--shapes are tile shapes of the tuned variant: add tuned to --variant')
  })

  it('refuses a vertex count out of range in a list, and a list with --file', async () => {
    await expect(run({ vertices: '5000,0' })).rejects.toThrow('--vertices must be an integer in 1…46340, got "0"')
    await expect(run({ vertices: '50,60', file: 'g.bin' })).rejects.toThrow('--file takes the graph it names: give no list of --vertices with it')
  })

  it('documents --shapes and its sweep', () => {
    expect(benchPathsCommand.help).toContain('--shapes S,…|all')
    for (const s of TUNED_SWEEP_SHAPES) expect(benchPathsCommand.help).toContain(s)
  })
})
