// One run of the GPU placement check (gpu-placement-check.sh): which GPUs the run claims (every
// gpus_requested / gpus_observed tag in its JSON) against what nvidia-smi sampled while it ran.
// Fails (exit 1) when a claimed GPU stayed idle: no utilisation and under 64 MiB above its idle memory.
// Usage: node scripts/gpu-check-run.mjs LABEL RESULT.json SAMPLES.csv BASELINE.csv
// (the CSVs: nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits)
import { readFileSync } from 'node:fs'

const [label, resultFile, samplesFile, baselineFile] = process.argv.slice(2)
const tagOf = (bus) => {
  const m = /^([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(bus.trim())
  return m ? `pci-${parseInt(m[1], 16).toString(16).padStart(4, '0')}_${m[2]}_${m[3]}_${m[4]}`.toLowerCase() : bus.trim()
}
const rows = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.split(',').map((c) => c.trim()))
    .filter((c) => c.length >= 4 && /^\d+$/.test(c[0]))
    .map(([index, bus, mem, util]) => ({ index: Number(index), tag: tagOf(bus), mem: Number(mem), util: Number(util) }))
const base = new Map(rows(baselineFile).map((r) => [r.index, r]))
const seen = new Map()
for (const r of rows(samplesFile)) {
  const s = seen.get(r.index) ?? { tag: r.tag, mem: 0, util: 0 }
  s.mem = Math.max(s.mem, Number.isFinite(r.mem) ? r.mem : 0)
  s.util = Math.max(s.util, Number.isFinite(r.util) ? r.util : 0)
  seen.set(r.index, s)
}

const claims = new Set()
const shared = []
const walk = (v) => {
  if (Array.isArray(v)) return v.forEach(walk)
  if (!v || typeof v !== 'object') return
  for (const key of ['gpus_requested', 'gpus_observed']) if (Array.isArray(v[key])) v[key].filter((t) => /^pci-/.test(t)).forEach((t) => claims.add(t))
  if (typeof v.gpus_shared === 'string') shared.push(v.gpus_shared)
  Object.values(v).forEach(walk)
}
let result
try {
  result = JSON.parse(readFileSync(resultFile, 'utf8'))
} catch (e) {
  console.log(`${label}: FAIL no result (${e.message.split('\n')[0]})`)
  process.exit(1)
}
walk(result)

let failed = false
const lines = [`${label}: claims ${claims.size ? [...claims].join(', ') : 'no GPU by address'}`]
for (const [index, s] of [...seen].sort((a, b) => a[0] - b[0])) {
  const rise = s.mem - (base.get(index)?.mem ?? 0)
  const busy = s.util > 0 || rise >= 64
  const claimed = claims.has(s.tag)
  if (claimed && !busy) failed = true
  lines.push(`  GPU ${index} ${s.tag}: +${rise} MiB, util max ${s.util}%  ${busy ? 'busy' : 'idle'}${claimed ? ' (claimed)' : ''}${claimed && !busy ? '  FAIL: claimed but idle' : ''}${!claimed && busy ? '  (busy, not claimed)' : ''}`)
}
for (const tag of claims) if (![...seen.values()].some((s) => s.tag === tag)) lines.push(`  ${tag}: claimed, not a GPU nvidia-smi lists  FAIL`), (failed = true)
for (const s of shared) lines.push(`  shared: ${s}`)
lines.push(`  ${failed ? 'FAIL' : 'ok'}`)
console.log(lines.join('\n'))
process.exit(failed ? 1 : 0)
