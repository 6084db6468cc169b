// Reads the imports of every source file and checks them against layer rules (test/unit/layers.test.ts).
// Files are a map from repo-relative path ('src/shared/api.ts') to text, so tests can feed made-up trees.
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { posix } from 'node:path'
import ts from 'typescript'

export type SourceFiles = ReadonlyMap<string, string>

/**
 * A rule: files under any `from` prefix may not import what any `forbid` entry names:
 * - 'src/…/' (ends in '/'): any file under that folder;
 * - 'node:*': a Node builtin, with or without the `node:` prefix;
 * - '<other workload>': a file of another workload (see workloadOf);
 * - anything else: that package or a subpath of it.
 */
export interface Rule {
  from: readonly string[]
  forbid: readonly string[]
  why: string
}

export interface Violation {
  file: string
  /** The import as written. */
  import: string
  why: string
  /** For a cycle: its files in import order, the first importing the second and the last the first. */
  cycle?: string[]
}

/** Every .ts and .vue file under `dir` of the repository at `root`, keyed by posix path. */
export function readSources(root: string, dir = 'src'): Map<string, string> {
  const files = new Map<string, string>()
  for (const entry of readdirSync(posix.join(root, dir), { recursive: true, encoding: 'utf8' })) {
    const path = posix.join(dir, entry.split('\\').join('/'))
    if (/\.(ts|vue)$/.test(path)) files.set(path, readFileSync(posix.join(root, path), 'utf8'))
  }
  return files
}

/** Module specifiers a file imports: static, re-exports, side-effect, dynamic and type-only alike. */
export function importsOf(path: string, text: string): string[] {
  // A .vue file's imports are in its <script> blocks; the template and styles import nothing.
  const code = path.endsWith('.vue') ? [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : text
  return ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName)
}

/** The file a relative specifier names (as TS's Bundler resolution would find it), else its bare path. */
function resolve(from: string, spec: string, files: SourceFiles): string {
  const base = posix.join(posix.dirname(from), spec.replace(/\?.*$/, ''))
  const candidates = [base, `${base}.ts`, `${base}.vue`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')]
  return candidates.find((c) => files.has(c)) ?? base
}

const isRelative = (spec: string) => spec.startsWith('./') || spec.startsWith('../')
const isNodeBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0])

/**
 * The workload a path belongs to: `<name>` in `src/<layer>/workloads/<name>/…` or `…/workloads/<name>.ts`, where
 * some layer has a folder of that name. Registries (`workloads/index.ts`) and common modules beside them
 * (schema, envelope, …) belong to no workload, so they may import every workload and be imported by all.
 */
function workloadOf(path: string, names: ReadonlySet<string>): string | undefined {
  const m = /^src\/[^/]+\/workloads\/([^/]+?)(\.ts|\/.*)?$/.exec(path)
  return m && names.has(m[1]) ? m[1] : undefined
}

function forbids(entry: string, spec: string, target: string, from: string, names: ReadonlySet<string>): boolean {
  if (entry === 'node:*') return !isRelative(spec) && isNodeBuiltin(spec)
  if (entry === '<other workload>') {
    const [a, b] = [workloadOf(from, names), workloadOf(target, names)]
    return a !== undefined && b !== undefined && a !== b
  }
  if (entry.endsWith('/')) return target.startsWith(entry) || target === entry.slice(0, -1)
  return spec === entry || spec.startsWith(`${entry}/`)
}

/** Every import that breaks a rule, and every import cycle among the files. */
export function checkImports(files: SourceFiles, rules: readonly Rule[]): Violation[] {
  const names = new Set([...files.keys()].flatMap((p) => /^src\/[^/]+\/workloads\/([^/]+)\//.exec(p)?.[1] ?? []))
  const edges = new Map<string, string[]>()
  const violations: Violation[] = []
  for (const [file, text] of files) {
    const targets: string[] = []
    for (const spec of importsOf(file, text)) {
      const target = isRelative(spec) ? resolve(file, spec, files) : spec
      if (files.has(target)) targets.push(target)
      for (const rule of rules) {
        if (!rule.from.some((prefix) => file.startsWith(prefix))) continue
        if (rule.forbid.some((entry) => forbids(entry, spec, target, file, names))) violations.push({ file, import: spec, why: rule.why })
      }
    }
    edges.set(file, targets)
  }
  for (const cycle of importCycles(edges))
    violations.push({ file: cycle[0], import: cycle[1] ?? cycle[0], cycle, why: 'no import cycles, type-only imports included' })
  return violations
}

/** One shortest cycle per strongly connected component (Tarjan), starting at its first file by name. */
export function importCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const components: Set<string>[] = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) visit(w)
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!))
    }
    if (low.get(v) === index.get(v)) components.push(new Set(stack.splice(stack.indexOf(v))))
  }
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v)

  const cycles: string[][] = []
  for (const scc of components) {
    const start = [...scc].sort()[0]
    // Breadth-first from start, back to start, inside the component.
    const previous = new Map<string, string>()
    const queue = [start]
    search: for (const v of queue)
      for (const w of edges.get(v) ?? []) {
        if (w === start) {
          const cycle = [v]
          while (cycle[0] !== start) cycle.unshift(previous.get(cycle[0])!)
          cycles.push(cycle)
          break search
        }
        if (scc.has(w) && !previous.has(w)) previous.set(w, v), queue.push(w)
      }
  }
  return cycles.sort((a, b) => a[0].localeCompare(b[0]))
}

export const formatViolation = (v: Violation) =>
  v.cycle ? `import cycle ${[...v.cycle, v.cycle[0]].join(' → ')} — ${v.why}` : `${v.file} imports '${v.import}' — ${v.why}`
