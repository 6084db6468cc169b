import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sniffBytes, sniffFile } from '../../src/main/io/sniff'

const b = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0))

describe('sniffBytes', () => {
  it('names each magic', () => {
    expect(sniffBytes(b('II*\0\x08\0\0\0'), b('xxxx'), 100)).toBe('tiff')
    expect(sniffBytes(b('MM\0*'), b('xxxx'), 100)).toBe('tiff')
    expect(sniffBytes(b('PAR1abc'), b('PAR1'), 100)).toBe('parquet')
    expect(sniffBytes(b('ARROW1\0\0'), b('xxxx'), 100)).toBe('arrow')
    expect(sniffBytes(Uint8Array.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0]), b('xxxx'), 100)).toBe('hdf5')
    expect(sniffBytes(b('CDF\x01\0\0'), b('xxxx'), 100)).toBe('netcdf')
    expect(sniffBytes(b('\x93NUMPY\x01\0'), b('xxxx'), 100)).toBe('npy')
    expect(sniffBytes(b('%%MatrixMarket matrix coordinate real general\n'), b('1 2\n'), 100)).toBe('mtx')
  })

  it('tells text from binary, and a Parquet head without its footer is not Parquet', () => {
    expect(sniffBytes(b('a,b\n1,2\n'), b('1,2\n'), 8)).toBe('text')
    expect(sniffBytes(Uint8Array.from([0xc3, 0xa9, 0x2c, 0x31, 0xc3]), b('xxxx'), 5)).toBe('text')
    expect(sniffBytes(Uint8Array.from([4, 0, 0, 0, 1, 0]), b('xxxx'), 6)).toBe('binary')
    expect(sniffBytes(b('PAR1abc'), b('abcd'), 100)).not.toBe('parquet')
    expect(sniffBytes(new Uint8Array(0), new Uint8Array(0), 0)).toBe('empty')
  })
})

describe('sniffFile', () => {
  it('reads a file’s content, whatever its name says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sniff-'))
    const f = join(dir, 'named.csv')
    writeFileSync(f, Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(5000), Buffer.from('PAR1')]))
    expect(await sniffFile(f)).toEqual({ kind: 'parquet', bytes: 5008 })
  })

  it('gives a text file\'s first line as CSV fields: quotes undone, blank lines and a BOM skipped, a field cut off by the first KiB left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sniff-'))
    const edges = join(dir, 'edges.csv')
    writeFileSync(edges, '\uFEFF\n  \n Source ,"tar""get",weight\r\na,b,1\n')
    expect(await sniffFile(edges)).toEqual({ kind: 'text', bytes: 41, header: ['Source', 'tar"get', 'weight'] })
    const wide = join(dir, 'wide.csv')
    writeFileSync(wide, Array.from({ length: 400 }, (_, i) => `col${i}`).join(',') + '\n1\n')
    const { header } = await sniffFile(wide)
    // 1 KiB holds col0 … col172 whole; col173 is cut off and is not named.
    expect(header?.[0]).toBe('col0')
    expect(header?.length).toBe(Array.from({ length: 400 }, (_, i) => `col${i},`).join('').slice(0, 1024).split(',').length - 1)
    expect(header?.every((h, i) => h === `col${i}`)).toBe(true)
    expect((await sniffFile(join(dir, 'wide.csv'))).kind).toBe('text')
  })
})
