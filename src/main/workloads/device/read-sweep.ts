// `paralab bench read-bandwidth`: the read kernel over a grid of its settings (bytes read, loads in
// flight per invocation, workgroup size, workgroups), so that `bench device`'s defaults
// (HARDWARE in bench.ts) can be chosen by measurement on a new GPU.
import { adapterName } from '../../../shared/device'
import { intOption, UsageError, writeJson, type Command } from '../../terminal/command'
import { getGpu } from '../../gpu/on-demand'

/** The host uploads this much once; larger reads are GPU copies of it. */
const SOURCE_BYTES = 256 * 2 ** 20

export interface ReadSweepPoint {
  bytes: number
  loads: number
  workgroupSize: number
  /** Workgroups asked for, and those run (raised where partial sums would lose exactness). */
  workgroups: number
  workgroupsRun: number
  GB_per_s: number
}

function ints(value: unknown, flag: string, fallback: number[], min: number, max: number): number[] {
  if (value === undefined) return fallback
  return String(value)
    .split(',')
    .map((v) => intOption(v.trim(), flag, min, max)!)
}

export const benchReadCommand: Command = {
  name: 'bench read-bandwidth',
  summary: 'Sweep the GPU read-bandwidth kernel over bytes read, loads in flight, workgroup size and grid size.',
  usage: 'paralab bench read-bandwidth [--mib M,…] [--loads L,…] [--workgroup-size S,…] [--workgroups W,…] [--repeat R] [--json]',
  help: [
    `  --mib M,…             MiB read per dispatch, multiples of ${SOURCE_BYTES / 2 ** 20} (default 256,1024)`,
    '  --loads L,…           vec4 loads in flight per invocation and trip, 4 or 8 (default 4,8)',
    '  --workgroup-size S,…  invocations per workgroup, powers of two (default 256)',
    '  --workgroups W,…      workgroups in the grid (default 2048,4096,8192,16384,32768)',
    '  --repeat R            timed batches per point, median reported (default 5)',
    '  --json                print the points as JSON on stdout',
  ].join('\n'),
  options: {
    mib: { type: 'string' },
    loads: { type: 'string' },
    'workgroup-size': { type: 'string' },
    workgroups: { type: 'string' },
    repeat: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const step = SOURCE_BYTES / 2 ** 20
    const mibs = ints(values.mib, 'mib', [256, 1024], step, 1792)
    const bad = mibs.find((m) => m % step !== 0)
    if (bad !== undefined) throw new UsageError(`--mib must be multiples of ${step}, got ${bad}`)
    const loads = ints(values.loads, 'loads', [4, 8], 4, 8)
    const sizes = ints(values['workgroup-size'], 'workgroup-size', [256], 32, 1024)
    const grids = ints(values.workgroups, 'workgroups', [2048, 4096, 8192, 16384, 32768], 1, 65535)
    const repeats = intOption(values.repeat, 'repeat', 1, 1000) ?? 5

    const gpu = await getGpu()
    // The measurements load with the device, when the sweep runs.
    const [{ benchData }, { measureReadBandwidth, repeatedBuffer }] = await Promise.all([import('./data'), import('./read-bandwidth')])
    const { data, sum } = benchData(SOURCE_BYTES)
    const source = await gpu.storage('read sweep source', data)
    const points: ReadSweepPoint[] = []
    process.stderr.write(`adapter ${adapterName(gpu.adapter)}\n`)
    try {
      for (const mib of mibs) {
        const copies = (mib * 2 ** 20) / SOURCE_BYTES
        const buf = copies === 1 ? source : await repeatedBuffer(gpu, source, SOURCE_BYTES, copies)
        try {
          for (const l of loads)
            for (const wg of sizes)
              for (const w of grids) {
                const r = await measureReadBandwidth(gpu, buf, SOURCE_BYTES * copies, sum * copies, { workgroupSize: wg, workgroups: w, loads: l, repeats, targetBatchMs: 100, maxBatch: 1000 })
                const p = { bytes: r.bytes, loads: l, workgroupSize: wg, workgroups: w, workgroupsRun: r.workgroups, GB_per_s: r.GB_per_s }
                points.push(p)
                if (!values.json) process.stdout.write(`${String(mib).padStart(5)} MiB  loads ${l}  wg ${String(wg).padStart(4)}  grid ${String(r.workgroups).padStart(5)}  ${r.GB_per_s.toFixed(0).padStart(6)} GB/s  (${r.dispatchesPerBatch} a batch)\n`)
              }
        } finally {
          if (buf !== source) buf.destroy()
        }
      }
    } finally {
      source.destroy()
    }
    if (values.json) writeJson({ adapter: gpu.adapter, points })
    return 0
  },
}
