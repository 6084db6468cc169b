// Slurm's compressed host lists as node names: a task of two ranks on n[1-2] ran on n1 and n2.
import { describe, expect, it } from 'vitest'
import { expandHostlist } from '../../src/main/cluster/hostlist'

describe('host lists', () => {
  it('expands ranges and lists inside brackets, keeping zero padding, and plain names as they are', () => {
    expect(expandHostlist('n[1-2]')).toEqual(['n1', 'n2'])
    expect(expandHostlist('n[1-3,5],gpu03')).toEqual(['n1', 'n2', 'n3', 'n5', 'gpu03'])
    expect(expandHostlist('node[07-09]')).toEqual(['node07', 'node08', 'node09'])
    expect(expandHostlist('n1,n2')).toEqual(['n1', 'n2'])
    expect(expandHostlist('local')).toEqual(['local'])
    expect(expandHostlist('')).toEqual([])
  })

  it('keeps a malformed or huge range as written rather than inventing hosts', () => {
    expect(expandHostlist('n[x-2]')).toEqual(['nx-2'])
    expect(expandHostlist('n[1-999999999]')).toEqual(['n1-999999999'])
  })
})
