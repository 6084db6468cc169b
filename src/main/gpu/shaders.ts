// WGSL sources of every kernel, bundled as text. A shader is named by its path under
// `shaders/` without the extension, e.g. `device/read_bandwidth`.
import { ApiError } from '../../shared/api'

const files = import.meta.glob('../../../shaders/**/*.wgsl', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>

const sources = new Map<string, string>(
  Object.entries(files).map(([path, code]) => [path.replace(/^.*?\/shaders\//, '').replace(/\.wgsl$/, ''), code]),
)

/** Every shader name known to this build. */
export function shaderNames(): string[] {
  return [...sources.keys()].sort()
}

/** The file a shader name comes from, for messages. */
export function shaderPath(name: string): string {
  return `shaders/${name}.wgsl`
}

export function shaderSource(name: string): string {
  const code = sources.get(name)
  if (code === undefined)
    throw new ApiError('internal', `no shader ${shaderPath(name)} in this build (known: ${shaderNames().join(', ') || 'none'})`)
  return code
}
