// Kernels on the software adapter: WGSL includes, compiler messages located through them,
// the one pipeline cache, and a kernel dispatched and read back with runAndRead.
import { afterAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/errors'
import { getGpu, resetGpu, shaderNames } from '../../src/main/gpu/runtime'
import { type ShaderFile, expandIncludes, sourceLocation } from '../../src/main/gpu/include'
import { expandedShader, shaderSource } from '../../src/main/gpu/shaders'
import { failure } from '../helpers/failure'

afterAll(() => resetGpu())

/** Shader files in memory, named as bundled ones are. */
function library(files: Record<string, string>): (name: string) => ShaderFile | undefined {
  return (name) => (name in files ? { name, path: `shaders/${name}.wgsl`, code: files[name] } : undefined)
}

function expand(files: Record<string, string>, root: string) {
  const lookup = library(files)
  return expandIncludes(lookup(root)!, lookup)
}

describe('#include', () => {
  it('expands nested includes in place and keeps where each line came from', () => {
    const files = {
      main: 'const A = 1;\n#include "lib/b"\nconst C = 3;',
      'lib/b': '// b\n  #include "lib/c" // indented, with a comment\nconst B = 2;',
      'lib/c': 'const D = 4;',
    }
    const e = expand(files, 'main')
    expect(e.code).toBe('const A = 1;\n// b\nconst D = 4;\nconst B = 2;\nconst C = 3;')
    expect(e.path).toBe('shaders/main.wgsl')
    expect([1, 2, 3, 4, 5].map((l) => sourceLocation(e, l))).toEqual([
      'shaders/main.wgsl:1',
      'shaders/lib/b.wgsl:1',
      'shaders/lib/c.wgsl:1',
      'shaders/lib/b.wgsl:3',
      'shaders/main.wgsl:3',
    ])
    expect(sourceLocation(e, 0)).toBe('shaders/main.wgsl')
  })

  it('includes each file once per module, however many files include it', () => {
    const files = {
      main: '#include "common"\n#include "a"\n#include "b"\n#include "common"',
      a: '#include "common"\nfn a() {}',
      b: '#include "common"\nfn b() {}',
      common: 'const COMMON = 1;',
    }
    const e = expand(files, 'main')
    expect(e.code.match(/COMMON/g)).toHaveLength(1)
    expect(e.code.split('\n')).toEqual(['const COMMON = 1;', '', 'fn a() {}', '', 'fn b() {}', ''])
    expect(e.lines).toHaveLength(6)
    // The blank line a repeated include leaves is the includer's.
    expect(sourceLocation(e, 4)).toBe('shaders/b.wgsl:1')
  })

  it('rejects a cycle, naming the directive that closes it', () => {
    const files = { main: '#include "a"', a: '// a\n#include "b"', b: '\n\n#include "a"' }
    expect(() => expand(files, 'main')).toThrow('shaders/b.wgsl:3: #include "a" makes a cycle: a → b → a')
    expect(() => expand({ self: 'x\n#include "self"' }, 'self')).toThrow(/^shaders\/self\.wgsl:2: .*cycle: self → self$/)
  })

  it('rejects a missing file and a malformed directive with file and line', () => {
    const missing = { main: '#include "a"', a: 'const A = 1;\n\n#include "nope/x"' }
    expect(() => expand(missing, 'main')).toThrow('shaders/a.wgsl:3: #include "nope/x": no such shader')
    expect(() => expand({ main: 'x\n#include <a>' }, 'main')).toThrow('shaders/main.wgsl:2: expected #include "name", got #include <a>')
    expect(() => expand({ main: '#define X 1' }, 'main')).toThrow(/^shaders\/main\.wgsl:1: expected #include/)
  })

  it('builds each statistics module from its parts, every part once', () => {
    expect(shaderNames()).toEqual(expect.arrayContaining(['stats/stats_f64', 'stats/stats_f32', 'stats/common']))
    for (const precision of ['f64', 'f32']) {
      const e = expandedShader(`stats/stats_${precision}`)
      expect(e.code).not.toMatch(/^\s*#/m)
      // common is included by the entry file and by the precision part: it must appear once.
      expect(e.code.match(/^override WG\b/gm)).toHaveLength(1)
      const files = new Set(e.lines.map((l) => l.file))
      expect([...files].sort()).toEqual(
        ['common', precision, 'select', `stats_${precision}`, 'sums'].map((p) => `shaders/stats/${p}.wgsl`).sort(),
      )
    }
  })
})

describe('compiler messages', () => {
  it('name the included file and line of an error there', async () => {
    const gpu = await getGpu()
    // sums.wgsl needs a precision part for `Sum`; without one, its first use is an error.
    const sums = shaderSource('stats/sums').split('\n')
    const line = sums.findIndex((l) => l.includes('array<Sum, WG>')) + 1
    const column = sums[line - 1].indexOf('Sum') + 1
    expect(line).toBeGreaterThan(0)
    const err = await failure(
      gpu.kernel({ label: 'test/no-precision', code: 'alias Word = u32;\n#include "stats/common"\n#include "stats/sums"' }, { entryPoint: 'scan' }),
    )
    expect(err.code).toBe('internal')
    expect(err.message).toContain(`shaders/stats/sums.wgsl:${line}:${column}: `)
    expect(err.message).toMatch(/Sum/)
  })

  it('name the including file and its own line after an include', async () => {
    const gpu = await getGpu()
    const code = '#include "stats/f64"\n\n@compute @workgroup_size(1)\nfn main() {\n  let x: u32 = undefined_thing;\n}'
    const err = await failure(gpu.kernel({ label: 'test/own-error', code }))
    expect(err.message).toMatch(/^pipeline test\/own-error:main failed: test\/own-error:5:16: .*undefined_thing/)
  })

  it('name the missing include with the including file', async () => {
    const gpu = await getGpu()
    const err = await failure(gpu.kernel({ label: 'test/missing', code: 'const A = 1;\n#include "stats/nope"' }))
    expect(err.message).toBe('test/missing:2: #include "stats/nope": no such shader')
  })
})

describe('the pipeline cache', () => {
  it('compiles once per source, entry point and constants', async () => {
    const gpu = await getGpu()
    const before = gpu.pipelineCount
    const a = await gpu.kernel('device/read_bandwidth', { constants: { WG: 32 } })
    const b = await gpu.kernel('device/read_bandwidth', { constants: { WG: 32 }, entryPoint: 'main' })
    expect(b).toBe(a)
    expect(gpu.pipelineCount).toBe(before + 1)
    // The same source reached another way is the same pipeline.
    const inline = await gpu.kernel({ label: 'copy of read_bandwidth', code: shaderSource('device/read_bandwidth') }, { constants: { WG: 32 } })
    expect(inline).toBe(a)
    expect(gpu.pipelineCount).toBe(before + 1)
    const c = await gpu.kernel('device/read_bandwidth', { constants: { WG: 16 } })
    expect(c).not.toBe(a)
    expect(c.pipeline).not.toBe(a.pipeline)
    expect(c.label).toBe('device/read_bandwidth:main{WG=16}')
    expect(gpu.pipelineCount).toBe(before + 2)
  })

  it('names the shader and the constant at fault, and caches no failure', async () => {
    const gpu = await getGpu()
    const missing = await failure(gpu.kernel('device/nope'))
    expect(missing.message).toMatch(/shaders\/device\/nope\.wgsl.*device\/read_bandwidth/)
    const before = gpu.pipelineCount
    const badConstant = await failure(gpu.kernel('device/fma_f32', { constants: { NOT_DECLARED: 1 } }))
    expect(badConstant.code).toBe('internal')
    expect(badConstant.message).toContain('device/fma_f32:main{NOT_DECLARED=1}')
    const notFinite = await failure(gpu.kernel('device/fma_f32', { constants: { WG: NaN } }))
    expect(notFinite.code).toBe('invalid-argument')
    expect(gpu.pipelineCount).toBe(before)
  })
})

describe('runAndRead', () => {
  // Partial sums of a vec4 reduction copied into a readback buffer by the same submit.
  async function sumKernel(vec4s: number, workgroups: number) {
    const gpu = await getGpu()
    const data = new Float32Array(vec4s * 4).map((_, i) => (i * 7919) % 101)
    const kernel = await gpu.kernel('device/read_bandwidth', { constants: { WG: 32 } })
    const input = await gpu.storage('sum input', data)
    const partials = await gpu.storage('sum partials', workgroups * 4)
    const readback = gpu.buffer(64, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'sum readback')
    const dispatch = kernel.dispatch(kernel.bind([input, partials]), workgroups)
    const work = (encoder: GPUCommandEncoder) => {
      gpu.encodeDispatches(encoder, [dispatch])
      encoder.copyBufferToBuffer(partials, 0, readback, 0, workgroups * 4)
    }
    const destroy = () => [input, partials, readback].forEach((b) => b.destroy())
    return { gpu, work, readback, partials, cpu: data.reduce((s, v) => s + v, 0), destroy }
  }

  it('dispatches a kernel and reads its results back with the time it took', async () => {
    const { gpu, work, readback, cpu, destroy } = await sumKernel(1001, 5)
    const { words, ms } = await gpu.runAndRead('sum', work, readback, { bytes: 5 * 4 })
    expect(words).toHaveLength(5)
    expect(new Float32Array(words.buffer).reduce((s, v) => s + v, 0)).toBe(cpu)
    expect(ms).toBeGreaterThan(0)
    expect(readback.mapState).toBe('unmapped')
    // Again, with the whole buffer: the words past the copy are the zeros it was created with.
    const all = await gpu.runAndRead('sum again', work, readback)
    expect([...all.words.subarray(5)]).toEqual(new Array(11).fill(0))
    destroy()
  })

  it('rejects invalid work with its label and leaves the buffer usable', async () => {
    const { gpu, work, readback, partials, cpu, destroy } = await sumKernel(63, 5)
    const bad = await failure(gpu.runAndRead('too long a copy', (enc) => enc.copyBufferToBuffer(partials, 0, readback, 0, 64), readback))
    expect(bad.message).toMatch(/^too long a copy: GPU validation error/)
    expect(readback.mapState).toBe('unmapped')
    expect((await failure(gpu.runAndRead('odd size', work, readback, { bytes: 6 }))).code).toBe('invalid-argument')
    const notMappable = await failure(gpu.runAndRead('not mappable', work, partials))
    expect(notMappable.message).toMatch(/^not mappable/)
    const { words } = await gpu.runAndRead('after errors', work, readback, { bytes: 20 })
    expect(new Float32Array(words.buffer).reduce((s, v) => s + v, 0)).toBe(cpu)
    destroy()
  })

  it('rejects with device-lost when the device goes while it waits', async () => {
    const { gpu, work, readback } = await sumKernel(4099, 5)
    const pending = gpu.runAndRead('sum before loss', work, readback)
    gpu.device.destroy()
    const err = await failure(pending)
    expect(err.code).toBe('device-lost')
    expect((await getGpu()).lost).toBeNull()
  })
})
