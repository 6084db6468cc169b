// A marker for the GPU placement check: opens the WebGPU device Dawn gives this process (as
// Paralab does), holds a written buffer of MIB MiB on it, prints `ready <pid> <adapter>` and waits
// until it is ended (SIGTERM) or SECONDS pass. Usage: node scripts/gpu-marker.mjs [MIB] [SECONDS]
const mib = Number(process.argv[2] ?? 1024)
const seconds = Number(process.argv[3] ?? 60)
const { create, globals } = await import('webgpu')
Object.assign(globalThis, globals)
const gpu = create([])
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' })
if (!adapter) {
  console.log(`no-adapter ${process.pid}`)
  process.exit(2)
}
const size = mib * 2 ** 20
const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: Math.min(adapter.limits.maxBufferSize, size) } })
const buffer = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST })
const chunk = new Uint8Array(Math.min(size, 64 * 2 ** 20)).fill(7)
for (let at = 0; at < size; at += chunk.length) device.queue.writeBuffer(buffer, at, chunk, 0, Math.min(chunk.length, size - at))
await device.queue.onSubmittedWorkDone()
console.log(`ready ${process.pid} ${adapter.info.device || adapter.info.description}`)
setTimeout(() => process.exit(0), seconds * 1000)
