// `--gpu-bands N`: the gpu backend in N row bands, each a process of its own run as the landslide
// ranks are (band-processes.ts), through the built CLI (npm run build) on the software adapter:
// 2 and 3 bands give the one-band grid bit for bit; the results say where
// each band ran — here the bands are no GPU's ('not observed'), and with an nvidia-smi that lists
// both band processes on one GPU (a fake: there is no NVIDIA GPU here) the run says they shared it,
// in its results and on the terminal; a cancelled run and a killed one leave no band process
// behind. Where bands really land on several GPUs is checked on a machine of several by
// scripts/gpu-scaling-round.sh.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { getGpu } from '../../src/main/gpu/runtime'
import { deviceSelectLayer } from '../../src/main/gpu/device-select'
import { gpuBusTags } from '../../src/main/gpu/pci'
import { runLandslideJob } from '../../src/main/workloads/landslide/run-landslide'
import { rankTaskArgs, runLocalRanks } from '../../src/main/workloads/landslide/local-ranks'
import type { GpuVariant } from '../../src/shared/workloads/landslide/types'
import { valley, writeValley } from '../helpers/landslide-valley'
import { CLI } from '../helpers/serve'
import { jsonOf, paralab } from '../e2e/paralab'

const ROWS = 46
const COLS = 31
const dir = mkdtempSync(join(tmpdir(), 'paralab-gpu-bands-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const GRIDS = writeValley(dir, ROWS, COLS, 5)

/** `paralab landslide simulate` of the valley: its summary (md5: the final grid as the reference program prints it). */
const simulated = (bands: number, steps = '60') =>
  jsonOf(paralab(['landslide', 'simulate', '--dem', GRIDS[0], '--source', GRIDS[1], '--steps', steps, '--backend', 'gpu', '--variant', 'fused2', '--gpu-bands', String(bands), '--exchange-every', '3', '--json']))

/** The processes started by `parent` that run a rank task (a band). */
function bandsOf(parent: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent), '-f', 'rank-task'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('landslide --gpu-bands: a process a band', () => {
  it('2 and 3 band processes give the one-band grid bit for bit', () => {
    // The valley's debris crosses the cuts between bands within 60 steps (as the in-process tests of gpu bands checked on this grid).
    const one = simulated(1)
    expect(one.bands).toBeUndefined()
    const two = simulated(2)
    expect(two.md5).toBe(one.md5)
    expect(two.bands).toMatchObject({ ranks: 2, exchange_every: 3, gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'] })
    expect(simulated(3).md5).toBe(one.md5)
  }, 240_000)

  it('reports the bands of a job: ranks, each band\'s GPU as requested and observed (here none: a software adapter), the exchange interval', () => {
    const run = jsonOf(paralab(['landslide', ...GRIDS, '--backend', 'gpu', '--variant', 'fused2', '--gpu-bands', '2', '--exchange-every', '3', '--steps', '12', '--json'])).results.runs['gpu/fused2']
    expect(run).toMatchObject({ ranks: 2, gpus_requested: ['shared', 'shared'], gpus_observed: ['not observed', 'not observed'], exchange_every: 3 })
    expect(run.gpus_observed_by).toMatch(/software adapter/)
    expect(run.gpus_shared).toBeUndefined()
    expect(run.roofline).toBeUndefined()
    expect(JSON.stringify(run)).not.toMatch(/pci-/)
  })

  it('two bands that nvidia-smi sees on one GPU are said to have shared it, in the results and on the terminal', () => {
    // A fake nvidia-smi (no NVIDIA GPU here): every band process of its caller holds memory on the GPU at 06:00.0.
    const bin = join(dir, 'smi')
    mkdirSync(bin, { recursive: true })
    writeFileSync(
      join(bin, 'nvidia-smi'),
      '#!/bin/sh\ncase "$1" in\n  --query-compute-apps=*) for p in $(pgrep -P $PPID -f rank-task); do echo "$p, 00000000:06:00.0, 300 MiB"; done ;;\n  *) echo "<nvidia_smi_log></nvidia_smi_log>" ;;\nesac\n',
    )
    chmodSync(join(bin, 'nvidia-smi'), 0o755)
    const text = paralab(['landslide', ...GRIDS, '--backend', 'gpu', '--variant', 'fused2', '--gpu-bands', '2', '--exchange-every', '3', '--steps', '40'], { PATH: `${bin}:${process.env.PATH}` })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/gpu\/fused2: 2 bands, halos exchanged every 3 steps; .*\n2 bands: requested shared, shared; observed on pci-0000_06_00_0, pci-0000_06_00_0\nWARNING: bands 0, 1 on pci-0000_06_00_0 — computed on one GPU together/)
  })

  it.each(['SIGINT', 'SIGKILL'] as const)('a run whose process gets %s leaves no band process behind', async (signal) => {
    const child = spawn(process.execPath, [CLI, 'landslide', 'simulate', '--dem', GRIDS[0], '--source', GRIDS[1], '--backend', 'gpu', '--variant', 'fused2', '--gpu-bands', '2', '--steps', '1000000'], { stdio: 'ignore' })
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
    let bands: number[] = []
    await until('both band processes started', () => (bands = bandsOf(child.pid!)).length === 2)
    child.kill(signal)
    await exited
    await until('every band process gone', () => bands.every((pid) => !alive(pid)), 20_000)
  })

  it('a cancelled job ends its band processes before it returns', async () => {
    const job = mkdtempSync(join(dir, 'job-'))
    const stop = new AbortController()
    const run = runLocalRanks({
      ranks: 2,
      args: rankTaskArgs({ files: GRIDS, steps: 1_000_000, backend: 'gpu', variant: 'fused2', precision: 'f32', warmup: 0, gridOut: join(job, 'grid.f64') }),
      folder: job,
      gpu: true,
      part: 'band',
      what: 'gpu in 2 band processes',
      signal: stop.signal,
      cli: CLI,
    })
    run.catch(() => {})
    let bands: number[] = []
    await until('both band processes started', () => (bands = bandsOf(process.pid)).length === 2)
    stop.abort()
    await expect(run).rejects.toThrow(/abort/i)
    expect(bands.filter(alive)).toEqual([])
  })

  it('refuses the active kernel alone in bands, and a grid handed to the job in memory', async () => {
    const job = (variants: GpuVariant[], given = {}) =>
      runLandslideJob(
        { grids: GRIDS, steps: 4, backends: ['gpu'], variants, precision: 'f32', gpuBands: 2, frames: 0, repeat: 1 },
        { signal: new AbortController().signal, progress: () => {}, input: async (p) => p, gpu: getGpu },
        given,
      )
    await expect(job(['active'])).rejects.toThrow(/--gpu-bands 1/)
    await expect(job(['fused'], { input: valley(ROWS, COLS, 5), reference: new Float64Array(ROWS * COLS) })).rejects.toThrow(/each band as a process, which reads the grids from their files/)
  })
})

describe('finding GPUs and the device-select layer', () => {
  const saved = { path: process.env.VK_LAYER_PATH, off: process.env.NODEVICE_SELECT }
  afterEach(() => {
    for (const [k, v] of [['VK_LAYER_PATH', saved.path], ['NODEVICE_SELECT', saved.off]] as const)
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  })

  it('lists PCI display controllers (VGA and 3D) as DRI_PRIME tags in bus order', () => {
    const root = mkdtempSync(join(tmpdir(), 'paralab-pci-'))
    try {
      const device = (address: string, cls: string) => {
        mkdirSync(join(root, address))
        writeFileSync(join(root, address, 'class'), `${cls}\n`)
      }
      device('0000:00:07.0', '0x030200')
      device('0000:00:06.0', '0x030200')
      device('0000:00:01.0', '0x060100')
      device('0000:c1:00.0', '0x030000')
      mkdirSync(join(root, 'not-a-device'))
      expect(gpuBusTags(root)).toEqual(['pci-0000_00_06_0', 'pci-0000_00_07_0', 'pci-0000_c1_00_0'])
      // A bus that cannot be listed says nothing about GPUs (null), unlike one listing none of them.
      expect(gpuBusTags(join(root, 'missing'))).toBeNull()
      mkdirSync(join(root, 'empty'))
      expect(gpuBusTags(join(root, 'empty'))).toBeNull()
      rmSync(join(root, '0000:00:06.0'), { recursive: true })
      rmSync(join(root, '0000:00:07.0'), { recursive: true })
      rmSync(join(root, '0000:c1:00.0'), { recursive: true })
      expect(gpuBusTags(root)).toEqual([])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('finds the layer\'s manifest on VK_LAYER_PATH, and none when NODEVICE_SELECT=1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralab-layer-'))
    try {
      writeFileSync(join(dir, 'other.json'), '{"layer": {"name": "VK_LAYER_KHRONOS_validation"}}')
      writeFileSync(join(dir, 'select.json'), '{"layer": {"name": "VK_LAYER_MESA_device_select"}}')
      process.env.VK_LAYER_PATH = dir
      expect(deviceSelectLayer()).toBe(join(dir, 'select.json'))
      process.env.NODEVICE_SELECT = '1'
      expect(deviceSelectLayer()).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
