// A task of a test job granted GPUs by Slurm (run with jiti under srun): decides its fence as a
// Paralab task does (taskFence) on the machine given in argv[2] (a fake sysfs PCI listing and the
// NVIDIA driver's procfs, JSON: { pci, nvidia, dev }, dev holding the cluster's stand-in nodes),
// reruns itself inside it (rerunFenced), and there prints one JSON line: its rank, Slurm's grant,
// the GPU it was fenced onto, and what reading each node gives: the cluster's stand-ins have no
// driver behind them (ENXIO), a hidden one is /dev/null (it reads empty).
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { FENCED_VARIABLE, taskFence } from '../../src/main/gpu/fence'
import { rerunFenced } from '../../src/main/gpu/fence-self'

async function main(): Promise<number> {
  const roots = JSON.parse(process.argv[2]) as { pci: string; nvidia: string; dev: string }
  const f = taskFence({ roots })
  // jiti hands the program its own argv (node, program, args): the rerun goes through jiti again.
  if (f.ok) return rerunFenced(f, [process.argv[0], resolve(__dirname, '../../node_modules/jiti/lib/jiti-cli.mjs'), ...process.argv.slice(1)])
  const nodes = readdirSync(roots.dev).filter((n) => /^nvidia\d+$/.test(n)).sort()
  process.stdout.write(
    JSON.stringify({
      rank: Number(process.env.SLURM_PROCID),
      grant: process.env.SLURM_STEP_GPUS,
      fenced: process.env[FENCED_VARIABLE] ?? null,
      why: f.why ?? null,
      reads: nodes.map((n) => {
        try {
          return readFileSync(join(roots.dev, n), 'utf8')
        } catch (e) {
          return (e as NodeJS.ErrnoException).code
        }
      }),
    }) + '\n',
  )
  return 0
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`task error: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
