// Whether the process has a GPU to release before it ends: the runtime registers its release as it
// loads, whichever module loaded it, so the entry points can release it without loading it.

let release: (() => Promise<void>) | undefined

/** Called by the runtime as it loads. */
export function registerRelease(fn: () => Promise<void>): void {
  release = fn
}

/** Releases the GPU before the process ends; nothing to do when the runtime was never loaded. */
export async function shutdownGpu(): Promise<void> {
  await release?.()
}
