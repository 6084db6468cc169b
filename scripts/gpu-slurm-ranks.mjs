// The ranks of a Slurm job and where they computed, for the Slurm GPU check (gpu-slurm-check.sh).
//   node scripts/gpu-slurm-ranks.mjs watch JOB_DIR RANKS.json NODE…
//     until SIGTERM, every 100 ms: the node processes whose command line names a task folder of
//     JOB_DIR (--task-dir=JOB_DIR/…) and that run in a job step, each with its rank and what its
//     environment and mounts say of its GPU (Slurm's grant, Paralab's fence); written on SIGTERM.
//     A rank in a devices cgroup of its own (Slurm's ConstrainDevices) has its GPU device nodes
//     (NODE…) tried from inside that cgroup: a shell joins it and opens each (EPERM: refused).
//   node scripts/gpu-slurm-ranks.mjs verdict RANKS.json ENVELOPE.json|none APPS.csv|none
//     the table rank → granted → requested by Paralab → observed by nvidia-smi (APPS.csv: samples of
//     `nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader,nounits`; a
//     rank's GPU is the one where any of its processes held the most memory). Exits 1 when a rank
//     has no process, two ranks were granted or computed on one GPU, a rank computed elsewhere than
//     on its grant, or (with APPS.csv) a rank was not seen on any GPU.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'

const [mode, ...args] = process.argv.slice(2)

const GRANT_VARIABLES = ['SLURM_STEP_GPUS', 'SLURM_JOB_GPUS', 'CUDA_VISIBLE_DEVICES', 'GPU_DEVICE_ORDINAL', 'PARALAB_GPU_FENCED', 'SLURM_LOCALID', 'SLURM_JOB_ID', 'SLURM_STEP_ID', 'LD_LIBRARY_PATH']

function readText(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Which of `nodes` a process of the devices cgroup `path` may open: `nvidiaK:open|EPERM|ENXIO|…` each. */
function triedFrom(path, nodes) {
  const procs = path.startsWith('0::') ? `/sys/fs/cgroup${path.slice(3)}/cgroup.procs` : `/sys/fs/cgroup/devices${path.split(':').slice(2).join(':')}/cgroup.procs`
  const script = 'echo $$ > "$0" || exit 3; for n; do if e=$( { exec 3< "$n"; } 2>&1 ); then echo "${n##*/}:open"; else case $e in *"not permitted"*) echo "${n##*/}:EPERM";; *"No such device"*) echo "${n##*/}:ENXIO";; *) echo "${n##*/}:other";; esac; fi; done'
  const r = spawnSync('sh', ['-c', script, procs, ...nodes], { encoding: 'utf8', timeout: 5000 })
  return r.status === 0 ? r.stdout.trim().split('\n') : [`not tried (${(r.stderr || `exit ${r.status}`).trim()})`]
}

/** The ranks' processes seen so far, by pid. */
function scan(jobDir, seen, nodes) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const argv = readText(`/proc/${name}/cmdline`)?.split('\0')
    if (!argv || !/^node/.test(basename(argv[0] ?? '')) || !argv.some((a) => a.startsWith(`--task-dir=${jobDir}/`))) continue
    const env = Object.fromEntries((readText(`/proc/${name}/environ`) ?? '').split('\0').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
    if (env.SLURM_PROCID === undefined || env.SLURM_STEP_ID === undefined || env.SLURM_STEP_ID === 'batch') continue
    const devices = (readText(`/proc/${name}/cgroup`) ?? '').split('\n').find((l) => /:devices:/.test(l) || /^0::/.test(l))
    // Device nodes with something mounted over them in the process's mount namespace (Paralab's fence).
    const hidden = (readText(`/proc/${name}/mountinfo`) ?? '').split('\n').map((l) => l.split(' ')[4]).filter((p) => /\/nvidia\d+$/.test(p ?? ''))
    const pid = Number(name)
    const constrained = devices && !/:\/$/.test(devices)
    const tried = seen.get(pid)?.tried ?? (constrained ? triedFrom(devices, nodes) : null)
    seen.set(pid, { pid, rank: Number(env.SLURM_PROCID), env: Object.fromEntries(GRANT_VARIABLES.filter((k) => env[k] !== undefined).map((k) => [k, env[k]])), cgroup: devices ?? null, tried, hidden })
  }
}

function watch(jobDir, file, nodes) {
  const seen = new Map()
  const timer = setInterval(() => scan(jobDir, seen, nodes), 100)
  process.on('SIGTERM', () => {
    clearInterval(timer)
    scan(jobDir, seen, nodes)
    writeFileSync(file, JSON.stringify([...seen.values()], null, 1))
    process.exit(0)
  })
}

/** `0000:00:06.0`-like bus ids (nvidia-smi writes 8 hex digits of domain) as Paralab's tags. */
function tagOf(bus) {
  const m = /^([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(bus.trim())
  return m ? `pci-${parseInt(m[1], 16).toString(16).padStart(4, '0')}_${m[2]}_${m[3]}_${m[4]}`.toLowerCase() : bus.trim()
}

/** The NVIDIA driver's minor (the N of /dev/nvidiaN) of each GPU, by tag. */
function minors() {
  const byTag = new Map()
  let entries = []
  try {
    entries = readdirSync('/proc/driver/nvidia/gpus')
  } catch {
    return byTag
  }
  for (const address of entries) {
    const minor = /^Device Minor:\s*(\d+)/m.exec(readText(`/proc/driver/nvidia/gpus/${address}/information`) ?? '')
    if (minor) byTag.set(tagOf(address), Number(minor[1]))
  }
  return byTag
}

/**
 * What Slurm granted a task, in its words, and as one node's minor: the one node its devices cgroup
 * lets it open, else (no cgroup) the index in its environment.
 */
function grantOf(p) {
  const env = p.env
  const words = ['SLURM_STEP_GPUS', 'CUDA_VISIBLE_DEVICES'].map((k) => `${k.replace('SLURM_', '')}=${env[k] ?? '-'}`).join(' ')
  if (p.tried) {
    const allowed = p.tried.filter((t) => /^nvidia\d+:/.test(t) && !t.endsWith(':EPERM')).map((t) => Number(/^nvidia(\d+)/.exec(t)[1]))
    const opens = `${words}; cgroup opens ${allowed.map((m) => `nvidia${m}`).join(',') || 'none'}`
    // A devices cgroup grants the one node it opens; without one (every node opens) the grant is the environment's.
    if (allowed.length === 1) return { words: opens, index: allowed[0] }
    return { words: opens, index: allowed.length > 1 ? envIndex(env) : undefined }
  }
  return { words, index: envIndex(env) }
}

/** The one GPU Slurm's environment grants the step, if it names one. */
function envIndex(env) {
  const list = (env.SLURM_STEP_GPUS ?? env.SLURM_JOB_GPUS ?? '').split(',').filter(Boolean)
  return list.length === 1 && /^\d+$/.test(list[0]) ? Number(list[0]) : undefined
}

function verdict(ranksFile, envelopeFile, appsFile) {
  const procs = JSON.parse(readFileSync(ranksFile, 'utf8'))
  let failed = false
  const fail = (why) => {
    failed = true
    return `FAIL ${why}`
  }
  // Paralab's own account: each rank's requested and observed GPU, from the run's envelope.
  let requested = []
  let selfObserved = []
  if (envelopeFile !== 'none') {
    const walk = (v) => {
      if (Array.isArray(v)) return v.forEach(walk)
      if (!v || typeof v !== 'object') return
      if (Array.isArray(v.gpus_requested) && requested.length === 0) ((requested = v.gpus_requested), (selfObserved = v.gpus_observed ?? []))
      Object.values(v).forEach(walk)
    }
    walk(JSON.parse(readFileSync(envelopeFile, 'utf8')))
  }
  // Where each pid held the most memory over the samples.
  const best = new Map()
  if (appsFile !== 'none') {
    for (const line of readFileSync(appsFile, 'utf8').split('\n')) {
      const [pid, bus, mem] = line.split(',').map((c) => c.trim())
      if (!/^\d+$/.test(pid ?? '') || !bus) continue
      const mib = Number(mem) || 0
      if (mib >= (best.get(Number(pid))?.mib ?? -1)) best.set(Number(pid), { tag: tagOf(bus), mib })
    }
  }
  const minorOf = minors()
  const byRank = new Map()
  for (const p of procs) byRank.set(p.rank, [...(byRank.get(p.rank) ?? []), p])
  const size = Math.max(byRank.size, requested.length, ...procs.map((p) => p.rank + 1))
  const lines = ['rank | pids | granted by Slurm | devices cgroup | fenced by Paralab | Paralab requested | Paralab observed | nvidia-smi saw | verdict']
  const grants = new Map()
  const observed = new Map()
  for (let rank = 0; rank < size; rank++) {
    const ps = byRank.get(rank) ?? []
    const verdicts = []
    if (ps.length === 0) verdicts.push(fail('no process seen'))
    const grant = ps.length ? grantOf(ps[0]) : { words: '-', index: undefined }
    if (grant.index !== undefined) {
      if (grants.has(grant.index)) verdicts.push(fail(`granted GPU ${grant.index} as rank ${grants.get(grant.index)} was`))
      grants.set(grant.index, rank)
    } else if (ps.length) verdicts.push(fail('no single GPU granted'))
    const fenced = ps.map((p) => p.env.PARALAB_GPU_FENCED).find(Boolean)
    const hidden = ps.map((p) => p.hidden.length).reduce((a, b) => Math.max(a, b), 0)
    let saw = '-'
    if (appsFile !== 'none') {
      const seen = ps.map((p) => best.get(p.pid)).filter(Boolean).sort((a, b) => b.mib - a.mib)[0]
      if (!seen) verdicts.push(fail('not seen on any GPU'))
      else {
        const minor = minorOf.get(seen.tag)
        saw = `${seen.tag} (/dev/nvidia${minor ?? '?'}, ${seen.mib} MiB)`
        if (observed.has(seen.tag)) verdicts.push(fail(`computed on the GPU of rank ${observed.get(seen.tag)}`))
        observed.set(seen.tag, rank)
        if (grant.index !== undefined && minor !== grant.index) verdicts.push(fail(`granted /dev/nvidia${grant.index}`))
      }
    }
    const cgroup = ps[0]?.cgroup ? ps[0].cgroup.split(':').slice(2).join(':') : '-'
    lines.push([rank, ps.map((p) => p.pid).join(',') || '-', grant.words, cgroup, fenced ? `${fenced} (${hidden} nodes hidden)` : 'no', requested[rank] ?? '-', selfObserved[rank] ?? '-', saw, verdicts.join('; ') || 'ok'].join(' | '))
  }
  lines.push(failed ? 'FAIL' : 'ok')
  console.log(lines.join('\n'))
  process.exit(failed ? 1 : 0)
}

if (mode === 'watch') watch(args[0], args[1], args.slice(2))
else if (mode === 'verdict') verdict(args[0], args[1], args[2])
else {
  console.error('usage: gpu-slurm-ranks.mjs watch JOB_DIR RANKS.json NODE… | verdict RANKS.json ENVELOPE.json|none APPS.csv|none')
  process.exit(2)
}
