// Environment variables set around a call: the Vulkan loader and its layers read theirs when Dawn
// creates an instance or enumerates its devices, so each instance can be made under its own.

/** Sets `vars` (undefined: unset) and returns what puts back the values they had. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.keys(vars).map((k) => [k, process.env[k]] as const)
  const assign = ([k, v]: readonly [string, string | undefined]) => {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  Object.entries(vars).forEach(assign)
  return () => saved.forEach(assign)
}

/** Runs `fn` with `vars` set, then puts back the values they had. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const restore = setEnv(vars)
  try {
    return await fn()
  } finally {
    restore()
  }
}
