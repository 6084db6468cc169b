import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import vue from '@vitejs/plugin-vue'

// Tests (and the CLI and servers they start) keep examples and run history in a folder of this
// run, never in the user's own.
const scratch = mkdtempSync(join(tmpdir(), 'paralab-test-'))

export default defineConfig({
  plugins: [vue()],
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // GPU tests share one software adapter per file; keep files from starving each other on 2 cores.
    maxWorkers: 2,
    env: { PARALAB_HISTORY: join(scratch, 'history'), PARALAB_EXAMPLES: join(scratch, 'examples') },
  },
})
