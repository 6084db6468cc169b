// Where code runs decides what it may import. The type-checker enforces each runtime's globals
// (tsconfig.<layer>.json); this test enforces the imports between folders, and that there are no cycles.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkImports, formatViolation, importsOf, readSources, type Rule } from '../helpers/imports'

const MACHINERY = ['src/main/gpu/', 'src/main/io/', 'src/main/workers/', 'src/main/charts/', 'src/main/backend/', 'src/main/cluster/', 'src/main/ranks/', 'src/main/report/']
// The rooms below the command line and the dashboard's backend: what a run is made of.
const BELOW_ENTRIES = ['src/main/gpu/', 'src/main/io/', 'src/main/workers/', 'src/main/charts/', 'src/main/cluster/', 'src/main/ranks/', 'src/main/checkpoints/', 'src/main/results/', 'src/main/terminal/', 'src/main/report/', 'src/main/workloads/']
const WORKLOADS = ['src/shared/workloads/', 'src/main/workloads/', 'src/renderer/workloads/']

// What each room of src/main below the entries may import besides src/shared (docs/architecture.md):
// arrows point down, so no two rooms import each other.
const ROOMS = ['gpu', 'io', 'workers', 'charts', 'ranks', 'checkpoints', 'cluster', 'results', 'terminal', 'report', 'backend', 'cli', 'workloads', 'headline']
const MAY_IMPORT: Record<string, string[]> = {
  workers: [],
  gpu: [],
  io: ['workers'],
  charts: ['workers'],
  checkpoints: ['io'],
  ranks: ['gpu', 'io'],
  terminal: ['io'],
  results: ['charts', 'io'],
  cluster: ['gpu', 'io', 'ranks', 'results', 'workers', 'checkpoints'],
  report: ['charts', 'cluster', 'io', 'results', 'terminal'],
}
const ROOM_RULES: Rule[] = Object.entries(MAY_IMPORT).map(([room, allowed]) => ({
  from: [`src/main/${room}/`],
  forbid: ROOMS.filter((r) => r !== room && !allowed.includes(r)).map((r) => `src/main/${r}/`),
  why: `src/main/${room}/ imports only ${allowed.length ? allowed.map((r) => `${r}/`).join(', ') + ' and ' : ''}src/shared: the rooms below the entries point down (docs/architecture.md)`,
}))

// from: the importing files; forbid: folders ('…/'), 'node:*' (Node builtins), '<other workload>', or packages.
const RULES: Rule[] = [
  {
    from: ['src/shared/'],
    forbid: ['node:*', 'electron', 'ws', 'webgpu', '@napi-rs/canvas', 'src/main/', 'src/preload/', 'src/renderer/'],
    why: 'src/shared runs on both sides: pure TypeScript, no Node, Electron, native addons or app layers',
  },
  {
    from: ['src/renderer/'],
    forbid: ['node:*', 'electron', 'src/main/', 'src/preload/'],
    why: 'the dashboard runs in a page and reaches the backend only through its API',
  },
  {
    from: MACHINERY,
    forbid: ['src/main/workloads/'],
    why: 'the machinery (gpu, io, workers, charts, backend, cluster, ranks, report) serves every workload and names none',
  },
  {
    from: BELOW_ENTRIES,
    forbid: ['src/main/cli/', 'src/main/backend/'],
    why: 'arrows point down: the command line (cli/) and the dashboard\'s backend (backend/) assemble workloads and machinery, never the reverse; a workload declares its commands with terminal/',
  },
  {
    from: WORKLOADS,
    forbid: ['<other workload>'],
    why: 'workloads are independent: only the registries src/*/workloads/index.ts import several',
  },
  {
    from: ['src/main/backend/'],
    forbid: ['src/main/cli/', 'src/main/headline/'],
    why: "the dashboard's backend sits beside the command line, never above it",
  },
  ...ROOM_RULES,
]

const check = (files: Record<string, string>) => checkImports(new Map(Object.entries(files)), RULES).map(formatViolation)

describe('import boundaries of the real tree', () => {
  const files = readSources(fileURLToPath(new URL('../..', import.meta.url)))

  it('reads the whole tree', () => {
    expect(files.size).toBeGreaterThan(50)
    for (const layer of ['shared', 'main', 'preload', 'renderer']) expect([...files.keys()].some((f) => f.startsWith(`src/${layer}/`))).toBe(true)
    expect([...files.keys()].some((f) => f.endsWith('.vue'))).toBe(true)
  })

  it('follows every rule and has no import cycle', () => {
    expect(checkImports(files, RULES).map(formatViolation)).toEqual([])
  })
})

describe('the checker', () => {
  it('finds every kind of import, in .ts and in .vue <script> blocks', () => {
    const ts = [
      "import a from './a'",
      "import type { B } from './b'",
      "export { c } from './c'",
      "export * from './d'",
      "import './e'",
      "const f = await import('./f')",
      "type G = typeof import('./g')",
    ].join('\n')
    expect(importsOf('x.ts', ts)).toEqual(['./a', './b', './c', './d', './e', './f', './g'])
    const vue = "<template><div/></template>\n<script lang=\"ts\">import a from './a'</script>\n<script setup lang=\"ts\">import b from './b'</script>"
    expect(importsOf('X.vue', vue)).toEqual(['./a', './b'])
  })

  it('keeps src/shared free of Node, Electron, addons and app layers', () => {
    const found = check({
      'src/shared/a.ts': [
        "import { readFile } from 'node:fs/promises'",
        "import { join } from 'path'",
        "import { app } from 'electron'",
        "import type { WebSocket } from 'ws'",
        "import '@napi-rs/canvas'",
        "const gpu = import('webgpu')",
        "import { x } from '../main/x'",
        "export * from '../preload/index'",
        "import type { Y } from '../renderer/y'",
        "import type { Ok } from './b'",
        "import type { ChartConfiguration } from 'chart.js'",
      ].join('\n'),
      'src/shared/b.ts': 'export type Ok = 1',
    })
    expect(found).toHaveLength(9)
    expect(found.every((v) => v.startsWith("src/shared/a.ts imports '") && v.includes('src/shared runs on both sides'))).toBe(true)
    expect(found.join('\n')).not.toMatch(/'\.\/b'|chart\.js/)
  })

  it('keeps the renderer off main, preload, Electron and Node', () => {
    const found = check({
      'src/renderer/App.vue': "<script setup lang=\"ts\">\nimport { run } from '../main/backend/backend'\n</script>",
      'src/renderer/a.ts': "import '../preload/index'\nimport { ipcRenderer } from 'electron'\nimport 'node:path'\nimport { ref } from 'vue'",
    })
    expect(found).toEqual([
      "src/renderer/App.vue imports '../main/backend/backend' — the dashboard runs in a page and reaches the backend only through its API",
      "src/renderer/a.ts imports '../preload/index' — the dashboard runs in a page and reaches the backend only through its API",
      "src/renderer/a.ts imports 'electron' — the dashboard runs in a page and reaches the backend only through its API",
      "src/renderer/a.ts imports 'node:path' — the dashboard runs in a page and reaches the backend only through its API",
    ])
  })

  it('keeps arrows pointing down: nothing below the command line and the backend imports them', () => {
    const found = check({
      'src/main/workloads/stats/bench-command.ts': "import { intOption } from '../../cli/command'\nimport { parse } from '../../terminal/command'",
      'src/main/cluster/merge-run.ts': "import { writeOutputs } from '../backend/outputs'\nimport { inputFile } from '../results/envelope'",
      'src/main/terminal/command.ts': 'export const parse = 1',
      'src/main/results/envelope.ts': 'export const inputFile = 1',
      'src/main/cli/workload-command.ts': "import { statsEngine } from '../workloads/stats'\nimport { runs } from '../backend/backend'",
    })
    expect(found).toHaveLength(3)
    expect(found[0]).toMatch(/^src\/main\/workloads\/stats\/bench-command.ts imports '..\/..\/cli\/command' — arrows point down/)
    expect(found[1]).toMatch(/^src\/main\/cluster\/merge-run.ts imports '..\/backend\/outputs' — arrows point down/)
    expect(found[2]).toMatch(/^src\/main\/cluster\/merge-run.ts imports '..\/backend\/outputs' — src\/main\/cluster\/ imports only/)
  })

  it('keeps each room of the machinery to the rooms below it', () => {
    const found = check({
      'src/main/io/reader.ts': "import { pool } from '../workers/pool'\nimport { gpu } from '../gpu/gpu'",
      'src/main/workers/pool.ts': "import { sniff } from '../io/sniff'",
      'src/main/gpu/gpu.ts': 'export const gpu = 1',
      'src/main/io/sniff.ts': 'export const sniff = 1',
    })
    expect(found).toEqual([
      "src/main/io/reader.ts imports '../gpu/gpu' — src/main/io/ imports only workers/ and src/shared: the rooms below the entries point down (docs/architecture.md)",
      "src/main/workers/pool.ts imports '../io/sniff' — src/main/workers/ imports only src/shared: the rooms below the entries point down (docs/architecture.md)",
    ])
  })

  it('keeps the machinery from naming workloads', () => {
    const found = check({
      'src/main/backend/runners.ts': "import { runStats } from '../workloads/stats/run'\nimport { all } from '../workloads'",
      'src/main/ranks/r.ts': "import { x } from '../io/x'",
      'src/main/io/x.ts': 'export const x = 1',
      'src/main/index.ts': "import { all } from './workloads'",
      'src/main/report/pictures.ts': "import { thicknessFiles } from '../workloads/landslide/thickness-files'",
    })
    expect(found).toEqual([
      "src/main/backend/runners.ts imports '../workloads/stats/run' — the machinery (gpu, io, workers, charts, backend, cluster, ranks, report) serves every workload and names none",
      "src/main/backend/runners.ts imports '../workloads' — the machinery (gpu, io, workers, charts, backend, cluster, ranks, report) serves every workload and names none",
      "src/main/report/pictures.ts imports '../workloads/landslide/thickness-files' — the machinery (gpu, io, workers, charts, backend, cluster, ranks, report) serves every workload and names none",
      "src/main/report/pictures.ts imports '../workloads/landslide/thickness-files' — src/main/report/ imports only charts/, cluster/, io/, results/, terminal/ and src/shared: the rooms below the entries point down (docs/architecture.md)",
    ])
  })

  it('keeps workloads apart, in every layer, but lets the registries import them all', () => {
    const found = check({
      'src/main/workloads/stats/a.ts': "import { b } from '../device/b'\nimport { c } from './gpu/c'",
      'src/main/workloads/stats/gpu/c.ts': 'export const c = 1',
      'src/main/workloads/device/b.ts': 'export const b = 1',
      'src/main/workloads/index.ts': "import './stats/a'\nimport './device/b'",
      'src/shared/workloads/device.ts': "import { s } from './stats'\nimport type { P } from './schema'",
      'src/shared/workloads/stats/index.ts': "import type { D } from '../device'",
      'src/shared/workloads/schema.ts': 'export type P = 1',
      'src/shared/workloads/index.ts': "export * from './device'\nexport * from './stats'",
      'src/renderer/workloads/stats/StatsView.vue': "<script setup lang=\"ts\">import D from '../device/DeviceView.vue'</script>",
      'src/renderer/workloads/device/DeviceView.vue': '<template><p/></template>',
    })
    expect(found.filter((v) => v.includes('workloads are independent')).map((v) => v.split(' —')[0])).toEqual([
      "src/main/workloads/stats/a.ts imports '../device/b'",
      "src/shared/workloads/device.ts imports './stats'",
      "src/shared/workloads/stats/index.ts imports '../device'",
      "src/renderer/workloads/stats/StatsView.vue imports '../device/DeviceView.vue'",
    ])
  })

  it('reports each import cycle as its files, type-only imports included', () => {
    const found = check({
      'src/shared/api.ts': "import type { Job } from './jobs'",
      'src/shared/jobs.ts': "import { API } from './api'",
      'src/main/a.ts': "import './b'",
      'src/main/b.ts': "export * from './c/index'",
      'src/main/c/index.ts': "const a = () => import('../a')",
      'src/main/self.ts': "import './self'",
      'src/main/leaf.ts': "import './a'",
    })
    expect(found).toEqual([
      'import cycle src/main/a.ts → src/main/b.ts → src/main/c/index.ts → src/main/a.ts — no import cycles, type-only imports included',
      'import cycle src/main/self.ts → src/main/self.ts — no import cycles, type-only imports included',
      'import cycle src/shared/api.ts → src/shared/jobs.ts → src/shared/api.ts — no import cycles, type-only imports included',
    ])
  })
})
