// Where examples' input files live: a per-user cache folder (PARALAB_EXAMPLES overrides it), since
// they are made by seeded generators on first use rather than shipped.
import { homedir } from 'node:os'
import { join } from 'node:path'

export function defaultExampleDir(): string {
  if (process.env.PARALAB_EXAMPLES) return process.env.PARALAB_EXAMPLES
  const home = homedir()
  const cache =
    process.platform === 'win32'
      ? (process.env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'))
      : process.platform === 'darwin'
        ? join(home, 'Library', 'Caches')
        : (process.env.XDG_CACHE_HOME ?? join(home, '.cache'))
  return join(cache, 'paralab', 'examples')
}
