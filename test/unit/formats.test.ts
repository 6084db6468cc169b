// The one table of file formats: which format a workload reads a file as, by its content and (for
// text and binary files) its name; every workload's files parameter lists its formats' extensions;
// and runs saved before format ids (a CSV edge list called 'csv') still read.
import { describe, expect, it } from 'vitest'
import { contentText, extensionsRead, FILE_FORMATS, formatReadBy, formatsOf } from '../../src/shared/formats'
import { WORKLOADS } from '../../src/shared/workloads'
import { pathsTables } from '../../src/shared/workloads/paths/tables'
import { GRAPH_FORMAT_NAMES, type PathsGraphResult } from '../../src/shared/workloads/paths/types'
import { canRead, unreadableText } from '../../src/renderer/data-files'

describe('FILE_FORMATS', () => {
  it('has unique ids, and each workload\'s files parameter lists the extensions of the formats it reads', () => {
    expect(new Set(FILE_FORMATS.map((f) => f.id)).size).toBe(FILE_FORMATS.length)
    for (const w of WORKLOADS) {
      const files = Object.values(w.params).find((p) => p.type === 'files')
      if (!files || !('extensions' in files)) continue
      expect(new Set(files.extensions), w.id).toEqual(new Set(extensionsRead(w.id)))
    }
  })

  it('reads a file by its content where magic bytes name it, by its extension among text and binary files', () => {
    expect(formatReadBy('paths', 'graph.txt', 'mtx')?.id).toBe('mtx')
    expect(formatReadBy('paths', 'graph.mtx', 'mtx')?.id).toBe('mtx')
    expect(formatReadBy('paths', 'graph.mtx', 'binary')).toBeUndefined()
    expect(formatReadBy('paths', 'edges.csv', 'text')?.id).toBe('csv-edges')
    expect(formatReadBy('paths', 'table.csv', 'parquet')).toBeUndefined()
    expect(formatReadBy('paths', 'g.gr', 'text')?.id).toBe('dimacs')
    expect(formatReadBy('paths', 'c01.1', 'binary')?.id).toBe('course')
    expect(formatReadBy('paths', 'empty.csv', 'empty')).toBeUndefined()
    expect(formatReadBy('stats', 'acc.csv', 'text')?.id).toBe('csv')
    // Content unknown (past the chooser's limit): by name.
    expect(formatReadBy('paths', 'g.gr')?.id).toBe('dimacs')
    expect(formatsOf('landslide').map((f) => f.id)).toContain('npy')
  })

  it('tells the chooser what a workload can read, and why not', () => {
    const paths = { workload: 'paths', extensions: ['1', 'bin', 'gr', 'csv', 'mtx'] }
    expect(canRead(paths, { name: 'table.csv', content: 'parquet' })).toBe(false)
    expect(canRead(paths, { name: 'table.csv' })).toBe(true)
    expect(canRead(paths, { name: 'ring.txt', content: 'mtx' })).toBe(true)
    expect(unreadableText(paths, { content: 'parquet' })).toBe('Parquet content, not a .1, .bin, .gr, .csv or .mtx file')
    expect(unreadableText(paths, { content: 'text' })).toBe('not a .1, .bin, .gr, .csv or .mtx file')
    expect(contentText('empty')).toBe('empty')
    // A workload the table has no formats for goes by its extensions.
    expect(canRead({ workload: 'device', extensions: ['json'] }, { name: 'a.json', content: 'text' })).toBe(true)
  })
})

describe('runs saved before format ids', () => {
  it('a CSV edge list saved as "csv" is named and tabled as csv-edges', () => {
    const old = { path: '/data/e.csv', format: 'csv', runs: [] } as unknown as PathsGraphResult
    expect(GRAPH_FORMAT_NAMES[old.format]).toBe('CSV edge list')
    const graphs = pathsTables({ graphs: [old], skipped: [] }).find((t) => t.name === 'graphs')!
    expect(graphs.rows[0][2]).toBe('csv-edges')
  })
})

describe('a CSV\'s first line', () => {
  it('makes a CSV an edge list for shortest paths only when it names source, target and weight (any case); statistics take any CSV', () => {
    const results = { name: 'paths-results.csv', content: 'text' as const, header: ['graph', 'format', 'vertices', 'edges'] }
    expect(canRead({ workload: 'paths', extensions: extensionsRead('paths') }, results)).toBe(false)
    expect(unreadableText({ workload: 'paths', extensions: extensionsRead('paths') }, results)).toBe('its first line (graph, format, vertices, edges) names no source, target, weight columns: not a CSV edge list')
    expect(unreadableText({ workload: 'paths', extensions: extensionsRead('paths') }, { ...results, header: ['from', 'TARGET', 'Weight', 'a', 'b', 'c'] })).toBe(
      'its first line (from, TARGET, Weight, a, … 2 more) names no source column: not a CSV edge list',
    )
    expect(canRead({ workload: 'paths', extensions: extensionsRead('paths') }, { ...results, header: ['Source', 'TARGET', 'weight', 'note'] })).toBe(true)
    expect(canRead({ workload: 'stats', extensions: extensionsRead('stats') }, results)).toBe(true)
    // A first line not read (a listing past its sniffing limit) leaves the name to decide.
    expect(canRead({ workload: 'paths', extensions: extensionsRead('paths') }, { name: 'x.csv', content: 'text' as const })).toBe(true)
    expect(formatReadBy('paths', 'edges.csv', 'text')?.id).toBe('csv-edges')
  })
})

