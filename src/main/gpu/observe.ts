// Where a process's GPU work landed, as the driver reports it rather than as it was asked for:
// NVIDIA's NVML through nvidia-smi lists the processes holding memory on each GPU, by pid. A
// process's GPU is the one holding the most of its memory (a stray context elsewhere is small).
// Elsewhere (no nvidia-smi, another vendor, a pid namespace that hides the pid) the answer is
// 'not observed', never the GPU that was asked for.
import { execFile } from 'node:child_process'
import { NOT_OBSERVED } from '../../shared/gpu-placement'
import { busTag } from './pci'

/** How `gpus_observed` is established. */
export const OBSERVED_BY = 'nvidia-smi: the GPU holding the most memory of the part\'s process'

export interface ProcessOnGpu {
  pid: number
  /** The GPU's tag (pci.ts busTag). */
  tag: string
  usedMiB: number
}

function run(smi: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(smi, args, { timeout: 10_000, maxBuffer: 16 * 2 ** 20, encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolve(stdout)))
  })
}

/** Rows of `nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader`. */
export function parseComputeApps(text: string): ProcessOnGpu[] {
  const rows: ProcessOnGpu[] = []
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s*,\s*([0-9a-fA-F:.]+)\s*,\s*(\d+)\s*MiB\s*$/.exec(line)
    const tag = m && busTag(m[2])
    if (m && tag) rows.push({ pid: Number(m[1]), tag, usedMiB: Number(m[3]) })
  }
  return rows
}

/**
 * The processes of every GPU in `nvidia-smi -q -x`: graphics ones too, which the compute-apps
 * query leaves out (a Vulkan device may count as either).
 */
export function parseQueryXml(xml: string): ProcessOnGpu[] {
  const rows: ProcessOnGpu[] = []
  for (const block of xml.split(/<gpu\s+id="/).slice(1)) {
    const tag = busTag(block.slice(0, block.indexOf('"')))
    if (!tag) continue
    for (const info of block.match(/<process_info>[\s\S]*?<\/process_info>/g) ?? []) {
      const pid = /<pid>\s*(\d+)\s*<\/pid>/.exec(info)
      const used = /<used_memory>\s*(\d+)\s*MiB\s*<\/used_memory>/.exec(info)
      if (pid) rows.push({ pid: Number(pid[1]), tag, usedMiB: used ? Number(used[1]) : 0 })
    }
  }
  return rows
}

/** Every process on every GPU nvidia-smi lists, or why none could be listed. */
export async function gpuProcesses(wanted: number[] = [], smi = 'nvidia-smi'): Promise<ProcessOnGpu[] | { why: string }> {
  let rows: ProcessOnGpu[]
  try {
    rows = parseComputeApps(await run(smi, ['--query-compute-apps=pid,gpu_bus_id,used_memory', '--format=csv,noheader']))
  } catch (e) {
    return { why: `nvidia-smi could not be asked (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` }
  }
  if (wanted.every((pid) => rows.some((r) => r.pid === pid))) return rows
  try {
    const more = parseQueryXml(await run(smi, ['-q', '-x']))
    for (const r of more) if (!rows.some((o) => o.pid === r.pid && o.tag === r.tag)) rows.push(r)
  } catch {
    // the compute-apps answer stands
  }
  return rows
}

/** Each pid's GPU: the one holding the most of its memory, else NOT_OBSERVED. */
export function gpuOfEach(pids: number[], rows: ProcessOnGpu[]): string[] {
  return pids.map((pid) => {
    const mine = rows.filter((r) => r.pid === pid).sort((a, b) => b.usedMiB - a.usedMiB)
    return mine[0]?.tag ?? NOT_OBSERVED
  })
}

/** Where each pid computes now (observeGpus), and how that was found or why it was not. */
export async function observeGpus(pids: number[], smi?: string): Promise<{ gpus: string[]; by: string }> {
  const rows = await gpuProcesses(pids, smi)
  if ('why' in rows) return { gpus: pids.map(() => NOT_OBSERVED), by: rows.why }
  return { gpus: gpuOfEach(pids, rows), by: OBSERVED_BY }
}

/**
 * Samples nvidia-smi every `everyMs` while processes run (a launcher watching its ranks from
 * outside their namespaces): stop() gives each pid's GPU, the one where it was seen holding the
 * most memory in any sample.
 */
export function sampleGpus(pids: number[], everyMs = 1000, smi?: string): { stop(): Promise<{ gpus: string[]; by: string }> } {
  const best = new Map<number, ProcessOnGpu>()
  let why: string | undefined
  let stopped = false
  // The pause between samples, ended at once by stop(): a pending timer is what keeps the caller's
  // process waiting for the loop, so it is neither unref'd nor left to run out.
  let wake = () => {}
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, everyMs)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  const once = async () => {
    const rows = await gpuProcesses(pids, smi)
    if ('why' in rows) {
      why = rows.why
      return
    }
    for (const r of rows) if (pids.includes(r.pid) && r.usedMiB >= (best.get(r.pid)?.usedMiB ?? -1)) best.set(r.pid, r)
  }
  const loop = (async () => {
    while (!stopped && why === undefined) {
      await once()
      if (!stopped) await pause()
    }
  })()
  return {
    async stop() {
      stopped = true
      wake()
      await loop
      if (best.size === 0 && why !== undefined) return { gpus: pids.map(() => NOT_OBSERVED), by: why }
      return { gpus: pids.map((pid) => best.get(pid)?.tag ?? NOT_OBSERVED), by: OBSERVED_BY }
    },
  }
}
