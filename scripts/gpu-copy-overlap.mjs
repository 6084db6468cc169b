// Does a copy between host and GPU overlap a compute dispatch on WebGPU's one queue (Dawn)? A probe
// for `paths --gpus N`, whose parts each upload a 10 MB pivot row a round (V = 40 000: 64 × 40 000
// int32) and whose owners read one back, beside a phase 3 of ~1.5–5 ms a round. Per round, median of
// REPEAT runs of ROUNDS rounds, each run waited for to the end:
//   compute            a dispatch calibrated to about COMPUTE_MS, reading the pivot buffer
//   upload             a copy of BYTES from a MAP_WRITE staging buffer into the pivot buffer
//   upload+compute     both in one submit, the dispatch reading what was copied (as a part does)
//   upload|compute     both in one submit, the copy into a buffer the dispatch never reads
//   writeBuffer+compute  queue.writeBuffer of BYTES, then the dispatch
//   readback           a copy of BYTES from the pivot buffer into a MAP_READ buffer
//   compute+readback   the dispatch, then the copy (as an owner does)
// If a pair takes the sum of its parts, copies and compute are serialised on the queue, and a round
// of a part costs phase 3 plus its copies whatever the host does.
//   node scripts/gpu-copy-overlap.mjs [OUT_JSON]
// (on the GPU machine: bash .gpu/run.sh node scripts/gpu-copy-overlap.mjs "$OUT/overlap.json")
import { writeFileSync } from 'node:fs'
import { create, globals } from 'webgpu'

Object.assign(globalThis, globals)
const BYTES = Number(process.env.BYTES ?? 64 * 40000 * 4)
const ROUNDS = Number(process.env.ROUNDS ?? 200)
const REPEAT = Number(process.env.REPEAT ?? 3)
const COMPUTE_MS = Number(process.env.COMPUTE_MS ?? 2.5)
/** Words the dispatch computes: 32 768 workgroups of 256, within every device's limit of 65 535 a dimension. */
const WORK_WORDS = 1 << 23

const gpu = create([])
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' })
if (!adapter) throw new Error('no WebGPU adapter')
const device = await adapter.requestDevice()
device.addEventListener('uncapturederror', (e) => {
  console.error(`WebGPU error: ${e.error.message}`)
  process.exit(1)
})
const { vendor, architecture, device: name, description } = adapter.info ?? {}
const info = { vendor, architecture, device: name, description }
console.log(`adapter: ${info.vendor} ${info.architecture} ${info.device} ${info.description}`)

const storage = (label, size) => device.createBuffer({ label, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC })
const work = storage('work', WORK_WORDS * 4)
const pivot = storage('pivot', BYTES)
const spare = storage('spare', BYTES)
const staging = device.createBuffer({ label: 'staging', size: BYTES, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true })
new Uint8Array(staging.getMappedRange()).fill(1)
staging.unmap()
const readback = device.createBuffer({ label: 'readback', size: BYTES, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST })
const host = new Uint8Array(BYTES).fill(2)
const params = device.createBuffer({ label: 'iterations', size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST })

const module = device.createShaderModule({
  code: `
    @group(0) @binding(0) var<storage, read_write> work: array<u32>;
    @group(0) @binding(1) var<storage, read> pivot: array<u32>;
    @group(0) @binding(2) var<uniform> iterations: vec4<u32>;
    @compute @workgroup_size(256)
    fn main(@builtin(global_invocation_id) id: vec3<u32>) {
      let i = id.x;
      var v = work[i] ^ pivot[i % arrayLength(&pivot)];
      for (var t = 0u; t < iterations.x; t++) { v = v * 1664525u + 1013904223u; }
      work[i] = v;
    }`,
})
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } })
const group = device.createBindGroup({
  layout: pipeline.getBindGroupLayout(0),
  entries: [
    { binding: 0, resource: { buffer: work } },
    { binding: 1, resource: { buffer: pivot } },
    { binding: 2, resource: { buffer: params } },
  ],
})
const dispatch = (enc) => {
  const pass = enc.beginComputePass()
  pass.setPipeline(pipeline)
  pass.setBindGroup(0, group)
  pass.dispatchWorkgroups(WORK_WORDS / 256)
  pass.end()
}

/** ms a round of `round(encoder)` (submitted once a round), the median of REPEAT runs. */
async function perRound(round, rounds = ROUNDS) {
  const runs = []
  for (let r = 0; r < REPEAT; r++) {
    await device.queue.onSubmittedWorkDone()
    const t0 = performance.now()
    for (let k = 0; k < rounds; k++) {
      const enc = device.createCommandEncoder()
      round(enc)
      device.queue.submit([enc.finish()])
      // The host stays a few rounds ahead at most, as a part does.
      if (k % 4 === 3) await device.queue.onSubmittedWorkDone()
    }
    await device.queue.onSubmittedWorkDone()
    runs.push((performance.now() - t0) / rounds)
  }
  return runs.sort((a, b) => a - b)[runs.length >> 1]
}

// Calibrate the dispatch to about COMPUTE_MS.
let iterations = 64
for (;;) {
  device.queue.writeBuffer(params, 0, new Uint32Array([iterations, 0, 0, 0]))
  const ms = await perRound(dispatch, 20)
  if (ms >= COMPUTE_MS || iterations >= 1 << 20) {
    iterations = Math.max(1, Math.round((iterations * COMPUTE_MS) / ms))
    device.queue.writeBuffer(params, 0, new Uint32Array([iterations, 0, 0, 0]))
    break
  }
  iterations *= 2
}

const copy = (from, to) => (enc) => enc.copyBufferToBuffer(from, 0, to, 0, BYTES)
const both = (...steps) => (enc) => steps.forEach((s) => s(enc))
const results = {
  compute: await perRound(dispatch),
  upload: await perRound(copy(staging, pivot)),
  'upload+compute': await perRound(both(copy(staging, pivot), dispatch)),
  'upload|compute': await perRound(both(copy(staging, spare), dispatch)),
  'writeBuffer+compute': await perRound((enc) => {
    device.queue.writeBuffer(pivot, 0, host)
    dispatch(enc)
  }),
  readback: await perRound(copy(pivot, readback)),
  'compute+readback': await perRound(both(dispatch, copy(pivot, readback))),
}
const gbps = (ms) => (BYTES / ms / 1e6).toFixed(1)
console.log(`${(BYTES / 2 ** 20).toFixed(1)} MiB a copy, ${ROUNDS} rounds, median of ${REPEAT}; dispatch of ${iterations} iterations`)
for (const [name, ms] of Object.entries(results)) console.log(`${name.padEnd(20)} ${ms.toFixed(3)} ms a round${name === 'upload' || name === 'readback' ? ` (${gbps(ms)} GB/s)` : ''}`)
const hidden = (pair, copyName) => results.compute + results[copyName] - results[pair]
for (const [pair, c] of [['upload+compute', 'upload'], ['upload|compute', 'upload'], ['writeBuffer+compute', 'upload'], ['compute+readback', 'readback']])
  console.log(`${pair}: ${hidden(pair, c).toFixed(3)} ms of the ${results[c].toFixed(3)} ms copy hidden behind compute`)
if (process.argv[2]) writeFileSync(process.argv[2], JSON.stringify({ adapter: info, bytes: BYTES, rounds: ROUNDS, repeat: REPEAT, iterations, ms_per_round: results }, null, 2))
device.destroy()
process.exit(0)
