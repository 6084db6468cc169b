// The source commit Paralab was built from: set by the build (electron.vite.config.ts reads it
// from git, with "-dirty" where the tree had uncommitted changes); absent where the build had no
// git, or where the sources run unbuilt (tests).
declare const __PARALAB_COMMIT__: string | undefined

export function sourceCommit(): string | undefined {
  const commit = typeof __PARALAB_COMMIT__ === 'string' ? __PARALAB_COMMIT__ : undefined
  return commit && /^[0-9a-f]{7,40}(-dirty)?$/.test(commit) ? commit : undefined
}
