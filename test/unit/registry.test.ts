// @vitest-environment happy-dom
// Walks the three registries (definitions, engines, views) and checks that every workload is
// whole: its definition, its engine, its view, its CLI command with --help, its example, and a
// round trip of its default parameters through validation.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { WORKLOADS, WORKLOAD_IDS, workload } from '../../src/shared/workloads'
import { defaultParams, FORCE_PARAM, flagName, validateParams, type ParamSpec } from '../../src/shared/workloads/schema'
import { ENGINES } from '../../src/main/workloads'
import { VIEWS } from '../../src/renderer/workloads'
import { CLI } from '../helpers/serve'

const paralab = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PARALAB_GPU: 'off' } })

describe('workload registries', () => {
  it('have at least the two first workloads, each id once', () => {
    expect(WORKLOAD_IDS).toEqual(expect.arrayContaining(['device', 'stats']))
    expect(new Set(WORKLOAD_IDS).size).toBe(WORKLOADS.length)
  })

  it('pair every definition with exactly one engine and one view, in the same order', () => {
    expect(ENGINES.map((e) => e.definition.id)).toEqual(WORKLOAD_IDS)
    expect(VIEWS.map((v) => v.id)).toEqual(WORKLOAD_IDS)
    for (const e of ENGINES) expect(e.definition).toBe(workload(e.definition.id))
    for (const v of VIEWS) {
      expect(v.component).toBeTruthy()
      expect(v.label).toBe(workload(v.id).title)
    }
  })

  it('an unknown workload is an error listing the known ones', () => {
    expect(() => workload('nope')).toThrow(`unknown workload "nope"; known: ${WORKLOAD_IDS.join(', ')}`)
  })

  describe.each(WORKLOADS.map((w) => [w.id, w] as const))('%s', (id, def) => {
    const params = Object.entries(def.params as Record<string, ParamSpec>)
    const filesParam = params.find(([, s]) => s.type === 'files')?.[0]

    it('declares what the contract needs', () => {
      expect(def.title).toMatch(/\S/)
      expect(def.summary).toMatch(/\S/)
      expect(def.phases.length).toBeGreaterThan(0)
      expect(def.backends.length).toBeGreaterThan(0)
      for (const [name, spec] of params) {
        expect(spec.label, name).toMatch(/\S/)
        expect(spec.help, name).toMatch(/\S/)
      }
    })

    it('round-trips its default parameters through validation', () => {
      const input = { ...defaultParams(def.params), ...(filesParam && { [filesParam]: ['in.csv'] }) }
      expect(validateParams(id, def.params, input)).toEqual(input)
      // What validation fills in is what the defaults say.
      expect(validateParams(id, def.params, filesParam ? { [filesParam]: ['in.csv'] } : {})).toEqual(input)
    })

    it('has an example whose parameters validate', () => {
      expect(def.example.summary).toMatch(/\S/)
      const files = def.example.files.map((f) => `/examples/${f}`)
      expect(filesParam ? files.length > 0 : files.length === 0).toBe(true)
      expect(() => validateParams(id, def.params, { ...def.example.params, ...(filesParam && { [filesParam]: files }) })).not.toThrow()
      const engine = ENGINES.find((e) => e.definition.id === id)!
      if (files.length) expect(engine.makeExample).toBeTypeOf('function')
    })

    it('has flags that collide neither with each other nor with the common ones', () => {
      // A `force` parameter is the common --force itself (FORCE_PARAM).
      const flags = params.filter(([n, s]) => s.type !== 'files' && !(n === 'force' && s === FORCE_PARAM)).map(([n, s]) => flagName(n, s))
      expect(new Set(flags).size).toBe(flags.length)
      for (const common of ['example', 'out', 'force', 'json', 'help']) expect(flags).not.toContain(common)
    })

    it('has a CLI command with --help naming every flag', () => {
      const r = paralab([id, '--help'])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain(`Usage: paralab ${id}`)
      for (const [n, s] of params) if (s.type !== 'files') expect(r.stdout).toContain(`--${flagName(n, s)}`)
      expect(r.stdout).toContain('--example')
    })

  })

  it('`paralab workloads --json` lists every workload', () => {
    const r = paralab(['workloads', '--json'])
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).map((w: { id: string }) => w.id)).toEqual(WORKLOAD_IDS)
  })
})
