// Where GPU work lands, checked rather than assumed. No GPU here: the machine's GPUs are a fake
// sysfs PCI listing, the NVIDIA driver's procfs and /dev/nvidiaN as plain files, and nvidia-smi a
// script answering as the real one does (its queries' formats as documented and as seen on a
// 4-GPU machine). The fences themselves are real: processes started by unshare in mount
// namespaces of their own, reading the device nodes they were left.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fencedCommand, fenceRoute, FENCED_VARIABLE, rankFences, resetFenceRoute, taskFence } from '../../src/main/gpu/fence'
import { hostGpus } from '../../src/main/gpu/host-gpus'
import { gpuOfEach, observeGpus, parseComputeApps, parseQueryXml, sampleGpus } from '../../src/main/gpu/observe'
import { busTag } from '../../src/main/gpu/pci'
import { launchRanks } from '../../src/main/ranks/launch'
import { localRankGpus, runLocally } from '../../src/main/cluster/local-executor'
import type { JobRecord } from '../../src/main/cluster/job-folder'
import type { Gpu } from '../../src/main/gpu/gpu'
import { rankGpu } from '../../src/main/workloads/landslide/gpu/rank-gpu'
import { describeHostGpus } from '../../src/main/workloads/device/describe'
import { describePlacement, NOT_OBSERVED, placementOf, sharedGpus } from '../../src/shared/gpu-placement'

const dir = mkdtempSync(join(tmpdir(), 'paralab-placement-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const BUSES = ['0000:06:00.0', '0000:07:00.0', '0000:08:00.0', '0000:09:00.0']
const tag = (bus: string) => busTag(bus)!

/** A machine: its board's VGA and four NVIDIA GPUs on the PCI bus, the driver's minors, and /dev/nvidiaN holding their names. */
function machine(name: string, gpus = BUSES): { pci: string; nvidia: string; dev: string } {
  const roots = { pci: join(dir, name, 'pci'), nvidia: join(dir, name, 'nvidia'), dev: join(dir, name, 'dev') }
  mkdirSync(join(roots.pci, '0000:02:00.0'), { recursive: true })
  writeFileSync(join(roots.pci, '0000:02:00.0', 'class'), '0x030000\n')
  writeFileSync(join(roots.pci, '0000:02:00.0', 'vendor'), '0x1a03\n')
  mkdirSync(roots.dev, { recursive: true })
  writeFileSync(join(roots.dev, 'nvidiactl'), 'control')
  gpus.forEach((bus, minor) => {
    mkdirSync(join(roots.pci, bus), { recursive: true })
    writeFileSync(join(roots.pci, bus, 'class'), '0x030200\n')
    writeFileSync(join(roots.pci, bus, 'vendor'), '0x10de\n')
    mkdirSync(join(roots.nvidia, bus), { recursive: true })
    writeFileSync(join(roots.nvidia, bus, 'information'), `Model:\t\t NVIDIA H100 80GB HBM3\nDevice Minor:\t ${minor}\nBus Location:\t ${bus}\n`)
    writeFileSync(join(roots.dev, `nvidia${minor}`), `gpu ${minor}`)
  })
  return roots
}

/** An nvidia-smi answering its compute-apps query with `apps` and `-q -x` with `xml`. */
function fakeSmi(name: string, apps: string, xml = '<nvidia_smi_log></nvidia_smi_log>'): string {
  const folder = join(dir, name)
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'apps.csv'), apps)
  writeFileSync(join(folder, 'query.xml'), xml)
  const smi = join(folder, 'nvidia-smi')
  writeFileSync(smi, `#!/bin/sh\ncase "$1" in\n  --query-compute-apps=*) cat '${folder}/apps.csv' ;;\n  -q) cat '${folder}/query.xml' ;;\n  *) echo "unexpected: $*" >&2; exit 2 ;;\nesac\n`)
  chmodSync(smi, 0o755)
  return smi
}

describe("the driver's account of where processes compute", () => {
  it('reads nvidia-smi compute apps and its XML process list; bus ids as nvidia-smi writes them', () => {
    expect(tag('00000000:07:00.0')).toBe('pci-0000_07_00_0')
    expect(parseComputeApps('4242, 00000000:07:00.0, 1030 MiB\n4242, 00000000:06:00.0, 17 MiB\n99, 00000000:08:00.0, [N/A]\nNo running processes found\n')).toEqual([
      { pid: 4242, tag: 'pci-0000_07_00_0', usedMiB: 1030 },
      { pid: 4242, tag: 'pci-0000_06_00_0', usedMiB: 17 },
    ])
    const xml = `<nvidia_smi_log><gpu id="00000000:08:00.0"><processes><process_info><pid>77</pid><type>G</type><used_memory>2048 MiB</used_memory></process_info></processes></gpu>
      <gpu id="00000000:09:00.0"><processes></processes></gpu></nvidia_smi_log>`
    expect(parseQueryXml(xml)).toEqual([{ pid: 77, tag: 'pci-0000_08_00_0', usedMiB: 2048 }])
    // A process's GPU is where it holds the most: a stray context elsewhere is not its GPU.
    expect(gpuOfEach([4242, 5], parseComputeApps('4242, 00000000:06:00.0, 17 MiB\n4242, 00000000:07:00.0, 1030 MiB\n'))).toEqual(['pci-0000_07_00_0', NOT_OBSERVED])
  })

  it('observes this process through nvidia-smi on PATH, falling back to its XML list for graphics processes', async () => {
    const smi = fakeSmi('smi-xml', '1, 00000000:06:00.0, 500 MiB\n', `<gpu id="00000000:09:00.0"><processes><process_info><pid>${process.pid}</pid><used_memory>900 MiB</used_memory></process_info></processes></gpu>`)
    const path = process.env.PATH
    process.env.PATH = `${join(dir, 'smi-xml')}:${path}`
    try {
      expect(await observeGpus([process.pid])).toMatchObject({ gpus: ['pci-0000_09_00_0'], by: expect.stringMatching(/^nvidia-smi/) })
    } finally {
      process.env.PATH = path
    }
    expect(smi).toMatch(/nvidia-smi$/)
  })

  it('says "not observed" where nvidia-smi is missing, fails or does not list the process: never the GPU asked for', async () => {
    const missing = await observeGpus([process.pid], join(dir, 'no-such-nvidia-smi'))
    expect(missing.gpus).toEqual([NOT_OBSERVED])
    expect(missing.by).toMatch(/nvidia-smi could not be asked/)
    const unlisted = await observeGpus([process.pid], fakeSmi('smi-other', '12, 00000000:06:00.0, 1030 MiB\n'))
    expect(unlisted.gpus).toEqual([NOT_OBSERVED])
    const failing = join(dir, 'smi-fail')
    writeFileSync(failing, '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver" >&2\nexit 9\n')
    chmodSync(failing, 0o755)
    expect((await observeGpus([process.pid], failing)).gpus).toEqual([NOT_OBSERVED])
    // The placement built from such an observation carries what was asked for apart, and claims no sharing.
    const p = placementOf(['pci-0000_06_00_0', 'pci-0000_07_00_0'], { gpus: [NOT_OBSERVED, NOT_OBSERVED], by: missing.by }, 'rank')
    expect(p).toEqual({ gpus_requested: ['pci-0000_06_00_0', 'pci-0000_07_00_0'], gpus_observed: [NOT_OBSERVED, NOT_OBSERVED], gpus_observed_by: missing.by })
    expect(describePlacement(p, 'rank')).toMatch(/GPUs not observed/)
  })

  it('says so, in the results and on the terminal, when two bands computed on one GPU', () => {
    // As seen on a 4-GPU machine: four bands asked for four GPUs, two pairs landed together.
    const observed = ['pci-0000_08_00_0', 'pci-0000_09_00_0', 'pci-0000_08_00_0', 'pci-0000_09_00_0']
    const p = placementOf(BUSES.map(tag), { gpus: observed, by: 'nvidia-smi' })
    expect(p.gpus_shared).toBe('bands 0, 2 on pci-0000_08_00_0; bands 1, 3 on pci-0000_09_00_0')
    expect(describePlacement(p)).toMatch(/\nWARNING: bands 0, 2 on pci-0000_08_00_0; bands 1, 3 on pci-0000_09_00_0 — computed on one GPU together$/)
    expect(sharedGpus(BUSES.map(tag))).toBeUndefined()
    expect(sharedGpus([NOT_OBSERVED, NOT_OBSERVED])).toBeUndefined()
  })

  it('samples from outside while processes run, keeping where each held the most', async () => {
    const smi = fakeSmi('smi-sampled', `${process.pid}, 00000000:07:00.0, 1030 MiB\n${process.pid}, 00000000:06:00.0, 17 MiB\n`)
    const watch = sampleGpus([process.pid, 31337], 50, smi)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await watch.stop()).toMatchObject({ gpus: ['pci-0000_07_00_0', NOT_OBSERVED] })
  })

  it('lets the launcher that stops sampling go on: a process with nothing else pending gets its answer', () => {
    // The bench launcher stops its sampler once its ranks have exited, when nothing else keeps its
    // process alive: a pause between samples that kept nothing alive (or that stop() had to sit out)
    // ended the process unanswered.
    const child = join(dir, 'sampler-child.ts')
    writeFileSync(child, `import { sampleGpus } from '${join(__dirname, '../../src/main/gpu/observe')}'\nconst w = sampleGpus([process.pid], 60_000, process.argv[2])\nawait new Promise((r) => setTimeout(r, 200))\nconsole.log(JSON.stringify(await w.stop()))\n`)
    const smi = fakeSmi('smi-child', '')
    const r = spawnSync(process.execPath, [join(__dirname, '../../node_modules/jiti/lib/jiti-cli.mjs'), child, smi], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ gpus: [NOT_OBSERVED] })
  })
})

describe('a GPU each for ranks: fences', () => {
  const four = machine('four')

  it('give rank k the (k mod G)-th GPU, every other device node hidden', () => {
    const f = rankFences(6, { env: process.env, roots: four })
    expect(f.ok, f.ok ? '' : f.why).toBe(true)
    if (!f.ok) return
    expect(f.fences.map((x) => x.keep)).toEqual([0, 1, 2, 3, 0, 1].map((m) => join(four.dev, `nvidia${m}`)))
    expect(f.fences[2]).toEqual({ tag: tag(BUSES[2]), keep: join(four.dev, 'nvidia2'), hide: [0, 1, 3].map((m) => join(four.dev, `nvidia${m}`)) })
  })

  it("keep to Slurm's grant, in its order", () => {
    const f = rankFences(2, { env: { ...process.env, SLURM_STEP_GPUS: '3,1' }, roots: four })
    expect(f.ok && f.fences.map((x) => x.tag)).toEqual([tag(BUSES[3]), tag(BUSES[1])])
    const one = rankFences(2, { env: { ...process.env, SLURM_STEP_GPUS: '2' }, roots: four })
    expect(one).toEqual({ ok: false, why: `one GPU (${tag(BUSES[2])}): every rank on it` })
  })

  it('are none, and say why, with one GPU, no device nodes, or the route turned off', () => {
    expect(rankFences(2, { roots: machine('one', [BUSES[0]]) })).toMatchObject({ ok: false, why: expect.stringMatching(/^one GPU/) })
    expect(rankFences(2, { roots: { pci: join(dir, 'none', 'pci'), nvidia: join(dir, 'none', 'nvidia'), dev: join(dir, 'none', 'dev') } })).toMatchObject({ ok: false, why: expect.stringMatching(/no NVIDIA GPU with a device node/) })
    expect(rankFences(2, { env: { ...process.env, PARALAB_GPU_FENCE: 'off' }, roots: four })).toMatchObject({ ok: false, why: expect.stringMatching(/PARALAB_GPU_FENCE=off/) })
  })

  it('really leave each rank its own node alone: ranks started by the launcher read the nodes they see', async () => {
    resetFenceRoute()
    const route = fenceRoute()
    // CI runs as root on Linux with util-linux: the namespace route must be there.
    expect(route.ok, route.ok ? '' : route.why).toBe(true)
    const fences = rankFences(4, { roots: four })
    if (!fences.ok) throw new Error(fences.why)
    const launched = launchRanks({
      command: 'sh',
      args: ['-c', `for n in ${four.dev}/nvidia0 ${four.dev}/nvidia1 ${four.dev}/nvidia2 ${four.dev}/nvidia3; do printf '%s;' "$(cat $n)"; done; echo "$${FENCED_VARIABLE}"`],
      ranks: 4,
      folder: dir,
      fences,
    })
    const exits = await launched.exited
    expect(exits.map((e) => e.stderr)).toEqual(['', '', '', ''])
    expect(exits.map((e) => e.stdout.trim())).toEqual([0, 1, 2, 3].map((k) => `${[0, 1, 2, 3].map((m) => (m === k ? `gpu ${m}` : '')).join(';')};${tag(BUSES[k])}`))
    // The fence outlives nothing: outside, every node is as it was.
    expect(spawnSync('cat', [join(four.dev, 'nvidia3')], { encoding: 'utf8' }).stdout).toBe('gpu 3')
  })

  it('take device node paths as arguments, never as script text', () => {
    if (!fenceRoute().ok) throw new Error('no route')
    const hostile = join(dir, 'hostile', '$(touch pwned);x')
    mkdirSync(join(dir, 'hostile'), { recursive: true })
    writeFileSync(hostile, 'node')
    const start = fencedCommand({ tag: 't', keep: '/dev/null', hide: [hostile] }, fenceRoute() as Extract<ReturnType<typeof fenceRoute>, { ok: true }>, 'cat', [hostile])
    const r = spawnSync(start.command, start.args, { encoding: 'utf8', cwd: join(dir, 'hostile') })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe('')
    expect(existsSync(join(dir, 'hostile', 'pwned'))).toBe(false)
  })

  it('stop the rank when a node cannot be hidden', () => {
    if (!fenceRoute().ok) throw new Error('no route')
    const start = fencedCommand({ tag: 't', keep: '/dev/null', hide: [join(dir, 'absent-node')] }, fenceRoute() as Extract<ReturnType<typeof fenceRoute>, { ok: true }>, 'echo', ['ran'])
    const r = spawnSync(start.command, start.args, { encoding: 'utf8' })
    expect(r.status).toBe(126)
    expect(r.stdout).toBe('')
  })
})

describe('ranks of a job script run with --executor local', () => {
  const four = machine('local-four')
  /** A job folder whose one task runs `script` (its srun is the local executor's), and what its task wrote on stdout. */
  async function runJob(name: string, script: string, ranksEnv: Record<string, string>): Promise<string> {
    const job = join(dir, name)
    mkdirSync(join(job, 'tasks', '0'), { recursive: true })
    // As the generated scripts do: unset variables are errors. The local executor runs this text, not a file of the folder.
    const scripts = { task: `#!/bin/bash\nset -euo pipefail\n${script}\n`, merge: '#!/bin/bash\ntrue\n' }
    const record = { tasks: [{ index: 0, files: [] }] } as unknown as JobRecord
    let state = ''
    await runLocally(job, record, scripts, 1, new AbortController().signal, (_, s) => (state = s.state), ranksEnv)
    expect(state, readFileSync(join(job, 'tasks', '0', 'stderr.log'), 'utf8')).toBe('COMPLETED')
    return readFileSync(join(job, 'tasks', '0', 'stdout.log'), 'utf8')
  }
  const nodes = [0, 1, 2, 3].map((m) => join(four.dev, `nvidia${m}`)).join(' ')
  // Each rank prints its rank, the nodes it can read (a hidden one reads empty) and the GPU it was told.
  const show = `srun --ntasks=5 sh -c 'l="$SLURM_PROCID:"; for n in ${nodes}; do l="$l$(cat $n);"; done; echo "$l$${FENCED_VARIABLE}"'`

  it('are each fenced onto one GPU, rank k on the (k mod G)-th, when the job asks for GPUs', async () => {
    const gpus = localRankGpus(1, { roots: four })
    expect(gpus.note).toMatch(/each rank fenced onto one of 4 GPUs/)
    const lines = (await runJob('local-fenced', show, gpus.env)).trim().split('\n').sort()
    expect(lines).toEqual([0, 1, 2, 3, 4].map((k) => `${k}:${[0, 1, 2, 3].map((m) => (m === k % 4 ? `gpu ${m}` : '')).join(';')};${tag(BUSES[k % 4])}`))
    // Outside the ranks every node is as it was.
    expect(readFileSync(join(four.dev, 'nvidia0'), 'utf8')).toBe('gpu 0')
  })

  it('are not fenced, and the run says why, without GPUs asked for, with one GPU or with the route off', async () => {
    expect(localRankGpus(undefined, { roots: four })).toEqual({ env: {} })
    expect(localRankGpus(1, { roots: machine('local-one', [BUSES[0]]) })).toMatchObject({ env: {}, note: expect.stringMatching(/not fenced.*one GPU/) })
    expect(localRankGpus(1, { env: { ...process.env, PARALAB_GPU_FENCE: 'off' }, roots: four })).toMatchObject({ env: {}, note: expect.stringMatching(/PARALAB_GPU_FENCE=off/) })
    // Unfenced ranks see every node, as they did before fences existed.
    const lines = (await runJob('local-open', show, {})).trim().split('\n').sort()
    expect(lines).toEqual([0, 1, 2, 3, 4].map((k) => `${k}:gpu 0;gpu 1;gpu 2;gpu 3;`))
  })

  it('take their fence from the run, never from the environment the run was started in', async () => {
    // A planted fence list (hiding a file the job must read) is dropped: only localRankGpus' env fences.
    const victim = join(dir, 'local-victim')
    writeFileSync(victim, 'kept')
    const planted = { PARALAB_SRUN_FENCE_FLAGS: '-Urm', PARALAB_SRUN_FENCE_NODES: victim, PARALAB_SRUN_FENCE_KEEP: '/nonexistent', PARALAB_SRUN_FENCE_TAGS: 'x', PARALAB_SRUN_FENCE_SCRIPT: 'touch /tmp/pwned-by-fence; exit 3' }
    const saved = { ...process.env }
    Object.assign(process.env, planted)
    try {
      expect((await runJob('local-planted', `srun --ntasks=2 cat ${victim}`, {})).trim()).toBe('keptkept')
    } finally {
      for (const k of Object.keys(planted)) if (saved[k] === undefined) delete process.env[k]
    }
  })
})

describe("a rank's GPU as requested", () => {
  // The device itself is not opened here: a stand-in for the process's device (no GPU in CI).
  const device = { isSoftware: false } as unknown as Gpu
  const shared = async () => device

  it('is the GPU its fence left it, the one Slurm\'s devices cgroup left its task, or none chosen', async () => {
    expect(await rankGpu(shared, { [FENCED_VARIABLE]: 'pci-0000_00_08_0' })).toMatchObject({ gpu: device, requested: 'pci-0000_00_08_0' })
    // A task in Slurm's devices cgroup (its refusal given as the node opener's answer): SLURM_STEP_GPUS=0 is the one node it may open.
    const node = machine('slurm-node')
    const cgroup = await rankGpu(shared, { SLURM_STEP_GPUS: '0' }, node, (path) => (path.endsWith('/nvidia1') ? 'opens' : 'refused'))
    expect(cgroup).toMatchObject({ requested: tag(BUSES[1]), note: expect.stringMatching(/Slurm's devices cgroup leaves each task its one GPU \(SLURM_STEP_GPUS=0\)/) })
    // Granted minor 1, yet every node opens and no fence was made: the device is whichever the driver gave, and the rank says so.
    const open = await rankGpu(shared, { SLURM_STEP_GPUS: '1' }, node)
    expect(open).toMatchObject({ requested: 'shared', note: expect.stringMatching(/Slurm granted pci-0000_07_00_0 \(SLURM_STEP_GPUS=1\), but this task could open every GPU and was not fenced onto it/) })
    const unfenced = await rankGpu(shared, {}, machine('unfenced'))
    expect(unfenced).toMatchObject({ requested: 'shared', note: expect.stringMatching(/may use 5 GPUs and none was fenced onto one/) })
  })
})

describe('a Slurm task granted one GPU: its own fence', () => {
  const node = machine('task-node')

  it('is the granted GPU, every other node hidden, where nothing else hides them', () => {
    const f = taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '2' }, roots: node })
    expect(f.ok, f.ok ? '' : f.why).toBe(true)
    if (!f.ok) return
    expect(f.fence).toEqual({ tag: tag(BUSES[2]), keep: join(node.dev, 'nvidia2'), hide: [0, 1, 3].map((m) => join(node.dev, `nvidia${m}`)) })
    expect(f.note).toMatch(/^Slurm granted pci-0000_08_00_0, \/dev\/nvidia2 \(SLURM_STEP_GPUS=2\); every other GPU's node is hidden/)
    // Several granted: a process opens one, the first.
    expect(taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '3,1' }, roots: node })).toMatchObject({ ok: true, fence: { tag: tag(BUSES[3]) }, note: expect.stringMatching(/2 granted: a process opens one/) })
  })

  it('is none where the devices cgroup already hides the others, the task is fenced, nothing was granted, or no route', () => {
    const cgroup = taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '0' }, roots: node, opens: (p) => (p.endsWith('/nvidia3') ? 'other' : 'refused') })
    expect(cgroup).toEqual({ ok: false, why: `Slurm's devices cgroup leaves this task only ${tag(BUSES[3])} (SLURM_STEP_GPUS=0): no fence needed` })
    expect(taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '1', [FENCED_VARIABLE]: tag(BUSES[1]) }, roots: node })).toEqual({ ok: false })
    expect(taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '', SLURM_JOB_GPUS: '' }, roots: node })).toEqual({ ok: false })
    expect(taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '1', PARALAB_GPU_FENCE: 'off' }, roots: node })).toMatchObject({ ok: false, why: expect.stringMatching(/every GPU's node is open to this task and no fence can be made \(PARALAB_GPU_FENCE=off\)/) })
    expect(taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '7' }, roots: node })).toMatchObject({ ok: false, why: expect.stringMatching(/grants GPU 7/) })
  })

  it('reruns the task inside the fence with its own arguments, as arguments; the rerun reads only its node and ends with its exit code', () => {
    if (!taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '1' }, roots: node }).ok) throw new Error('no fence')
    // The task: a node process (run by jiti, as the CLI's rerun would run the CLI) whose command is
    // `node -e SCRIPT ARG`; SCRIPT reads every node, prints the GPU it was told and ARG, and exits 3.
    const hostile = '$(touch pwned); exit 9'
    const script = `const fs=require('fs');for(const m of [0,1,2,3])process.stdout.write(fs.readFileSync(${JSON.stringify(node.dev)}+'/nvidia'+m,'utf8')+';');process.stdout.write(process.env.${FENCED_VARIABLE}+';'+process.argv[1]);process.exit(3)`
    const driver = join(dir, 'rerun-driver.ts')
    writeFileSync(driver, [
      `import { taskFence } from ${JSON.stringify(join(__dirname, '../../src/main/gpu/fence'))}`,
      `import { rerunFenced } from ${JSON.stringify(join(__dirname, '../../src/main/gpu/fence-self'))}`,
      `const f = taskFence({ env: { ...process.env, SLURM_STEP_GPUS: '1' }, roots: ${JSON.stringify(node)} })`,
      `if (!f.ok) throw new Error('no fence')`,
      `rerunFenced(f, [process.execPath, '-e', process.env.RERUN_SCRIPT!, process.env.RERUN_ARG!], []).then((code) => process.exit(code))`,
    ].join('\n'))
    const r = spawnSync(process.execPath, [join(__dirname, '../../node_modules/jiti/lib/jiti-cli.mjs'), driver], { cwd: dir, encoding: 'utf8', env: { ...process.env, RERUN_SCRIPT: script, RERUN_ARG: hostile }, timeout: 60_000 })
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(`;gpu 1;;;${tag(BUSES[1])};${hostile}`)
    expect(r.status).toBe(3)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
  })
})

describe("the machine's GPUs for paralab device", () => {
  it('lists every GPU with its bus address, vendor and node, and which can be opened separately', () => {
    const host = hostGpus({ roots: machine('listed') })
    expect(host.listed).toBe(true)
    expect(host.gpus.map((g) => [g.bus, g.vendor, g.separate])).toEqual([
      ['0000:02:00.0', 'ASPEED', false],
      ...BUSES.map((b) => [b, 'NVIDIA', fenceRoute().ok]),
    ])
    expect(host.gpus[1].node).toMatch(/nvidia0$/)
    const text = describeHostGpus(host)
    expect(text).toMatch(/^GPUs of this machine: 5\n/)
    expect(text).toMatch(/0000:09:00\.0 {2}NVIDIA .*nvidia3 +opened separately/)
    expect(text).toMatch(/separately by: a process per GPU, started in .*namespace/)
  })

  it('opens none separately where the route is off, and says the bus could not be listed where it cannot', () => {
    const off = hostGpus({ env: { ...process.env, PARALAB_GPU_FENCE: 'off' }, roots: machine('off') })
    expect(off.gpus.every((g) => !g.separate)).toBe(true)
    expect(off.route).toMatch(/^none: PARALAB_GPU_FENCE=off/)
    expect(hostGpus({ roots: { pci: join(dir, 'absent') } })).toMatchObject({ listed: false, gpus: [] })
  })
})
