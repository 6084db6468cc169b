// Reading graphs: the course's binary format, DIMACS .gr and CSV edge lists, and every fault
// named by byte offset and edge index or by line; negative weights checked for negative cycles.
import { describe, expect, it } from 'vitest'
import { parseCourseGraph, courseGraphBytes } from '../../src/main/workloads/paths/read-course'
import { parseDimacsGraph } from '../../src/main/workloads/paths/read-dimacs'
import { parseCsvEdges } from '../../src/main/workloads/paths/read-csv-edges'
import { csvFields, headerFields } from '../../src/shared/csv'
import { vertexIndex, vertexName } from '../../src/main/workloads/paths/graph'
import { prepareProblem } from '../../src/main/workloads/paths/prepare-problem'
import { generateGraph } from '../../src/main/workloads/paths/generate-graph'
import { serialSolver } from '../../src/main/workloads/paths/serial'
import { unweight } from '../../src/main/workloads/paths/matrix'
import { INF } from '../../src/shared/workloads/paths/types'

/** A course file from int32 words. */
const course = (...words: number[]) => new Uint8Array(Int32Array.from(words).buffer)

describe('the course binary format', () => {
  it('reads V, E and the edges', () => {
    const g = parseCourseGraph(course(3, 2, 0, 1, 5, 2, 0, 0), 'g')
    expect(g).toMatchObject({ format: 'course', V: 3 })
    expect([...g.src, ...g.dst, ...g.w]).toEqual([0, 2, 1, 0, 5, 0])
    expect(vertexName(g, 2)).toBe('2')
    expect(courseGraphBytes(3, g.src, g.dst, g.w)).toEqual(course(3, 2, 0, 1, 5, 2, 0, 0))
  })

  it.each([
    ['a file shorter than the header', new Uint8Array(5), 'g: 5 bytes, shorter than the 8-byte header (int32 V, int32 E)'],
    ['V = 0', course(0, 0), 'g: byte 0: the vertex count V is 0; it must be positive'],
    ['V < 0', course(-4, 0), 'g: byte 0: the vertex count V is -4; it must be positive'],
    ['E < 0', course(3, -1), 'g: byte 4: the edge count E is -1; it must not be negative'],
    ['an edge missing', course(3, 2, 0, 1, 5), 'g: the header announces 2 edges (32 bytes) but the file ends at byte 20: edge 1 (from 0), at byte 20, is missing'],
    ['an edge cut short', course(3, 2, 0, 1, 5, 2), 'g: the header announces 2 edges (32 bytes) but the file ends at byte 24: edge 1 (from 0), at byte 20, is cut short'],
    ['a source out of range', course(3, 2, 0, 1, 5, 3, 0, 1), 'g: edge 1 at byte 20: source 3 is outside 0…2'],
    ['a target out of range', course(3, 2, 0, -1, 5, 2, 0, 1), 'g: edge 0 at byte 12: target -1 is outside 0…2'],
    ['a negative weight', course(3, 2, 0, 1, 5, 2, 0, -7), 'g: edge 1 at byte 28: weight -7 is negative (the course format has 0 ≤ weight)'],
    ['bytes after the edges', new Uint8Array([...course(3, 1, 0, 1, 5), 9]), 'g: 1 bytes follow the 1 edges the header announces (from byte 20)'],
  ])('refuses %s, naming the place', (_, bytes, message) => {
    expect(() => parseCourseGraph(bytes, 'g')).toThrow(message)
  })

  it('takes E = 0: every pair but the diagonal unreachable', async () => {
    const p = prepareProblem(parseCourseGraph(course(3, 0), 'g'), 'g')
    const { d } = await serialSolver.solve(p, false)
    expect([...d]).toEqual([0, INF, INF, INF, 0, INF, INF, INF, 0])
  })

  it('keeps the smallest of duplicate edges and ignores self-loops', async () => {
    const p = prepareProblem(parseCourseGraph(course(2, 4, 0, 1, 9, 0, 1, 4, 0, 1, 6, 1, 1, 3), 'g'), 'g')
    expect(p.selfLoops).toBe(1)
    const { d, duplicates } = await serialSolver.solve(p, false)
    expect([...d]).toEqual([0, 4, INF, 0])
    expect(duplicates).toBe(2)
  })
})

describe('DIMACS .gr', () => {
  const text = ['c a comment', 'p sp 3 3', 'a 1 2 4', '', 'a 2 3 -2', 'a 1 3 5'].join('\n')

  it('reads 1-based vertices and negative weights, and names vertices 1…V', () => {
    const g = parseDimacsGraph(text, 'g.gr')
    expect(g.V).toBe(3)
    expect([...g.src, ...g.dst, ...g.w]).toEqual([0, 1, 0, 1, 2, 2, 4, -2, 5])
    expect(vertexName(g, 0)).toBe('1')
    expect(vertexIndex(g, '3', 'g.gr', '--to')).toBe(2)
    expect(() => vertexIndex(g, '0', 'g.gr', '--from')).toThrow('--from "0": g.gr numbers its vertices 1…3')
  })

  it.each([
    ['a bad line', 'p sp 3 1\nx 1 2 3', 'g.gr:2: expected a "c", "p" or "a" line, got "x 1 2 3"'],
    ['an arc before the problem line', 'a 1 2 3\np sp 3 1', 'g.gr:1: an arc before the problem line "p sp <vertices> <arcs>"'],
    ['a vertex out of range', 'p sp 3 1\nc\na 1 4 3', 'g.gr:3: target "4" is not a vertex 1…3'],
    ['a weight that is not a number', 'p sp 3 1\na 1 2 2,5', 'g.gr:2: weight "2,5" is not a number'],
    ['V ≤ 0', 'p sp 0 0', 'g.gr:1: the vertex count must be a positive integer, got "0"'],
    ['E < 0', 'p sp 3 -1', 'g.gr:1: the arc count must be a non-negative integer, got "-1"'],
    ['fewer arcs than declared', 'p sp 3 2\na 1 2 3', 'g.gr: the problem line (line 1) declares 2 arcs but the file has 1'],
    ['no problem line', 'c nothing', 'g.gr: no problem line "p sp <vertices> <arcs>"'],
  ])('refuses %s, naming the line', (_, text, message) => {
    expect(() => parseDimacsGraph(text, 'g.gr')).toThrow(message)
  })
})

describe('CSV edge lists', () => {
  it('splits fields with RFC 4180 quotes', () => {
    expect(csvFields(' a , "b, c" ,"d ""e"""')).toEqual(['a', 'b, c', 'd "e"'])
    expect(csvFields('"open')).toBeNull()
    expect(csvFields('"a"b,c')).toBeNull()
  })

  it('reads a header the same way, keeping only the complete fields of a line cut off', () => {
    expect(headerFields('source,"tar,get",weight\n1,2,3')).toEqual(['source', 'tar,get', 'weight'])
    expect(headerFields('source,target,wei', false)).toEqual(['source', 'target'])
    expect(headerFields('source,target,wei', true)).toEqual(['source', 'target', 'wei'])
    expect(headerFields('source,"tar', false)).toEqual(['source'])
    expect(headerFields('a,"b"x,c')).toEqual(['a'])
  })

  it('numbers string names in order of first appearance, whatever the column order', () => {
    const g = parseCsvEdges('\ufeffweight,Source,target,note\r\n3,Rome,"Milan, IT",x\n-1,"Milan, IT",Rome,\n2,Rome,Turin,\n', 'g.csv')
    expect(g.names).toEqual(['Rome', 'Milan, IT', 'Turin'])
    expect([...g.src, ...g.dst, ...g.w]).toEqual([0, 1, 0, 1, 0, 2, 3, -1, 2])
    expect(vertexIndex(g, 'Turin', 'g.csv', '--to')).toBe(2)
    expect(() => vertexIndex(g, 'Paris', 'g.csv', '--to')).toThrow('--to "Paris": g.csv has no vertex of that name')
  })

  it.each([
    ['a header without weight', 'source,target\na,b', 'g.csv:1: the header must name the columns source, target and weight; weight missing in "source,target"'],
    ['a bad weight', 'source,target,weight\na,b,1\na,c,x1', 'g.csv:3: weight "x1" is not a number'],
    ['a short line', 'source,target,weight\na,b', 'g.csv:2: 2 fields, the header has 3 up to weight'],
    ['an empty name', 'source,target,weight\n,b,1', 'g.csv:2: empty source'],
    ['no edges (V = 0)', 'source,target,weight\n', 'g.csv: no edges, so no vertices (V = 0)'],
  ])('refuses %s, naming the line', (_, text, message) => {
    expect(() => parseCsvEdges(text, 'g.csv')).toThrow(message)
  })
})

describe('negative weights', () => {
  it('names the vertices of a negative cycle', () => {
    const g = parseCsvEdges('source,target,weight\nA,B,1\nB,C,-3\nC,B,2\nC,D,1\n', 'g.csv')
    expect(() => prepareProblem(g, 'g.csv')).toThrow(/^g\.csv: negative cycle (B → C → B|C → B → C) \(total weight -1\): shortest paths are undefined$/)
  })

  it('names a negative self-loop as a cycle of one', () => {
    const g = parseDimacsGraph('p sp 2 2\na 1 2 1\na 2 2 -1', 'g.gr')
    expect(() => prepareProblem(g, 'g.gr')).toThrow('g.gr: negative cycle 2 → 2 (total weight -1)')
  })

  it('without a negative cycle: the distances Bellman–Ford finds from every vertex', async () => {
    // Non-negative weights shifted by potentials: many turn negative, no cycle does.
    const { src, dst, w } = generateGraph({ vertices: 40, edges: 300, maxWeight: 20, seed: 5 })
    const h = Array.from({ length: 40 }, (_, v) => (v * 7) % 13)
    const w2 = w.map((x, e) => x - h[src[e]] + h[dst[e]])
    expect(w2.some((x) => x < 0)).toBe(true)
    const g = { format: 'dimacs' as const, V: 40, src, dst, w: Int32Array.from(w2) }
    const p = prepareProblem(g, 'g.gr')
    expect(p.potential).toBeDefined()
    expect(Math.min(...p.w)).toBeGreaterThanOrEqual(0)
    const { d } = await serialSolver.solve(p, false)
    unweight(d, 40, p.potential!, 'g.gr', String)
    for (let s = 0; s < 40; s++) {
      const dist = new Array<number>(40).fill(Infinity)
      dist[s] = 0
      for (let pass = 0; pass < 40; pass++)
        for (let e = 0; e < src.length; e++) if (dist[src[e]] + w2[e] < dist[dst[e]]) dist[dst[e]] = dist[src[e]] + w2[e]
      expect([...d.subarray(s * 40, s * 40 + 40)], `from ${s}`).toEqual(dist.map((x) => (x === Infinity ? INF : x)))
    }
  })
})

describe('generated graphs', () => {
  it.each([
    [50, 100],
    [20, 380],
    [6, 25],
  ])('V = %i, E = %i: distinct edges, no self-loops, weights in range, seeded', (V, E) => {
    const a = generateGraph({ vertices: V, edges: E, maxWeight: 7, seed: 9 })
    const pairs = new Set<number>()
    for (let e = 0; e < E; e++) {
      expect(a.src[e]).not.toBe(a.dst[e])
      expect(a.w[e]).toBeGreaterThanOrEqual(0)
      expect(a.w[e]).toBeLessThanOrEqual(7)
      pairs.add(a.src[e] * V + a.dst[e])
    }
    expect(pairs.size).toBe(E)
    expect(generateGraph({ vertices: V, edges: E, maxWeight: 7, seed: 9 })).toEqual(a)
    expect(generateGraph({ vertices: V, edges: E, maxWeight: 7, seed: 10 })).not.toEqual(a)
  })

  it('refuses more edges than pairs', () => {
    expect(() => generateGraph({ vertices: 3, edges: 7 })).toThrow('edges must be an integer in 0…6')
  })
})
