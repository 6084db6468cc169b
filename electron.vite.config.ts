import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import vue from '@vitejs/plugin-vue'
import type { Plugin } from 'vite'
import { CSP_PLACEHOLDER, metaPolicy } from './src/main/csp'

// Everything the CLI needs except native addons is bundled, so `out/main` runs on a machine
// that has only Node and the `webgpu` addon (see docs/benchmarks/history.md).
// Worker thread entries are found by name: every `src/main/**/*-worker.ts` is built beside the CLI.
const workerEntries = Object.fromEntries(
  readdirSync('src/main', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('-worker.ts'))
    .map((f) => [basename(f, '.ts'), resolve(join('src/main', f))]),
)

// index.html's Content-Security-Policy <meta> states csp.ts's policy (the one `serve` sends as a
// header); a page without the placeholder fails the build rather than ship without a policy.
const contentSecurityPolicy: Plugin = {
  name: 'paralab-csp',
  transformIndexHtml: {
    order: 'pre',
    handler(html, ctx) {
      if (!html.includes(CSP_PLACEHOLDER)) throw new Error(`${ctx.filename}: no ${CSP_PLACEHOLDER} for the Content-Security-Policy <meta>`)
      return html.replaceAll(CSP_PLACEHOLDER, metaPolicy())
    },
  },
}

// The commit the build is made from, recorded in every result envelope (src/main/build-info.ts):
// "-dirty" where the tree has changes git has not committed; none where git is not at hand.
function sourceCommit(): string | undefined {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const commit = git('rev-parse', 'HEAD')
    return /^[0-9a-f]{40}$/.test(commit) ? `${commit}${git('status', '--porcelain', '--untracked-files=no') ? '-dirty' : ''}` : undefined
  } catch {
    return undefined
  }
}

const nativeOnly = { include: ['webgpu', '@napi-rs/canvas', '@duckdb/node-api', 'electron'] }

export default defineConfig({
  main: {
    define: { __PARALAB_COMMIT__: JSON.stringify(sourceCommit() ?? '') },
    build: {
      externalizeDeps: false,
      rollupOptions: {
        external: [...nativeOnly.include, /^@napi-rs\/canvas/],
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          'backend-host': resolve('src/main/backend-host.ts'),
          ...workerEntries,
        },
        output: {
          format: 'es',
          entryFileNames: '[name].js',
          // Chunks beside the entries: worker scripts are found relative to any chunk.
          chunkFileNames: '[name]-[hash].js',
        },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    build: { rollupOptions: { input: { index: resolve('src/renderer/index.html') } } },
    plugins: [vue(), contentSecurityPolicy],
  },
})
