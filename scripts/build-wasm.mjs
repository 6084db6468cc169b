// Compiles each workload's AssemblyScript kernels, src/main/workloads/<id>/simd/assembly/index.ts,
// to out/wasm/<id>.wasm (e.g. out/wasm/stats.wasm), and, where variants.json sits beside it, each
// variant to out/wasm/<id>-<variant>.wasm with its own features (`enable`) and `shrinkLevel`.
// out/wasm sits beside out/main (which electron-vite empties on every build), so the bundled
// CLI, the worker threads and tests running the sources all find it at one place.
import asc from 'assemblyscript/asc'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const workloads = readdirSync(resolve(root, 'src/main/workloads'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(resolve(root, 'src/main/workloads', d.name, 'simd/assembly/index.ts')))
  .map((d) => d.name)
  .sort()

mkdirSync(resolve(root, 'out/wasm'), { recursive: true })
for (const id of workloads) {
  const entry = `src/main/workloads/${id}/simd/assembly/index.ts`
  const variantsFile = resolve(root, `src/main/workloads/${id}/simd/assembly/variants.json`)
  const variants = existsSync(variantsFile) ? JSON.parse(readFileSync(variantsFile, 'utf8')) : {}
  const builds = [{ name: id }, ...Object.entries(variants).map(([variant, options]) => ({ name: `${id}-${variant}`, ...options }))]
  for (const { name, enable = [], shrinkLevel = 0 } of builds) {
    const outFile = `out/wasm/${name}.wasm`
    const { error, stderr } = await asc.main(
      [
        entry,
        '--outFile', outFile,
        '--optimizeLevel', '3',
        '--shrinkLevel', String(shrinkLevel),
        '--noAssert',
        '--runtime', 'stub',
        // One shared memory holds the data and every thread's scratch; the host grows it.
        '--importMemory',
        '--sharedMemory',
        '--initialMemory', '1',
        '--maximumMemory', '65536',
        '--enable', ['simd', 'threads', ...enable].join(','),
        '--baseDir', root,
      ],
      {},
    )
    if (error) {
      console.error(stderr.toString())
      console.error(`build-wasm: ${entry} (${name}) failed: ${error.message}`)
      process.exit(1)
    }
    console.log(`build-wasm: ${outFile}`)
  }
}
