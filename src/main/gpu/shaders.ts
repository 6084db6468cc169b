// WGSL sources of every kernel, bundled as text. A shader is named by its path under
// `shaders/` without the extension, e.g. `device/read_bandwidth`; includes use the same names.
import { ApiError } from '../../shared/errors'
import { type ExpandedSource, type ShaderFile, expandIncludes } from './include'

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

/** A shader's own text, includes not expanded. */
export function shaderSource(name: string): string {
  const code = sources.get(name)
  if (code === undefined)
    throw new ApiError('internal', `no shader ${shaderPath(name)} in this build (known: ${shaderNames().join(', ') || 'none'})`)
  return code
}

/** WGSL given as text rather than by name (tests, generated code); its includes name bundled shaders. */
export interface InlineShader {
  /** Names it in messages and pipeline labels. */
  label: string
  code: string
}

const expanded = new Map<string, ExpandedSource>()

/** The source of a named or inline shader with its includes expanded (bundled ones once per process). */
export function expandedShader(shader: string | InlineShader): ExpandedSource {
  if (typeof shader !== 'string') return expandIncludes({ path: shader.label, code: shader.code }, bundledFile)
  let e = expanded.get(shader)
  if (!e) {
    e = expandIncludes({ name: shader, path: shaderPath(shader), code: shaderSource(shader) }, bundledFile)
    expanded.set(shader, e)
  }
  return e
}

function bundledFile(name: string): ShaderFile | undefined {
  const code = sources.get(name)
  return code === undefined ? undefined : { name, path: shaderPath(name), code }
}
