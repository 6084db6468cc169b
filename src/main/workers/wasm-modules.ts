// The compiled WebAssembly kernels of every workload (`out/wasm/<name>.wasm`, built by
// `npm run build:wasm` from src/main/workloads/<name>/simd/assembly), compiled once per process.
// out/wasm sits beside out/main, so the bundled CLI, its worker threads and tests running the
// sources all find it at one place.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiError } from '../../shared/errors'

/** Path of `<name>.wasm`: beside out/main when bundled, under the repository's out/wasm from sources. */
export function wasmModulePath(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const path = here.endsWith(join('src', 'main', 'workers')) ? resolve(here, '../../../out/wasm', `${name}.wasm`) : resolve(here, '../wasm', `${name}.wasm`)
  if (!existsSync(path)) throw new ApiError('internal', `SIMD kernels ${path} are missing: run \`npm run build:wasm\``)
  return path
}

const compiled = new Map<string, Promise<WebAssembly.Module>>()

/** The compiled module `<name>.wasm`; a failure is not remembered, so a rebuilt file can be loaded. */
export function loadWasmModule(name: string): Promise<WebAssembly.Module> {
  let module = compiled.get(name)
  if (!module) {
    module = (async () => {
      const path = wasmModulePath(name)
      try {
        return await WebAssembly.compile(await readFile(path))
      } catch (e) {
        throw new ApiError('internal', `cannot load SIMD kernels ${path}: ${(e as Error).message}`)
      }
    })()
    compiled.set(name, module)
    module.catch(() => compiled.delete(name))
  }
  return module
}
