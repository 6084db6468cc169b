// `--out` result sets are whole or absent: a failure while writing (here an injected ENOSPC) leaves
// neither the target nor temporary files; a finished set holds the envelope, tables and charts, and
// the files a workload adds.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResultEnvelope } from '../../src/shared/workloads/envelope'
import { Backend } from '../../src/main/backend/backend'
import { writeOutputs } from '../../src/main/results/outputs'
import { ENGINES } from '../../src/main/workloads'
import { failure } from '../helpers/failure'

const dir = mkdtempSync(join(tmpdir(), 'paralab-outputs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let envelope: ResultEnvelope
beforeAll(async () => {
  const input = join(dir, 'in.csv')
  writeFileSync(input, 'acc_x,acc_y\n1,2\n3,5\n4,4\n')
  const backend = new Backend({ engines: ENGINES })
  envelope = await backend.jobs.result(backend.startJob('stats', { files: [input], backends: ['serial'], repeat: 1, batches: 2 }))
})

const siblings = (name: string) => readdirSync(dir).filter((n) => n === name || n.startsWith(`.${name}.`))

describe('writeOutputs', () => {
  it('writes the envelope, every table and every chart', async () => {
    const out = join(dir, 'set')
    const written = await writeOutputs(out, envelope)
    expect(readdirSync(out).sort()).toEqual(['files.csv', 'files.parquet', 'in-cv.png', 'in-cv.svg', 'in-mad.png', 'in-mad.svg', 'in-time.png', 'in-time.svg', 'results.csv', 'results.json', 'results.parquet'])
    expect(written).toHaveLength(11)
    // The envelope, with what each table's numbers mean beside it.
    const { tableNotes, ...written_ } = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    expect(written_).toEqual(envelope)
    expect(Object.keys(tableNotes)).toEqual(['results', 'files'])
    expect(siblings('set')).toEqual(['set'])
  })

  it('a full disk midway leaves no target and no temporary files', async () => {
    const out = join(dir, 'full')
    let files = 0
    const err = await failure(
      writeOutputs(out, envelope, {
        write: async (path, data) => {
          if (++files === 4) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
          await writeFile(path, data)
        },
      }),
    )
    expect(err.message).toBe(`cannot write ${out}: no space left on the device`)
    expect(siblings('full')).toEqual([])
  })

  it('a failure while replacing with --force keeps the earlier set', async () => {
    const out = join(dir, 'kept')
    await writeOutputs(out, envelope)
    const before = readFileSync(join(out, 'results.json'), 'utf8')
    await failure(
      writeOutputs(out, { ...envelope, createdAt: 'later' }, {
        force: true,
        write: async () => {
          throw Object.assign(new Error('EIO'), { code: 'EIO' })
        },
      }),
    )
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toBe(before)
    expect(siblings('kept')).toEqual(['kept'])
  })

  it('adds a workload\'s own files (an animation), replaceable with --force; refuses names that leave the set or clash', async () => {
    const out = join(dir, 'extra')
    const gif = Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])
    await writeOutputs(out, envelope, { extra: [{ name: 'anim.gif', data: gif }] })
    expect(readdirSync(out)).toContain('anim.gif')
    expect(Array.from(readFileSync(join(out, 'anim.gif')))).toEqual(Array.from(gif))
    // A set holding a GIF is still a set --force may replace.
    await writeOutputs(out, envelope, { force: true })
    expect(readdirSync(out)).not.toContain('anim.gif')
    for (const name of ['../escape.gif', 'notes.txt', '.hidden.png'])
      expect((await failure(writeOutputs(join(dir, 'bad'), envelope, { extra: [{ name, data: '' }] }))).message).toBe(`stats: output file name ${JSON.stringify(name)} is not a plain .json, .csv, .parquet, .svg, .png or .gif name`)
    expect((await failure(writeOutputs(join(dir, 'bad'), envelope, { extra: [{ name: 'files.csv', data: '' }] }))).message).toBe('stats: output file files.csv would replace a table or chart of the same name')
    expect(siblings('bad')).toEqual([])
  })
})
