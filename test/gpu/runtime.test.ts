// The WebGPU runtime on the software adapter: discovery, limits, transfers, kernels against
// the CPU, device loss, cancellation, the no-GPU path and process exit (kernels.test.ts: the
// pipeline cache, includes, runAndRead).
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { build } from 'vite'
import { ApiError } from '../../src/shared/errors'
import { REQUESTED_LIMITS, getGpu, gpuInfo, resetGpu, throwIfAborted, type Gpu } from '../../src/main/gpu/runtime'
import { failure } from '../helpers/failure'

afterAll(() => resetGpu())

/** Deterministic pseudo-random bytes. */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n)
  let s = seed >>> 0
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    out[i] = s >>> 24
  }
  return out
}

describe('adapter and device', () => {
  it('finds the SwiftShader adapter by itself and says how', async () => {
    const info = await gpuInfo()
    expect(info.available).toBe(true)
    expect(info.reason).toBeUndefined()
    expect(info.adapter).toMatchObject({ vendor: 'google', architecture: 'swiftshader', isSoftware: true })
    expect(info.adapter!.source).toMatch(/^SwiftShader \(Vulkan ICD \/.*vk_swiftshader_icd\.json\)$/)
    expect(info.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThan(0)
  })

  it('requests the adapter maxima of the limits kernels use', async () => {
    const gpu = await getGpu()
    for (const k of REQUESTED_LIMITS) expect([k, gpu.limits[k]]).toEqual([k, gpu.adapterLimits[k]])
    // WebGPU's default is 128 MiB; SwiftShader offers more, so a granted maximum shows the request happened.
    expect(gpu.limits.maxStorageBufferBindingSize).toBeGreaterThan(128 * 2 ** 20)
    expect(gpu.device.limits.maxStorageBufferBindingSize).toBe(gpu.adapterLimits.maxStorageBufferBindingSize)
  })

  it('is one device for the process', async () => {
    expect(await getGpu()).toBe(await getGpu())
  })
})

describe('transfers', () => {
  // directMaxBytes 0 sends every upload through the staging buffers; the default writes small data directly.
  it.each([
    ['staged', 0],
    ['direct', undefined],
  ])('round-trips an odd-sized buffer larger than the chunk size (%s upload)', async (_, directMaxBytes) => {
    const gpu = await getGpu()
    const data = bytes(10_001, 1)
    const buf = await gpu.storage('roundtrip', data, { chunkBytes: 1024, directMaxBytes })
    expect(buf.size).toBe(10_004)
    const back = new Uint8Array(await gpu.read(buf, { size: data.length, chunkBytes: 1028 }))
    expect(back).toEqual(data)
    // A range starting inside the buffer, of a length that is not a multiple of 4.
    const slice = new Uint8Array(await gpu.read(buf, { offset: 4096, size: 4999, chunkBytes: 512 }))
    expect(slice).toEqual(data.subarray(4096, 4096 + 4999))
    // The padded tail is zero, not stale memory.
    expect(new Uint8Array(await gpu.read(buf, { offset: 10_000 }))).toEqual(new Uint8Array([data[10_000], 0, 0, 0]))
    // Into existing memory: a view that starts inside its ArrayBuffer, bytes around it untouched.
    const host = new Uint8Array(6000).fill(0xee)
    await gpu.readInto(buf, host.subarray(3, 5003), { offset: 5000, chunkBytes: 1024 })
    expect(host.subarray(3, 5003)).toEqual(data.subarray(5000, 10_000))
    expect([host[2], host[5003]]).toEqual([0xee, 0xee])
    buf.destroy()
    expect(gpu.staging.idleBytes).toBeGreaterThan(0) // kept for the next transfer
  })

  it('abandons a staged upload when cancelled mid-way and keeps working', async () => {
    const gpu = await getGpu()
    const buf = await gpu.storage('cancel mid-way', 8192)
    const ac = new AbortController()
    const pending = gpu.upload(buf, bytes(8192, 2), { chunkBytes: 1024, directMaxBytes: 0, signal: ac.signal })
    ac.abort()
    expect((await failure(pending)).code).toBe('cancelled')
    const data = bytes(8192, 3)
    await gpu.upload(buf, data, { chunkBytes: 1024, directMaxBytes: 0 })
    expect(new Uint8Array(await gpu.read(buf, { chunkBytes: 2048 }))).toEqual(data)
    buf.destroy()
  })

  it('uploads at an offset and reads an empty range', async () => {
    const gpu = await getGpu()
    const buf = await gpu.storage('offsets', 64)
    await gpu.upload(buf, new Uint32Array([7, 8, 9]), { offset: 20 })
    expect([...(await gpu.readU32(buf))]).toEqual([0, 0, 0, 0, 0, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0])
    expect((await gpu.read(buf, { offset: 8, size: 0 })).byteLength).toBe(0)
    buf.destroy()
  })

  it('uploads views of shared memory, small and staged (the CSV loader hands those over)', async () => {
    const gpu = await getGpu()
    const shared = new Float64Array(new SharedArrayBuffer(8 * 1000))
    shared.forEach((_, i) => (shared[i] = i * 1.5 - 7))
    for (const directMaxBytes of [1 << 20, 0]) {
      const buf = await gpu.storage('shared', 8 * 1000)
      await gpu.upload(buf, shared.subarray(1), { directMaxBytes, chunkBytes: 1024 })
      expect([...new Float64Array(await gpu.read(buf, { size: 8 * 999 }))]).toEqual([...shared.subarray(1)])
      buf.destroy()
    }
  })

  it('rejects ranges outside the buffer with the buffer named', async () => {
    const gpu = await getGpu()
    const buf = await gpu.storage('small', 16)
    expect((await failure(gpu.read(buf, { offset: 8, size: 12 }))).message).toMatch(/read of small: 12 bytes at offset 8 exceed its 16 bytes/)
    expect((await failure(gpu.read(buf, { offset: 2 }))).code).toBe('invalid-argument')
    expect((await failure(gpu.upload(buf, new Uint8Array(20)))).message).toContain('upload to small')
    expect(() => gpu.buffer(gpu.limits.maxBufferSize + 4, GPUBufferUsage.STORAGE, 'huge')).toThrow(/huge.*maxBufferSize/)
    buf.destroy()
  })

  it('stops between chunks when cancelled', async () => {
    const gpu = await getGpu()
    const buf = await gpu.storage('cancel', 4096)
    const ac = new AbortController()
    ac.abort()
    expect((await failure(gpu.upload(buf, new Uint8Array(4096), { signal: ac.signal }))).code).toBe('cancelled')
    expect((await failure(gpu.read(buf, { signal: ac.signal }))).code).toBe('cancelled')
    expect(() => throwIfAborted(ac.signal)).toThrow('cancelled')
    expect(() => throwIfAborted(undefined)).not.toThrow()
    buf.destroy()
  })
})

describe('kernels', () => {
  // A vec4 sum over lengths that are not multiples of the grid, against the CPU's sum.
  it.each([1, 63, 1000, 4099])('reduces %i vec4s exactly like the CPU', async (vec4s) => {
    const gpu = await getGpu()
    const data = new Float32Array(vec4s * 4)
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 101
    const cpu = data.reduce((s, v) => s + v, 0)
    const workgroups = 5
    const kernel = await gpu.kernel('device/read_bandwidth', { constants: { WG: 32 } })
    const input = await gpu.storage('reduce input', data)
    const partials = await gpu.storage('reduce partials', workgroups * 4)
    const ms = await gpu.run('reduce', [kernel.dispatch(kernel.bind([input, partials]), workgroups)])
    expect(ms).toBeGreaterThan(0)
    const sums = await gpu.readF32(partials)
    expect(sums.reduce((s, v) => s + v, 0)).toBe(cpu)
    input.destroy()
    partials.destroy()
  })

  it('reports a validation error with the work label', async () => {
    const gpu = await getGpu()
    const kernel = await gpu.kernel('device/read_bandwidth', { constants: { WG: 32 } })
    const input = await gpu.storage('in', 64)
    const partials = await gpu.storage('parts', 4)
    const group = kernel.bind([input, partials])
    const err = await failure(gpu.run('bad copy', (enc) => enc.copyBufferToBuffer(input, 0, partials, 0, 64)))
    expect(err.message).toMatch(/^bad copy: GPU validation error/)
    // The device is still usable afterwards.
    expect(await gpu.run('good', [kernel.dispatch(group, 1)])).toBeGreaterThan(0)
    input.destroy()
    partials.destroy()
  })

  it('splits large workgroup counts over two dimensions', async () => {
    const gpu = await getGpu()
    const max = gpu.limits.maxComputeWorkgroupsPerDimension
    expect(gpu.grid(10)).toEqual([10, 1, 1])
    const [x, y, z] = gpu.grid(max * 2 + 3)
    expect(y).toBe(3)
    expect(x * y).toBeGreaterThanOrEqual(max * 2 + 3)
    expect(x).toBeLessThanOrEqual(max)
    expect(z).toBe(1)
  })
})

describe('device loss', () => {
  it('fails jobs on the lost device and opens a new one on the next getGpu()', async () => {
    const gpu: Gpu = await getGpu()
    const buf = await gpu.storage('before loss', new Uint32Array([1, 2, 3, 4]))
    const pending = gpu.read(buf)
    gpu.device.destroy() // what a driver reset looks like to the runtime
    const err = await failure(pending)
    expect(err.code).toBe('device-lost')
    expect(err.message).toMatch(/^GPU device lost: /)
    expect((await failure(gpu.run('after loss', () => {}))).code).toBe('device-lost')
    const next = await getGpu()
    expect(next).not.toBe(gpu)
    expect(next.lost).toBeNull()
    const again = await next.storage('after loss', new Uint32Array([5, 6]))
    expect([...(await next.readU32(again))]).toEqual([5, 6])
  })
})

describe('without a GPU', () => {
  it('reports PARALAB_GPU=off as unavailable with the reason, and recovers once it is cleared', async () => {
    await resetGpu()
    process.env.PARALAB_GPU = 'off'
    try {
      const info = await gpuInfo()
      expect(info).toEqual({ available: false, reason: 'disabled by PARALAB_GPU=off', features: [], limits: {}, host: expect.objectContaining({ listed: true, gpus: expect.any(Array) }) })
      const err = await failure(getGpu())
      expect(err).toBeInstanceOf(ApiError)
      expect(err.code).toBe('gpu-unavailable')
    } finally {
      delete process.env.PARALAB_GPU
      await resetGpu()
    }
    expect((await gpuInfo()).available).toBe(true)
  })
})

describe('in a child process', () => {
  const dir = resolve('test-output/gpu-runtime')
  const child = resolve(dir, 'child.mjs')

  // The runtime bundled as the app bundles it (shaders inlined by import.meta.glob), run by plain node.
  it('builds', async () => {
    await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        ssr: resolve('src/main/gpu/runtime.ts'),
        outDir: dir,
        emptyOutDir: true,
        rollupOptions: { output: { format: 'es', entryFileNames: 'runtime.mjs' } },
      },
    })
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      child,
      `import { getGpu, gpuInfo } from './runtime.mjs'
const info = await gpuInfo()
if (!info.available) { console.log(JSON.stringify(info)); process.exitCode = 3 } else {
  const gpu = await getGpu()
  const kernel = await gpu.kernel('device/read_bandwidth', { constants: { WG: 64 } })
  const input = await gpu.storage('in', new Float32Array(4096).fill(2))
  const partials = await gpu.storage('partials', 16)
  await gpu.run('sum', [kernel.dispatch(kernel.bind([input, partials]), 4)])
  const p = await gpu.readF32(partials)
  console.log(JSON.stringify({ sum: p[0] + p[1] + p[2] + p[3], source: info.adapter.source }))
}
// No process.exit and no shutdown: the process must end by itself.
`,
    )
  })

  it('finds the software adapter from scratch, uses it and exits by itself', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PARALAB_GPU: '' }
    delete env.VK_ICD_FILENAMES // set by this process's own search
    delete env.VK_DRIVER_FILES
    const r = spawnSync(process.execPath, [child], { encoding: 'utf8', timeout: 60_000, env })
    expect(r.signal).toBeNull() // not killed by the timeout
    expect(r.status).toBe(0)
    const line = r.stdout.trim().split('\n').at(-1)!
    expect(JSON.parse(line)).toMatchObject({ sum: 8192, source: expect.stringContaining('SwiftShader') })
  })

  it('reports PARALAB_GPU=off without touching the GPU', () => {
    const r = spawnSync(process.execPath, [child], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PARALAB_GPU: 'off' } })
    expect(r.status).toBe(3)
    expect(JSON.parse(r.stdout.trim())).toEqual({ available: false, reason: 'disabled by PARALAB_GPU=off', features: [], limits: {}, host: expect.objectContaining({ listed: true, gpus: expect.any(Array) }) })
  })
})
