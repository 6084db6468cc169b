// `paralab bench headline`: the issue table's figures, each beside its same-card baselines, in
// alternated rounds (verdict.ts orders, summarises and judges them). Each run of this build (and of
// another build given by --against) is a fresh process of its CLI's own bench command, so that a
// round sees what a user's run sees; the CUDA baselines (bench/*.cu) are built here with nvcc, and
// torch.corrcoef runs through python3; each is skipped with a note where its tool is missing.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ApiError } from '../../shared/errors'
import SCIDDICAT_CU from '../../../bench/sciddicat.cu?raw'
import FLOYD_WARSHALL_CU from '../../../bench/floyd-warshall.cu?raw'
import CORRCOEF_PY from '../../../bench/corrcoef.py?raw'
import { roundOrder, series, type FigureResult, type HeadlineResult } from './verdict'

/** One run of one side of a figure: the named values it measured (ms). */
type Step = { name: string; run(): Promise<Record<string, number>> }

interface FigureSpec {
  id: string
  title: string
  normalizeBy?: string
  release?: string
  steps: Step[]
  notes: string[]
  prepare?(): Promise<void>
}

export interface HeadlineOptions {
  mode: 'gpu' | 'cpu'
  rounds: number
  /** Small sizes, for a smoke test of the command (not comparable with saved figures). */
  small: boolean
  /** The folder holding tessina_header.txt, tessina_dem.txt, tessina_source.txt. */
  tessina?: string
  /** Another build's CLI (e.g. the last release's out/main/cli.js), alternated with this one where its figure allows. */
  against?: string
  /** More builds alternated on the landslide beside these two, each a series of its own name (not judged). */
  others?: { name: string; cli: string }[]
  only?: string[]
  log(line: string): void
}

const CLI = process.argv[1]

/** A JSON-printing CLI command in a fresh process; its stdout parsed. */
async function cliJson(cli: string, args: string[], timeoutMs = 600_000): Promise<any> {
  const out = await new Promise<string>((done, reject) => {
    const child = spawn(process.execPath, [cli, ...args, '--json'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? done(stdout) : reject(new Error(`${args.slice(0, 2).join(' ')} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`))))
  })
  const parsed = JSON.parse(out)
  // The card as this build's bench names it (Dawn's adapter name), for the saved figures.
  if (cli === CLI && typeof parsed?.machine?.gpu === 'string' && !parsed.machine.gpu.startsWith('none')) seenGpu = parsed.machine.gpu
  return parsed
}

let seenGpu: string | undefined

/** A program's last stderr line of `key=value` figures. */
async function programFigures(cmd: string, args: string[], tag: string): Promise<Record<string, string>> {
  const text = await new Promise<string>((done, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? done(stderr + stdout) : reject(Object.assign(new Error(`${tag} exited with ${code}: ${(stderr + stdout).trim().slice(-600)}`), { code }))))
  })
  const line = text.split('\n').reverse().find((l) => l.startsWith(`${tag}:`))
  if (!line) throw new Error(`${tag} printed no figures: ${text.trim().slice(-300)}`)
  return Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]))
}

/** nvcc's build of a bench/ CUDA program in `dir`, or the reason there is none. */
function buildCuda(dir: string, name: string, code: string, flags: string[]): { binary: string } | { reason: string } {
  const probe = spawnSync('nvcc', ['--version'], { encoding: 'utf8', timeout: 20_000 })
  if (probe.status !== 0) return { reason: 'no nvcc on PATH' }
  const source = join(dir, `${name}.cu`)
  const binary = join(dir, name)
  spawnSync('sh', ['-c', 'cat > "$0"', source], { input: code })
  const r = spawnSync('nvcc', ['-O3', '-arch=sm_90', ...flags, '-o', binary, source], { encoding: 'utf8', timeout: 300_000 })
  if (r.status !== 0) return { reason: `nvcc failed: ${(r.stderr || r.error?.message || '').trim().slice(0, 400)}` }
  return { binary }
}

function pick(runs: Record<string, { median_ms: number }>, match: (key: string) => boolean, what: string): number {
  const key = Object.keys(runs).find(match)
  if (key === undefined) throw new Error(`${what}: no such run among ${Object.keys(runs).join(', ')}`)
  return runs[key].median_ms
}

/** The figures of the mode, sized as the issue's table (or small ones for a smoke test). */
function figures(o: HeadlineOptions, work: string): FigureSpec[] {
  const specs: FigureSpec[] = []
  const gpu = o.mode === 'gpu'
  const within = 3 // runs inside each process; its median is the round's sample
  const tessina = o.tessina ?? ['data/landslide', '../shared/data/landslide'].find((d) => existsSync(join(d, 'tessina_dem.txt')))
  const grids = tessina ? ['header', 'dem', 'source'].map((k) => resolve(tessina, `tessina_${k}.txt`)) : undefined
  const steps = o.small ? 200 : 4000

  // -- landslide ---------------------------------------------------------------------------
  {
    const notes: string[] = []
    const files = grids ? ['--header', grids[0], '--dem', grids[1], '--source', grids[2]] : []
    if (!grids) notes.push('no Tessina grids found (--tessina DIR): the example\'s synthetic slope')
    const args = gpu
      ? // 15 runs a process: one run's time swings ±30 % within a process (the CUDA program's by 0.1 %)
        ['bench', 'landslide', ...files, '--steps', String(steps), '--backend', 'gpu', '--variant', 'fused2', '--repeat', String(o.small ? within : 15)]
      : ['bench', 'landslide', ...files, '--steps', String(steps), '--backend', 'serial,active', '--repeat', '1']
    let referenceMd5: string | undefined
    const self = (cli: string, name: string): Step => ({
      name,
      async run() {
        const r = await cliJson(cli, args)
        referenceMd5 = r.reference_md5
        return gpu ? { [name]: pick(r.runs, (k) => k.endsWith('fused2'), 'landslide') } : { [name]: r.runs.active.median_ms, ...(name === 'this' && { serial: r.runs.serial.median_ms }) }
      },
    })
    const stepsList: Step[] = [self(CLI, 'this')]
    if (o.against) stepsList.push(self(o.against, 'release'))
    for (const other of o.others ?? []) stepsList.push(self(other.cli, other.name))
    const spec: FigureSpec = {
      id: 'landslide',
      title: gpu ? `landslide Tessina, ${steps} steps, gpu/fused2 f32` : `landslide Tessina, ${steps} steps, active (2 cores)`,
      normalizeBy: gpu ? 'cuda-f32' : 'c',
      release: o.against ? 'release' : undefined,
      steps: stepsList,
      notes,
      async prepare() {
        if (!grids) return notes.push('CUDA/C baselines need the Tessina grids: skipped'), undefined
        if (gpu) {
          const built = buildCuda(work, 'sciddicat-cuda', SCIDDICAT_CU, ['-fmad=false'])
          if ('reason' in built) return notes.push(`CUDA SciddicaT skipped: ${built.reason}`), undefined
          for (const p of ['f32', 'f64'] as const)
            stepsList.push({
              name: `cuda-${p}`,
              async run() {
                const f = await programFigures(built.binary, [...grids, join(work, `sc-${p}.txt`), String(steps), p, String(within)], 'sciddicat-cuda')
                if (p === 'f64' && referenceMd5 && !notes.some((n) => n.startsWith('CUDA f64 md5'))) {
                  const md5 = spawnSync('md5sum', [join(work, 'sc-f64.txt')], { encoding: 'utf8' }).stdout.split(' ')[0]
                  notes.push(`CUDA f64 md5 ${md5 === referenceMd5 ? 'equals' : `DIFFERS from`} the f64 reference's (${referenceMd5})`)
                }
                return { [`cuda-${p}`]: Number(f.median_ms) }
              },
            })
        } else {
          const { buildC, runC } = await import('../workloads/landslide/c-baseline')
          let build
          try {
            build = await buildC()
          } catch (e) {
            return notes.push(`C SciddicaT skipped: ${ApiError.from(e).message}`), undefined
          }
          const study = { header: grids[0], dem: grids[1], source: grids[2] }
          stepsList.push({ name: 'c', run: async () => ({ c: (await runC(build, study, steps)).wall_ms }) })
        }
      },
    }
    specs.push(spec)
  }

  // -- correlation ---------------------------------------------------------------------------
  {
    const size = o.small ? { series: 512, length: 1024 } : gpu ? { series: 16384, length: 4096 } : { series: 2048, length: 8192 }
    const notes: string[] = []
    const stepsList: Step[] = [
      {
        name: 'this',
        async run() {
          const backend = gpu ? 'gpu' : 'workers-simd'
          const r = await cliJson(CLI, ['bench', 'correlation', '--series', String(size.series), '--length', String(size.length), '--precision', gpu ? 'f32' : 'f64', '--backend', backend, '--repeat', String(within), ...(gpu ? ['--no-numpy'] : [])])
          if (!gpu && !r.numpy && !notes.length) notes.push('NumPy skipped: python3 with numpy not found')
          return { this: r.backends[backend].total_ms, ...(!gpu && r.numpy && { numpy: r.numpy.median_ms }) }
        },
      },
    ]
    specs.push({
      id: 'correlation',
      title: `correlation ${size.series} × ${size.length} ${gpu ? 'f32' : 'f64, workers-simd'}, steps 2–5`,
      normalizeBy: gpu ? 'torch' : 'numpy',
      steps: stepsList,
      notes,
      async prepare() {
        if (!gpu) return
        const script = join(work, 'corrcoef.py')
        await writeFile(script, CORRCOEF_PY)
        const probe = spawnSync('python3', ['-c', 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)'], { timeout: 120_000 })
        if (probe.status !== 0) return notes.push('torch.corrcoef skipped: python3 with PyTorch and a CUDA device not found'), undefined
        stepsList.push({ name: 'torch', run: async () => ({ torch: JSON.parse((await programJson('python3', [script, String(size.series), String(size.length), String(within)])).trim()).median_ms }) })
      },
    })
  }

  // -- shortest paths ------------------------------------------------------------------------
  const sizes = o.small ? [300] : gpu ? [5000, 10000, 20000] : [2000]
  for (const V of sizes) {
    const graph = join(work, `g${V}.bin`)
    const notes: string[] = []
    const stepsList: Step[] = [
      {
        name: 'this',
        async run() {
          const backend = gpu ? 'gpu' : 'workers-simd'
          const r = await cliJson(CLI, ['bench', 'paths', '--file', graph, '--backend', backend, ...(gpu ? ['--variant', 'tuned', '--no-scipy'] : ['--scipy-repeat', '1']), '--repeat', String(within)])
          if (!gpu && !r.scipy && !notes.length) notes.push('SciPy skipped: python3 with scipy not found')
          return { this: pick(r.runs, (k) => (gpu ? k.includes('tuned') : k === backend || k.startsWith(`${backend} `)), 'paths'), ...(!gpu && r.scipy && { scipy: r.scipy.median_ms }) }
        },
      },
    ]
    specs.push({
      id: `paths-${V}`,
      title: `shortest paths, V = ${V}, ${gpu ? 'gpu tuned' : 'workers-simd (2 cores)'}`,
      normalizeBy: gpu ? 'cuda' : 'scipy',
      steps: stepsList,
      notes,
      async prepare() {
        await cliJson(CLI, ['generate', 'graph', graph, '--vertices', String(V), '--edges', String(Math.floor((V * V) / 10)), '--seed', '1'])
        if (!gpu) return
        const built = buildCuda(work, 'floyd-warshall', FLOYD_WARSHALL_CU, [])
        if ('reason' in built) return notes.push(`CUDA Floyd–Warshall skipped: ${built.reason}`), undefined
        if (V === sizes[0]) {
          const c = await programFigures(built.binary, ['1000', '1', '--check'], 'floyd-warshall')
          notes.push(`CUDA Floyd–Warshall checked against the plain loop at V = 1000: ${c.check ?? 'not checked'}`)
        }
        stepsList.push({ name: 'cuda', run: async () => ({ cuda: Number((await programFigures(built.binary, [String(V), String(within)], 'floyd-warshall')).median_ms) }) })
      },
    })
  }

  // -- statistics end to end -----------------------------------------------------------------
  {
    const rows = o.small ? 100_000 : gpu ? 20_296_428 : 20_296_428
    const file = join(work, 'acc.csv')
    const backend = gpu ? 'gpu' : 'workers-simd'
    const notes: string[] = []
    specs.push({
      id: 'stats',
      title: `statistics ${rows.toLocaleString('en')} rows end to end, ${backend}`,
      normalizeBy: 'load',
      notes,
      steps: [
        {
          name: 'this',
          async run() {
            const r = await cliJson(CLI, ['bench', 'stats', '--file', file, '--backend', backend, '--e2e-backend', backend, '--repeat', '1', '--load-repeat', '1', '--no-polars', ...(gpu ? ['--no-duckdb'] : [])])
            return { this: r.end_to_end[0].paralab_ms, load: r.load.paralab_ms, ...(r.duckdb_end_to_end && { duckdb: r.duckdb_end_to_end.duckdb_ms }) }
          },
        },
      ],
      async prepare() {
        await cliJson(CLI, ['generate', 'acc', file, '--rows', String(rows), '--seed', '1', '--force'])
      },
    })
  }
  return o.only ? specs.filter((s) => o.only!.some((id) => s.id === id || s.id.startsWith(`${id}-`))) : specs
}

async function programJson(cmd: string, args: string[]): Promise<string> {
  return new Promise((done, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? done(out.trim().split('\n').pop() ?? '') : reject(new Error(`${cmd} exited with ${code}: ${err.trim().slice(-400)}`))))
  })
}

/** Every figure of the mode in `rounds` alternated rounds. */
export async function runHeadline(o: HeadlineOptions): Promise<HeadlineResult> {
  const work = await mkdtemp(join(tmpdir(), 'paralab-headline-'))
  const notes: string[] = []
  let card = o.mode === 'cpu' ? `${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores` : 'unknown GPU'
  if (o.small) notes.push('small sizes (--small): a smoke test, not the headline figures')
  const figuresOut: FigureResult[] = []
  try {
    for (const spec of figures(o, work)) {
      o.log(`${spec.id}: preparing`)
      try {
        await spec.prepare?.()
      } catch (e) {
        spec.notes.push(`preparation failed: ${(e as Error).message}`)
        figuresOut.push({ id: spec.id, title: spec.title, unit: 'ms', series: {}, notes: spec.notes })
        continue
      }
      const values: Record<string, number[]> = {}
      const failed = new Set<string>()
      for (let r = 0; r < o.rounds; r++)
        for (const step of roundOrder(spec.steps, r)) {
          if (failed.has(step.name)) continue
          try {
            const got = await step.run()
            for (const [k, v] of Object.entries(got)) (values[k] ??= Array(o.rounds).fill(NaN))[r] = v
            o.log(`${spec.id} round ${r + 1}/${o.rounds}: ${Object.entries(got).map(([k, v]) => `${k} ${v.toFixed(2)} ms`).join(', ')}`)
          } catch (e) {
            failed.add(step.name)
            spec.notes.push(`${step.name} failed, left out: ${(e as Error).message}`)
            o.log(`${spec.id}: ${step.name} failed: ${(e as Error).message}`)
          }
        }
      const out: FigureResult = { id: spec.id, title: spec.title, unit: 'ms', series: {}, notes: spec.notes, ...(spec.normalizeBy && { normalizeBy: spec.normalizeBy }), ...(spec.release && { release: spec.release }) }
      for (const [k, v] of Object.entries(values)) {
        const finite = v.filter(Number.isFinite)
        // Kept per round (NaN where a run failed), so that per-round ratios pair the same rounds.
        if (finite.length) out.series[k] = { ...series(finite), samples: v }
      }
      figuresOut.push(out)
    }
    if (o.mode === 'gpu') card = await gpuCard(card)
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  return { card, mode: o.mode, date: new Date().toISOString().slice(0, 10), rounds: o.rounds, figures: figuresOut, notes }
}

/** nvidia-smi's name of the card (one name across the benches, whose adapter names differ), else the adapter's as this build's benches gave it. */
async function gpuCard(fallback: string): Promise<string> {
  const smi = spawnSync('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader'], { encoding: 'utf8' })
  if (smi.status === 0 && smi.stdout.trim()) return smi.stdout.trim().split('\n')[0]
  return seenGpu ?? fallback
}
