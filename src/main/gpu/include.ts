// `#include "name"` for WGSL, which has none: a line holding only the directive (and maybe a
// `//` comment) is replaced by the text of shaders/<name>.wgsl, expanded the same way. Each
// file enters a module once (later includes of it leave a blank line), so parts may include
// what they use. Every line of the result keeps the file and line it came from, so compiler
// messages can name them.
import { ApiError } from '../../shared/errors'

/** Where a line of expanded source came from. */
export interface SourceLine {
  file: string
  line: number
}

export interface ExpandedSource {
  /** The root file's path. */
  path: string
  code: string
  /** lines[i] is the origin of line i + 1 of `code`. */
  lines: SourceLine[]
}

/** A shader file: the name includes use (undefined for inline code) and the path messages show. */
export interface ShaderFile {
  name?: string
  path: string
  code: string
}

const DIRECTIVE = /^\s*#/
const INCLUDE = /^\s*#include\s+"([^"]+)"\s*(\/\/.*)?$/

/**
 * Expands the includes of `root`. `lookup` gives the file of an included name, or undefined
 * when there is none. A missing file, a cycle or a malformed directive throws, naming the
 * `path:line` of the directive.
 */
export function expandIncludes(root: ShaderFile, lookup: (name: string) => ShaderFile | undefined): ExpandedSource {
  const out: string[] = []
  const lines: SourceLine[] = []
  const included = new Set<string>()
  const open: ShaderFile[] = []

  const expand = (file: ShaderFile): void => {
    if (file.name !== undefined) included.add(file.name)
    open.push(file)
    file.code.split('\n').forEach((text, i) => {
      const at = `${file.path}:${i + 1}`
      if (!DIRECTIVE.test(text)) {
        out.push(text)
        lines.push({ file: file.path, line: i + 1 })
        return
      }
      const name = INCLUDE.exec(text)?.[1]
      if (name === undefined) throw new ApiError('internal', `${at}: expected #include "name", got ${text.trim()}`)
      const cycle = open.findIndex((f) => f.name === name)
      if (cycle >= 0) {
        const chain = [...open.slice(cycle).map((f) => f.name), name].join(' → ')
        throw new ApiError('internal', `${at}: #include "${name}" makes a cycle: ${chain}`)
      }
      if (included.has(name)) {
        out.push('')
        lines.push({ file: file.path, line: i + 1 })
        return
      }
      const next = lookup(name)
      if (!next) throw new ApiError('internal', `${at}: #include "${name}": no such shader`)
      expand(next)
    })
    open.pop()
  }

  expand(root)
  return { path: root.path, code: out.join('\n'), lines }
}

/** `path:line` of a line (1-based) of expanded source; a line without origin (0: no position) gives the root's path. */
export function sourceLocation(source: ExpandedSource, line: number): string {
  const origin = source.lines[line - 1]
  return origin ? `${origin.file}:${origin.line}` : source.path
}
