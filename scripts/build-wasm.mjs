// Compiles the AssemblyScript statistics kernels to out/wasm/stats.wasm.
// out/wasm sits beside out/main (which electron-vite empties on every build), so the bundled
// CLI, the worker threads and tests running the sources all find it at one place.
import asc from 'assemblyscript/asc'
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const entry = 'src/main/workloads/stats/simd/assembly/index.ts'
const outFile = 'out/wasm/stats.wasm'

mkdirSync(resolve(root, 'out/wasm'), { recursive: true })
const { error, stderr } = await asc.main(
  [
    entry,
    '--outFile', outFile,
    '--optimizeLevel', '3',
    '--shrinkLevel', '0',
    '--noAssert',
    '--runtime', 'stub',
    // One shared memory holds the columns and every thread's scratch; the host grows it.
    '--importMemory',
    '--sharedMemory',
    '--initialMemory', '1',
    '--maximumMemory', '65536',
    '--enable', 'simd,threads',
    '--baseDir', root,
  ],
  {},
)
if (error) {
  console.error(stderr.toString())
  console.error(`build-wasm: ${entry} failed: ${error.message}`)
  process.exit(1)
}
console.log(`build-wasm: ${outFile}`)
