// Cross-products, naive: one invocation per output Σₖ d_ik d_jk, reading both rows from memory
// (vec4 at a time). Sums are plain f32 over 32 samples, then compensated across those chunks
// under COMP.
// FLOP: 2 per sample and output. Traffic: 2 × 4 bytes per sample and output (no reuse).
#include "correlation/cross_common"

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

const B: u32 = 16u; // block side
const CHUNK: u32 = 8u; // vec4 per compensated chunk

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let id = group_id(wid, nwg);
  if (id >= params.blocks) {
    return;
  }
  let blk = block_of(id);
  let i = blk.x * B + lid.y;
  let j = blk.y * B + lid.x;
  let kv = params.k / 4u;
  var acc = vec2<f32>(0.0, 0.0);
  for (var k0 = 0u; k0 < kv; k0 += CHUNK) {
    var part = 0.0;
    for (var k = k0; k < min(k0 + CHUNK, kv); k++) {
      part += dot(a[i * kv + k], b[j * kv + k]);
    }
    acc = acc_add(acc, part);
  }
  c[i * params.stride_c + j] = acc_value(acc);
}
