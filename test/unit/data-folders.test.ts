// The data folders as `paralab serve` offers them: files listed with their folder and their path
// there, and folders browsed one at a time for the dashboard's chooser, never outside the folders;
// each file with the kind of its content, read from its first bytes.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DataAccess, SNIFF_LIMIT } from '../../src/main/backend/data-files'
import { sniffFile } from '../../src/main/io/sniff'
import { validateRequest } from '../../src/shared/validate'
import { failure } from '../helpers/failure'

const top = realpathSync(mkdtempSync(join(tmpdir(), 'paralab-folders-')))
const data = join(top, 'data')
const outside = join(top, 'outside')
mkdirSync(join(data, 'tessina', 'b'), { recursive: true })
mkdirSync(outside)
writeFileSync(join(data, 'acc.csv'), 'a\n1\n')
writeFileSync(join(data, 'tessina', 'tessina_header.txt'), 'ncols 2\n')
writeFileSync(join(data, 'tessina', 'b', 'tessina_header.txt'), 'ncols 3\n')
writeFileSync(join(data, '.hidden.csv'), 'a\n')
writeFileSync(join(outside, 'secret.csv'), 'a\n1\n')
symlinkSync(outside, join(data, 'away'))
symlinkSync(join(data, 'tessina'), join(data, 'same'))
afterAll(() => rmSync(top, { recursive: true, force: true }))

describe('the content of listed files', () => {
  it('is read from each file, whatever its name: a Parquet file named .csv, a Matrix Market file named .txt, a binary .mtx', async () => {
    const dir = join(top, 'kinds')
    mkdirSync(dir)
    writeFileSync(join(dir, 'table.csv'), Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(2000), Buffer.from('PAR1')]))
    writeFileSync(join(dir, 'graph.txt'), '%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n')
    writeFileSync(join(dir, 'graph.mtx'), Buffer.from([0, 1, 2, 0xff]))
    writeFileSync(join(dir, 'empty.csv'), '')
    execFileSync('mkfifo', [join(dir, 'pipe.csv')])
    const files = (await new DataAccess([dir]).folder(dir)).files
    // The FIFO is no file: not listed, and never opened (which would wait for a writer).
    expect(files.map((f) => [f.name, f.content])).toEqual([
      ['empty.csv', 'empty'],
      ['graph.mtx', 'binary'],
      ['graph.txt', 'mtx'],
      ['table.csv', 'parquet'],
    ])
    await expect(sniffFile(join(dir, 'pipe.csv'))).rejects.toThrow(`${join(dir, 'pipe.csv')} is a named pipe (FIFO), not a data file`)
  })

  it('is read for at most SNIFF_LIMIT files of one answer, a few at a time; the others go by name', async () => {
    const dir = join(top, 'many')
    mkdirSync(dir)
    for (let i = 0; i < SNIFF_LIMIT + 3; i++) writeFileSync(join(dir, `f${i}.csv`), 'a\n')
    const files = (await new DataAccess([dir]).folder(dir)).files
    expect(files).toHaveLength(SNIFF_LIMIT + 3)
    expect(files.filter((f) => f.content === 'text')).toHaveLength(SNIFF_LIMIT)
    expect(files.slice(SNIFF_LIMIT).every((f) => f.content === undefined)).toBe(true)
  })
})

describe('DataAccess over data folders', () => {
  const access = new DataAccess([data])

  it('lists files with their data folder and their path there, so that files of one name differ', async () => {
    const files = await access.list()
    const mine = files.filter((f) => !f.path.startsWith(join(data, 'same')))
    expect(mine.map((f) => f.relative)).toEqual(['acc.csv', 'tessina/b/tessina_header.txt', 'tessina/tessina_header.txt'])
    expect(mine.every((f) => f.root === data)).toBe(true)
    // A link leading out of the data folders is not followed.
    expect(files.some((f) => f.path.includes('secret'))).toBe(false)
  })

  it('browses the data folders, then one folder: subfolders and files by name, links only where the data is', async () => {
    expect(await access.folder(null)).toEqual({ path: null, folders: [{ path: data, name: 'data' }], files: [], truncated: false })
    const top = await access.folder(data)
    expect(top.folders.map((f) => f.name)).toEqual(['same', 'tessina'])
    expect(top.files.map((f) => [f.name, f.relative, f.bytes])).toEqual([['acc.csv', 'acc.csv', 4]])
    const inner = await access.folder(join(data, 'tessina', 'b'))
    expect(inner.files).toEqual([{ path: join(data, 'tessina', 'b', 'tessina_header.txt'), name: 'tessina_header.txt', bytes: 8, root: data, relative: 'tessina/b/tessina_header.txt', content: 'text' }])
  })

  it('answers alike for folders outside, whether they exist or not, and for links leading out', async () => {
    for (const path of [outside, join(top, 'no-such'), '/etc', join(data, '..'), join(data, 'away')]) {
      const err = await failure(access.folder(path))
      expect(err, path).toMatchObject({ code: 'invalid-argument', message: `${path} is outside the data folders` })
    }
    expect((await failure(access.folder(join(data, 'acc.csv')))).message).toBe(`${join(data, 'acc.csv')} is a file, not a folder`)
    expect((await failure(access.folder(join(data, 'gone')))).message).toBe(`${join(data, 'gone')}: no such folder`)
  })

  it('browses nothing where no data folder was given', async () => {
    expect((await new DataAccess([]).folder(null)).folders).toEqual([])
    expect((await failure(new DataAccess([]).folder(data))).code).toBe('invalid-argument')
  })

  it('the request is checked before it reaches the backend', () => {
    expect(() => validateRequest('browseData', [null])).not.toThrow()
    expect(() => validateRequest('browseData', [data])).not.toThrow()
    for (const bad of ['', 42, ['x'], 'a\0b', 'x'.repeat(5000)]) expect(() => validateRequest('browseData', [bad])).toThrow(/folder must be null or a folder path/)
    expect(() => validateRequest('browseData', [])).toThrow(/takes 1 argument/)
  })
})
