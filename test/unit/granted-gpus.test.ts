// Which GPUs a process may use: every GPU of the PCI bus, or under Slurm those granted to its job
// step, mapped from Slurm's node indices (the N of /dev/nvidiaN) to PCI addresses through the
// NVIDIA driver's listing where it has one, else by bus order. On a fake sysfs and procfs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { grantedGpus, nodeAccess, slurmGpuIndices, type NodeAccess } from '../../src/main/gpu/granted'

const dir = mkdtempSync(join(tmpdir(), 'paralab-granted-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A PCI bus of these devices (address → class) and, when given, the NVIDIA driver's minors (address → minor). */
function machine(name: string, devices: Record<string, string>, minors?: Record<string, number>): { pci: string; nvidia: string } {
  const pci = join(dir, name, 'pci')
  const nvidia = join(dir, name, 'nvidia')
  for (const [address, cls] of Object.entries(devices)) {
    mkdirSync(join(pci, address), { recursive: true })
    writeFileSync(join(pci, address, 'class'), `${cls}\n`)
  }
  for (const [address, minor] of Object.entries(minors ?? {})) {
    mkdirSync(join(nvidia, address), { recursive: true })
    writeFileSync(join(nvidia, address, 'information'), `Model:\t\t NVIDIA H100 80GB HBM3\nIRQ:\t\t 42\nDevice Minor:\t ${minor}\nBus Location:\t ${address}\n`)
  }
  return { pci, nvidia }
}

// A server: its board's VGA (ASPEED) first on the bus, then four GPUs whose minors run against bus order in part.
const server = machine(
  'server',
  { '0000:02:00.0': '0x030000', '0000:17:00.0': '0x030200', '0000:3d:00.0': '0x030200', '0000:63:00.0': '0x030200', '0000:99:00.0': '0x030200', '0000:00:1f.0': '0x060100' },
  { '0000:17:00.0': 0, '0000:3d:00.0': 1, '0000:63:00.0': 3, '0000:99:00.0': 2 },
)
const tag = (address: string) => `pci-${address.replace(/[:.]/g, '_')}`

describe('the GPUs a process may use', () => {
  it('are every GPU of the bus outside Slurm', () => {
    const g = grantedGpus({}, server)!
    // Display controllers only (the ISA bridge at 00:1f.0 is none), in bus order.
    expect(g.tags).toEqual(['0000:02:00.0', '0000:17:00.0', '0000:3d:00.0', '0000:63:00.0', '0000:99:00.0'].map(tag))
    expect(g.all).toEqual(g.tags)
    expect(g.slurm).toBeUndefined()
  })

  it("are Slurm's grant, each index the GPU whose device minor it is (not the board's VGA, not bus order)", () => {
    const g = grantedGpus({ SLURM_STEP_GPUS: '2,3', SLURM_JOB_GPUS: '0,1,2,3' }, server)!
    expect(g.tags).toEqual([tag('0000:99:00.0'), tag('0000:63:00.0')])
    expect(g.all).toHaveLength(5)
    expect(g.slurm).toBe('SLURM_STEP_GPUS=2,3')
    // In the batch script, the job's grant; ranges as Slurm may write them.
    expect(grantedGpus({ SLURM_JOB_GPUS: '0-1' }, server)!.tags).toEqual([tag('0000:17:00.0'), tag('0000:3d:00.0')])
  })

  it('follow bus order where no NVIDIA driver lists its GPUs', () => {
    const amd = machine('amd', { '0000:c1:00.0': '0x038000', '0000:c2:00.0': '0x038000', '0000:c3:00.0': '0x038000' })
    expect(grantedGpus({ SLURM_STEP_GPUS: '2,0' }, amd)!.tags).toEqual([tag('0000:c3:00.0'), tag('0000:c1:00.0')])
  })

  it('refuse a grant naming a GPU the node does not have, or one Slurm could not have written', () => {
    expect(() => grantedGpus({ SLURM_STEP_GPUS: '4' }, server)).toThrow(/SLURM_STEP_GPUS=4 grants GPU 4, but this node lists 5 GPUs/)
    for (const text of ['a', '1,,2', '3-1', '-1']) expect(() => slurmGpuIndices({ SLURM_STEP_GPUS: text }), text).toThrow(/SLURM_STEP_GPUS must list GPU indices such as 0,2 or 4-7/)
  })

  it('are none to choose from where the bus cannot be listed', () => {
    expect(grantedGpus({ SLURM_STEP_GPUS: '0' }, { pci: join(dir, 'absent') })).toBeNull()
  })

  // Slurm 22.05 with ConstrainDevices and --gpus-per-task 1, as seen on a one-node cluster with four
  // GPUs: every task reads SLURM_STEP_GPUS=0, and its devices cgroup lets it open its own
  // /dev/nvidiaK alone (EPERM for the others). The cgroup's refusal is given here as the answer of
  // the node opener (a devices cgroup needs a writable cgroup hierarchy, which a test cannot count on).
  const refusingAllBut = (keep: number[]) => (path: string): NodeAccess => (keep.some((m) => path.endsWith(`/nvidia${m}`)) ? 'other' : 'refused')
  const dev = join(dir, 'server-dev')

  it('are, under a devices cgroup, the GPUs the task may open, Slurm numbering them from 0', () => {
    const task3 = grantedGpus({ SLURM_STEP_GPUS: '0', SLURM_JOB_GPUS: '0,1,2,3' }, { ...server, dev }, refusingAllBut([3]))!
    // Minor 3 is the GPU at 63:00.0 on this server.
    expect(task3).toMatchObject({ tags: [tag('0000:63:00.0')], slurm: 'SLURM_STEP_GPUS=0', constrained: true })
    // Two GPUs of a task, 0 and 1 of its own: minors 2 and 3 in minor order.
    expect(grantedGpus({ SLURM_STEP_GPUS: '1,0' }, { ...server, dev }, refusingAllBut([2, 3]))!.tags).toEqual([tag('0000:63:00.0'), tag('0000:99:00.0')])
    // Indices that name the nodes it may open are those nodes.
    expect(grantedGpus({ SLURM_STEP_GPUS: '2,3' }, { ...server, dev }, refusingAllBut([2, 3]))!.tags).toEqual([tag('0000:99:00.0'), tag('0000:63:00.0')])
    expect(() => grantedGpus({ SLURM_STEP_GPUS: '1' }, { ...server, dev }, refusingAllBut([3]))).toThrow(/SLURM_STEP_GPUS=1 grants GPU 1, but this process may open only \/dev\/nvidia3 of the node's 4/)
  })

  it('are, without one, the GPUs of the minors Slurm names (every node opens)', () => {
    const open = () => 'opens' as const
    expect(grantedGpus({ SLURM_STEP_GPUS: '3' }, { ...server, dev }, open)).toMatchObject({ tags: [tag('0000:63:00.0')], slurm: 'SLURM_STEP_GPUS=3' })
    expect(grantedGpus({ SLURM_STEP_GPUS: '3' }, { ...server, dev }, open)!.constrained).toBeUndefined()
  })

  it('reads a refusal from the open itself', () => {
    expect(nodeAccess(join(dir, 'no-such-node'))).toBe('absent')
    expect(nodeAccess('/dev/null')).toBe('opens')
  })
})
